"""The study configuration (YAML): read, validate, and report every problem at once.

    seed: 2024                      # the whole study follows from it
    setup: beginner                 # or advanced (random visible stalls)
    games: 2000                     # games per ruleset and player count
    player_counts: [3, 4]
    lineups:                        # bot specs per seat (agents.make_bot); seats rotate over games
      3: [greedy, collector, banker]
      4: [greedy, greedy, collector, banker]
    rulesets:                       # name: ruleset file or "default"; the first is the baseline
      default: default
      cheap_gold: cheap_gold
    restricted:                     # optional: one seat forbidden a character or a market
      games: 1000                   # games per arm (the unrestricted control is one more arm)
      player_counts: [4]
      bot: greedy                   # every seat plays this bot; the restricted seat rotates
      forbid:
        - character: Thief
        - market: Louqsor
    workers: 2                      # processes (the command line's --workers wins)
    out: results/balance/default    # output folder

Paths (ruleset files, bot model files, out) are relative to the current directory.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from nefertiti_env import NefertitiGame, RulesetError, load_ruleset

from .restrict import Restriction

SETUPS = ("beginner", "advanced")
TOP_KEYS = ("seed", "setup", "games", "player_counts", "lineups", "rulesets", "restricted", "workers", "out")
RESTRICTED_KEYS = ("games", "player_counts", "bot", "forbid")


class ConfigError(ValueError):
    """A study configuration failed validation; `problems` lists every (key, reason)."""

    def __init__(self, source: str, problems: list[tuple[str, str]]):
        self.source, self.problems = source, problems
        lines = "\n".join(f"  {key}: {reason}" for key, reason in problems)
        super().__init__(f"invalid balance config {source} ({len(problems)} problem(s)):\n{lines}")


@dataclass
class RestrictedStudy:
    games: int
    player_counts: list[int]
    bot: str
    forbid: list[Restriction]


@dataclass
class StudyConfig:
    seed: int
    games: int
    player_counts: list[int]
    lineups: dict[int, list[str]]
    rulesets: dict[str, str]
    setup: str = "beginner"
    restricted: RestrictedStudy | None = None
    workers: int = 1
    out: str = "results/balance"
    source: str = "<dict>"

    @property
    def baseline(self) -> str:
        return next(iter(self.rulesets))

    def to_dict(self) -> dict:
        """The effective configuration (command-line overrides included), in the file's form."""
        data = {"seed": self.seed, "setup": self.setup, "games": self.games, "player_counts": self.player_counts,
                "lineups": self.lineups, "rulesets": self.rulesets}
        r = self.restricted
        if r is not None:
            data["restricted"] = {"games": r.games, "player_counts": r.player_counts, "bot": r.bot,
                                  "forbid": [{x.kind: x.name} for x in r.forbid]}
        return {**data, "workers": self.workers, "out": self.out}


def read(path: str | Path) -> dict:
    """The raw YAML of a study file (FileNotFoundError if absent, ConfigError if not YAML)."""
    path = Path(path)
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise ConfigError(str(path), [("<file>", f"not valid YAML: {err}")]) from None


def load(path: str | Path) -> StudyConfig:
    """Read and validate a YAML study file; raises ConfigError (or FileNotFoundError)."""
    return parse(read(path), str(path))


def parse(data, source: str = "<dict>") -> StudyConfig:
    """Validate a parsed config: unknown keys and bad values all reported in one ConfigError."""
    problems: list[tuple[str, str]] = []

    def fail(key, reason):
        problems.append((key, reason))

    if not isinstance(data, dict):
        raise ConfigError(source, [("<file>", "must be a mapping of keys (seed, games, ...)")])
    for key in data:
        if key not in TOP_KEYS:
            fail(str(key), f"unknown key (known: {', '.join(TOP_KEYS)})")
    for key in ("seed", "games", "player_counts", "lineups", "rulesets"):
        if key not in data:
            fail(key, "missing")

    seed = _int(data, "seed", fail, minimum=0)
    games = _int(data, "games", fail, minimum=1)
    workers = _int(data, "workers", fail, minimum=1, default=1)
    setup = data.get("setup", "beginner")
    if setup not in SETUPS:
        fail("setup", f"must be one of {', '.join(SETUPS)}, got {setup!r}")
    out = data.get("out", "results/balance")
    if not isinstance(out, str) or not out:
        fail("out", f"must be a folder path, got {out!r}")

    rulesets = _rulesets(data.get("rulesets"), fail)
    counts = _player_counts(data.get("player_counts"), "player_counts", fail)
    _check_supported(counts, rulesets, "player_counts", fail)
    lineups = _lineups(data.get("lineups"), counts, fail)
    restricted = _restricted(data.get("restricted"), rulesets, fail)

    if problems:
        raise ConfigError(source, problems)
    return StudyConfig(seed=seed, games=games, player_counts=counts, lineups=lineups, rulesets=rulesets,
                       setup=setup, restricted=restricted, workers=workers, out=out, source=source)


