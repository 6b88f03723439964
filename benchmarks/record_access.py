"""The state read by name (`s.owned[p, k] -= 1`, a record view of the state array) against by offset
(`S[L.OWNED + p * MAX_KINDS + k] -= 1`): the same work in both forms, timed in turns.

A kernel moves a gift from one owner to the next and reads one back, `--accesses` times, through a
record kernel that calls another kernel with the record, and through the offsets; then the same over a
batch of states (rows of a 2-D int64 array viewed one by one as records). Both must leave the arrays
equal (asserted). Prints ns per access; under NUMBA_DISABLE_JIT=1 the same code runs as Python (use a
small --accesses).

    python benchmarks/record_access.py --accesses 10000000 --rounds 5
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from nefertiti_env.core.engine import layout as L
from nefertiti_env.core.engine.entry import kernel, njit
from nefertiti_env.core.limits import MAX_KINDS

OWNERS = L.NUM_OWNERS - 1


@kernel
def _give_by_name(s, p, k):
    s.owned[p, k] -= 1
    s.owned[(p + 1) % OWNERS, k] += 1
    s.decisions += 1


@njit(cache=True)
def by_name(S, n) -> int:
    s = L.state(S)
    total = 0
    for i in range(n):
        p, k = i % OWNERS, (i >> 3) % MAX_KINDS
        _give_by_name(s, p, k)
        total += s.owned[p, k] + s.money[p]
    return total


@kernel
def _give_by_offset(S, p, k):
    S[L.OWNED + p * MAX_KINDS + k] -= 1
    S[L.OWNED + (p + 1) % OWNERS * MAX_KINDS + k] += 1
    S[L.DECISIONS] += 1


@njit(cache=True)
def by_offset(S, n) -> int:
    total = 0
    for i in range(n):
        p, k = i % OWNERS, (i >> 3) % MAX_KINDS
        _give_by_offset(S, p, k)
        total += S[L.OWNED + p * MAX_KINDS + k] + S[L.MONEY + p]
    return total


@njit(cache=True)
def batch_by_name(B, n) -> int:
    total = 0
    for row in range(B.shape[0]):
        s = L.state(B[row])
        for i in range(n):
            _give_by_name(s, i % OWNERS, i % MAX_KINDS)
        total += s.decisions
    return total


@njit(cache=True)
def batch_by_offset(B, n) -> int:
    total = 0
    for row in range(B.shape[0]):
        S = B[row]
        for i in range(n):
            _give_by_offset(S, i % OWNERS, i % MAX_KINDS)
        total += S[L.DECISIONS]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accesses", type=int, default=10**7, help="accesses per timing (default 10**7)")
    parser.add_argument("--rounds", type=int, default=5, help="timings of each form, in turns (default 5)")
    parser.add_argument("--games", type=int, default=1024, help="states in the batch (default 1024)")
    args = parser.parse_args()
    one = {name: np.zeros(L.STATE_SIZE, dtype=np.int64) for name in ("name", "offset")}
    batch = {name: np.zeros((args.games, L.STATE_SIZE), dtype=np.int64) for name in ("name", "offset")}
    assert by_name(one["name"], 1000) == by_offset(one["offset"], 1000)
    assert batch_by_name(batch["name"], 10) == batch_by_offset(batch["offset"], 10)
    assert all((a["name"] == a["offset"]).all() for a in (one, batch))
    per_row = max(args.accesses // args.games, 1)
    for round_ in range(args.rounds):
        line = []
        for name, fn in (("name", by_name), ("offset", by_offset)):
            t0 = time.perf_counter()
            fn(one[name], args.accesses)
            line.append(f"one state by {name} {(time.perf_counter() - t0) * 1e9 / args.accesses:.2f} ns")
        for name, fn in (("name", batch_by_name), ("offset", batch_by_offset)):
            t0 = time.perf_counter()
            fn(batch[name], per_row)
            line.append(f"batch by {name} {(time.perf_counter() - t0) * 1e9 / (per_row * args.games):.2f} ns")
        print(f"round {round_ + 1}: " + "; ".join(line), flush=True)


if __name__ == "__main__":
    main()
