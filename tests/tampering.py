"""Tampered inputs at the engine's boundary, run in a process of their own by tests/test_fuzz.py (a
segfault there fails the test instead of killing pytest):

    python tests/tampering.py --cases 3000 --seed 1

Saved states: real states of every phase (characters and Memphis included), 1-3 fields of each set to
values chosen to hit the compiled engine's indexes and sums (negative, past a table's end, near
2**31, 2**62, int64's ends) or lists of them; a state `from_json` accepts is then played to its end
with random legal actions. Batched inputs: `NefertitiVectorEnv.step` and `resume` with actions and
`active` masks of random shapes, dtypes and values. Prints one summary line; exits 1 with the cases
that raised anything but the documented refusals.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from nefertiti_env import IllegalActionError, NefertitiGame, StateError
from nefertiti_env.vector import NefertitiVectorEnv

VALUES = (-2**63, -2**62, -2**31 - 1, -4000, -13, -2, -1, 0, 1, 2, 3, 4, 5, 6, 11, 12, 13, 16, 23, 24, 64, 147, 255,
          256, 4000, 2**31, 2**31 + 1, 2**62, 2**63 - 1)


def base_states(rng: np.random.Generator, count: int) -> list[dict]:
    """Saved states of random positions: every player count, Memphis, the expansion's characters."""
    states = []
    for seed in range(count):
        n = 2 + seed % 4
        g = NefertitiGame(num_players=n, seed=seed, memphis=bool(seed % 2) or n == 5, characters="expansion",
                          setup="advanced")
        stop = int(rng.integers(0, 400))
        while not g.is_over() and len(g.history) < stop:
            g.apply(int(rng.choice(g.legal_actions())))
        states.append(json.loads(g.to_json()))
    return states


def tamper(data: dict, rng: np.random.Generator) -> dict:
    """A copy of the saved state `data` with 1-3 fields changed (or 2**62 added to each seat of a row)."""
    data = json.loads(json.dumps(data))
    state = data["state"]
    keys = [k for k in state if k not in ("seed", "options", "rng")]
    for _ in range(int(rng.integers(1, 4))):
        key = keys[int(rng.integers(len(keys)))]
        value, pick = state[key], VALUES[int(rng.integers(len(VALUES)))]
        if isinstance(value, list) and value and isinstance(value[0], list) and key != "placed":   # a 2-D array
            row = value[int(rng.integers(len(value)))]
            if rng.random() < 0.2:
                for r in value[:4]:
                    r[0] += 2**62
            else:
                row[int(rng.integers(len(row)))] = pick
        elif isinstance(value, list) and key != "placed":
            if value and rng.random() < 0.6:
                if rng.random() < 0.2 and key in ("money", "seals", "servants", "points"):
                    state[key] = [v + 2**62 if i < 4 else v for i, v in enumerate(value)]
                else:
                    value[int(rng.integers(len(value)))] = pick
            else:
                state[key] = [VALUES[int(i)] for i in rng.integers(len(VALUES), size=int(rng.integers(0, 20)))]
        elif key == "placed":
            state[key] = [[VALUES[int(i)], VALUES[int(j)]] for i, j in rng.integers(len(VALUES), size=(3, 2))]
        elif isinstance(value, bool):
            state[key] = not value
        else:
            state[key] = pick if rng.random() < 0.8 else value + int(rng.integers(-3, 4))
    return data


def play_out(g: NefertitiGame, rng: np.random.Generator) -> None:
    while not g.is_over():
        g.apply(int(rng.choice(g.legal_actions())))


def states(cases: int, rng: np.random.Generator) -> tuple[int, list[str]]:
    """Tampered states through from_json; those accepted played to their end. (accepted, failures)."""
    bases, accepted, failures = base_states(rng, 40), 0, []
    for case in range(cases):
        text = json.dumps(tamper(bases[case % len(bases)], rng))
        try:
            g = NefertitiGame.from_json(text)
        except StateError:
            continue
        except Exception as err:           # noqa: BLE001 (every other exception is a finding)
            failures.append(f"from_json case {case}: {type(err).__name__}: {err}")
            continue
        accepted += 1
        try:
            play_out(g, rng)
        except Exception as err:           # noqa: BLE001
            failures.append(f"play of accepted case {case}: {type(err).__name__}: {err}")
    return accepted, failures


def batched(cases: int, rng: np.random.Generator) -> list[str]:
    """Random actions and active masks into NefertitiVectorEnv.step and resume: refused or played."""
    n, failures = 16, []
    venv = NefertitiVectorEnv(n, seed=3)
    venv.reset()
    shapes, dtypes = [(n,), (1,), (0,), (n + 1,), (n, 1), ()], [np.int64, np.int32, np.uint64, np.int8, np.float64,
                                                                    np.bool_]
    for case in range(cases):
        shape = shapes[int(rng.integers(len(shapes)))] if rng.random() < 0.3 else (n,)
        dtype = dtypes[int(rng.integers(len(dtypes)))] if rng.random() < 0.3 else np.int64
        legal = np.array([rng.choice(np.flatnonzero(m)) for m in venv.masks])
        actions = np.where(rng.random(n) < 0.8, legal, rng.choice(VALUES[3:-1], size=n))
        actions = np.resize(actions, shape).astype(dtype) if dtype is not np.uint64 else \
            np.resize(np.abs(actions), shape).astype(dtype)
        active = np.resize(rng.random(n) < 0.5, shapes[int(rng.integers(len(shapes)))] if rng.random() < 0.3
                           else (n,))
        if rng.random() < 0.2:
            active = active.astype(dtypes[int(rng.integers(len(dtypes)))])
        try:
            if rng.random() < 0.1:
                venv.resume(active)
            else:
                venv.step(actions, active=active)
        except (ValueError, IllegalActionError):
            continue
        except Exception as err:           # noqa: BLE001
            failures.append(f"batched case {case}: {type(err).__name__}: {err}")
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=3000, help="tampered states (and as many batched calls)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    accepted, failures = states(args.cases, rng)
    failures += batched(args.cases, rng)
    print(f"{args.cases} tampered states ({accepted} accepted and played out), {args.cases} batched calls, "
          f"{len(failures)} failures")
    for line in failures[:20]:
        print(line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
