"""The balance atlas: every table of the game, played by several populations of bots.

A table is one way to sit down to the game: player count, setup, character roster (base,
expansion or a scenario) and the Port of Memphis. The atlas plays each table with each
population in self-play (every seat the same bot spec), so a seat or character finding can be
checked across policies: a property of the game shows in every population, a policy's
convention in one. Each (table, population) pair is an ordinary balance study (`runner`) in
its own sub-folder, `<out>/<table>/<population>`, so the atlas is resumable, plays through the
same game pool (worker processes or a Ray cluster) and can be read with the lab's tables:

    kind: atlas
    seed: 2026
    games: 1000                       # per table and population (seat fairness)
    populations: [banker, greedy]     # policy alone: every table
    players: [2, 3, 4, 5]
    setups: [beginner, advanced]
    characters: [base, expansion]     # or scenario names
    memphis: [false, true]            # off is skipped where Memphis is mandatory (5 players)
    values:                           # option value by restricted play, on a subset of the tables
      games: 1000                     # per arm: the control and one arm per character of the roster
      markets: true                   # and one per market (true: every market; or a list of names)
      players: [4]
      setups: [beginner]
      memphis: [false]
    search:                           # searching populations (a few games a second): subsets of the tables
      - populations: [mcts]
        games: 200                    # per table of the subset
        value_games: 100              # per arm where the subset meets `values` (default: games; 0: none)
        players: [4]
        memphis: [false]
      - populations: ["champion:search=800"]
        games: 100
        value_games: 0                # seat fairness only
        players: [4]
        setups: [beginner]
    fairness: [setup, memphis]        # one test per player count: does the option bring the seats nearer parity?

The axes of `values` and of each `search` subset (players, setups, characters, memphis) narrow the
atlas's tables; an absent axis keeps all, and the memphis axis keeps the tables where Memphis is
mandatory. Searching populations cost ten to fifty times more per game than a policy alone, so each
subset's populations play its tables at its own game counts (`search` may also be one mapping); a
population may sit in several subsets that share no table, to play some tables at other counts. A
question is answered by the populations that played its table, and a table a population did not
play is "not played" (an option it did not value, "not valued"), never a disagreement. Every
sub-study of one table shares the atlas seed, so all populations meet the same deals (common random
numbers), and the restricted arms replay the control's deals.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import BeforeValidator, Field, ValidationError

from nefertiti_env import load_ruleset
from nefertiti_env.agents.config import Int, Section, problems
from nefertiti_env.agents import weights
from nefertiti_env.agents.run_folder import prepare, write_text

from . import config as study_config
from . import runner
from .config import BotSpec, ConfigError, Games, Workers
from .restrict import Restriction

KIND = "balance-atlas"
ATLAS = "atlas.yaml"


class Subset(Section):
    """Axes that narrow the atlas's tables; an absent axis keeps every table of the atlas."""

    players: list[Int] | None = None
    setups: list[Literal["beginner", "advanced"]] | None = None
    characters: list[str] | None = None
    memphis: list[bool] | None = None

    def picks(self, table: Table) -> bool:
        """Whether the table is on every axis; where Memphis is mandatory the memphis axis has no choice to
        make, so it keeps that table (`memphis: [false]` with 5 players values the 5-player tables)."""
        memphis = None if table.memphis_mandatory else self.memphis
        return all(axis is None or value in axis for axis, value in (
            (self.players, table.players), (self.setups, table.setup), (self.characters, table.characters),
            (memphis, table.memphis)))


class Values(Subset):
    """Restricted play for every character of a table's roster (and its markets); the axes pick the tables."""

    games: Games = Field(description="games per arm (the unrestricted control is one more arm)")
    markets: bool | list[str] = Field(False, description="also one arm per market forbidden: true for every "
                                                         "market of the ruleset, or a list of market names")


class Search(Subset):
    """Searching populations, too slow for every table: a subset of the tables at their own game counts."""

    populations: Annotated[list[BotSpec], Field(min_length=1, description="bot specs, each in every seat")]
    games: Games = Field(description="games per table of the subset and population")
    value_games: Annotated[Int, Field(ge=0, le=study_config.MAX_GAMES)] | None = Field(
        None, description="games per arm where the subset meets `values` (default: games; 0: no restricted arms)")


def _subsets(raw):
    """One search mapping is a list of one subset."""
    return [raw] if isinstance(raw, dict) else raw


