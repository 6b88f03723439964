"""`nefertiti train`: self-play MaskablePPO training from a YAML config (see docs/training.md)."""
from __future__ import annotations

import argparse
import sys

from . import fail

DESCRIPTION = """\
Train an agent by self-play with MaskablePPO. The learner plays one seat (rotating by
game) of `env.n_envs` games stepped together on the batched compiled engine in this
process; all other seats of a game are one opponent kind, drawn per game with
`opponents.weights`: random or heuristic bots (greedy, collector, banker), a trained
agent without search (champion, ppo:path=...) or frozen snapshots of the learner.
Configs of earlier versions load as they are (`env.vector: true`, `env.workers` and
`opponents.per_table` are ignored). During training: a progress bar, TensorBoard
and CSV logs, periodic evaluation against each baseline bot (win rate with a 95%
confidence interval, seats rotated), checkpoints. At the end: a result table (printed,
results.csv, results.md) and a learning curve (learning_curve.png) in the run folder.

A config with an `expert_iteration` section then plays rounds of expert iteration (search
self-play games with the policy as the MCTS prior, the policy fitted to the search's visits
and its value to the outcomes), or plays them instead of PPO from the model it names; rounds
go to expert_iteration/ in the run folder, and --resume continues from the last whole round.

examples:
  nefertiti train --config quickstart
  nefertiti train --config selfplay_4p --out runs/long
  nefertiti train --config my_config.yaml
  nefertiti train --config tiny_expert_iteration --out runs/tiny_ei
  nefertiti train --out runs/long --resume
  nefertiti train --config whole_game --out runs/wg --stop-at 16000000   # a leg that ends at a checkpoint
  nefertiti train --config selfplay_4p --out runs/long --force   # start it over
  nefertiti train --config whole_game --set seed=4051 --out runs/whole_game_seed2
  nefertiti train --config whole_game --set env.ruleset=cheap_gold --set ppo.learning_rate=1e-4

The run folder must be new, empty, or a training run's own folder: any other folder is
refused and nothing in it is touched. Ctrl-C or SIGTERM stops the run and every worker
process, keeps the checkpoints and says how to continue (--resume). A resumed session deals new
games from its checkpoint's step, so a run in legs is repeatable when each leg ends at a given
checkpoint (--stop-at) rather than at a moment. Models are saved and
loaded as plain weights (no pickled code): see "What is safe to load" in docs/training.md.
  tensorboard --logdir runs/long/logs
"""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "train", help="train an agent by self-play (MaskablePPO) and evaluate it against the bots",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", metavar="NAME|FILE",
                        help="a packaged config (quickstart, selfplay_4p; `nefertiti configs` lists them) or a "
                             "YAML file; "
                             "with --resume it may be omitted if --out names the run folder")
    parser.add_argument("--out", metavar="DIR", help="run folder (overrides the config's `out`)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in the run folder from its latest checkpoint, with its saved config "
                             "(steps, opponent pool and logs continue)")
    parser.add_argument("--force", action="store_true",
                        help="start the run in --out over: its checkpoints, snapshots, logs and results are "
                             "replaced (only the run's own files; a folder that is not a training run is refused)")
    parser.add_argument("--total-timesteps", type=int, metavar="N",
                        help="train to N environment steps in all (overrides the config; with --resume, extends "
                             "or shortens the run)")
    parser.add_argument("--stop-at", type=int, metavar="N",
                        help="end this session at the first checkpoint it writes at or past N learner steps of "
                             "the stage it is training (each PPO stage counts its own), exit 0; --resume "
                             "continues from it. The same legs give the same weights bit for bit")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="change one key of the config before the run, a dotted path to it and a YAML value "
                             "(seed=7, env.ruleset=cheap_gold, ppo.net_arch=[128,128]); repeatable; checked like "
                             "the file; the run folder's config.yaml keeps the result")
    parser.add_argument("--quiet", action="store_true", help="no progress bars or table on the terminal")
    parser.set_defaults(func=run, extra="train")


