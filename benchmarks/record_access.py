"""The state read by name (`s.owned[p, k] -= 1` on `layout.state(S)`, a record over the state array's
memory, `entry.as_record`) against numba's own record view (`S.view(STATE_RECORD)[0]`): the same work in
each form, timed in turns. (Its third form, by int64 offset, went with the int64 state: the fields have
their natural widths now, read by name only.)

As the engine's kernels do, each form's kernel takes the array, makes its record at its top and hands
it to another kernel, which moves a gift from one owner to the next; a loop calls it `--accesses` times
and reads a field back each time. Then the same over a batch of states (the rows of a 2-D uint8 array).
Every form must leave the arrays equal (asserted). Prints CPU ns per call; under NUMBA_DISABLE_JIT=1 the
same code runs as Python (use a small --accesses).

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
def _move(s, p, k):
    s.owned[p, k] -= 1
    s.owned[(p + 1) % OWNERS, k] += 1
    s.decisions += 1


@kernel
def _by_name(S, p, k) -> int:
    s = L.state(S)
    _move(s, p, k)
    return s.owned[p, k] + s.money[p]


@kernel
def _by_view(S, p, k) -> int:
    s = S[:L.STATE_BYTES].view(L.STATE_RECORD)[0]
    _move(s, p, k)
    return s.owned[p, k] + s.money[p]


@kernel
def _call(form, S, p, k) -> int:
    """One call of `form` (a predictable branch, the same for every form)."""
    if form == 0:
        return _by_name(S, p, k)
    return _by_view(S, p, k)


@njit(cache=True)
def one_state(form, S, n) -> int:
    total = 0
    for i in range(n):
        total += _call(form, S, i % OWNERS, (i >> 3) % MAX_KINDS)
    return total


@njit(cache=True)
def batch_of_states(form, B, n) -> int:
    total = 0
    for row in range(B.shape[0]):
        for i in range(n):
            total += _call(form, B[row], i % OWNERS, i % MAX_KINDS)
    return total


FORMS = ("name", "numba view")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accesses", type=int, default=10**7, help="calls per timing (default 10**7)")
    parser.add_argument("--rounds", type=int, default=5, help="timings of each form, in turns (default 5)")
    parser.add_argument("--games", type=int, default=1024, help="states in the batch (default 1024)")
    args = parser.parse_args()
    per_row = max(args.accesses // args.games, 1)
    one = {form: np.zeros(L.STATE_BYTES, dtype=np.uint8) for form in FORMS}
    batch = {form: np.zeros((args.games, L.STATE_BYTES), dtype=np.uint8) for form in FORMS}
    sums = {(which(code, arrays[form], n), n) for code, form in enumerate(FORMS)
            for which, arrays, n in ((one_state, one, 1000), (batch_of_states, batch, 10))}
    assert len(sums) == 2, "the forms disagree"
    assert all((arrays[form] == arrays["name"]).all() for arrays in (one, batch) for form in FORMS)
    for round_ in range(args.rounds):
        line = []
        for code, form in enumerate(FORMS):
            t0 = time.process_time()
            one_state(code, one[form], args.accesses)
            t1 = time.process_time()
            batch_of_states(code, batch[form], per_row)
            t2 = time.process_time()
            line.append(f"by {form} {(t1 - t0) * 1e9 / args.accesses:.2f} ns (batch {(t2 - t1) * 1e9 / (per_row * args.games):.2f})")
        print(f"round {round_ + 1}: " + "; ".join(line), flush=True)


if __name__ == "__main__":
    main()