class AtlasConfig(Section):
    """The whole atlas (see the module docstring for an example file)."""

    kind: Literal["atlas"]
    seed: Annotated[Int, Field(ge=0)]
    games: Games = Field(description="games per table and population")
    populations: Annotated[list[BotSpec], Field(min_length=1, description="bot specs, each in every seat")]
    players: Annotated[list[Int], Field(min_length=1)] = [2, 3, 4, 5]
    setups: Annotated[list[Literal["beginner", "advanced"]], Field(min_length=1)] = ["beginner", "advanced"]
    characters: Annotated[list[str], Field(min_length=1)] = ["base", "expansion"]
    memphis: Annotated[list[bool], Field(min_length=1)] = [False, True]
    ruleset: str = "default"
    values: Values | None = None
    search: Annotated[list[Search], BeforeValidator(_subsets)] = []
    fairness: list[Literal["memphis", "setup"]] = Field(
        [], description="options whose effect on seat fairness is one test per player count and population "
                        "(Memphis on minus off, advanced minus beginner stalls); none by default, so that an "
                        "atlas's tests, and so its adjusted q-values, stay those it was reported with")
    workers: Workers = 1
    out: Annotated[str, Field(min_length=1)] = "results/balance/atlas"


@dataclass(frozen=True)
class Table:
    players: int
    setup: str
    characters: str
    memphis: bool
    memphis_mandatory: bool = False     # the rules give this player count no table without Memphis

    @property
    def name(self) -> str:
        return f"{self.players}p-{self.setup}-{self.characters}-{'memphis' if self.memphis else 'no-memphis'}"

    @property
    def title(self) -> str:
        return f"{self.players} players, {self.setup}, {self.characters} characters, Memphis {'on' if self.memphis else 'off'}"


def slug(spec: str) -> str:
    """A folder name for a bot spec (`mcts:iterations=400` -> `mcts-iterations-400`)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", spec).strip("-")


def tables(cfg: AtlasConfig) -> list[Table]:
    """Every table of the grid, but Memphis off where the rules make it mandatory."""
    rules = load_ruleset(cfg.ruleset)
    mandatory = {n: rules.players[n].memphis == "mandatory" for n in cfg.players}
    return [Table(n, s, c, m, mandatory[n]) for n in cfg.players for s in cfg.setups for c in cfg.characters
            for m in cfg.memphis if m or not mandatory[n]]


def valued(cfg: AtlasConfig, table: Table) -> bool:
    """Whether the table's options (characters, markets) are valued by restricted play."""
    return cfg.values is not None and cfg.values.picks(table)


def searched(cfg: AtlasConfig, table: Table) -> bool:
    """Whether any searching population plays the table."""
    return any(part.picks(table) for part in cfg.search)


def subset(cfg: AtlasConfig, population: str, table: Table) -> Search | None:
    """The search subset in which a population plays a table (None: a policy-alone population)."""
    return next((part for part in cfg.search if population in part.populations and part.picks(table)), None)


def populations(cfg: AtlasConfig, table: Table | None = None) -> list[str]:
    """The populations that play a table (every policy-alone one, the searching ones on their subsets), or
    the whole atlas's without a table."""
    return list(dict.fromkeys([*cfg.populations, *(p for part in cfg.search if table is None or part.picks(table)
                                                   for p in part.populations)]))


def markets(cfg: AtlasConfig) -> list[str]:
    """The markets valued by restricted play (none unless `values.markets`)."""
    chosen = cfg.values.markets if cfg.values is not None else False
    if chosen is True:
        return list(dict.fromkeys(m.name for m in load_ruleset(cfg.ruleset).markets))
    return list(chosen or [])


def roster(rules, characters: str) -> list[str]:
    """The names of the characters a table can deal: the base set, every set (expansion), or a scenario's (a
    player count may remove some of them: `Ruleset.dealt`)."""
    if characters == "base":
        cards = [c for c in rules.characters if c.set == "base"]
    elif characters == "expansion":
        cards = list(rules.characters)
    else:
        keys = set(rules.scenarios[characters])
        cards = [c for c in rules.characters if c.key in keys or c.always]
    return list(dict.fromkeys(c.name for c in cards))


def options(cfg: AtlasConfig, table: Table) -> list[dict]:
    """The restricted arms of a valued table, in the study's `forbid` form: each character of its roster,
    then each valued market. A character its player count does not deal keeps its arm, which plays the control
    game for game, so that atlases played before keep resuming; `asked` leaves it out of the questions."""
    return ([{"character": name} for name in roster(load_ruleset(cfg.ruleset), table.characters)]
            + [{"market": name} for name in markets(cfg)])


def asked(cfg: AtlasConfig, table: Table) -> list[dict]:
    """The arms the report asks about: those whose option the table's game has (a forbidden character it never
    deals is no measurement)."""
    rules = load_ruleset(cfg.ruleset)
    return [arm for arm in options(cfg, table) if Restriction.of(arm).in_game(rules, table.players)]


def study(cfg: AtlasConfig, table: Table, population: str) -> dict:
    """The raw config of one sub-study: the population in every seat of the table (plus its restricted arms),
    at the game counts of its kind (policy alone or searching)."""
    n = table.players
    search = subset(cfg, population, table)
    games = search.games if search else cfg.games
    raw = {"seed": cfg.seed, "setup": table.setup, "memphis": table.memphis, "characters": table.characters,
           "games": games, "player_counts": [n], "lineups": {n: [population] * n},
           "rulesets": {"default": cfg.ruleset}, "workers": cfg.workers,
           "out": str(Path(cfg.out) / table.name / slug(population))}
    arms = cfg.values.games if valued(cfg, table) else 0
    if search and arms:
        arms = search.games if search.value_games is None else search.value_games
    if arms:
        raw["restricted"] = {"games": arms, "player_counts": [n], "bot": population, "forbid": options(cfg, table)}
    return raw


