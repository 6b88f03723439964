"""`nefertiti tournament`: bots play every seat rotation; results, ratings and a plot in a folder."""
from __future__ import annotations

import argparse

from agents import BOTS

from . import add_game_options, fail, game_options

EXAMPLE = "nefertiti tournament --players 4 --bots mcts,collector,greedy,random --games 1000 --workers 2"


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "tournament", help="bot tournament with seat rotation, ratings and confidence intervals",
        description="Play a line-up of bots against each other. Game i replays deal i // players with "
                    "the line-up rotated i % players seats, so every bot plays every seat. Writes games.csv, "
                    "records.jsonl, summary.csv (win rate with Wilson 95% CI, mean rank with t 95% CI, "
                    "openskill Plackett-Luce mu/sigma/ordinal), speed.csv and winrates.png to --out. "
                    "The same command reproduces the same results, whatever --workers.",
        epilog=f"example: {EXAMPLE}\nbots: {', '.join(BOTS)}; parameters as name:key=value, "
               "e.g. mcts:iterations=400; a trained agent: ppo:path=runs/quickstart (see docs/bots.md)",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    p.add_argument("--bots", required=True, help="comma-separated line-up, one bot per seat")
    p.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    p.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    p.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    p.add_argument("--out", default="results/tourney", help="output folder (default results/tourney)")
    add_game_options(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from agents.tournament import check_lineup, run as play, speed_rows, write_results, format_table

    lineup = [b.strip() for b in args.bots.split(",") if b.strip()]
    if args.games < 1:
        return fail("tournament", f"--games must be at least 1, got {args.games}")
    if args.workers < 1:
        return fail("tournament", f"--workers must be at least 1, got {args.workers}")
    options = game_options(args)
    try:
        check_lineup(lineup, args.players, **options)
        results = play(lineup, args.games, args.seed, args.workers, progress=not args.quiet, **options)
    except ValueError as err:
        return fail("tournament", str(err))
    summary = write_results(args.out, results)
    print(format_table(summary))
    print("\ndecisions per CPU second of thinking:")
    for row in speed_rows(results):
        print(f"  {row['bot']:<32} {row['decisions_per_second']:>10.1f}  ({row['decisions']} decisions)")
    print(f"\nresults in {args.out}/ (games.csv, records.jsonl, summary.csv, speed.csv, winrates.png)")
    return 0
