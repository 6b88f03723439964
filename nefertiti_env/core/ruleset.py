"""Load and validate a ruleset file: all component data of the game lives there.

The default file is docs/rules.md's reconstruction. `load_ruleset` checks everything
and raises one `RulesetError` listing every problem with its key and reason, so a
user correcting a value sees all mistakes at once.
"""
from __future__ import annotations

import functools
import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .actions import ActionNames
from .engine.closing import Closing, validate_params
from .limits import (MAX_CHARACTERS, MAX_DECK, MAX_KINDS, MAX_PLAYERS, MAX_TYPES, NUM_BIDS, NUM_MARKETS,
                     SIDES, SYMBOLS)
from .power_table import POWERS

PACKAGED_RULESETS = Path(__file__).resolve().parent.parent / "rulesets"     # in the wheel; loaded by name
DEFAULT_RULESET = PACKAGED_RULESETS / "default.toml"

# Upper bounds of ruleset integers: far above the published game, low enough that every count,
# sum and score stays small in int64 and no setting makes a game or a loop unboundedly long.
MAX_AMOUNT = 1000          # Deben, points, bonuses, values, Memphis numbers, power parameters
MAX_COUNT = 100            # cards of a kind, seals, Akhenaton's depth
MAX_SERVANTS = 20          # servants or tutors per seat
MAX_CARDS_OF_CHARACTER = 10

class RulesetError(ValueError):
    """A ruleset file failed validation; `problems` lists every (key, reason)."""

    def __init__(self, source: str, problems: list[tuple[str, str]]):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {key}: {reason}" for key, reason in problems)
        super().__init__(f"invalid ruleset {source} ({len(problems)} problem(s)):\n{lines}")


@dataclass
class Stall:
    grid: list[list[int]]             # bid values by grid row
    symbols: dict[int, int]           # bid value -> symbol code
    closing: Closing


@dataclass
class Market:
    name: str
    stalls: tuple[Stall, Stall]       # left, right
    beginner_side: int
    start_closed: bool


@dataclass
class PlayerSetup:
    money: list[int]
    servants: int
    tutors: int
    remove_cards: list[str]
    add_cards: dict[str, int]
    remove_characters: dict[str, int]
    memphis: str                      # "optional" | "mandatory"
    expansion: bool


@dataclass
class Character:
    key: str
    name: str
    power: str
    params: dict
    count: int
    set: str
    always: bool


