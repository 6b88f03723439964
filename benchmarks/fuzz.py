"""Fuzz at scale: random games over every option set with the invariant checks after every decision.

    python benchmarks/fuzz.py --games 1000000 --workers 2

The checks are the test suite's own (`tests/test_expansion_invariants.py`: money, cards, seals,
servants and tutors conserved after every decision, pieces back after each resolution, tutors
below a servant, Memphis never closing; at the end the scores recomputed by hand from the
ruleset and the winners). Game i plays option set i % 35 (players x Memphis x characters) with
seed i // 35 + --first-seed; the setup alternates with the seed, as in the tests. Each failure
is printed with what reproduces it: `run_game(players, memphis, characters, seed)` in that file.
Not a CI test: a long run, whose figures go to README.
"""
from __future__ import annotations

import argparse
import sys
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from test_expansion_invariants import COMBOS, recomputed_scores, run_game  # noqa: E402

from nefertiti_env.agents.progress import progress_bar  # noqa: E402

BLOCK = 100          # games per task: small enough to share a short run evenly


def play_block(start: int, stop: int, first_seed: int) -> tuple[int, int, list[str]]:
    """Games start..stop-1: (games, decisions, failures described with what reproduces them)."""
    decisions, failures = 0, []
    for i in range(start, stop):
        players, memphis, characters = COMBOS[i % len(COMBOS)]
        seed = first_seed + i // len(COMBOS)
        try:
            g = run_game(players, memphis, characters, seed)
            assert g.scores().tolist() == recomputed_scores(g), "scores differ from the recomputation"
            assert g.winners() and set(g.winners()) <= set(range(players)), "winners"
            decisions += len(g.history)
        except Exception as err:            # a rule broken: keep going, report what reproduces it
            where = traceback.extract_tb(err.__traceback__)[-1]
            failures.append(f"run_game({players}, {memphis}, {characters!r}, {seed}): "
                            f"{type(err).__name__}: {err} ({Path(where.filename).name}:{where.lineno})")
    return stop - start, decisions, failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games to play (default 1,000,000)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--first-seed", type=int, default=100_000, help="seed of the first game of each option set")
    args = parser.parse_args(argv)
    games = decisions = 0
    failures: list[str] = []
    start = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool, progress_bar(total=args.games, unit="game") as bar:
        tasks = [pool.submit(play_block, i, min(i + BLOCK, args.games), args.first_seed)
                 for i in range(0, args.games, BLOCK)]
        for task in as_completed(tasks):
            n, d, f = task.result()
            games, decisions = games + n, decisions + d
            failures += f
            bar.update(n)
            bar.set_postfix(failures=len(failures))
    seconds = time.perf_counter() - start
    for failure in failures:
        print("FAILED", failure)
    print(f"{games:,} games, {decisions:,} decisions, {len(failures)} failures, {seconds:,.0f} s on "
          f"{args.workers} workers: {games / seconds:,.0f} games/s, {decisions / seconds:,.0f} checked decisions/s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
