"""The training configuration: a YAML file checked by these pydantic models.

Every problem in a file is reported at once (unknown keys with the known ones,
wrong types, values out of range), each named by its dotted key, so a typo like
`ppo.learning_rat` fails before any training starts. Defaults are the fields'
defaults; a file only needs what it changes. `nefertiti configs --schema train`
prints the JSON Schema.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import numpy as np
import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from nefertiti_env.agents import parse_spec
from nefertiti_env.agents.config import Float, Int, Section, problems, read_yaml, yaml_problem
from nefertiti_env.agents.policy_file import MAX_LAYERS, MAX_WIDTH
from nefertiti_env.agents.ppo import model_file
from nefertiti_env import NefertitiGame
from nefertiti_env.encoding import OBSERVATIONS

from .batched_vec_env import VECTOR_REWARDS
from .bot_tables import seats_at_bot_tables
from .opponents import RANDOM, SNAPSHOT
from .search_tables import searches
from .snapshot_tables import plays_at_snapshot_tables

Count = Annotated[Int, Field(ge=1)]
# Caps on what a config may ask for, so that a typo (an extra zero or ten) fails here in one line
# instead of as a MemoryError or an hour-long stall (docs/reliability.md)
Workers = Annotated[Int, Field(ge=1, le=256)]
Envs = Annotated[Int, Field(ge=1, le=4096)]
Layers = Annotated[list[Annotated[Int, Field(ge=1, le=MAX_WIDTH)]], Field(min_length=1, max_length=MAX_LAYERS)]
Games = Annotated[Int, Field(ge=1, le=1_000_000)]
MAX_ROLLOUT = 2**22          # n_steps x n_envs observations held in memory at once


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message lists every problem."""


def _check_specs(specs):
    """Every bot spec must make a bot (known name, well-formed parameters)."""
    for spec in specs:
        if spec != SNAPSHOT:
            parse_spec(spec)
    return specs


def trains_against(kind: str) -> bool:
    """Whether the batched env can seat opponent `kind`: random moves in its kernel, snapshots and trained
    agents without search through their actors, heuristic bots in compiled code, search bots table by table."""
    return kind in (RANDOM, SNAPSHOT) or seats_at_bot_tables(kind) or plays_at_snapshot_tables(kind) or searches(kind)


def _opponent_weights(weights: dict[str, float] | None):
    """Opponent weights the batched engine can seat: bot specs or snapshot, with a positive total."""
    if weights is None:
        return weights
    try:
        _check_specs(weights)
    except ValueError as err:
        raise ValueError(f"{err} (a key is a bot spec or {SNAPSHOT!r})") from None
    others = [kind for kind in weights if not trains_against(kind)]
    if others:
        raise ValueError(f"cannot train against {', '.join(map(repr, others))}: the batched engine seats "
                         f"{RANDOM}, {SNAPSHOT}, heuristic bots (greedy, collector, banker and their specs), "
                         "mcts and its specs, and trained agents without search (champion, ppo:path=...); a "
                         "trained agent searching at play time (search=...) is not seated (evaluation.baselines "
                         "takes any bot)")
    if sum(weights.values()) <= 0:
        raise ValueError("weights must have a positive total")
    return weights


Weights = dict[str, Annotated[Float, Field(ge=0)]]


def _without(data, *keys):
    """`data` without keys that saved configs still hold but that no longer change anything, so that a run
    trained before resumes."""
    return {k: v for k, v in data.items() if k not in keys} if isinstance(data, dict) else data


class TableOptions(Section):
    """A table of the game: the options `NefertitiGame` takes, by the same names."""

    num_players: Annotated[Int, Field(ge=2, le=5)] = 4
    setup: Literal["beginner", "advanced"] = Field("beginner", description="the visible stalls")
    memphis: bool | None = Field(None, description="the Port of Memphis and its foreign gifts (None: only where "
                                                   "mandatory, 5 players)")
    characters: str | list[str] = Field("base", description='"base", "expansion", a scenario name of the ruleset, or '
                                                            "a list of character keys (the whole roster)")

    def game_options(self) -> dict:
        return {"num_players": self.num_players, "setup": self.setup, "memphis": self.memphis,
                "characters": self.characters}

    def plays_memphis(self) -> bool:
        """Memphis as the game reads these options: an unset one is on only where it is mandatory (5 players)."""
        return self.memphis if self.memphis is not None else self.num_players == 5

    def label(self) -> str:
        """A short name of the table for logs and results: "4p beginner base", "5p advanced expansion Memphis"."""
        roster = self.characters if isinstance(self.characters, str) else "+".join(self.characters)
        return f"{self.num_players}p {self.setup} {roster}" + (" Memphis" if self.plays_memphis() else "")