@dataclass
class Ruleset:
    """Validated component data, with numpy tables for the engine's hot paths."""

    name: str
    source: str
    data: dict                        # the parsed file, so a dict ruleset can travel in a record
    reconstructed: bool
    setup: dict
    players: dict[int, PlayerSetup]
    type_names: list[str]
    type_values: np.ndarray           # [types, 3] points per item for 1, 2, 3+ owners
    kind_names: list[str]
    kind_type: np.ndarray             # [kinds] gift type index
    kind_items: np.ndarray            # [kinds] items per card (double senet 2)
    kind_bonus: np.ndarray            # [kinds] foreign bonus
    kind_count: np.ndarray            # [kinds] cards in the base deck
    kind_per_player: np.ndarray       # [kinds] extra cards per player (papyrus)
    kind_memphis: np.ndarray          # [kinds] bool, only with the Port of Memphis
    kind_seal: np.ndarray             # [kinds] bool, brings a seal when taken from the board
    kind_max_value: np.ndarray        # [kinds] 1-owner value of the card (items x value)
    memphis: dict
    memphis_stall: Stall
    markets: list[Market]
    characters: list[Character]
    character_draw: int
    scenarios: dict[str, list[str]]
    # derived tables
    kind_discard_order: np.ndarray = field(init=False)   # least valuable card of a type first
    kind_type_items: np.ndarray = field(init=False)      # [kinds, types] items of the type per card
    kind_type_bonus: np.ndarray = field(init=False)      # [kinds, types] foreign bonus per card
    stalls: list = field(init=False)                     # [market] (left, right); Memphis twice
    square_exists: np.ndarray = field(init=False)        # [market, side, bid value]
    square_symbol: np.ndarray = field(init=False)        # [market, side, bid value] symbol code
    action_names: ActionNames = field(init=False)

    def __post_init__(self):
        # classic single card first, then double, then foreign by smallest bonus
        self.kind_discard_order = np.lexsort((self.kind_items, self.kind_bonus))
        onehot = np.zeros((len(self.kind_names), len(self.type_names)), dtype=np.int64)
        onehot[np.arange(len(self.kind_names)), self.kind_type] = 1
        self.kind_type_items = onehot * self.kind_items[:, None]
        self.kind_type_bonus = onehot * self.kind_bonus[:, None]
        self.stalls = [m.stalls for m in self.markets] + [(self.memphis_stall, self.memphis_stall)]
        self.square_exists = np.zeros((NUM_MARKETS, 2, NUM_BIDS), dtype=bool)
        self.square_symbol = np.zeros((NUM_MARKETS, 2, NUM_BIDS), dtype=np.int8)
        for m, pair in enumerate(self.stalls):
            for side, stall in enumerate(pair):
                for v, sym in stall.symbols.items():
                    self.square_exists[m, side, v] = True
                    self.square_symbol[m, side, v] = sym
        self.square_exists.flags.writeable = self.square_symbol.flags.writeable = False
        self.action_names = ActionNames([m.name for m in self.markets] + ["Memphis"],
                                        [c.name for c in self.characters], self.kind_names, self.type_names)

    def dealt(self, players: int) -> set[str]:
        """The names of the characters a game of this many players can deal: all but those its setup removes
        every copy of (docs/rules.md §1.1: two players play without the Scribe +3)."""
        removed = self.players[players].remove_characters
        return {c.name for c in self.characters if removed.get(c.key, 0) < c.count}

    @property
    def num_kinds(self) -> int:
        return len(self.kind_names)

    @property
    def num_types(self) -> int:
        return len(self.type_names)

    def kind_index(self, name: str) -> int:
        return self.kind_names.index(name)

    @functools.cached_property
    def sha256(self) -> str:
        """Hash of the data as canonical JSON (sorted keys): what a record checks its ruleset by, blind
        to a file's comments, layout and place on disk."""
        text = json.dumps(self.data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def character_index(self, key: str) -> int:
        return [c.key for c in self.characters].index(key)


def load_ruleset(ruleset: str | Path | dict = "default") -> Ruleset:
    """Load a ruleset: a packaged one by name ("default", "cheap_gold"), a TOML file path, or a parsed dict."""
    if isinstance(ruleset, Ruleset):
        return ruleset
    if isinstance(ruleset, dict):
        return _build(ruleset, "<dict>")
    packaged = _packaged(str(ruleset))
    if packaged is not None:
        return _load_file(packaged, 0)                                   # packaged: parsed once per process
    path = Path(ruleset)
    if not path.is_file():
        raise RulesetError(str(path), [("<file>", "no such file")])
    return _load_file(path.resolve(), path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=32)
def _packaged(name: str) -> Path | None:
    """The file of the packaged ruleset `name`, or None: looked up once per name (a game is made per
    reset, and the path work cost more than the game's other set-up together)."""
    path = PACKAGED_RULESETS / f"{name}.toml"
    return path if Path(name).name == name and path.is_file() else None


@functools.lru_cache(maxsize=32)
def _load_file(path: Path, mtime_ns: int) -> Ruleset:
    """Parse and validate once per file version (games share the immutable Ruleset)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise RulesetError(str(path), [("<file>", f"not valid TOML: {err}")]) from None
    return _build(data, str(path))


class _Checker:
    """Collects problems while reading nested tables."""

    def __init__(self):
        self.problems: list[tuple[str, str]] = []

    def fail(self, key: str, reason: str):
        self.problems.append((key, reason))

    def get(self, table, key, path, typ, default=None, required=True):
        if not isinstance(table, dict) or key not in table:
            if required:
                self.fail(f"{path}.{key}".lstrip("."), "missing")
            return default
        value = table[key]
        ok = isinstance(value, typ) and not (typ is int and isinstance(value, bool))
        if typ is int and isinstance(value, bool):
            ok = False
        if not ok:
            tname = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
            self.fail(f"{path}.{key}".lstrip("."), f"must be {tname}, got {type(value).__name__} {value!r}")
            return default
        return value

    def only(self, table, allowed, path):
        """Report keys the schema does not know (a misspelt key must not silently keep a default)."""
        if isinstance(table, dict):
            for key in table:
                if key not in allowed:
                    self.fail(f"{path}.{key}".lstrip("."), f"unknown key (known: {', '.join(allowed)})")

    def non_negative_int(self, table, key, path, default=0, required=True, high=MAX_AMOUNT):
        value = self.get(table, key, path, int, default, required)
        if isinstance(value, int) and not 0 <= value <= high:
            self.fail(f"{path}.{key}".lstrip("."), f"must be 0..{high}, got {_short(value)}")
            return default
        return value


def _short(value) -> str:
    """A value for an error message: a huge integer is shown by its size, not its 1,000 digits."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def _is_int_in(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _parse_squares(ck: _Checker, rows, path) -> tuple[list[list[int]], dict[int, int]] | None:
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) and r for r in rows):
        ck.fail(path, "must be a non-empty list of non-empty rows of squares")
        return None
    grid, symbols, seen = [], {}, set()
    for r, row in enumerate(rows):
        values = []
        for c, token in enumerate(row):
            where = f"{path}[{r}][{c}]"
            if not isinstance(token, str) or not token:
                ck.fail(where, f"square must be a string like '7' or '4c', got {token!r}")
                continue
            digits = token.rstrip("abcdefghijklmnopqrstuvwxyz")
            sym = token[len(digits):]
            if not digits.isdigit():
                ck.fail(where, f"square {token!r} must start with its bid value")
                continue
            value = int(digits)
            if not 0 <= value < NUM_BIDS:
                ck.fail(where, f"bid value {value} outside 0..{NUM_BIDS - 1}")
                continue
            if sym not in SYMBOLS:
                ck.fail(where, f"unknown symbol {sym!r} in {token!r} (known: c=coin, s=single, x=extra)")
                continue
            if value in seen:
                ck.fail(where, f"duplicate bid value {value} in this stall")
                continue
            seen.add(value)
            values.append(value)
            symbols[value] = SYMBOLS[sym]
        grid.append(values)
    return grid, symbols


