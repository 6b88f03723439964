"""Loading a saved state (`NefertitiGame.from_json`): every problem is found and listed at once.

A saved state is untrusted text: a hand edit, another program, a truncated file. It is
checked in two stages, each listing all its problems in one `StateError`:

1. shape: a JSON object with the format tag, the ruleset and a `state` object whose keys,
   types and array shapes are exactly those of a new game with the same seed and options
   (the declaration of what is saved is `saved_state`, below);
2. meaning: ranges, card, seal, money, servant and character conservation against that
   new game, and a phase whose context (actor, resolution, character) is consistent.

Only a state passing both is returned, so a game never plays on from an impossible position.
The compiled engine does no bounds checks (numba does none, and one per index would cost the hot
loop), so these checks are also its memory safety: every value it uses as an index (pieces, card
codes, markets, places, bid values, the resolution's order and position, a character's step and
choices) is held to the range the engine gives it; and every integer to its field's width (int8, int16,
int32: `layout.STATE_FIELDS`), so that no value is cut short when it is stored, and the history to
|v| <= VALUE_LIMIT (docs/engine.md, "Checks at the boundary").
"""
from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np

from . import actions as A
from .engine import layout as L
from .limits import MAX_SLOTS, MEMPHIS, NUM_BIDS, NUM_MARKETS
from .phases import NEUTRAL, NUM_OWNERS, NUM_PHASES, PH_CHARACTER, PH_OVER, PH_TUTOR_DIST, RESOLUTION_PHASES, TUTOR
from .power_table import POWERS

FORMAT = "nefertiti-state-2"     # 2: the fields of engine/layout.py (1: the Python engine's attributes)
INT64 = np.iinfo(np.int64)
VALUE_LIMIT = 2**31      # the history's entries and a placed square's pair: any saved value beyond is refused
OWNER_ROWS = ("money", "seals", "points", "servants", "tutors", "owned", "char_played")
# not saved: derived from the options and the history, the generator (saved as numpy's dict), the explicit dice
UNSAVED = ("deck_len", "decisions", "rng", "dice_script", "dice_scripted", "dice_missing")
FLAGS = ("akhenaton_drawn", "character_used", "tutor_ready")