class TableConfig(TableOptions):
    """One table of a mixture, with its share of the training environments."""

    weight: Annotated[Float, Field(gt=0)] = Field(1.0, description="share of the environments (n_envs split in "
                                                                   "proportion, at least one each)")
    opponents: Weights | None = Field(None, description="this table's opponent weights, in place of the run's "
                                                      "(`opponents.weights`; its snapshots are the run's): an "
                                                      "exploiter trained at one table, say, seated there alone")

    _opponents = field_validator("opponents")(_opponent_weights)


class EnvConfig(TableOptions):
    """The table(s) the learner plays at and how it is rewarded: one table (num_players, setup, memphis,
    characters) or a mixture (`tables`), under one ruleset."""

    ruleset: str = Field("default", description='a packaged ruleset name ("default", "cheap_gold") or a TOML path')
    tables: list[TableConfig] = Field(default_factory=list, description="a mixture of tables, each with its weight "
                                                                       "(replaces the single table's options)")
    reward: Literal[VECTOR_REWARDS] = Field("win_loss", description="terminal reward of the learner: +1/-1, or its "
                                                                  "final score less the others' mean, over 100")
    observation: Literal[tuple(OBSERVATIONS)] = Field(
        "v1", description="observation version: v0 (3,225 floats), the compact v1 (657) or v2 (v1 and the table, 680)")
    n_envs: Envs = Field(16, description="games stepped together on the batched compiled engine in the training "
                                         "process (training/batched_vec_env.py); the policy runs on all at once")

    @model_validator(mode="before")
    @classmethod
    def _no_worker_envs(cls, data):
        """`vector` and `workers` chose the worker envs, which were removed: a saved `vector: true` (the batched
        engine, the only one now) and `workers` load as no-ops; `vector: false` is refused."""
        if isinstance(data, dict) and data.get("vector", True) is not True:
            raise ValueError(f"vector: {json.dumps(data['vector'])} asked for the worker envs, which were removed: "
                             "every run steps its games on the batched engine (docs/training.md); delete the key")
        return _without(data, "vector", "workers")

    @field_validator("reward", mode="before")
    @classmethod
    def _rank_was_removed(cls, reward):
        if reward == "rank":
            raise ValueError("'rank' was given only by the removed worker envs: use win_loss or score_diff "
                             "(the PettingZoo env still gives rank)")
        return reward

    def table_list(self) -> list[TableConfig]:
        """The tables trained at: the mixture, or the single table with weight 1."""
        return list(self.tables) or [TableConfig(**self.game_options())]

    @model_validator(mode="after")
    def _tables_can_be_set_up(self):
        single = [name for name, field in TableOptions.model_fields.items() if getattr(self, name) != field.default]
        if self.tables and single:             # (a saved config holds the defaults beside its tables)
            raise ValueError(f"give either tables or the single table's {', '.join(sorted(single))}, not both")
        if len(self.tables) > self.n_envs:
            raise ValueError(f"n_envs ({self.n_envs}) must be at least the number of tables ({len(self.tables)}): "
                             "every table gets at least one environment")
        for i, table in enumerate(self.table_list()):
            where = f"tables[{i}]" if self.tables else "num_players/ruleset/setup/memphis/characters"
            try:                             # the core knows which tables it can play
                NefertitiGame(ruleset=self.ruleset, seed=0, **table.game_options())
            except (ValueError, NotImplementedError, OSError) as err:
                raise ValueError(f"{where}: cannot set up this table: {err}") from None
        return self


def split_envs(n_envs: int, weights: list[float]) -> list[int]:
    """Environments per table: n_envs in proportion to the weights (largest remainders), then at least one each
    (taken from the largest share); n_envs must be at least the number of tables."""
    weights = np.asarray(weights, dtype=float)
    share = n_envs * weights / weights.sum()
    counts = np.floor(share).astype(int)
    counts[np.argsort(counts - share, kind="stable")[:n_envs - counts.sum()]] += 1
    for empty in np.flatnonzero(counts == 0):
        counts[np.argmax(counts)] -= 1
        counts[empty] = 1
    return counts.tolist()