def studies(cfg: AtlasConfig) -> list[tuple[Table, str, study_config.StudyConfig]]:
    """(table, population, validated sub-study) for the whole atlas, in play order."""
    out = []
    for table in tables(cfg):
        for population in populations(cfg, table):
            out.append((table, population, study_config.parse(study(cfg, table, population),
                                                              f"atlas table {table.name}, population {population}")))
    return out


def parse(data, source: str = "<dict>") -> AtlasConfig:
    """Validate an atlas config (every problem at once in a ConfigError), its sub-studies too."""
    try:
        cfg = AtlasConfig.model_validate(data)
    except ValidationError as err:
        raise ConfigError(source, problems(err, data, AtlasConfig)) from None
    rules = load_ruleset(cfg.ruleset)
    wrong = [("players", f"player counts {sorted(rules.players)} only, got {n}") for n in cfg.players
             if n not in rules.players]
    bad = [c for c in cfg.characters if c not in ("base", "expansion") and c not in rules.scenarios]
    wrong += [("characters", f"unknown roster(s) {bad}: base, expansion or a scenario name")] if bad else []
    axes = {"setup": ("setups", cfg.setups), "memphis": ("memphis", cfg.memphis)}
    wrong += [("fairness", f"{axis} needs both of its values in `{axes[axis][0]}` to compare tables that differ "
                           "in it") for axis in cfg.fairness if len(set(axes[axis][1])) < 2]
    known = [m.name for m in rules.markets]
    if cfg.values is not None and isinstance(cfg.values.markets, list):
        bad = [m for m in cfg.values.markets if m not in known]
        wrong += [("values.markets", f"unknown market(s) {bad} (known: {', '.join(known)})")] if bad else []
    alone = {slug(p) for p in cfg.populations}
    for i, part in enumerate(cfg.search):
        twice = [p for p in part.populations if slug(p) in alone]
        wrong += [(f"search.{i}.populations", f"{twice} already in populations (a population plays every "
                                              "table or search subsets)")] if twice else []
    if not wrong:
        grid = tables(cfg)
        for i, part in enumerate(cfg.search):
            for j, earlier in enumerate(cfg.search[:i]):
                both = [p for p in part.populations if slug(p) in {slug(q) for q in earlier.populations}]
                common = [t.name for t in grid if part.picks(t) and earlier.picks(t)]
                wrong += [(f"search.{i}.populations", f"{both} already play {', '.join(common)} in search.{j} "
                                                      "(a population's subsets share no table)")] if both and common else []
        parts = [("values", cfg.values), *((f"search.{i}", part) for i, part in enumerate(cfg.search))]
        wrong += [(key, "picks none of the atlas's tables") for key, part in parts
                  if part is not None and not any(part.picks(t) for t in grid)]
    if wrong:
        raise ConfigError(source, wrong)
    studies(cfg)                         # a table the rules cannot set up fails here, before any game
    return cfg


def is_atlas(raw) -> bool:
    return isinstance(raw, dict) and raw.get("kind") == "atlas"


def saved(cfg: AtlasConfig) -> tuple[int, int]:
    """(finished games, games of the whole atlas)."""
    subs = [sub for _, _, sub in studies(cfg)]
    return sum(runner.finished_games(sub.out) for sub in subs), sum(runner.game_count(sub) for sub in subs)


def run(cfg: AtlasConfig, workers: int | None = None, progress: bool = True, resume: bool = False,
        force: bool = False, ray: str | None = None) -> list[dict]:
    """Play every sub-study (finished ones are skipped on --resume); returns each session's figures with its
    table and population (empty for a sub-study already complete)."""
    folder = prepare(cfg.out, KIND, resume=resume, force=force)
    subs = studies(cfg)
    populations = {population for _, population, _ in subs}
    if resume:                          # before the finished sub-studies are skipped unchecked
        weights.check(folder, populations)
    else:
        weights.record(folder, populations)
    write_text(folder / ATLAS, yaml.safe_dump(cfg.model_dump(), sort_keys=False))
    out = []
    for table, population, sub in subs:
        done = runner.finished_games(sub.out)
        total = runner.game_count(sub)
        if resume and done == total and runner.tables_written(sub.out):
            out.append({"table": table.name, "population": population})
            continue
        again = resume and (Path(sub.out) / runner.STUDY).exists()
        if progress:
            print(f"atlas: {table.title}, {population} ({total} games)", flush=True)
        figures = runner.run(sub, workers=workers, progress=progress, resume=again, force=force and not again,
                             ray=ray)
        out.append({"table": table.name, "population": population, **figures})
    return out
