"""The `nefertiti` command: one subcommand per job (play, replay, serve, bench, tournament, ladder, train, balance, configs, import-sb3).

It sits above every layer (core, env, agents, training), so it may import any of them.
Each subcommand is a module here with `add_parser(subparsers)` that sets `func` and, if it needs
one, the pip `extra`. Only the env's dependencies are always installed: a command whose extra is
not importable stops before it starts (no half-run lost to a late import) with one line naming
the extra to install (`extras`); a module missing later (a bot that needs torch) is named the same way.
"""
from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from importlib.metadata import version

from .extras import PACKAGE, MissingExtra, extra_installing, require

SUBCOMMANDS = ["play", "replay", "serve", "bench", "tournament", "ladder", "train", "balance", "configs", "import_sb3"]


def fail(command: str, message: str) -> int:
    """Report a bad input of `nefertiti <command>` on stderr; returns argparse's exit status 2."""
    print(f"nefertiti {command}: error: {message}", file=sys.stderr)
    return 2


def add_run_folder_options(p: argparse.ArgumentParser) -> None:
    """--resume and --force of the commands that fill an output folder game by game."""
    p.add_argument("--resume", action="store_true", help="continue the run in --out (killed, stopped or "
                   "failed) from its last finished game; give the same options as the first time")
    p.add_argument("--force", action="store_true", help="start the run in --out over (only that run's own "
                   "files are replaced; a folder that is not a run of this command is never touched)")


def add_cluster_option(p: argparse.ArgumentParser) -> None:
    """--ray of the commands whose games may run on a Ray cluster (agents/cluster.py)."""
    p.add_argument("--ray", metavar="ADDRESS", help="play the games on a Ray cluster instead of --workers "
                   "processes: auto (the cluster RAY_ADDRESS or the last `ray start` on this machine names) or "
                   "its address, e.g. head:6379 or ray://head:10001. The files are the same as a local run's and "
                   "--resume works across the two; every node needs the same nefertiti-env and the cluster "
                   "extra (docs/cluster.md)")


def cluster_failed(args, err, saved: int, total: int, out) -> int:
    """A Ray cluster that could not play (unreachable, other code, lost): one line, with the command
    that continues the run when games are saved."""
    if not saved:
        return fail(args.command, str(err))
    return fail(args.command, f"{err}; {saved} of {total} games are saved in {out}/; continue with: "
                              f"{resume_command(args)}")


def resume_command(args) -> str:
    """The command line that continues an interrupted run: the same one, with --resume."""
    words = [w for w in args.argv if w != "--force"]
    return shlex.join(["nefertiti", *words, *([] if "--resume" in words else ["--resume"])])


def stopped(args, saved: int, total: int, out) -> int:
    """Say what an interrupted run saved and how to continue it; returns the exit status of Ctrl-C."""
    print(f"\nstopped: {saved} of {total} games are saved in {out}/; continue with:\n  {resume_command(args)}",
          file=sys.stderr)
    return 130


def add_game_options(p: argparse.ArgumentParser) -> None:
    """The options that shape every game a subcommand plays (NefertitiGame's keywords)."""
    p.add_argument("--ruleset", default="default", help="ruleset name or TOML file (default: default)")
    p.add_argument("--setup", default="beginner", choices=["beginner", "advanced"], help="visible stalls")
    p.add_argument("--memphis", action="store_true", help="use the Port of Memphis (expansion; always with 5)")
    p.add_argument("--characters", default="base", help="base, expansion or a scenario name (default: base)")


def game_options(args) -> dict:
    """NefertitiGame keywords from the options of `add_game_options`."""
    return dict(ruleset=args.ruleset, setup=args.setup, memphis=args.memphis or None, characters=args.characters)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nefertiti",
        description="Nefertiti reinforcement-learning environment: play games, benchmark, "
                    "run bot tournaments, train agents by self-play, study the game's balance.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version(PACKAGE)}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"nefertiti_cli.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"nefertiti_cli.{name}":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        if getattr(args, "extra", None):
            require(args.extra)
        return int(args.func(args) or 0)
    except MissingExtra as err:
        return fail(args.command, str(err))
    except ModuleNotFoundError as err:
        extra = extra_installing(err.name or "")
        if extra is None:
            raise
        return fail(args.command, f"needs the {extra!r} extra (module {err.name!r} is not installed): "
                                  f"pip install \"{PACKAGE}[{extra}]\"")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