class StateError(ValueError):
    """A saved state that cannot be loaded; `problems` lists every reason (key: what is wrong)."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"invalid Nefertiti state ({len(problems)} problem(s)):\n{lines}")


def fields(game) -> dict:
    """Every saved field of `game` by name, as the saved state holds it: an array as a view of the
    state (`owned`, `discarded` cut to the ruleset's kinds, `deck` to the dealt cards), a list as its
    entries (`placed` as (market, value) pairs, `res_order` a tuple), a flag as a bool, a number as an int."""
    s, kinds, out = game.state, game.rules.num_kinds, {}
    for name, shape, what, _ in L.STATE_FIELDS:
        if name in UNSAVED:
            continue
        value = getattr(s, name)
        if what == "scalar":
            value = bool(value) if name in FLAGS else int(value)
        elif what == "list":
            value = value[:getattr(s, name + "_n")].tolist()
            value = [divmod(sq, NUM_BIDS) for sq in value] if name == "placed" else \
                tuple(value) if name == "res_order" else value
        elif name in ("owned", "discarded"):
            value = value[..., :kinds]
        out[name] = value
    out["deck"] = game.deck
    return out


def set_list(s, name: str, values) -> None:
    """Write list field `name` of the record `s`: its entries, zeros after them and its count
    (`placed` takes (market, value) pairs); ValueError if they do not fit."""
    values = [m * NUM_BIDS + v for m, v in values] if name == "placed" else list(values)
    room = getattr(s, name)
    if len(values) > len(room):
        raise ValueError(f"{name}: at most {len(room)} entries")
    low, high = _width(room.dtype)
    if not all(low <= v <= high for v in values):
        raise ValueError(f"{name}: entries must be within {low}..{high} (the field's width)")
    room[:] = 0
    room[:len(values)] = values
    setattr(s, name + "_n", len(values))


def saved_state(game) -> dict:
    """The complete state as JSON values: seed, options, history, every field of `fields` and the
    generator as numpy's state dict."""
    state = {"seed": game.seed, "options": game.options, "history": list(game.history),
             "private_to": list(game.private_to)}
    for name, value in fields(game).items():
        state[name] = value.tolist() if isinstance(value, np.ndarray) else \
            [list(x) for x in value] if name == "placed" else list(value) if isinstance(value, tuple) else value
    state["rng"] = game.rng_state
    return state


def load(cls, text: str, ruleset, ruleset_arg):
    """The game saved in `text` (see the module docstring); raises StateError listing every problem."""
    try:
        data = json.loads(text)
    except (TypeError, json.JSONDecodeError, RecursionError) as err:
        raise StateError([f"not JSON text: {err}"]) from None
    if not isinstance(data, dict):
        raise StateError([f"a saved state is a JSON object with 'format', 'ruleset' and 'state', "
                          f"got a JSON {type(data).__name__}"])
    problems = [f"unknown top-level key {k!r}" for k in data if k not in ("format", "ruleset", "state")]
    if data.get("format") != FORMAT:
        problems.append(f"not a Nefertiti state (missing format {FORMAT!r}, got {data.get('format')!r})")
    state = data.get("state")
    if not isinstance(state, dict):
        problems.append("'state' must be a JSON object")
    elif not isinstance(state.get("options"), dict) or not _is_int(state.get("seed")):
        problems.append("state.seed must be an integer and state.options an object")
    if problems:
        raise StateError(problems)
    try:
        template = cls(ruleset=ruleset_arg(data.get("ruleset"), ruleset),
                       seed=state["seed"], **state["options"])
    except (TypeError, ValueError) as err:      # RulesetError is a ValueError
        raise StateError([f"state.options or ruleset: {err}"]) from None
    game = template.clone()
    problems = _fill(game, template.saved_state(), state)
    if not problems:
        game.state.decisions = len(game.history)
        problems = meaning_problems(game, template)
    if problems:
        raise StateError(problems)
    return game


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and INT64.min <= v <= INT64.max


def _width(dtype) -> tuple[int, int]:
    """The lowest and highest value of a field's integer type (of its entries, for an array's)."""
    info = np.iinfo(np.dtype(dtype).base)
    return int(info.min), int(info.max)


def _is_value(v, low: int = -VALUE_LIMIT, high: int = VALUE_LIMIT) -> bool:
    """An integer within low..high (by default the history's VALUE_LIMIT)."""
    return _is_int(v) and low <= v <= high


def _fill(game, expected: dict, state: dict) -> list[str]:
    """Copy `state` into `game` field by field, each checked against the new game's `expected` value."""
    s, current_fields = game.state, fields(game)
    problems = [f"state.{k}: unknown key" for k in state if k not in expected]
    problems += [f"state.{k}: missing" for k in expected if k not in state]
    for key, want in expected.items():
        if key not in state or key in ("seed", "options"):
            continue
        value, where = state[key], f"state.{key}"
        if key == "rng":
            try:
                game.rng_state = value
            except (TypeError, ValueError, KeyError, OverflowError) as err:
                problems.append(f"{where}: not a PCG64 generator state ({err!r})")
            continue
        current = current_fields.get(key)
        if isinstance(current, np.ndarray):
            problems += _fill_array(current, value, where)
        elif isinstance(want, bool):
            if not isinstance(value, bool):
                problems.append(f"{where}: must be true or false, got {value!r}")
            else:
                setattr(s, key, value)
        elif isinstance(want, int):
            low, high = _width(L.STATE_RECORD.fields[key][0])
            if not _is_value(value, low, high):
                problems.append(f"{where}: must be an integer within {low}..{high} (the field's width), got {value!r}")
            else:
                setattr(s, key, value)
        elif key == "placed":
            if not (isinstance(value, list) and all(isinstance(x, list) and len(x) == 2 and all(map(_is_value, x))
                                                    for x in value)):
                problems.append(f"{where}: must be a list of [market, value] pairs, got {value!r}")
            else:
                try:
                    set_list(s, key, value)
                except ValueError as err:
                    problems.append(f"{where}: {err}")
        elif key in ("history", "private_to"):
            if not (isinstance(value, list) and all(map(_is_value, value))):
                problems.append(f"{where}: must be a list of integers within +-{VALUE_LIMIT}, got {value!r}")
            else:
                setattr(game, key, list(value))
        elif isinstance(want, (list, tuple)):
            if not (isinstance(value, list) and all(map(_is_int, value))):
                problems.append(f"{where}: must be a list of integers, got {value!r}")
            else:
                try:
                    set_list(s, key, value)
                except ValueError as err:
                    problems.append(f"{where}: {err}")
        else:
            raise AssertionError(f"saved field {key} of an undeclared type")
    return problems


def _fill_array(current: np.ndarray, value, where: str) -> list[str]:
    try:
        array = np.array(value)
    except (ValueError, OverflowError):
        return [f"{where}: not a rectangular array of numbers"]
    if array.shape != current.shape:
        return [f"{where}: shape {array.shape}, expected {current.shape}"]
    low, high = _width(current.dtype)
    if array.size and (array.dtype.kind not in "iu"
                       or not all(_is_value(v, low, high) for v in array.ravel().tolist())):
        return [f"{where}: must hold integers within {low}..{high} (the field's width)"]
    current[...] = array
    return []


def meaning_problems(g, template) -> list[str]:
    """Why the loaded state `g` cannot be a position of the game `template` (same seed and options) began as."""
    f, tf = SimpleNamespace(**fields(g)), SimpleNamespace(**fields(template))   # the saved fields by name
    rs, n = g.rules, f.num_players
    problems: list[str] = []

    def need(ok, text):
        if not ok:
            problems.append(text)

    need(f.num_players == tf.num_players, f"num_players: must be {tf.num_players} for these "
                                          f"options, got {f.num_players}")
    if problems:
        return problems
    unused = [o for o in range(n, NUM_OWNERS) if not (o == NEUTRAL and n == 2)]
    for name in ("money", "seals", "points", "servants", "tutors", "owned", "char_played", "reserve",
                 "char_avail", "discarded"):
        array = getattr(f, name)
        need(array.min() >= 0, f"{name}: negative value {int(array.min())}")
        if name in OWNER_ROWS:
            need(not array[unused].any(), f"{name}: values for owners beyond the {n} players")
    for name in ("seal_supply", "deben_out", "tutor_left", "deck_pos", "res_pos", "res_picks", "extra_placements"):
        need(getattr(f, name) >= 0, f"{name}: negative value {getattr(f, name)}")
    need(not f.seals[NEUTRAL] and not f.money[NEUTRAL] and not f.servants[NEUTRAL],
         "the neutral player holds no seal, Deben or servant")
    need(set(f.side.tolist()) <= {0, 1}, f"side: each market shows stall 0 or 1, got {f.side.tolist()}")
    for name in ("is_open", "dead", "face_down", "seal_on"):
        need(set(getattr(f, name).ravel().tolist()) <= {0, 1}, f"{name}: values must be 0 or 1")

    # cards: every gift in exactly one place, one Akhenaton card, the Roaming Thief card at most once
    k = rs.num_kinds
    deck, undrawn = f.deck, f.deck[f.deck_pos:] if 0 <= f.deck_pos <= len(f.deck) else f.deck[:0]
    before = len(problems)
    need(f.deck_pos <= len(deck), f"deck_pos {f.deck_pos} beyond the deck of {len(deck)} cards")
    need(((deck >= 0) & (deck <= g.kind_akhenaton)).all(), f"deck: card codes must be 0..{g.kind_akhenaton}")
    need(((f.slots >= -1) & (f.slots <= g.kind_roaming) & (f.slots != g.kind_akhenaton)).all(),
         f"slots: card codes must be -1 (empty) or gifts 0..{k - 1} or the Roaming Thief card {g.kind_roaming}")
    need(np.count_nonzero(deck == g.kind_akhenaton) == 1, "deck: exactly one Akhenaton card")
    if len(problems) == before and f.owned.min() >= 0 and f.discarded.min() >= 0:
        problems += _card_problems(g, f, tf, undrawn)
    need(np.count_nonzero(f.slots == g.kind_roaming) <= 1, "slots: the Roaming Thief card lies on the board twice")
    need(not (f.face_down & (f.slots < 0)).any(), "face_down: only a card lies face down")
    need(not f.seal_on[MEMPHIS], "seal_on: no seal lies at the Port of Memphis")

    # closed systems: seals, Deben, pieces, character cards
    seals, start_seals = (x.seal_supply + x.seals.sum() + x.seal_on.sum() for x in (f, tf))
    need(seals == start_seals, f"seals: {seals} in supply, owned and on cards, the game has {start_seals}")
    held = f.tutor_left if f.phase == PH_TUTOR_DIST else 0
    money = f.money.sum() + f.reserve.sum() + f.deben_out + held
    start_money = tf.money.sum() + tf.reserve.sum()
    need(money == start_money, f"Deben: {money} held by players, Reserves and the neutral player, the game has "
                               f"{start_money}")
    pieces = f.occ.ravel()
    need(((pieces >= -1) & (pieces < TUTOR + n) & ((pieces < n) | (pieces >= TUTOR))).all(),
         f"occ: pieces must be -1 (empty), a seat 0..{n - 1} or a tutor {TUTOR}..{TUTOR + n - 1}")
    for name, (offset, total) in {"servants": (0, tf.servants), "tutors": (TUTOR, tf.tutors)}.items():
        on_board = np.bincount(pieces[(pieces >= offset) & (pieces < offset + n)] - offset, minlength=n)[:n]
        supply = getattr(f, name)[:n]
        need((supply + on_board == total[:n]).all(), f"{name}: {(supply + on_board).tolist()} per seat in supply "
                                                     f"and on the board, the game has {total[:n].tolist()}")
    chars = f.char_avail + f.char_played.sum(axis=0)
    need((chars == tf.char_avail).all(), "char_avail + char_played: character cards must match the game's "
                                               f"roster {tf.char_avail.tolist()}")

    # the phase and its context
    need(0 <= f.phase < NUM_PHASES, f"phase: must be 0..{NUM_PHASES - 1}, got {f.phase}")
    over = f.phase == PH_OVER
    need(f.actor == -1 if over else 0 <= f.actor < n, f"actor: {f.actor} does not fit phase {f.phase}")
    for name in ("turn_player", "first_player"):
        need(0 <= getattr(f, name) < n, f"{name}: must be a seat 0..{n - 1}")
    in_res = f.phase in RESOLUTION_PHASES or (f.phase == PH_CHARACTER and f.roam_resume >= 0)
    need((0 <= f.res_market < NUM_MARKETS) if in_res else f.res_market == -1,
         f"res_market {f.res_market}: a market during a resolution, -1 otherwise")
    need(all(0 <= m < NUM_MARKETS for m in f.pending), "pending: markets must be 0..4")
    need(f.roam_resume == -1 or f.roam_resume in RESOLUTION_PHASES, "roam_resume: -1 or a resolution phase")
    if f.phase == PH_CHARACTER:
        need(0 <= f.char_index < len(rs.characters), f"char_index {f.char_index}: no such character")
    else:
        need(f.char_index == -1 and not f.char_sel, "char_index, char_sel: a character only in the character phase")
    need(f.oracle_seat == -1 or 0 <= f.oracle_seat < n, f"oracle_seat: -1 or a seat, got {f.oracle_seat}")
    need(0 <= f.oracle_from <= len(deck), f"oracle_from: a deck position, got {f.oracle_from}")
    need(all(0 <= a < A.NUM_ACTIONS for a in g.history), f"history: action ids must be 0..{A.NUM_ACTIONS - 1}")
    need(len(g.private_to) == len(g.history) and all(-1 <= s < n for s in g.private_to),
         f"private_to: one entry per history action, -1 (public) or a seat 0..{n - 1}")
    need(len(g.history) <= g.options["max_decisions"], f"history: {len(g.history)} decisions, more than "
                                                       f"max_decisions {g.options['max_decisions']}")
    need(all(0 <= m < NUM_MARKETS and 0 <= v < NUM_BIDS for m, v in f.placed),
         f"placed: squares must be [market 0..{NUM_MARKETS - 1}, value 0..{NUM_BIDS - 1}]")
    need(all(0 <= m < NUM_MARKETS for m in f.tutor_given), f"tutor_given: markets must be 0..{NUM_MARKETS - 1}")
    need(all(0 <= kind < k for kind in f.oracle_given), f"oracle_given: gifts must be card codes 0..{k - 1}")
    need(0 <= f.res_stage <= L.STAGE_DONE, f"res_stage: must be 0..{L.STAGE_DONE}, got {f.res_stage}")
    need(f.tutor_left > 0 if f.phase == PH_TUTOR_DIST else f.tutor_left == 0,
         f"tutor_left {f.tutor_left}: Deben to place in the tutor Deben phase only")
    if not problems:
        problems += _resolution_problems(f, in_res) + _character_problems(g, f)
    if not problems and not g.is_over():
        try:
            need(bool(g.legal_actions()), "no legal action in this state")
        except (IndexError, KeyError, ValueError, AssertionError) as err:
            problems.append(f"the state has no consistent decision: {err!r}")
    return problems


def _resolution_problems(f, in_res: bool) -> list[str]:
    """The market being resolved: its bid values high first, each piece still to resolve on its square,
    the one resolving now the actor's (the engine reads the actor from that square)."""
    order, pos = list(f.res_order), f.res_pos
    if not in_res:
        return [] if not order and pos == 0 else ["res_order, res_pos: empty and 0 outside a resolution"]
    if not (all(0 <= v < NUM_BIDS for v in order) and order == sorted(set(order), reverse=True)):
        return [f"res_order: distinct bid values 0..{NUM_BIDS - 1}, high first, got {order}"]
    if not 0 <= pos < len(order):
        return [f"res_pos {pos}: must index res_order (of {len(order)} values) during a resolution"]
    m = f.res_market
    if any(f.occ[m, v] < 0 for v in order[pos:]):
        return [f"res_order: the pieces still to resolve must stand on market {m}'s squares {order[pos:]}"]
    if f.occ[m, order[pos]] % TUTOR != f.actor and f.phase != PH_CHARACTER:
        return [f"actor {f.actor}: the piece resolving now (market {m}, bid {order[pos]}) is another seat's"]
    if f.roam_resume >= 0 and not 0 <= f.roam_slot < MAX_SLOTS:
        return [f"roam_slot {f.roam_slot}: the place the Roaming Thief card was bought from, 0..{MAX_SLOTS - 1}"]
    return []


def _character_problems(g, f) -> list[str]:
    """The character being played: a step its power has, and choices that fit that step (each entry of
    char_sel means what the step's `chosen` in `power_table` says)."""
    if f.phase != PH_CHARACTER:
        return []
    character = g.rules.characters[f.char_index]
    power, step, sel = POWERS[character.power], f.char_step, list(f.char_sel)
    if power.name == "oracle":              # its places count from where the deck's bottom begins
        return _oracle_problems(g, f, character.params["cards"])
    if not 0 <= step < len(power.steps) or len(sel) != len(power.steps[step].chosen):
        return [f"char_step {step}, char_sel {sel}: not a step of the {power.name} power"]
    if not all(_choice_fits(g, power.param(character.params, "exchanges"), what, v)
               for what, v in zip(power.steps[step].chosen, sel)):
        return [f"char_sel {sel}: choices out of range for step {step} of the {power.name} power"]
    return []


def _choice_fits(g, exchanges: int, what: str, v: int) -> bool:
    """Is `v` a value the engine gives a choice meaning `what` (a key of `power_table.CHOICES`)?"""
    if what == "owner":                     # another owner in the game
        return v != g.state.actor and (0 <= v < g.num_players or v == NEUTRAL)
    low, high = {"market": (0, MEMPHIS), "kind": (0, g.rules.num_kinds), "exchanges made": (0, exchanges),
                 "excluded market": (-1, NUM_MARKETS)}[what]
    return low <= v < high


def _oracle_problems(g, f, cards: int) -> list[str]:
    """The Oracle: it looks at the bottom places oracle_from.. of the deck (at most `cards`); char_sel
    holds places among them (and, while taking, the gift given first)."""
    n = len(f.deck) - f.oracle_from
    if f.oracle_seat != f.actor or f.oracle_from != max(f.deck_pos, len(f.deck) - cards) or not 1 <= n <= cards:
        return [f"oracle_seat, oracle_from: the Oracle player {f.actor} looks at the bottom {cards} undrawn places"]
    sel, step = list(f.char_sel), f.char_step
    places = sel[1:] if step == 1 else sel
    most = {0: n, 1: n - 1, 2: n - 2}      # swapping: each place once; taking: one left; ordering: ends at n - 1
    if step not in most or (step == 1 and not (sel and 0 <= sel[0] < g.rules.num_kinds)) \
            or not all(0 <= i < n for i in places) or len(set(places)) != len(places) or len(places) > most[step]:
        return [f"char_step {step}, char_sel {sel}: not a step of the Oracle with {n} bottom places"]
    return []


def _card_problems(g, f, tf, undrawn: np.ndarray) -> list[str]:
    """Every gift in exactly one place (undrawn deck, market places, owned, discarded), as at setup."""
    k, problems = g.rules.num_kinds, []
    places = np.bincount(undrawn, minlength=k + 1)[:k] + np.bincount(f.slots.ravel() + 1, minlength=k + 3)[1:k + 1]
    places += f.owned.sum(axis=0) + f.discarded
    start = np.bincount(tf.deck, minlength=k + 1)[:k]
    for kind in np.flatnonzero(places != start).tolist():
        problems.append(f"cards: {g.rules.kind_names[kind]} counted {int(places[kind])} times (undrawn deck, market "
                        f"places, owned, discarded), the game has {int(start[kind])}")
    if bool(np.count_nonzero(undrawn == g.kind_akhenaton)) == f.akhenaton_drawn:
        problems.append("akhenaton_drawn must say whether the Akhenaton card is out of the undrawn deck")
    return problems