class OpponentsConfig(Section):
    """Who sits at the other seats: one kind for every opponent seat of a game, drawn per game with these weights.

    Keys are bot specs (`make_bot`: "random", "greedy:samples=1", ...) or "snapshot":
    a frozen copy of the learner, taken every `snapshot_every` steps (the newest
    `max_snapshots` are kept), playing sampled or greedy actions.
    """

    weights: Weights = Field(default_factory=lambda: {"random": 1.0})
    snapshot_every: Count = 50_000
    max_snapshots: Annotated[Int, Field(ge=1, le=1000)] = 20
    snapshot_deterministic: bool = False

    @model_validator(mode="before")
    @classmethod
    def _one_kind_per_table(cls, data):
        """`per_table: false` (the default saved configs hold) drew a kind per seat, only in the removed worker
        envs; now every game's opponent seats are one kind, which is what `per_table: true` asked for."""
        return _without(data, "per_table")

    _weights = field_validator("weights")(_opponent_weights)


class PPOConfig(Section):
    """MaskablePPO hyperparameters (sb3-contrib names); n_steps is per environment."""

    n_steps: Annotated[Int, Field(ge=1, le=MAX_ROLLOUT)] = 1024
    batch_size: Annotated[Int, Field(ge=1, le=MAX_ROLLOUT)] = 256
    n_epochs: Annotated[Int, Field(ge=1, le=1000)] = 10
    learning_rate: Annotated[Float, Field(gt=0)] = 3e-4
    gamma: Annotated[Float, Field(gt=0, le=1)] = 0.99
    gae_lambda: Annotated[Float, Field(gt=0, le=1)] = 0.95
    clip_range: Annotated[Float, Field(gt=0)] = 0.2
    ent_coef: Annotated[Float, Field(ge=0)] = 0.01
    vf_coef: Annotated[Float, Field(ge=0)] = 0.5
    max_grad_norm: Annotated[Float, Field(gt=0)] = 0.5
    net_arch: Layers = Field(default_factory=lambda: [256, 256], description="hidden layer sizes")


class EvalConfig(Section):
    """Evaluation: the learner against n-1 copies of each baseline, seats rotated.

    Every `every_steps` steps `games` games per baseline; at the end `final_games`.
    """

    every_steps: Count = 50_000
    games: Games = 40
    final_games: Games = 200
    baselines: list[str] = Field(default_factory=lambda: ["random", "greedy", "collector", "banker"])
    deterministic: bool = Field(True, description="the learner plays its most likely action")
    workers: Workers = Field(2, description="processes that play evaluation games")
    ray: str | None = Field(None, description="a Ray cluster's address (or auto) to play evaluation games on "
                                              "instead of `workers` processes (docs/cluster.md)")

    _baselines = field_validator("baselines")(_check_specs)


def _model_exists(path: str) -> str:
    """`path` if empty or a model file (or a run folder with one); else a ValueError."""
    if path and not model_file(path).is_file():
        raise ValueError(f"no model at {path!r} (give a model .pt, or a run folder with final_model.pt)")
    return path


def _stage_start(start: str) -> str:
    """A starting model (`init_from`, a later stage's `start`): the shipped agent's file for `champion`, else a
    model that exists (or empty)."""
    from nefertiti_env.agents.champion import CHAMPION_FILE

    return str(CHAMPION_FILE) if start == "champion" else _model_exists(start)


