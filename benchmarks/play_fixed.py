"""Play a fixed number of random games and print the decisions made: a workload for
instruction counting, which (unlike CPU time) does not depend on the machine's load.

    export PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/play_fixed.py core 3
    valgrind --tool=callgrind --callgrind-out-file=/dev/null python benchmarks/play_fixed.py core 23

Instructions per decision = (Ir of the second run - Ir of the first) / (decisions difference),
so the interpreter's start-up and imports cancel out (a fixed hash seed keeps
the counts from varying by a percent or two between runs; one OpenBLAS thread keeps its idle
worker threads, which callgrind also counts, from adding up to 20% at random). Decisions per
CPU second of the games (imports excluded) go to stderr. Targets: core, env (the AEC env via
pettingzoo.make), env-no-obs (the same with the observation encoder replaced by a constant,
which isolates the encoder's cost), connect_four (classic/connect_four-v3), floor (an AEC env
that does nothing, under the same wrappers: what every env pays PettingZoo and this loop).

Run an env target once under valgrind before counting: numba compiles the observation encoder on
its first call and caches it for the CPU it sees, and valgrind's CPU differs from the machine's, so
without that the first of the two counted runs would compile and the second load, and the
difference would not cancel out.
"""
from __future__ import annotations

import argparse
import importlib
import random
import sys
import time

import numpy as np
import pettingzoo  # noqa: F401  (imported before the clock starts)

import nefertiti_env  # noqa: F401

from nefertiti_cli.bench import make_env, play_core_game, play_env_game


def play_core(games: int) -> int:
    rnd = random.Random(0)
    return sum(play_core_game(4, seed, rnd) for seed in range(games))


def play_env(games: int, env_id: str, **kwargs) -> int:
    env, rnd = make_env(env_id, **kwargs), random.Random(0)
    return sum(play_env_game(env, seed, rnd) for seed in range(games))


OTHER_ENVS = {"connect_four": "classic/connect_four-v3", "floor": "floor"}     # target: make_env id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", choices=["core", "env", "env-no-obs", *OTHER_ENVS])
    parser.add_argument("games", type=int, help="games to play (seeds 0..games-1)")
    args = parser.parse_args()
    start = time.process_time()
    if args.target == "core":
        decisions = play_core(args.games)
    elif args.target in OTHER_ENVS:
        decisions = play_env(args.games, OTHER_ENVS[args.target])
    else:
        if args.target == "env-no-obs":
            versions = importlib.import_module("nefertiti_env.encoding.versions")
            v0 = versions.OBSERVATIONS["v0"]
            constant = np.zeros(v0.size, dtype=np.float32)
            versions.OBSERVATIONS["v0"] = v0._replace(observe=lambda game, seat: constant)
        decisions = play_env(args.games, "nefertiti/Nefertiti-v0", num_players=4)
    seconds = time.process_time() - start
    print(decisions)
    print(f"{decisions / seconds:,.0f} decisions per CPU second (start-up excluded)", file=sys.stderr)


if __name__ == "__main__":
    main()
