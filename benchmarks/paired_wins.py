"""Paired comparison of one bot's wins in two tournament runs on the same deals (same --seed, --games and
line-up but for that bot's options), e.g. a search at 800 and at 3,200 iterations:

    python benchmarks/paired_wins.py results/a results/b --bot champion
    python benchmarks/paired_wins.py results/a results/b --bot ppo --games 400:1600   # games 400..1599 only

Prints the games both runs finished (of --games, if given), each run's wins of the bot (first seat whose spec
starts with --bot), the difference in points with the t 95% interval of the game-by-game differences, and the
exact McNemar test on the games only one of them won (scipy)."""
from __future__ import annotations

import argparse
import csv
from pathlib import Path

from scipy import stats


def wins(folder: Path, bot: str) -> dict[int, bool]:
    """{game: whether the bot ranked first} over the finished games of a tournament folder."""
    out = {}
    with open(folder / "games.csv", newline="") as f:
        for row in csv.DictReader(f):
            seat = next(k[4:] for k in row if k.startswith("bot_") and row[k].startswith(bot))
            out[int(row["game"])] = row[f"rank_{seat}"] == "1"
    return out


def mcnemar(a: dict[int, bool], b: dict[int, bool]) -> tuple[list[int], int, int, float]:
    """The games both runs finished, those won by a only and by b only, and the exact McNemar p."""
    games = sorted(a.keys() & b.keys())
    only_a, only_b = sum(a[g] > b[g] for g in games), sum(b[g] > a[g] for g in games)
    return games, only_a, only_b, stats.binomtest(only_b, only_a + only_b).pvalue if only_a + only_b else 1.0


def paired_difference(a: dict[int, bool], b: dict[int, bool]) -> tuple[float, float, float, float]:
    """b - a in points over the games both runs finished, its t 95% interval over the game-by-game differences,
    and the exact McNemar p."""
    games, _, _, p = mcnemar(a, b)
    d = [float(b[g]) - float(a[g]) for g in games]
    low, high = stats.ttest_1samp(d, 0).confidence_interval() if len(set(d)) > 1 else (sum(d) / len(d),) * 2
    return 100 * sum(d) / len(d), 100 * low, 100 * high, p


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=Path, help="the first run's folder")
    parser.add_argument("b", type=Path, help="the second run's folder")
    parser.add_argument("--bot", default="champion", help="the compared bot's spec prefix (default champion)")
    parser.add_argument("--games", metavar="FIRST:STOP", help="only the games numbered FIRST to STOP - 1")
    args = parser.parse_args(argv)
    a, b = wins(args.a, args.bot), wins(args.b, args.bot)
    if args.games:
        first, _, stop = args.games.partition(":")
        kept = range(int(first or 0), int(stop) if stop else max(a.keys() | b.keys(), default=-1) + 1)
        a, b = ({g: won for g, won in run.items() if g in kept} for run in (a, b))
    games, only_a, only_b, _ = mcnemar(a, b)
    if not games:
        raise SystemExit("the two runs have no finished game in common")
    points, low, high, p = paired_difference(a, b)
    wa, wb = sum(a[g] for g in games), sum(b[g] for g in games)
    print(f"{len(games)} games on the same deals: a {wa} wins ({wa / len(games):.1%}), b {wb} ({wb / len(games):.1%}), "
          f"b - a {points:+.1f} points [{low:+.1f}, {high:+.1f}]; won by a only {only_a}, by b only {only_b}, "
          f"exact McNemar p = {p:.2f}")


if __name__ == "__main__":
    main()