class ExpertIterationConfig(Section):
    """Expert iteration (training/expert_iteration.py): `rounds` rounds of search self-play games at the run's
    tables, the policy as the search's root prior, then the policy fitted to the search's visits and its value
    to the games' outcomes. After the PPO stage, from its final model; or instead of it, from `start`."""

    rounds: Annotated[Int, Field(ge=0, le=10_000)] = Field(0, description="rounds to play (0: no expert iteration)")
    start: str = Field("", description="a model .pt or run folder to start the rounds from, skipping the PPO "
                                       "stage (empty: after the PPO stage, from its final model; `champion`: "
                                       "the shipped agent)")
    games: Games = Field(16, description="search self-play games per table and round, times the table's weight")
    iterations: Count = Field(800, description="MCTS iterations per searched decision")
    leaf_value: Annotated[Float, Field(ge=0, le=1)] = Field(0.0, description="weight of the policy's critic at "
                                                                             "the search's leaves (0: the heuristic)")
    temperature: Annotated[Float, Field(ge=0)] = Field(0.0, description="the targets and moves are the visits "
                                                       "** (1 / temperature), normalised; 0: the most visited")
    q_scale: Annotated[Float, Field(ge=0)] = Field(0.0, description="> 0: the policy's target is its prior "
                                                   "reweighted by exp(q_scale x the search's mean reward) "
                                                   "(training/search_games.py improved_policy); 0: the visits")
    learning_rate: Annotated[Float, Field(gt=0)] = 1e-4
    epochs: Annotated[Int, Field(ge=1, le=1000)] = 2
    batch_size: Annotated[Int, Field(ge=1, le=MAX_ROLLOUT)] = 256
    vf_coef: Annotated[Float, Field(ge=0)] = Field(0.5, description="weight of the value loss in the fit")
    workers: Workers = Field(2, description="processes that play the search games")
    ray: str | None = Field(None, description="a Ray cluster's address (or auto) to play the search games on "
                                              "instead of `workers` processes (docs/cluster.md)")

    _start = field_validator("start")(_stage_start)


def _check_rollout(what: str, n_steps: int, n_envs: int) -> None:
    """A PPO rollout holds n_steps x n_envs observations: at most MAX_ROLLOUT."""
    if n_steps * n_envs > MAX_ROLLOUT:
        raise ValueError(f"{what}: {n_steps * n_envs} observations per rollout, at most {MAX_ROLLOUT}")


class FineTuneConfig(Section):
    """A second PPO stage: from the first stage's final model (or from `start`, skipping the first stage),
    `total_timesteps` more learner steps against other opponents (search bots, say), at some of the tables,
    at its own learning rate; in the run folder's `fine_tune/` (training/trainer.py `fine_tune_config`),
    resumable like the first. Off at 0 steps."""

    total_timesteps: Annotated[Int, Field(ge=0)] = Field(0, description="learner steps of the stage (0: none)")
    start: str = Field("", description="a model .pt or run folder to start the stage from, skipping the PPO "
                                       "stage (empty: after the PPO stage, from its final model; `champion`: "
                                       "the shipped agent): the second stage of a run whose first is trained")
    tables: list[TableConfig] = Field(default_factory=list, description="the stage's tables (empty: the run's)")
    opponents: OpponentsConfig | None = Field(None, description="the stage's opponents (none: the run's)")
    learning_rate: Annotated[Float, Field(gt=0)] | None = Field(None, description="none: the run's")
    n_envs: Envs | None = Field(None, description="games stepped together (none: the run's); search opponents "
                                                  "make each step dearer, so fewer games and longer rollouts")
    n_steps: Annotated[Int, Field(ge=1, le=MAX_ROLLOUT)] | None = Field(None, description="PPO steps per game "
                                                                                      "(none: the run's)")

    _start = field_validator("start")(_stage_start)

    def stage_env(self, env: EnvConfig) -> EnvConfig:
        """The run's `env` with the stage's tables in place of its table or mixture and its n_envs, checked."""
        data = env.model_dump()
        if self.tables:
            data = {k: v for k, v in data.items() if k not in TableOptions.model_fields}
            data["tables"] = [t.model_dump() for t in self.tables]
        if self.n_envs is not None:
            data["n_envs"] = self.n_envs
        return EnvConfig.model_validate(data)


class LeagueConfig(Section):
    """A league of exploiters (training/league.py): after the run's last stage, from its final model (or from
    `start`, skipping the earlier stages), `rounds` agents, each trained by the rounds' config against every
    best response found so far at its league table; in the run folder's `league/`, resumable. Off at 0 rounds."""

    rounds: Annotated[Int, Field(ge=0, le=100)] = Field(0, description="agents to train (0: no league)")
    start: str = Field("", description="a model .pt or run folder to start the league from, skipping the earlier "
                                       "stages (empty: from the run's final model; `champion`: the shipped agent)")
    config: str = Field("exploiter_league", description="the rounds' training config (a packaged name or YAML); "
                                                        "its one table with opponents of its own is the league table")
    best_response: str = Field("exploitability", description="the best responses' config (a packaged name or YAML)")
    seed: Int | None = Field(None, description="the best responses' seed; agent k trains with seed + k (none: the "
                                               "rounds' config's)")
    steps: Count = Field(2_000_000, description="each best response's learner steps")
    eval_every: Count = Field(250_000, description="steps between a best response's evaluations")
    eval_games: Count = Field(200, description="games per evaluation of a best response")
    final_games: Count = Field(400, description="games of a best response's final evaluation")

    _start = field_validator("start")(_stage_start)