def _parse_stall(ck: _Checker, table, path) -> Stall | None:
    if not isinstance(table, dict):
        ck.fail(path, "missing stall table")
        return None
    ck.only(table, ("squares", "closing"), path)
    parsed = _parse_squares(ck, table.get("squares"), f"{path}.squares")
    closing = ck.get(table, "closing", path, dict, {})
    if parsed is None or closing is None:
        return None
    grid, symbols = parsed
    params = {k: v for k, v in closing.items() if k != "kind"}
    kind = closing.get("kind")
    if not isinstance(kind, str):
        ck.fail(f"{path}.closing.kind", "missing or not a string")
        return None
    problems = validate_params(kind, params, grid)
    for reason in problems:
        ck.fail(f"{path}.closing", reason)
    if problems:
        return None
    return Stall(grid, symbols, Closing(kind, params, grid))


def can_close(stall: Stall) -> bool:
    """Can the stall's closing condition hold at all: when every square is taken (every kind holds
    more with more pieces), by pieces of five colours; a dice match, if a sum of its dice is a square."""
    closing, squares = stall.closing, [v for row in stall.grid for v in row]
    if closing.kind == "never" or not squares:
        return False
    if closing.kind == "dice_match":
        dice, sides = closing.params["dice"], closing.params["sides"]
        return any(dice <= v <= dice * sides for v in squares)
    row = [-1] * NUM_BIDS
    for i, v in enumerate(squares):
        row[v] = i % MAX_PLAYERS
    return closing.holds(closing.all_squares, squares[-1], row)


