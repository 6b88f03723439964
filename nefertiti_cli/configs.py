"""`nefertiti configs`: the run configs packaged with the project, and their JSON Schemas.

`--config NAME` of `nefertiti train` and `nefertiti balance` finds a packaged config by its
name (`nefertiti_env.configs.resolve`), so a wheel install runs them from any folder; a path to a
file still works.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from nefertiti_env.configs import command_of, packaged

from .extras import require

SCHEMAS = ("train", "balance")
EXAMPLE = """examples:
  nefertiti configs                       # name, command and purpose of each packaged config
  nefertiti configs --schema train        # JSON Schema of training configs (editor completion, checks)
  nefertiti train --config quickstart     # run a packaged config by name"""


def description(path: Path) -> str:
    """The first line of the config's leading comment."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    return first.lstrip("#").strip() if first.startswith("#") else ""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "configs", help="list the packaged run configs, or print a config format's JSON Schema",
        description="List the configs packaged with nefertiti-env (use them as --config NAME), or print "
                    "the JSON Schema of a config format: every key, its type, default and description.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--schema", choices=SCHEMAS, help="print this config format's JSON Schema")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.schema:
        print(json.dumps(_model(args.schema).model_json_schema(), indent=2))
        return 0
    configs = packaged()
    width = max(map(len, configs))
    print(f"{'name':<{width}}  {'run with':<18}  what it is")
    for name, path in configs.items():
        print(f"{name:<{width}}  {'nefertiti ' + (command_of(path) or '?'):<18}  {description(path)}")
    return 0


def _model(kind: str):
    """The pydantic model of a config format, imported only when asked (it needs the lab extra)."""
    require("lab")
    if kind == "train":
        from nefertiti_env.training.config import Config
        return Config
    from nefertiti_env.balance.config import StudyConfig
    return StudyConfig
