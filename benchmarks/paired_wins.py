"""Paired comparison of one bot's wins in two tournament runs on the same deals (same --seed, --games and
line-up but for that bot's options), e.g. a search at 800 and at 3,200 iterations:

    python benchmarks/paired_wins.py results/a results/b --bot champion

Prints the games both runs finished, each run's wins of the bot (first seat whose spec starts with --bot),
the difference in points and the exact McNemar test on the games only one of them won (scipy)."""
from __future__ import annotations

import argparse
import csv
from pathlib import Path

from scipy.stats import binomtest


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
    return games, only_a, only_b, binomtest(only_b, only_a + only_b).pvalue if only_a + only_b else 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a", type=Path, help="the first run's folder")
    parser.add_argument("b", type=Path, help="the second run's folder")
    parser.add_argument("--bot", default="champion", help="the compared bot's spec prefix (default champion)")
    args = parser.parse_args()
    a, b = wins(args.a, args.bot), wins(args.b, args.bot)
    games, only_a, only_b, p = mcnemar(a, b)
    if not games:
        raise SystemExit("the two runs have no finished game in common")
    wa, wb = sum(a[g] for g in games), sum(b[g] for g in games)
    print(f"{len(games)} games on the same deals: a {wa} wins ({wa / len(games):.1%}), b {wb} ({wb / len(games):.1%}), "
          f"b - a {100 * (wb - wa) / len(games):+.1f} points; won by a only {only_a}, by b only {only_b}, "
          f"exact McNemar p = {p:.2f}")


if __name__ == "__main__":
    main()