def _build(data: dict, source: str) -> Ruleset:
    ck = _Checker()
    ck.only(data, ("name", "reconstructed", "setup", "players", "gift_types", "cards", "memphis", "markets",
                   "characters", "character_draw", "scenarios"), "")
    name = ck.get(data, "name", "", str, "unnamed")
    reconstructed = ck.get(data, "reconstructed", "", bool, False, required=False)

    setup_t = ck.get(data, "setup", "", dict, {})
    ck.only(setup_t, ("reserve_start", "seals", "seals_expansion", "akhenaton_among_last", "cards_per_market",
                      "close_when_full"), "setup")
    setup = {
        key: ck.non_negative_int(setup_t, key, "setup", high=MAX_AMOUNT if key == "reserve_start" else MAX_COUNT)
        for key in ("reserve_start", "seals", "seals_expansion", "akhenaton_among_last", "cards_per_market")
    }
    setup["close_when_full"] = ck.get(setup_t, "close_when_full", "setup", bool, True, required=False)
    if isinstance(setup["cards_per_market"], int) and not 1 <= setup["cards_per_market"] <= 4:
        ck.fail("setup.cards_per_market", "must be 1..4 (one upper and up to three lower cards)")
    if isinstance(setup["akhenaton_among_last"], int) and setup["akhenaton_among_last"] < 1:
        ck.fail("setup.akhenaton_among_last", "must be at least 1")
    if isinstance(setup["seals"], int) and isinstance(setup["seals_expansion"], int) \
            and setup["seals_expansion"] < setup["seals"]:
        ck.fail("setup.seals_expansion", "must not be smaller than setup.seals")

    # gift types
    types_t = ck.get(data, "gift_types", "", dict, {})
    type_names, type_values = [], []
    for tname, t in types_t.items():
        ck.only(t, ("values", "reconstructed"), f"gift_types.{tname}")
        values = ck.get(t, "values", f"gift_types.{tname}", list, None)
        if values is not None:
            if len(values) != 3 or not all(_is_int_in(v, 0, MAX_AMOUNT) for v in values):
                ck.fail(f"gift_types.{tname}.values",
                        f"must be three integers 0..{MAX_AMOUNT} (1, 2, 3+ owners), got {_short(values)}")
                values = None
        type_names.append(tname)
        type_values.append(values or [0, 0, 0])
    if len(type_names) > MAX_TYPES:
        ck.fail("gift_types", f"at most {MAX_TYPES} gift types, got {len(type_names)}")

    # card kinds
    cards_t = ck.get(data, "cards", "", dict, {})
    kinds = []
    for kname, k in cards_t.items():
        path = f"cards.{kname}"
        ck.only(k, ("type", "count", "items", "bonus", "per_player", "module", "seal"), path)
        ktype = ck.get(k, "type", path, str, None)
        if ktype is not None and ktype not in type_names:
            ck.fail(f"{path}.type", f"unknown gift type {ktype!r} (known: {', '.join(type_names)})")
            ktype = None
        module = ck.get(k, "module", path, str, "", required=False)
        if module not in ("", "memphis"):
            ck.fail(f"{path}.module", f"unknown module {module!r} (known: memphis)")
        items = ck.non_negative_int(k, "items", path, 1, required=False, high=MAX_COUNT)
        if items == 0:
            ck.fail(f"{path}.items", "must be at least 1")
        kinds.append(dict(
            name=kname, type=type_names.index(ktype) if ktype else 0,
            count=ck.non_negative_int(k, "count", path, high=MAX_COUNT), items=items,
            bonus=ck.non_negative_int(k, "bonus", path, 0, required=False),
            per_player=ck.non_negative_int(k, "per_player", path, 0, required=False, high=MAX_COUNT),
            memphis=module == "memphis", seal=ck.get(k, "seal", path, bool, False, required=False),
        ))
    kind_names = [k["name"] for k in kinds]
    if len(kinds) > MAX_KINDS:
        ck.fail("cards", f"at most {MAX_KINDS} card kinds, got {len(kinds)}")
    if not kinds:
        ck.fail("cards", "no card kinds")

    def check_kind_map(mapping, path, allow_list=False):
        """Report unknown kinds and bad counts; return the valid part (so later checks stay in range)."""
        names = mapping if allow_list else list(mapping)
        for kname in names:
            if kname not in kind_names:
                ck.fail(path, f"unknown card kind {kname!r}")
        if allow_list:
            return mapping
        for kname, n in mapping.items():
            if not _is_int_in(n, 0, MAX_COUNT):
                ck.fail(f"{path}.{kname}", f"must be an integer 0..{MAX_COUNT}, got {_short(n)}")
        return {k: n for k, n in mapping.items() if k in kind_names and _is_int_in(n, 0, MAX_COUNT)}

    # Memphis
    memphis_t = ck.get(data, "memphis", "", dict, {})
    ck.only(memphis_t, ("replaces", "distribute_at", "highest_takes", "tutor_deben", "squares"), "memphis")
    replaces = ck.get(memphis_t, "replaces", "memphis", dict, {})
    replaces = check_kind_map(replaces, "memphis.replaces")
    memphis = dict(
        replaces=replaces,
        distribute_at=ck.non_negative_int(memphis_t, "distribute_at", "memphis", 4),
        highest_takes=ck.non_negative_int(memphis_t, "highest_takes", "memphis", 2),
        tutor_deben=ck.non_negative_int(memphis_t, "tutor_deben", "memphis", 4),
    )
    for kname, n in replaces.items():
        if n > kinds[kind_names.index(kname)]["count"]:
            ck.fail(f"memphis.replaces.{kname}", f"replaces {n} cards but the deck has only "
                    f"{kinds[kind_names.index(kname)]['count']}")
    parsed = _parse_squares(ck, memphis_t.get("squares"), "memphis.squares")
    memphis_stall = Stall(parsed[0], parsed[1], Closing("never", {}, parsed[0])) if parsed else None

    # markets
    markets_t = ck.get(data, "markets", "", list, [])
    if len(markets_t) != NUM_MARKETS - 1:
        ck.fail("markets", f"must list exactly {NUM_MARKETS - 1} markets, got {len(markets_t)}")
    markets = []
    names_seen = set()
    for i, m in enumerate(markets_t):
        path = f"markets[{i}]"
        ck.only(m, ("name", "beginner", "start_closed", "left", "right"), path)
        mname = ck.get(m, "name", path, str, f"market{i}")
        if mname in names_seen or mname.lower() == "memphis":
            ck.fail(f"{path}.name", f"market name {mname!r} is used twice or reserved")
        names_seen.add(mname)
        beginner = ck.get(m, "beginner", path, str, "left")
        if beginner not in SIDES:
            ck.fail(f"{path}.beginner", f"must be 'left' or 'right', got {beginner!r}")
            beginner = "left"
        left = _parse_stall(ck, m.get("left") if isinstance(m, dict) else None, f"{path}.left")
        right = _parse_stall(ck, m.get("right") if isinstance(m, dict) else None, f"{path}.right")
        start_closed = ck.get(m, "start_closed", path, bool, False, required=False)
        if left and right and not setup["close_when_full"] and not (can_close(left) or can_close(right)):
            ck.fail(f"{path}.closing", "neither stall's condition can hold on its squares and "
                    "setup.close_when_full is false: the market would never close, so no game could end")
        if left and right:
            markets.append(Market(mname, (left, right), SIDES.index(beginner), start_closed))
    if len(markets_t) == NUM_MARKETS - 1 and sum(m.get("start_closed", False) is True for m in markets_t
                                                  if isinstance(m, dict)) != 1:
        ck.fail("markets", "exactly one market must have start_closed = true")

    # characters
    chars_t = ck.get(data, "characters", "", dict, {})
    characters = []
    for key, c in chars_t.items():
        path = f"characters.{key}"
        power = ck.get(c, "power", path, str, None)
        cset = ck.get(c, "set", path, str, "base")
        if cset not in ("base", "expansion"):
            ck.fail(f"{path}.set", f"must be 'base' or 'expansion', got {cset!r}")
        params = {k: v for k, v in c.items() if k not in ("name", "power", "count", "set", "always")} \
            if isinstance(c, dict) else {}
        if power is not None:
            if power not in POWERS:
                ck.fail(f"{path}.power", f"unknown power {power!r} (known: {', '.join(sorted(POWERS))})")
            else:
                _check_power_params(ck, POWERS[power], params, path)
        characters.append(Character(key, ck.get(c, "name", path, str, key), power or "", params,
                                    ck.non_negative_int(c, "count", path, 0, high=MAX_CARDS_OF_CHARACTER), cset,
                                    ck.get(c, "always", path, bool, False, required=False)))
    if len(characters) > MAX_CHARACTERS:
        ck.fail("characters", f"at most {MAX_CHARACTERS} characters, got {len(characters)}")
    char_keys = [c.key for c in characters]
    char_names = [c.name.lower() for c in characters]
    if len(set(char_names)) != len(char_names):
        ck.fail("characters", "character names must be unique")

    draw_t = ck.get(data, "character_draw", "", dict, {})
    ck.only(draw_t, ("draw",), "character_draw")
    character_draw = ck.non_negative_int(draw_t, "draw", "character_draw", 6, high=MAX_CHARACTERS)
    scenarios = ck.get(data, "scenarios", "", dict, {}, required=False)
    for sname, roster in scenarios.items():
        if not isinstance(roster, list):
            ck.fail(f"scenarios.{sname}", "must be a list of character keys")
            continue
        for key in roster:
            if key not in char_keys:
                ck.fail(f"scenarios.{sname}", f"unknown character {key!r}")
        for key in set(roster):
            if key in char_keys and roster.count(key) > characters[char_keys.index(key)].count:
                ck.fail(f"scenarios.{sname}", f"uses {key!r} {roster.count(key)} times but there are only "
                        f"{characters[char_keys.index(key)].count} such cards")

    # players
    players_t = ck.get(data, "players", "", dict, {})
    ck.only(players_t, tuple(str(n) for n in range(2, MAX_PLAYERS + 1)), "players")
    players = {}
    for n in range(2, MAX_PLAYERS + 1):
        path = f"players.{n}"
        p = players_t.get(str(n)) if isinstance(players_t, dict) else None
        if p is None:
            ck.fail(path, "missing")
            continue
        ck.only(p, ("money", "servants", "tutors", "remove_cards", "add_cards", "remove_characters", "memphis",
                    "expansion"), path)
        money = ck.get(p, "money", path, list, [])
        if len(money) != n or not all(_is_int_in(v, 0, MAX_AMOUNT) for v in money):
            ck.fail(f"{path}.money", f"must list {n} integers 0..{MAX_AMOUNT} (one per seat), got {_short(money)}")
            money = [0] * n
        remove_cards = ck.get(p, "remove_cards", path, list, [])
        check_kind_map(remove_cards, f"{path}.remove_cards", allow_list=True)
        add_cards = ck.get(p, "add_cards", path, dict, {}, required=False)
        add_cards = check_kind_map(add_cards, f"{path}.add_cards")
        remove_chars = ck.get(p, "remove_characters", path, dict, {})
        for key, cnt in remove_chars.items():
            if key not in char_keys:
                ck.fail(f"{path}.remove_characters", f"unknown character {key!r}")
            elif not _is_int_in(cnt, 0, MAX_CARDS_OF_CHARACTER):
                ck.fail(f"{path}.remove_characters.{key}",
                        f"must be an integer 0..{MAX_CARDS_OF_CHARACTER}, got {_short(cnt)}")
            elif cnt > characters[char_keys.index(key)].count:
                ck.fail(f"{path}.remove_characters.{key}", f"removes {cnt} cards but there are only "
                        f"{characters[char_keys.index(key)].count}")
        memphis_mode = ck.get(p, "memphis", path, str, "optional")
        if memphis_mode not in ("optional", "mandatory"):
            ck.fail(f"{path}.memphis", f"must be 'optional' or 'mandatory', got {memphis_mode!r}")
        players[n] = PlayerSetup(money, ck.non_negative_int(p, "servants", path, 4, high=MAX_SERVANTS),
                                 ck.non_negative_int(p, "tutors", path, 0, high=MAX_SERVANTS), remove_cards, add_cards,
                                 remove_chars, memphis_mode, ck.get(p, "expansion", path, bool, False))
        if players[n].servants < 1:
            ck.fail(f"{path}.servants", "must be at least 1")

    for key, reason in _deck_problems(kinds, players, memphis, setup):
        ck.fail(key, reason)
    if ck.problems:
        raise RulesetError(source, ck.problems)

    ruleset = Ruleset(
        name=name, source=source, data=data, reconstructed=reconstructed, setup=setup, players=players,
        type_names=type_names, type_values=np.array(type_values, dtype=np.int64).reshape(-1, 3),
        kind_names=kind_names,
        kind_type=np.array([k["type"] for k in kinds], dtype=np.int64),
        kind_items=np.array([k["items"] for k in kinds], dtype=np.int64),
        kind_bonus=np.array([k["bonus"] for k in kinds], dtype=np.int64),
        kind_count=np.array([k["count"] for k in kinds], dtype=np.int64),
        kind_per_player=np.array([k["per_player"] for k in kinds], dtype=np.int64),
        kind_memphis=np.array([k["memphis"] for k in kinds], dtype=bool),
        kind_seal=np.array([k["seal"] for k in kinds], dtype=bool),
        kind_max_value=np.array([type_values[k["type"]][0] * k["items"] for k in kinds], dtype=np.int64),
        memphis=memphis, memphis_stall=memphis_stall, markets=markets, characters=characters,
        character_draw=character_draw, scenarios=scenarios,
    )
    return ruleset


