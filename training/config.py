"""The training configuration: a YAML file checked against these dataclasses.

Every problem in a file is reported at once (unknown keys with the known ones,
wrong types, values out of range), each named by its dotted key, so a typo like
`ppo.learning_rat` fails before any training starts. Defaults are the fields'
defaults; a file only needs what it changes.
"""
from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from agents import parse_spec
from agents.ppo import model_file
from nefertiti_env import NefertitiGame
from nefertiti_env.encoding import OBSERVATIONS
from nefertiti_env.env.aec import REWARDS

SNAPSHOT = "snapshot"      # opponent kind: a frozen copy of the learner


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message lists every problem."""


@dataclass
class EnvConfig:
    """The table the learner plays at and how it is rewarded."""

    num_players: int = 4
    ruleset: str = "default"            # "default" or a ruleset file path
    setup: str = "beginner"             # beginner or advanced stall sides
    reward: str = "win_loss"            # terminal reward of the learner, one of REWARDS
    observation: str = "v0"             # observation version: v0 (3,225 floats) or the compact v1 (657)
    n_envs: int = 16                    # environments stepped together (the policy runs on all at once)
    workers: int = 2                    # processes that step them (1: in the training process)

    def problems(self) -> list[str]:
        out = [f"reward must be one of {', '.join(REWARDS)}, got {self.reward!r}"] * (self.reward not in REWARDS)
        out += [f"observation must be one of {', '.join(OBSERVATIONS)}, got {self.observation!r}"] \
            * (self.observation not in OBSERVATIONS)
        out += [f"{k} must be >= 1, got {getattr(self, k)}" for k in ("n_envs", "workers") if getattr(self, k) < 1]
        try:                             # the core knows which tables it can play
            NefertitiGame(num_players=self.num_players, ruleset=self.ruleset, setup=self.setup, seed=0)
        except (ValueError, NotImplementedError, OSError) as err:
            out.append(f"num_players/ruleset/setup: cannot set up this table: {err}")
        return out


@dataclass
class OpponentsConfig:
    """Who sits at the other seats: each seat's opponent is drawn per episode with these weights.

    Keys are bot specs (`make_bot`: "random", "greedy:samples=1", ...) or "snapshot":
    a frozen copy of the learner, taken every `snapshot_every` steps (the newest
    `max_snapshots` are kept), playing sampled or greedy actions.
    """

    weights: dict[str, float] = field(default_factory=lambda: {"random": 1.0})
    snapshot_every: int = 50_000
    max_snapshots: int = 20
    snapshot_deterministic: bool = False
    per_table: bool = False             # one draw for all opponent seats of an episode (n-1 copies of one kind)

    def problems(self) -> list[str]:
        bots = [k for k in self.weights if k != SNAPSHOT]
        out = [f"weights: {p} (a key is a bot spec or {SNAPSHOT!r})" for p in _spec_problems(bots)]
        out += [f"weights.{k} must be >= 0, got {w}" for k, w in self.weights.items() if w < 0]
        if sum(self.weights.values()) <= 0:
            out.append("weights must have a positive total")
        out += [f"snapshot_every must be >= 1, got {self.snapshot_every}"] * (self.snapshot_every < 1)
        out += [f"max_snapshots must be >= 1, got {self.max_snapshots}"] * (self.max_snapshots < 1)
        return out


@dataclass
class PPOConfig:
    """MaskablePPO hyperparameters (sb3-contrib names); n_steps is per environment."""

    n_steps: int = 1024
    batch_size: int = 256
    n_epochs: int = 10
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: list[int] = field(default_factory=lambda: [256, 256])

    def problems(self) -> list[str]:
        out = [f"{k} must be >= 1, got {getattr(self, k)}" for k in ("n_steps", "batch_size", "n_epochs")
               if getattr(self, k) < 1]
        out += [f"{k} must be in (0, 1], got {getattr(self, k)}" for k in ("gamma", "gae_lambda")
                if not 0 < getattr(self, k) <= 1]
        out += [f"{k} must be > 0, got {getattr(self, k)}" for k in ("learning_rate", "clip_range", "max_grad_norm")
                if getattr(self, k) <= 0]
        out += [f"{k} must be >= 0, got {getattr(self, k)}" for k in ("ent_coef", "vf_coef") if getattr(self, k) < 0]
        if not self.net_arch or min(self.net_arch) < 1:
            out.append(f"net_arch must be a non-empty list of layer sizes >= 1, got {self.net_arch}")
        return out


@dataclass
class EvalConfig:
    """Evaluation: the learner against n-1 copies of each baseline, seats rotated.

    Every `every_steps` steps `games` games per baseline; at the end `final_games`.
    """

    every_steps: int = 50_000
    games: int = 40
    final_games: int = 200
    baselines: list[str] = field(default_factory=lambda: ["random", "greedy", "collector", "banker"])
    deterministic: bool = True          # the learner plays its most likely action
    workers: int = 2                    # processes that play evaluation games

    def problems(self) -> list[str]:
        out = [f"baselines: {p}" for p in _spec_problems(self.baselines)]
        out += [f"{k} must be >= 1, got {getattr(self, k)}" for k in ("every_steps", "games", "final_games", "workers")
                if getattr(self, k) < 1]
        return out


@dataclass
class Config:
    """A whole training run. `out` is the run folder (checkpoints, logs, results)."""

    total_timesteps: int = 300_000
    seed: int = 0
    out: str = "runs/quickstart"
    checkpoint_every: int = 50_000
    torch_threads: int = 1              # of the training process; more than 1 collapses under CPU contention
    init_from: str = ""                 # start from this model's weights: a model .pt or a run folder (fine-tuning)
    env: EnvConfig = field(default_factory=EnvConfig)
    opponents: OpponentsConfig = field(default_factory=OpponentsConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    evaluation: EvalConfig = field(default_factory=EvalConfig)

    def problems(self) -> list[str]:
        out = [f"{k} must be >= 1, got {getattr(self, k)}" for k in ("total_timesteps", "checkpoint_every",
                                                                      "torch_threads") if getattr(self, k) < 1]
        for name in ("env", "opponents", "ppo", "evaluation"):
            out += [f"{name}.{p}" for p in getattr(self, name).problems()]
        if self.init_from and not model_file(self.init_from).is_file():
            out.append(f"init_from: no model at {self.init_from!r} (give a model .pt, or a run folder "
                       f"with final_model.pt)")
        return out

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _spec_problems(specs) -> list[str]:
    """Why each bot spec cannot be made (unknown bot, malformed parameter)."""
    out = []
    for spec in specs:
        try:
            parse_spec(spec)
        except ValueError as err:
            out.append(str(err))
    return out


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
    problems: list[str] = []
    config = _build(Config, data, "", problems)
    problems += config.problems()        # fields with a wrong type kept their valid defaults
    if problems:
        raise ConfigError(f"{source}: {len(problems)} problem(s):\n" + "\n".join(f"  - {p}" for p in problems))
    return config


def _build(cls, data, prefix: str, problems: list[str]):
    """An instance of dataclass `cls` from a mapping, appending type problems and unknown keys."""
    if not isinstance(data, dict):
        problems.append(f"{prefix.rstrip('.') or 'top level'} must be a mapping, got {type(data).__name__}")
        return cls()
    hints = typing.get_type_hints(cls)
    known = {f.name for f in dataclasses.fields(cls)}
    for key in data:
        if key not in known:
            problems.append(f"{prefix}{key}: unknown key (known here: {', '.join(sorted(known))})")
    values = {}
    for name in known & set(data):
        value = _convert(hints[name], data[name], prefix + name, problems)
        if value is not None:
            values[name] = value
    return cls(**values)


def _convert(hint, value, key: str, problems: list[str]):
    """`value` as type `hint` (None after appending a problem)."""
    if dataclasses.is_dataclass(hint):
        return _build(hint, value, key + ".", problems)
    origin = typing.get_origin(hint)
    if origin is list:
        if not isinstance(value, list):
            problems.append(f"{key} must be a list, got {value!r}")
            return None
        items = [_convert(typing.get_args(hint)[0], v, f"{key}[{i}]", problems) for i, v in enumerate(value)]
        return items if None not in items else None
    if origin is dict:
        if not isinstance(value, dict):
            problems.append(f"{key} must be a mapping, got {value!r}")
            return None
        items = {str(k): _convert(typing.get_args(hint)[1], v, f"{key}.{k}", problems) for k, v in value.items()}
        return items if None not in items.values() else None
    if hint is float and isinstance(value, str):
        try:                             # YAML 1.1 reads 3e-4 (no dot) as a string
            return float(value)
        except ValueError:
            pass
    if hint in (int, float):
        ok = isinstance(value, (int, float) if hint is float else int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, hint)
    if not ok:
        problems.append(f"{key} must be {hint.__name__}, got {value!r}")
        return None
    return hint(value)
