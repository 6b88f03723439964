"""`nefertiti ladder`: every shipped bot rated on one openskill scale; table, plot and page in a folder."""
from __future__ import annotations

import argparse
import shlex

from nefertiti_env.agents import BOTS, LADDER_BOTS

from . import add_cluster_option, add_game_options, add_run_folder_options, cluster_failed, fail, game_options, stopped

EXAMPLE = "nefertiti ladder --workers 2\n  nefertiti ladder --add ppo:path=runs/quickstart --games-per-lineup 16"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "ladder", help="rate every shipped bot (openskill) from seat-rotated games: table, plot, page",
        description="Rate bots on one openskill (Plackett-Luce) scale. Every line-up of --players different "
                    "bots is played (all the combinations, so each pair of bots shares a table equally often), "
                    "each on --games-per-lineup / --players deals with every deal in all the seat rotations. "
                    "Writes to --out: games.csv and records.jsonl (as `nefertiti tournament`), ladder.csv (per bot: "
                    "mu, sigma, ordinal = mu - 3 sigma, win rate with Wilson 95% CI, mean rank with t 95% CI, "
                    "games), ladder.png (ordinals with intervals), ladder.md (the table, command, date, versions) "
                    "and speed.csv. The ladder's order is the ordinal, a cautious rating. Each game is saved as it "
                    "ends: a stopped run (Ctrl-C, SIGTERM) continues with --resume to the same files. The same "
                    "command gives the same results, whatever --workers.",
        epilog=f"examples:\n  {EXAMPLE}\ndefault bots: {','.join(LADDER_BOTS)}\nbots: {', '.join(BOTS)}; "
               "parameters as name:key=value, e.g. mcts:iterations=400 (see docs/bots.md, docs/ladder.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bots", help="comma-separated bots to rate, replacing the default list")
    p.add_argument("--add", help="comma-separated bots to rate on top of --bots (or of the default list)")
    p.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    p.add_argument("--games-per-lineup", type=int, help="games per line-up, a multiple of --players: one deal "
                   "in every seat rotation per --players games (default 2 deals: 2 x --players)")
    p.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    add_cluster_option(p)
    p.add_argument("--seed", type=int, default=0, help="ladder seed (default 0)")
    p.add_argument("--out", default="results/ladder", help="output folder (default results/ladder)")
    add_run_folder_options(p)
    add_game_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run, extra="lab")


def split(text: str | None) -> list[str]:
    return [b.strip() for b in (text or "").split(",") if b.strip()]


def run(args) -> int:
    from nefertiti_env.agents.cluster import ClusterError
    from nefertiti_env.agents.ladder import check, lineups, run_in_folder
    from nefertiti_env.agents.run_folder import RunFolderError, stop_on_sigterm
    from nefertiti_env.agents.tournament import MAX_GAMES, MAX_WORKERS, finished_games, format_table

    bots = (split(args.bots) if args.bots is not None else list(LADDER_BOTS)) + split(args.add)
    per_lineup = args.games_per_lineup if args.games_per_lineup is not None else 2 * args.players
    if not 1 <= args.workers <= MAX_WORKERS:
        return fail("ladder", f"--workers must be 1..{MAX_WORKERS}, got {args.workers}")
    if not 1 <= per_lineup <= MAX_GAMES // 1000:
        return fail("ladder", f"--games-per-lineup must be 1..{MAX_GAMES // 1000:,}, got {per_lineup}")
    if args.resume and args.force:
        return fail("ladder", "--resume continues the run in --out and --force starts it over: give one")
    options = game_options(args)
    total = len(lineups(bots, args.players)) * per_lineup
    command = shlex.join(["nefertiti", *(word for word in args.argv if word not in ("--resume", "--force"))])
    try:
        check(bots, args.players, per_lineup, **options)
        with stop_on_sigterm():
            rows, _ = run_in_folder(args.out, bots, args.players, per_lineup, args.seed, args.workers,
                                    progress=not args.quiet, resume=args.resume, force=args.force,
                                    command=command, ray=args.ray, **options)
    except (ValueError, RunFolderError) as err:
        return fail("ladder", str(err))
    except ClusterError as err:
        return cluster_failed(args, err, finished_games(args.out), total, args.out)
    except KeyboardInterrupt:
        return stopped(args, finished_games(args.out), total, args.out)
    print(format_table(rows))
    print(f"\nladder in {args.out}/ (ladder.md, ladder.csv, ladder.png, games.csv, records.jsonl, speed.csv)")
    return 0