def _check_power_params(ck: _Checker, power, params: dict, path: str) -> None:
    """A character's parameters against its power's row in the table (`power_table.POWER_TABLE`)."""
    for p in power.params:
        value = params.get(p.name)
        if p.name not in params:
            ck.fail(path, f"power {power.name!r} needs parameter {p.name!r}")
        elif p.type is list:
            if not isinstance(value, list) or not value or not all(
                    _is_int_in(v, -MAX_AMOUNT, MAX_AMOUNT) for v in value):
                ck.fail(f"{path}.{p.name}", f"must be a non-empty list of integers "
                                            f"-{MAX_AMOUNT}..{MAX_AMOUNT}, got {_short(value)}")
        elif not _is_int_in(value, 0, MAX_AMOUNT):
            ck.fail(f"{path}.{p.name}", f"must be an integer 0..{MAX_AMOUNT}, got {_short(value)}")
    for p in power.params:          # a narrower range the engine needs
        value = params.get(p.name)
        if p.low is not None and isinstance(value, int) and not p.low <= value <= p.high:
            ck.fail(f"{path}.{p.name}", f"must be {p.low}..{p.high} ({p.why})")
    known = [p.name for p in power.params]
    for pname in params:
        if pname not in known:
            ck.fail(f"{path}.{pname}", f"power {power.name!r} has no parameter {pname!r}")