class Config(Section):
    """A whole training run. `out` is the run folder (checkpoints, logs, results)."""

    total_timesteps: Count = 300_000
    seed: Int = 0
    out: str = "runs/quickstart"
    checkpoint_every: Count = 50_000
    torch_threads: Workers = Field(1, description="of the training process; more than 1 collapses under CPU "
                                                "contention")
    init_from: str = Field("", description="start from this model's weights: a model .pt, a run folder or "
                                           "`champion`, the shipped agent (fine-tuning)")
    init_optimizer: bool = Field(True, description="with init_from, also its optimiser state, where the file has "
                                                   "one (a fine_tune stage starts afresh: its data and learning "
                                                   "rate are new, and the shipped policy files carry none)")
    env: EnvConfig = Field(default_factory=EnvConfig)
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    evaluation: EvalConfig = Field(default_factory=EvalConfig)
    expert_iteration: ExpertIterationConfig = Field(default_factory=ExpertIterationConfig)
    fine_tune: FineTuneConfig = Field(default_factory=FineTuneConfig)
    league: LeagueConfig = Field(default_factory=LeagueConfig)

    @model_validator(mode="after")
    def _one_later_stage(self):
        tune, league = self.fine_tune, self.league
        if tune.total_timesteps and (self.expert_iteration.rounds or self.expert_iteration.start):
            raise ValueError("give expert_iteration or fine_tune, not both: each is a stage after the PPO stage")
        if league.rounds and (self.expert_iteration.rounds or self.expert_iteration.start):
            raise ValueError("give expert_iteration or league, not both")
        if league.start and not league.rounds:
            raise ValueError("league.start: the league has no rounds (give league.rounds)")
        if league.start and tune.start:
            raise ValueError("league.start skips the earlier stages: not with fine_tune.start")
        if league.rounds:                                  # checked now, not after the earlier stages' hours
            from .league import stage_configs
            stage_configs(self)
        if tune.start and not tune.total_timesteps:
            raise ValueError("fine_tune.start: the stage has no steps (give fine_tune.total_timesteps)")
        if tune.total_timesteps:                           # checked now, not after the PPO stage's hours
            try:
                env = tune.stage_env(self.env)
            except ValidationError as err:
                raise ValueError(f"fine_tune.tables: {err.errors()[0]['msg']}") from None
            _check_rollout("fine_tune: n_steps x n_envs", tune.n_steps or self.ppo.n_steps, env.n_envs)
        return self

    @property
    def skips_ppo_stage(self) -> bool:
        """A later stage names its own start, so the run has no PPO stage."""
        return bool(self.expert_iteration.start or self.fine_tune.start or self.league.start)

    @property
    def stage_follows(self) -> bool:
        """A later stage starts from the PPO stage's final model (so that stage must run to its end)."""
        return bool((self.fine_tune.total_timesteps or self.expert_iteration.rounds or self.league.rounds)
                    and not self.skips_ppo_stage)

    @model_validator(mode="after")
    def _rollout_fits(self):
        _check_rollout("ppo.n_steps x env.n_envs", self.ppo.n_steps, self.env.n_envs)
        return self

    _init_from = field_validator("init_from")(_stage_start)

    def to_dict(self) -> dict:
        return self.model_dump()


def load_config(path: str | Path) -> Config:
    """Read and check a YAML config; raises ConfigError naming the file and every problem."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        data = read_yaml(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML: {yaml_problem(err)}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{path}: cannot read: {err}") from None
    return config_from_dict(data, source=str(path))


def config_from_dict(data, source: str = "config") -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as err:
        found = problems(err, data, Config)
        raise ConfigError(f"{source}: {len(found)} problem(s):\n" +
                          "\n".join(f"  - {key}: {reason}" for key, reason in found)) from None
