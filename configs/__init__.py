"""The packaged run configs (YAML), installed as nefertiti_env.configs: `nefertiti configs` lists them.

Finding one by name lives here, beside the files, so that the CLI and the library's own commands
(`training.value_fit --tables`) resolve names alike without the library importing the CLI.
"""
from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

# Top-level keys only a training config has (tests/test_packaging.py holds it to the config models); a balance
# config is an atlas (`kind: atlas`) or has `lineups`.
TRAIN_KEYS = {"checkpoint_every", "env", "evaluation", "expert_iteration", "fine_tune", "init_from", "init_optimizer",
              "league", "opponents", "ppo", "torch_threads", "total_timesteps"}
TOP_LEVEL = re.compile(r"([A-Za-z_]\w*):(.*)")


class WrongCommandError(ValueError):
    """A config of one `nefertiti` command given to the other."""


def packaged() -> dict[str, Path]:
    """Name -> file of every packaged YAML config."""
    folder = files(__name__)
    return {p.name.removesuffix(".yaml"): Path(str(p)) for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".yaml")}


def command_of(path: Path) -> str | None:
    """The `nefertiti` command that runs the config at `path` ("train" or "balance"), read from its top-level
    keys without a YAML parser (the lean install has none), or None when they do not tell."""
    keys, kind = set(), None
    for line in path.read_text(encoding="utf-8").splitlines():
        if match := TOP_LEVEL.match(line):
            keys.add(match[1])
            if match[1] == "kind":
                kind = match[2].split("#")[0].strip().strip("'\"")
    if kind == "atlas" or "lineups" in keys:
        return "balance"
    return "train" if keys & TRAIN_KEYS else None


def resolve(config: str, command: str | None = None) -> Path:
    """The file `config` names: an existing path, else a packaged config ("quickstart",
    "configs/quickstart.yaml"). FileNotFoundError listing the packaged names (those `command` runs, when
    given) if there is none; WrongCommandError naming the right command if `command` cannot run it."""
    path = Path(config)
    if not path.is_file():
        known, name = packaged(), path.name.removesuffix(".yaml")
        if not (str(path.parent) in (".", "configs") and name in known):
            names = [n for n, p in known.items() if command in (None, command_of(p))]
            kind = f"{command} " if command else ""
            raise FileNotFoundError(f"config file not found: {config} (packaged {kind}configs: {', '.join(names)})")
        path = known[name]
    other = command_of(path) if command else None
    if other not in (None, command):
        raise WrongCommandError(f"{config} is a {other} config, not a {command} one: run it with "
                                f"`nefertiti {other} --config {config}`")
    return path