def run(args) -> int:
    from nefertiti_env.agents.policy_file import ModelFileError
    from nefertiti_env.agents.run_folder import RunFolderError, stop_on_sigterm
    from nefertiti_env.training.config import ConfigError, config_from_dict, load_config

    from nefertiti_env.configs import WrongCommandError, resolve

    out = None
    try:
        if args.config is None and not (args.resume and args.out):
            raise ConfigError("give --config FILE (or --resume --out RUN_FOLDER)")
        if args.resume and args.force:
            raise ConfigError("give --resume (continue the run) or --force (start it over), not both")
        if args.total_timesteps is not None and args.total_timesteps < 1:
            raise ConfigError(f"--total-timesteps must be >= 1, got {args.total_timesteps}")
        if args.stop_at is not None and args.stop_at < 1:
            raise ConfigError(f"--stop-at must be >= 1, got {args.stop_at}")
        if args.resume and args.set:
            raise ConfigError("--resume continues a run with its saved config: --set starts a new run")
        try:
            config = load_config(resolve(args.config, "train")) if args.config else None
        except (FileNotFoundError, WrongCommandError) as err:
            raise ConfigError(str(err)) from None
        out = args.out or config.out
        from nefertiti_env.training.trainer import LegEnded, load_run_config, train
        if args.resume:
            config = load_run_config(out, args.total_timesteps)
        else:
            data = set_keys(config.to_dict(), args.set)
            out = args.out or data.get("out", out)
            overrides = {"out": out}
            if args.total_timesteps is not None:
                overrides["total_timesteps"] = args.total_timesteps
            config = config_from_dict({**data, **overrides}, source=args.config)
        if args.total_timesteps is not None and config.stage_follows:
            raise ConfigError("--total-timesteps ends the first stage early, and the run's later stage (fine_tune, "
                              "expert_iteration or league) would then start from that unfinished model: end a leg "
                              "with --stop-at N (or Ctrl-C, kill -TERM) instead, and continue with --resume")
        try:
            with stop_on_sigterm():
                train(config, resume=args.resume, progress=not args.quiet, force=args.force, stop_at=args.stop_at)
        except LegEnded:
            print(f"\nnefertiti train: the leg ended (--stop-at {args.stop_at:,}): {_saved(out)}", file=sys.stderr)
    except (ConfigError, RunFolderError) as err:
        return fail("train", str(err))
    except ModelFileError as err:              # a damaged checkpoint or snapshot: named, nothing changed
        return fail("train", f"{err}; earlier checkpoints in checkpoints/ are kept (remove the damaged one to "
                             "resume from the one before)")
    except KeyboardInterrupt:
        print(f"\nnefertiti train: stopped (every worker process ended); {_saved(out)}", file=sys.stderr)
        return 130
    except OSError as err:                      # a full disk or a folder that became read-only mid-run
        where = f" ({err.filename})" if err.filename else ""
        print(f"nefertiti train: cannot write: {err.strerror or err}{where}; {_saved(out)}", file=sys.stderr)
        return 1
    return 0


def set_keys(data: dict, settings: list[str]) -> dict:
    """`data` with each KEY=VALUE of `settings` set: KEY a dotted path through its tables, VALUE read as YAML.
    A path through a value that is no table is a ConfigError; an unknown last key is left to the config's check,
    which names it."""
    import copy

    import yaml

    from nefertiti_env.training.config import ConfigError

    data = copy.deepcopy(data)
    for setting in settings:
        key, sep, text = setting.partition("=")
        path = key.strip().split(".")
        if not sep or not all(path):
            raise ConfigError(f"--set {setting!r}: give KEY=VALUE, KEY a dotted path such as env.ruleset")
        try:
            value = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise ConfigError(f"--set {setting!r}: the value is no YAML: {err}") from None
        table = data
        for i, name in enumerate(path[:-1]):
            if table.get(name) is None:            # an absent or unset section becomes a table
                table[name] = {}
            table = table[name]
            if not isinstance(table, dict):
                raise ConfigError(f"--set {setting!r}: {'.'.join(path[:i + 1])} is a value, not a table of keys")
        table[path[-1]] = value
    return data


def _saved(out) -> str:
    """What an interrupted run kept, and how to continue it."""
    if out is None:
        return "nothing was started"
    from nefertiti_env.training.trainer import resume_hint
    return resume_hint(out)