def _deck_problems(kinds: list[dict], players: dict, memphis: dict, setup: dict) -> list[tuple[str, str]]:
    """Counts must add up: every player count must be able to fill its markets at setup.

    Checked alongside every other problem; skipped where the names it needs are already wrong.
    """
    if not kinds or not isinstance(setup.get("cards_per_market"), int) \
            or not isinstance(setup.get("akhenaton_among_last"), int):
        return []
    draft = SimpleNamespace(
        kind_names=[k["name"] for k in kinds], memphis=memphis, players=players,
        kind_count=np.array([k["count"] or 0 for k in kinds]),
        kind_per_player=np.array([k["per_player"] or 0 for k in kinds]),
        kind_memphis=np.array([k["memphis"] for k in kinds]))
    bonus = np.array([k["bonus"] or 0 for k in kinds])
    need = 3 * setup["cards_per_market"] + setup["akhenaton_among_last"] - 1
    problems = []
    for n, p in players.items():
        for use_memphis in (False, True):
            if not use_memphis and p.memphis == "mandatory":
                continue
            try:
                counts = deck_counts(draft, n, use_memphis)
            except ValueError:          # an unknown card name, reported already
                return problems
            if use_memphis:
                problems += [(f"memphis.replaces.{name}", f"with {n} players the deck would hold a negative "
                              "number of these cards") for name in memphis["replaces"]
                             if counts[draft.kind_names.index(name)] < 0]
            if int(counts.sum()) + 1 > MAX_DECK:
                problems.append((f"players.{n}", f"the deck ({int(counts.sum())} gifts and the Akhenaton card) is "
                                 f"larger than the engine's {MAX_DECK} card places"))
            problems += [(f"cards.{name}", f"with {n} players{' and Memphis' if use_memphis else ''} the deck holds "
                          f"{int(c)} of these cards, more than {MAX_COUNT} (the engine holds a kind's cards in a byte)")
                         for name, c in zip(draft.kind_names, counts) if c > MAX_COUNT]
            classic = int(counts[bonus == 0].sum())     # foreign gifts go to Memphis, not to markets
            if classic < need:
                problems.append((f"players.{n}", f"the deck ({int(counts.sum())} gifts) is too small to fill "
                                 f"three markets and the bottom of the deck ({need} needed)"))
    return list(dict.fromkeys(problems))


def deck_counts(rs: Ruleset, num_players: int, memphis: bool) -> np.ndarray:
    """Number of cards of each kind in the deck for this player count and module choice."""
    p = rs.players[num_players]
    counts = rs.kind_count.copy()
    if memphis:
        counts += rs.kind_per_player * num_players
        for kname, n in rs.memphis["replaces"].items():
            counts[rs.kind_names.index(kname)] -= n
    else:
        counts[rs.kind_memphis] = 0
    for kname in p.remove_cards:
        counts[rs.kind_names.index(kname)] = 0
    for kname, n in p.add_cards.items():
        counts[rs.kind_names.index(kname)] += n
    return counts
