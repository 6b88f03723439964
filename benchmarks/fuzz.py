"""Fuzz at scale: random games over every option set with the invariant checks after every decision.

    python benchmarks/fuzz.py --games 1000000 --workers 2

Game i plays option set i % 35 (players x Memphis x characters) with seed i // 35 + --first-seed,
the setup alternating with the seed, and the random moves of `run_game` in
tests/test_expansion_invariants.py: the same game, decision for decision. A compiled loop
(`tests/invariants_kernel.play_games`) deals it, plays it and runs the tests' invariant kernel
after every decision (money, cards, seals, servants and tutors conserved, pieces back after each
resolution, tutors below a servant, Memphis never closing, ...); then, in Python, once per game,
its final scores are compared with the tests' recomputation by hand from the ruleset and its
winners are checked. Each failure is printed with what reproduces it: `run_game(players, memphis,
characters, seed)` in that test file. Worker processes, each a block of games at a time, so the
Python part runs in parallel too. Not a CI test: a long run, whose figures go to docs/golden.md.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import invariants_kernel as kernel  # noqa: E402
from test_expansion_invariants import COMBOS, MAX_DECISIONS, new_game, policy_seed, recomputed_scores  # noqa: E402

from nefertiti_env.agents.progress import progress_bar  # noqa: E402
from nefertiti_env.core.engine import layout as L  # noqa: E402
from nefertiti_env.core.limits import MAX_PLAYERS  # noqa: E402

BLOCK = 1000          # games per task: a second or so of work, small enough to share a short run evenly
PLAYERS = np.array([players for players, _, _ in COMBOS])


@cache
def option_sets() -> tuple[np.ndarray, list]:
    """The rules arrays of the 70 option sets (COMBOS x setup: index 2 * combo + seed % 2), and a game of
    each, whose state array a final state is copied into to read it through the facade; once per process."""
    games = [new_game(players, memphis, characters, setup)
             for players, memphis, characters in COMBOS for setup in (0, 1)]
    return np.stack([g.R for g in games]), games


def play_block(start: int, stop: int, first_seed: int) -> tuple[int, int, list[str]]:
    """Games start..stop-1: (games, checked decisions, failures described with what reproduces them)."""
    Rs, games = option_sets()
    index = np.arange(start, stop)
    combo, seeds = index % len(COMBOS), first_seed + index // len(COMBOS)
    rules_of = 2 * combo + seeds % 2
    rows = np.zeros((len(index), L.STATE_BYTES), np.uint8)
    decisions, codes = np.zeros(len(index), np.int64), np.zeros(len(index), np.int64)
    scores = np.zeros((len(index), MAX_PLAYERS), np.int64)
    failures = []
    try:
        kernel.play_games(Rs, rules_of, seeds, policy_seed(PLAYERS[combo], seeds), MAX_DECISIONS, rows, decisions,
                          codes, scores)
        problems = [None] * len(index)
    except Exception:           # an engine error: find its game, one game at a time
        problems = [_play_one(Rs, rules_of, seeds, combo, j, rows, decisions, codes, scores) for j in range(len(index))]
    for j, problem in enumerate(problems):
        players, memphis, characters = COMBOS[combo[j]]
        if problem is None and codes[j] != kernel.OK:
            problem = f"{kernel.MESSAGES[codes[j]]} (after decision {decisions[j]})"
        elif problem is None:
            g = games[rules_of[j]]
            g.S[:] = rows[j]
            final, recomputed, winners = scores[j, :players].tolist(), recomputed_scores(g), g.winners()
            if final != recomputed:
                problem = f"scores {final} differ from the recomputation {recomputed}"
            elif not winners or not set(winners) <= set(range(players)):
                problem = f"winners {winners}"
        if problem is not None:
            failures.append(f"run_game({players}, {memphis}, {characters!r}, {seeds[j]}): {problem}")
    return len(index), int(decisions.sum()), failures


def _play_one(Rs, rules_of, seeds, combo, j, rows, decisions, codes, scores) -> str | None:
    """Game j of a block alone; the engine error it raises, if any, as text."""
    part = slice(j, j + 1)
    try:
        kernel.play_games(Rs, rules_of[part], seeds[part], policy_seed(PLAYERS[combo[part]], seeds[part]),
                          MAX_DECISIONS, rows[part], decisions[part], codes[part], scores[part])
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games to play (default 1,000,000)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--first-seed", type=int, default=100_000, help="seed of the first game of each option set")
    args = parser.parse_args(argv)
    games = decisions = 0
    failures: list[str] = []
    start = time.perf_counter()
    fork = multiprocessing.get_context("fork")        # whatever start method an imported library set
    with ProcessPoolExecutor(args.workers, mp_context=fork) as pool, progress_bar(total=args.games, unit="game") as bar:
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
    print(f"{games:,} games, {decisions:,} checked decisions, {len(failures)} failures, {seconds:,.0f} s on "
          f"{args.workers} workers: {games / seconds:,.0f} games/s, {decisions / seconds:,.0f} checked decisions/s "
          f"(load average at the end {os.getloadavg()[0]:.1f})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
