"""`nefertiti balance`: self-play balance study from a YAML config; raw CSV tables and a report."""
from __future__ import annotations

import argparse
from pathlib import Path

from nefertiti_env.configs import WrongCommandError, resolve

from . import add_cluster_option, add_run_folder_options, cluster_failed, fail, stopped

EXAMPLE = """examples:
  nefertiti balance --config balance --workers 2
  nefertiti balance --config balance_random --games 10000 --out results/balance/random10k
  nefertiti balance --config my_study.yaml
  nefertiti balance --config atlas --games 12 --out results/balance/atlas-small   # every table, 3 populations
  nefertiti balance --config balance --workers 2 --resume   # continue a killed or stopped study
  nefertiti balance --report-only results/balance/default      # redraw the report from its CSV files
  nefertiti balance --report-only results/atlas --publish docs/results/balance/atlas   # report, figures, configs"""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "balance", help="balance study by self-play: seat fairness, gifts, characters, markets, rulesets",
        description="Play the games a study config describes (bots per player count, rulesets to compare, "
                    "restricted-play arms) in worker processes and write to the output folder: raw tables "
                    "(games.csv, seats.csv, gifts.csv, closings.csv, characters.csv), report.md with PNG "
                    "figures (seat fairness with 95% intervals, balance score and chi-squared test, points "
                    "by gift type, Deben per point, monopolies, character use and restricted play, market "
                    "closings, game length, margins, lead changes, ruleset comparison), study.yaml (the "
                    "effective config) and run.json (timings). Each game is saved as it ends (rows.jsonl): a "
                    "killed or stopped study (Ctrl-C, SIGTERM) continues with --resume to the same tables and "
                    "report as an uninterrupted one. The same config and seed give the same "
                    "tables and report, whatever --workers. Config format: see configs/balance.yaml, "
                    "docs/balance.md and `nefertiti configs --schema balance`.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--config", metavar="NAME|YAML", help="a packaged study (balance, balance_random, atlas; "
                                                               "`nefertiti configs` lists them) or a YAML file")
    source.add_argument("--report-only", metavar="FOLDER", help="only rebuild report.md and the figures of "
                                                                "a finished study folder")
    p.add_argument("--workers", type=int, help="processes playing games (default: the config's workers)")
    add_cluster_option(p)
    p.add_argument("--games", type=int, help="override the games per ruleset and player count, and per "
                                              "restricted-play arm; in an atlas, the searching populations' "
                                              "too (e.g. a quick trial run)")
    p.add_argument("--seed", type=int, help="override the study seed")
    p.add_argument("--out", help="override the output folder")
    add_run_folder_options(p)
    p.add_argument("--publish", metavar="DIR", help="after the report, copy what a reader needs into DIR: the "
                                                    "report and its page, figures, answers.csv, the configs, "
                                                    "weights.json and run.json (an atlas's sub-studies' too), "
                                                    "never the game tables; it replaces only files an earlier "
                                                    "publish wrote there")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run, extra="lab")


def _published(args, folder) -> int:
    """`--publish`: the finished study's shared files copied out of its run folder."""
    from nefertiti_env.balance import publish

    if args.publish:
        try:
            copies = publish.publish(folder, args.publish)
        except (ValueError, OSError) as err:            # PublishError, or an unreadable published.json
            return fail("balance", f"the report is written in {folder} but not published: {err}")
        print(f"published {len(copies)} files into {args.publish}")
    return 0


