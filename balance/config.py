"""The study configuration (YAML): pydantic models that report every problem at once.

    seed: 2024                      # the whole study follows from it
    setup: beginner                 # or advanced (random visible stalls)
    memphis: false                  # optional: the Port of Memphis (default: only where mandatory, 5 players)
    characters: base                # optional: expansion, a scenario name, or a list of character keys
    games: 2000                     # games per ruleset and player count
    player_counts: [3, 4]
    lineups:                        # bot specs per seat (agents.make_bot); seats rotate over games
      3: [greedy, collector, banker]
      4: [greedy, greedy, collector, banker]
      # a single spec is every seat's: `4: banker`; `lineups: banker` is every seat at every count
    rulesets:                       # name: packaged ruleset name or file; the first is the baseline
      default: default
      cheap_gold: cheap_gold
      cheap_gold retrained: cheap_gold
    ruleset_lineups:                # optional: a ruleset's own line-ups (agents trained under it)
      cheap_gold retrained: ppo:path=cheap_gold.pt
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
`nefertiti configs --schema balance` prints the JSON Schema.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import AfterValidator, BeforeValidator, Field, ValidationError, ValidationInfo, field_validator

from nefertiti_env.agents.config import Int, Section, problems, read_yaml, yaml_problem
from nefertiti_env import NefertitiGame, RulesetError, load_ruleset

from .restrict import Restriction

MAX_GAMES = 1_000_000       # per arm and per cell: beyond, a typo (not a study) that would only fail later
Games = Annotated[Int, Field(ge=1, le=MAX_GAMES)]
Workers = Annotated[Int, Field(ge=1, le=256)]


class ConfigError(ValueError):
    """A study configuration failed validation; `problems` lists every (key, reason)."""

    def __init__(self, source: str, problems: list[tuple[str, str]]):
        self.source, self.problems = source, problems
        lines = "\n".join(f"  {key}: {reason}" for key, reason in problems)
        super().__init__(f"invalid balance config {source} ({len(problems)} problem(s)):\n{lines}")


def _restriction(item, info: ValidationInfo) -> Restriction:
    """{character: <name>} or {market: <name>}, known to the baseline ruleset (the study's context)."""
    if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in ("character", "market"):
        raise ValueError(f"must be {{character: <name>}} or {{market: <name>}}, got {item!r}")
    restriction = Restriction.of(item)
    baseline = (info.context or {}).get("baseline")
    problem = restriction.problem(baseline) if baseline is not None else None
    if problem:
        raise ValueError(problem)
    return restriction


def _player_counts(counts: list[int], rulesets: dict[str, str], **options) -> list[int]:
    """Distinct counts from 2 to 5 that the rules core can set up with every ruleset (and the table options)."""
    if len(set(counts)) != len(counts):
        raise ValueError(f"lists a player count twice: {counts!r}")
    bad = [n for n in counts if not 2 <= n <= 5]
    if bad:
        raise ValueError(f"player counts must be 2 to 5, got {bad}")
    for n in counts:
        for name, ruleset in rulesets.items():
            try:
                NefertitiGame(num_players=n, ruleset=ruleset, seed=0, **options)
            except NotImplementedError as err:
                raise ValueError(f"{n} players are not supported by the rules core yet: {err}") from None
            except ValueError as err:
                raise ValueError(f"{n} players cannot be set up with ruleset {name!r}: {err}") from None
    return counts


def _ruleset(ruleset: str) -> str:
    """A ruleset name or file, once it loads."""
    try:
        load_ruleset(ruleset)
    except RulesetError as err:
        raise ValueError(str(err).replace("\n", " ")) from None
    return ruleset


def _bot(spec: str) -> str:
    """The spec, stripped, once it builds a bot."""
    from nefertiti_env.agents import make_bot     # the bots' module is only needed once a config is checked
    try:
        make_bot(spec, seed=0)
    except (ValueError, OSError, ImportError) as err:
        raise ValueError(f"bad bot {spec!r}: {err}") from None
    return spec.strip()


BotSpec = Annotated[str, AfterValidator(_bot),
                    Field(description="a bot spec (agents.make_bot): random, greedy, mcts:iterations=400, ...")]


def _every_seat(lineups, counts):
    """The shorthands as one spec per seat: `SPEC` is every seat's at every player count, `{n: SPEC}` every
    seat's at n players, so a self-play study names its agent once instead of once per seat."""
    if isinstance(lineups, str):
        lineups = {n: lineups for n in counts}
    if not isinstance(lineups, dict):
        return lineups
    return {n: [bots] * int(n) if isinstance(bots, str) and str(n).isdigit() else bots for n, bots in lineups.items()}


Lineups = dict[int, list[str]] | dict[int, str] | str    # what a file may write (the JSON Schema's input)


def _seat_problems(lineups: dict[int, list[str]]) -> list[str]:
    """A line-up of n players has n bot specs, one per seat."""
    return [f"{n} players need {n} bot specs (one per seat), got {len(bots)}" for n, bots in lineups.items()
            if len(bots) != n]


class RestrictedStudy(Section):
    """Restricted play: one seat forbidden one option, every seat played by `bot`."""

    games: Games = Field(description="games per arm (the unrestricted control is one more arm)")
    player_counts: Annotated[list[Int], Field(min_length=1)]
    bot: BotSpec
    forbid: Annotated[list[Annotated[Restriction, BeforeValidator(
        _restriction, json_schema_input_type=dict[Literal["character", "market"], str])]], Field(min_length=1)]

    @field_validator("player_counts")
    @classmethod
    def _counts(cls, counts, info: ValidationInfo):
        baseline = (info.context or {}).get("baseline_name")
        return _player_counts(counts, {baseline: baseline} if baseline else {}, **(info.context or {}).get("table", {}))


class StudyConfig(Section):
    """A whole balance study (see the module docstring for an example file)."""

    seed: Annotated[Int, Field(ge=0, description="the whole study follows from it")]
    setup: Literal["beginner", "advanced"] = "beginner"
    memphis: bool | None = Field(None, description="the Port of Memphis and its foreign gifts (None: only where "
                                                   "mandatory, 5 players)")
    characters: str | list[str] = Field("base", description='"base", "expansion", a scenario name of the ruleset, '
                                                            "or a list of character keys")
    games: Games = Field(description="games per ruleset and player count")
    workers: Workers = Field(1, description="processes playing games (the command line's --workers wins)")
    out: Annotated[str, Field(min_length=1)] = "results/balance"
    rulesets: Annotated[dict[str, Annotated[str, AfterValidator(_ruleset)]], Field(min_length=1, description="name: packaged ruleset name or file; "
                                                                       "the first is the baseline")]
    player_counts: Annotated[list[Int], Field(min_length=1)]
    lineups: dict[int, list[BotSpec]] = Field(description="one bot spec per seat for each player count; one spec "
                                                         "for a count, or for the whole study, is every seat's")
    ruleset_lineups: dict[str, dict[int, list[BotSpec]]] = Field(
        default_factory=dict, description="a ruleset's own line-ups, in place of `lineups` (agents trained under "
                                          "that ruleset); the same player counts")
    restricted: RestrictedStudy | None = None

    @field_validator("player_counts")
    @classmethod
    def _counts(cls, counts, info: ValidationInfo):
        table = {key: info.data[key] for key in ("setup", "memphis", "characters") if key in info.data}
        return _player_counts(counts, info.data.get("rulesets", {}), **table)

    @field_validator("lineups", mode="before", json_schema_input_type=Lineups)
    @classmethod
    def _lineups_shorthand(cls, lineups, info: ValidationInfo):
        return _every_seat(lineups, info.data.get("player_counts", []))

    @field_validator("ruleset_lineups", mode="before", json_schema_input_type=dict[str, Lineups])
    @classmethod
    def _ruleset_lineups_shorthand(cls, by_ruleset, info: ValidationInfo):
        if not isinstance(by_ruleset, dict):
            return by_ruleset
        return {name: _every_seat(lineups, info.data.get("player_counts", [])) for name, lineups in by_ruleset.items()}

    @field_validator("lineups")
    @classmethod
    def _lineups(cls, lineups, info: ValidationInfo):
        wrong = _seat_problems(lineups)
        if "player_counts" in info.data:             # else player_counts has its own problem
            counts = info.data["player_counts"]
            wrong += [f"{n} players: no such player count in player_counts {counts}" for n in lineups
                      if n not in counts]
            wrong += [f"no line-up for {n} players" for n in counts if n not in lineups]
        if wrong:
            raise ValueError("; ".join(wrong))
        return lineups

    @field_validator("ruleset_lineups")
    @classmethod
    def _ruleset_lineups(cls, by_ruleset, info: ValidationInfo):
        wrong = [f"{name!r}: no such ruleset in rulesets" for name in by_ruleset
                 if "rulesets" in info.data and name not in info.data["rulesets"]]
        for name, lineups in by_ruleset.items():
            if "lineups" in info.data and sorted(lineups) != sorted(info.data["lineups"]):
                wrong.append(f"{name!r}: line-ups for {sorted(lineups)} players, lineups has {sorted(info.data['lineups'])}")
            wrong += [f"{name!r}: {problem}" for problem in _seat_problems(lineups)]
        if wrong:
            raise ValueError("; ".join(wrong))
        return by_ruleset

    def lineup(self, ruleset: str, players: int) -> list[str]:
        """The line-up `ruleset` plays at `players`: its own, else the study's."""
        return self.ruleset_lineups.get(ruleset, self.lineups)[players]

    @property
    def baseline(self) -> str:
        return next(iter(self.rulesets))

    def to_dict(self) -> dict:
        """The effective configuration (command-line overrides included), in the file's form."""
        data = self.model_dump(exclude={"restricted"})
        if self.restricted is not None:
            r = self.restricted
            data["restricted"] = {"games": r.games, "player_counts": r.player_counts, "bot": r.bot,
                                  "forbid": [{x.kind: x.name} for x in r.forbid]}
        if not self.ruleset_lineups:
            del data["ruleset_lineups"]
        order = ("seed", "setup", "memphis", "characters", "games", "player_counts", "lineups", "rulesets",
                 "ruleset_lineups", "restricted", "workers", "out")
        return {k: data[k] for k in order if k in data}


def read(path: str | Path) -> dict:
    """The raw YAML of a study file (FileNotFoundError if absent, ConfigError if not YAML)."""
    path = Path(path)
    try:
        return read_yaml(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        raise ConfigError(str(path), [("<file>", f"not valid YAML: {yaml_problem(err)}")]) from None
    except UnicodeDecodeError as err:
        raise ConfigError(str(path), [("<file>", f"not text: {err}")]) from None


def load(path: str | Path) -> StudyConfig:
    """Read and validate a YAML study file; raises ConfigError (or FileNotFoundError)."""
    return parse(read(path), str(path))


def parse(data, source: str = "<dict>") -> StudyConfig:
    """Validate a parsed config: unknown keys and bad values all reported in one ConfigError."""
    if not isinstance(data, dict):
        raise ConfigError(source, [("<file>", "must be a mapping of keys (seed, games, ...)")])
    context = {}
    rulesets = data.get("rulesets")
    if isinstance(rulesets, dict) and rulesets:         # restricted play is checked against the baseline
        name = next(iter(rulesets.values()))
        try:
            context = {"baseline": load_ruleset(name), "baseline_name": name,
                       "table": {key: data[key] for key in ("setup", "memphis", "characters") if key in data}}
        except (RulesetError, TypeError):
            pass                                        # reported under rulesets
    try:
        return StudyConfig.model_validate(data, context=context)
    except ValidationError as err:
        raise ConfigError(source, _once_per_spec(problems(err, data, StudyConfig))) from None


def _once_per_spec(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A bad spec written once for every seat (`4: nobody`) reported once, under the key it was written at,
    instead of once per seat it stood for."""
    out = []
    for key, reason in found:
        parts = key.split(".")            # a spec written as a list is keyed lineups.4[1], one written once lineups.4.1
        depth = 3 if parts[0] == "ruleset_lineups" else 2       # the player count's part
        if parts[0] in ("lineups", "ruleset_lineups") and len(parts) == depth + 1 and parts[-1].isdigit():
            key = ".".join(parts[:-1])
        if (key, reason) not in out:
            out.append((key, reason))
    return out
