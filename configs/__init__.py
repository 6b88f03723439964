"""The packaged run configs (YAML), installed as nefertiti_env.configs: `nefertiti configs` lists them.

Finding one by name lives here, beside the files, so that the CLI and the library's own commands
(`training.value_fit --tables`) resolve names alike without the library importing the CLI.
"""
from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def packaged() -> dict[str, Path]:
    """Name -> file of every packaged YAML config."""
    folder = files(__name__)
    return {p.name.removesuffix(".yaml"): Path(str(p)) for p in sorted(folder.iterdir(), key=lambda p: p.name)
            if p.name.endswith(".yaml")}


def resolve(config: str) -> Path:
    """The file `config` names: an existing path, else a packaged config ("quickstart",
    "configs/quickstart.yaml"); FileNotFoundError listing the packaged names otherwise."""
    path = Path(config)
    if path.is_file():
        return path
    known = packaged()
    name = path.name.removesuffix(".yaml")
    if str(path.parent) in (".", "configs") and name in known:
        return known[name]
    raise FileNotFoundError(f"config file not found: {config} (packaged configs: {', '.join(known)})")
