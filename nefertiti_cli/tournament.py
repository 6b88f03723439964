"""`nefertiti tournament`: bots play every seat rotation; results, ratings and a plot in a folder."""
from __future__ import annotations

import argparse

from nefertiti_env.agents import BOTS

from . import add_cluster_option, add_game_options, add_run_folder_options, cluster_failed, fail, game_options, stopped

EXAMPLE = "nefertiti tournament --players 4 --bots mcts,collector,greedy,random --games 1000 --workers 2"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "tournament", help="bot tournament with seat rotation, ratings and confidence intervals",
        description="Play a line-up of bots against each other. Game i replays deal i // players with "
                    "the line-up rotated i % players seats, so every bot plays every seat; every other deal "
                    "reverses the line-up's order, so that each bot sits on either side of each other as often "
                    "(a line-up of one bot against copies of another needs no reversal). Writes games.csv, "
                    "records.jsonl, summary.csv (win rate with Wilson 95% CI, mean rank with t 95% CI, "
                    "openskill Plackett-Luce mu/sigma/ordinal), speed.csv and winrates.png to --out. "
                    "Each game is saved as it ends: a killed or stopped run (Ctrl-C, SIGTERM) continues "
                    "with --resume to the same files as an uninterrupted one. "
                    "The same command reproduces the same results, whatever --workers.",
        epilog=f"example: {EXAMPLE}\nbots: {', '.join(BOTS)}; parameters as name:key=value, "
               "e.g. mcts:iterations=400; a trained agent: ppo:path=runs/quickstart (see docs/bots.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    p.add_argument("--bots", required=True, help="comma-separated line-up, one bot per seat")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    add_cluster_option(p)
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--out", default="results/tourney", help="output folder (default results/tourney)")
    add_run_folder_options(p)
    add_game_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run, extra="lab")


def run(args) -> int:
    from nefertiti_env.agents.cluster import ClusterError
    from nefertiti_env.agents.run_folder import RunFolderError, stop_on_sigterm
    from nefertiti_env.agents.tournament import (MAX_GAMES, MAX_WORKERS, check_lineup, finished_games,
                                                  folder_speed, format_table, run_in_folder, speed_rows)

    lineup = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not 1 <= args.games <= MAX_GAMES:
        return fail("tournament", f"--games must be 1..{MAX_GAMES:,}, got {args.games}")
    if not 1 <= args.workers <= MAX_WORKERS:
        return fail("tournament", f"--workers must be 1..{MAX_WORKERS}, got {args.workers}")
    if args.resume and args.force:
        return fail("tournament", "--resume continues the run in --out and --force starts it over: give one")
    options = game_options(args)
    try:
        check_lineup(lineup, args.players, **options)
        with stop_on_sigterm():
            summary, _ = run_in_folder(args.out, lineup, args.games, args.seed, args.workers,
                                            progress=not args.quiet, resume=args.resume, force=args.force,
                                            ray=args.ray, **options)
    except ValueError as err:
        return fail("tournament", str(err))
    except RunFolderError as err:
        return fail("tournament", str(err))
    except ClusterError as err:
        return cluster_failed(args, err, finished_games(args.out), args.games, args.out)
    except KeyboardInterrupt:
        return stopped(args, finished_games(args.out), args.games, args.out)
    print(format_table(summary))
    speed = speed_rows(folder_speed(args.out))
    if speed:
        print("\ndecisions per CPU second of thinking (every session of the run):")
        for row in speed:
            print(f"  {row['bot']:<32} {row['decisions_per_second']:>10.1f}  ({row['decisions']} decisions)")
    print(f"\nresults in {args.out}/ (games.csv, records.jsonl, summary.csv, speed.csv, winrates.png)")
    return 0