def _int(table, key, fail, minimum, default=None, path=""):
    value = table.get(key, default)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        fail(f"{path}{key}", f"must be an integer >= {minimum}, got {value!r}")
        return default
    return value


def _player_counts(value, key, fail) -> list[int]:
    if value is None:
        return []
    if not isinstance(value, list) or not value or not all(isinstance(n, int) and not isinstance(n, bool)
                                                           for n in value):
        fail(key, f"must be a non-empty list of player counts (2 to 5), got {value!r}")
        return []
    if len(set(value)) != len(value):
        fail(key, f"lists a player count twice: {value!r}")
    bad = [n for n in value if not 2 <= n <= 5]
    if bad:
        fail(key, f"player counts must be 2 to 5, got {bad}")
    return [n for n in dict.fromkeys(value) if 2 <= n <= 5]


def _check_supported(counts, rulesets, key, fail) -> None:
    """Every player count must be playable by the rules core with every ruleset."""
    for n in counts:
        for name, ruleset in rulesets.items():
            try:
                NefertitiGame(num_players=n, ruleset=ruleset, seed=0)
            except NotImplementedError as err:
                fail(key, f"{n} players are not supported by the rules core yet: {err}")
                break
            except ValueError as err:
                fail(key, f"{n} players cannot be set up with ruleset {name!r}: {err}")


def _rulesets(value, fail) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not value:
        fail("rulesets", f"must map names to ruleset files (or 'default'), got {value!r}")
        return {}
    good = {}
    for name, path in value.items():
        if not isinstance(path, str):
            fail(f"rulesets.{name}", f"must be a ruleset file path or 'default', got {path!r}")
            continue
        try:
            load_ruleset(path)
        except RulesetError as err:
            fail(f"rulesets.{name}", str(err).replace("\n", " "))
            continue
        good[str(name)] = path
    return good


def _lineups(value, counts, fail) -> dict[int, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        fail("lineups", f"must map each player count to a list of bot specs, got {value!r}")
        return {}
    lineups, given = {}, set()
    for key, bots in value.items():
        try:
            n = int(key)
        except (TypeError, ValueError):
            fail(f"lineups.{key}", "key must be a player count")
            continue
        given.add(n)
        if n not in counts:
            fail(f"lineups.{key}", f"no such player count in player_counts {counts}")
            continue
        if not isinstance(bots, list) or len(bots) != n:
            fail(f"lineups.{key}", f"must list {n} bot specs (one per seat), got {bots!r}")
            continue
        problems = [p for p in (_bot_problem(b) for b in bots) if p]
        for p in problems:
            fail(f"lineups.{key}", p)
        if not problems:
            lineups[n] = [b.strip() for b in bots]
    for n in counts:
        if n not in given:
            fail("lineups", f"no line-up for {n} players")
    return lineups


def _bot_problem(spec) -> str | None:
    """Why `spec` does not build a bot (None when it does)."""
    from agents import make_bot
    if not isinstance(spec, str):
        return f"bot spec must be a string, got {spec!r}"
    try:
        make_bot(spec, seed=0)
    except (ValueError, OSError, ImportError) as err:
        return f"bad bot {spec!r}: {err}"
    return None


def _restricted(value, rulesets, fail) -> RestrictedStudy | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        fail("restricted", f"must be a mapping (games, player_counts, bot, forbid), got {value!r}")
        return None
    for key in value:
        if key not in RESTRICTED_KEYS:
            fail(f"restricted.{key}", f"unknown key (known: {', '.join(RESTRICTED_KEYS)})")
    for key in RESTRICTED_KEYS:
        if key not in value:
            fail(f"restricted.{key}", "missing")
    games = _int(value, "games", fail, minimum=1, path="restricted.")
    counts = _player_counts(value.get("player_counts"), "restricted.player_counts", fail)
    _check_supported(counts, dict(list(rulesets.items())[:1]), "restricted.player_counts", fail)
    bot = value.get("bot")
    bot_problem = _bot_problem(bot) if bot is not None else None
    if bot_problem:
        fail("restricted.bot", bot_problem)
    forbid = []
    items = value.get("forbid")
    if items is not None and (not isinstance(items, list) or not items):
        fail("restricted.forbid", f"must be a non-empty list like [{{character: Thief}}, {{market: Louqsor}}], "
                                  f"got {items!r}")
        items = []
    baseline = next(iter(rulesets.values()), None)
    for i, item in enumerate(items or []):
        key = f"restricted.forbid[{i}]"
        if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in ("character", "market"):
            fail(key, f"must be {{character: <name>}} or {{market: <name>}}, got {item!r}")
            continue
        kind, name = next(iter(item.items()))
        restriction = Restriction(kind, str(name))
        if baseline is not None:
            problem = restriction.problem(load_ruleset(baseline))
            if problem:
                fail(key, problem)
                continue
        forbid.append(restriction)
    if games is None or bot is None or bot_problem:
        return None
    return RestrictedStudy(games=games, player_counts=counts, bot=bot.strip(), forbid=forbid)