def run(args) -> int:
    from nefertiti_env.agents.cluster import ClusterError
    from nefertiti_env.agents.run_folder import RunFolderError, stop_on_sigterm
    from nefertiti_env.balance import atlas, atlas_report, config, report, runner
    from nefertiti_env.balance.tables import TableError

    if args.report_only:
        try:
            path = (atlas_report.write if (Path(args.report_only) / atlas.ATLAS).exists() else report.write)(
                args.report_only)
        except FileNotFoundError as err:
            return fail("balance", f"{args.report_only} is not a finished study folder ({err.filename} is missing)")
        except (config.ConfigError, TableError, RunFolderError) as err:
            return fail("balance", " ".join(str(err).split()))
        except (ValueError, KeyError, IndexError, ZeroDivisionError) as err:
            return fail("balance", f"{args.report_only}: its tables do not make a report ({type(err).__name__}: "
                                   f"{err}); run the study again")
        print(f"report: {path}")
        return _published(args, args.report_only)
    if args.resume and args.force:
        return fail("balance", "--resume continues the study in --out and --force starts it over: give one")
    overrides = {k: getattr(args, k) for k in ("games", "seed", "out", "workers") if getattr(args, k) is not None}
    try:
        raw = config.read(resolve(args.config, "balance"))
        if atlas.is_atlas(raw):
            return _atlas(args, raw, overrides)
        if isinstance(raw, dict):
            if args.games is not None and isinstance(raw.get("restricted"), dict):
                overrides["restricted"] = {**raw["restricted"], "games": args.games}
            raw = {**raw, **overrides}
        cfg = config.parse(raw, args.config)
    except (FileNotFoundError, WrongCommandError, config.ConfigError) as err:
        return fail("balance", str(err))
    try:
        with stop_on_sigterm():
            figures = runner.run(cfg, progress=not args.quiet, resume=args.resume, force=args.force, ray=args.ray)
    except RunFolderError as err:
        return fail("balance", str(err))
    except ClusterError as err:
        return cluster_failed(args, err, runner.finished_games(cfg.out), runner.game_count(cfg), cfg.out)
    except KeyboardInterrupt:
        return stopped(args, runner.finished_games(cfg.out), runner.game_count(cfg), cfg.out)
    try:
        path = report.write(cfg.out)
    except OSError as err:
        return fail("balance", f"cannot write the report into {cfg.out}: {err.strerror or err}; the tables are "
                               f"saved there: fix the folder and rerun with --report-only {cfg.out}")
    where = f"on the Ray cluster at {args.ray}" if args.ray else f"with {figures['workers']} worker(s)"
    print(f"{figures['games']} games, {figures['decisions']} decisions in {figures['seconds']:.1f} s {where}: "
          f"{figures['games_per_second']} games/s, {figures['decisions_per_second']} decisions/s")
    print(f"tables and figures in {cfg.out}/; report: {path}")
    return _published(args, cfg.out)


def _atlas(args, raw: dict, overrides: dict) -> int:
    """`--config atlas`: every table and population as sub-studies, then the atlas report."""
    from nefertiti_env.agents.cluster import ClusterError
    from nefertiti_env.agents.run_folder import RunFolderError, stop_on_sigterm
    from nefertiti_env.balance import atlas, atlas_report, config

    if args.games is not None and isinstance(raw.get("values"), dict):
        overrides["values"] = {**raw["values"], "games": args.games}
    subsets = [raw["search"]] if isinstance(raw.get("search"), dict) else raw.get("search")
    if args.games is not None and isinstance(subsets, list) and all(isinstance(p, dict) for p in subsets):
        overrides["search"] = [{**part, "games": args.games,            # a subset without restricted arms keeps none
                                "value_games": 0 if part.get("value_games") == 0 else None} for part in subsets]
    try:
        cfg = atlas.parse({**raw, **overrides}, args.config)
    except config.ConfigError as err:
        return fail("balance", str(err))
    try:
        with stop_on_sigterm():
            sessions = atlas.run(cfg, workers=args.workers, progress=not args.quiet, resume=args.resume,
                                 force=args.force, ray=args.ray)
    except RunFolderError as err:
        return fail("balance", str(err))
    except ClusterError as err:
        return cluster_failed(args, err, *atlas.saved(cfg), cfg.out)
    except KeyboardInterrupt:
        return stopped(args, *atlas.saved(cfg), cfg.out)
    games = sum(s.get("games", 0) for s in sessions)
    seconds = sum(s.get("seconds", 0) for s in sessions)
    print(f"{games} games in {seconds:.1f} s over {len(sessions)} tables x populations")
    print(f"atlas report: {atlas_report.write(cfg.out)}")
    return _published(args, cfg.out)
