"""The training configuration: a YAML file checked by these pydantic models.

Every problem in a file is reported at once (unknown keys with the known ones,
wrong types, values out of range), each named by its dotted key, so a typo like
`ppo.learning_rat` fails before any training starts. Defaults are the fields'
defaults; a file only needs what it changes. `nefertiti configs --schema train`
prints the JSON Schema.
"""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from nefertiti_env.agents import parse_spec
from nefertiti_env.agents.config import Float, Int, Section, problems
from nefertiti_env.agents.ppo import model_file
from nefertiti_env import NefertitiGame
from nefertiti_env.encoding import OBSERVATIONS
from nefertiti_env.env.aec import REWARDS

from .bot_tables import seats_at_bot_tables

SNAPSHOT = "snapshot"      # opponent kind: a frozen copy of the learner
RANDOM = "random"          # opponent kind: uniformly random legal moves
Count = Annotated[Int, Field(ge=1)]


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message lists every problem."""


def _check_specs(specs):
    """Every bot spec must make a bot (known name, well-formed parameters)."""
    for spec in specs:
        if spec != SNAPSHOT:
            parse_spec(spec)
    return specs


class EnvConfig(Section):
    """The table the learner plays at and how it is rewarded."""

    num_players: Annotated[Int, Field(ge=2, le=5)] = 4
    ruleset: str = Field("default", description='a packaged ruleset name ("default", "cheap_gold") or a TOML path')
    setup: Literal["beginner", "advanced"] = Field("beginner", description="the visible stalls")
    reward: Literal[REWARDS] = Field("win_loss", description="terminal reward of the learner")
    observation: Literal[tuple(OBSERVATIONS)] = Field(
        "v0", description="observation version: v0 (3,225 floats) or the compact v1 (657)")
    n_envs: Count = Field(16, description="environments stepped together (the policy runs on all at once)")
    workers: Count = Field(2, description="processes that step them (1: in the training process)")
    vector: bool = Field(False, description="step them in the training process on the batched compiled engine "
                                            "(training/batched_vec_env.py, docs/vector.md; workers unused): "
                                            "random, snapshot and heuristic bot opponents (one kind per table) "
                                            "and the win_loss reward only")

    @model_validator(mode="after")
    def _table_can_be_set_up(self):
        try:                             # the core knows which tables it can play
            NefertitiGame(num_players=self.num_players, ruleset=self.ruleset, setup=self.setup, seed=0)
        except (ValueError, NotImplementedError, OSError) as err:
            raise ValueError(f"num_players/ruleset/setup: cannot set up this table: {err}") from None
        return self


class OpponentsConfig(Section):
    """Who sits at the other seats: each seat's opponent is drawn per episode with these weights.

    Keys are bot specs (`make_bot`: "random", "greedy:samples=1", ...) or "snapshot":
    a frozen copy of the learner, taken every `snapshot_every` steps (the newest
    `max_snapshots` are kept), playing sampled or greedy actions.
    """

    weights: dict[str, Annotated[Float, Field(ge=0)]] = Field(default_factory=lambda: {"random": 1.0})
    snapshot_every: Count = 50_000
    max_snapshots: Count = 20
    snapshot_deterministic: bool = False
    per_table: bool = Field(False, description="one draw for all opponent seats of an episode (n-1 copies of one "
                                               "kind)")

    @field_validator("weights")
    @classmethod
    def _weights(cls, weights):
        try:
            _check_specs(weights)
        except ValueError as err:
            raise ValueError(f"{err} (a key is a bot spec or {SNAPSHOT!r})") from None
        if sum(weights.values()) <= 0:
            raise ValueError("weights must have a positive total")
        return weights


class PPOConfig(Section):
    """MaskablePPO hyperparameters (sb3-contrib names); n_steps is per environment."""

    n_steps: Count = 1024
    batch_size: Count = 256
    n_epochs: Count = 10
    learning_rate: Annotated[Float, Field(gt=0)] = 3e-4
    gamma: Annotated[Float, Field(gt=0, le=1)] = 0.99
    gae_lambda: Annotated[Float, Field(gt=0, le=1)] = 0.95
    clip_range: Annotated[Float, Field(gt=0)] = 0.2
    ent_coef: Annotated[Float, Field(ge=0)] = 0.01
    vf_coef: Annotated[Float, Field(ge=0)] = 0.5
    max_grad_norm: Annotated[Float, Field(gt=0)] = 0.5
    net_arch: Annotated[list[Count], Field(min_length=1)] = Field(default_factory=lambda: [256, 256],
                                                                  description="hidden layer sizes")


class EvalConfig(Section):
    """Evaluation: the learner against n-1 copies of each baseline, seats rotated.

    Every `every_steps` steps `games` games per baseline; at the end `final_games`.
    """

    every_steps: Count = 50_000
    games: Count = 40
    final_games: Count = 200
    baselines: list[str] = Field(default_factory=lambda: ["random", "greedy", "collector", "banker"])
    deterministic: bool = Field(True, description="the learner plays its most likely action")
    workers: Count = Field(2, description="processes that play evaluation games")
    ray: str | None = Field(None, description="a Ray cluster's address (or auto) to play evaluation games on "
                                              "instead of `workers` processes (docs/cluster.md)")

    _baselines = field_validator("baselines")(_check_specs)


class Config(Section):
    """A whole training run. `out` is the run folder (checkpoints, logs, results)."""

    total_timesteps: Count = 300_000
    seed: Int = 0
    out: str = "runs/quickstart"
    checkpoint_every: Count = 50_000
    torch_threads: Count = Field(1, description="of the training process; more than 1 collapses under CPU "
                                                "contention")
    init_from: str = Field("", description="start from this model's weights: a model .pt or a run folder "
                                           "(fine-tuning)")
    env: EnvConfig = Field(default_factory=EnvConfig)
    opponents: OpponentsConfig = Field(default_factory=OpponentsConfig)
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    evaluation: EvalConfig = Field(default_factory=EvalConfig)

    @model_validator(mode="after")
    def _vector_env_can_play_it(self):
        if not self.env.vector:
            return self
        others = [k for k in self.opponents.weights.keys() - {RANDOM, SNAPSHOT} if not seats_at_bot_tables(k)]
        if others or self.env.reward != "win_loss":
            raise ValueError(f"env.vector: the batched env plays {RANDOM}, {SNAPSHOT} and heuristic bot opponents "
                             f"(greedy, collector, banker) with the win_loss reward; got {self.opponents.weights} "
                             f"and {self.env.reward!r}")
        return self

    @field_validator("init_from")
    @classmethod
    def _model_exists(cls, init_from):
        if init_from and not model_file(init_from).is_file():
            raise ValueError(f"no model at {init_from!r} (give a model .pt, or a run folder with final_model.pt)")
        return init_from

    def to_dict(self) -> dict:
        return self.model_dump()


def load_config(path: str | Path) -> Config:
    """Read and check a YAML config; raises ConfigError naming the file and every problem."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML: {err}") from None
    return config_from_dict(data, source=str(path))


def config_from_dict(data, source: str = "config") -> Config:
    try:
        return Config.model_validate(data)
    except ValidationError as err:
        found = problems(err, data, Config)
        raise ConfigError(f"{source}: {len(found)} problem(s):\n" +
                          "\n".join(f"  - {key}: {reason}" for key, reason in found)) from None
