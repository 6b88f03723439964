"""Two checkouts of the project timed in turns: the batched env, random play and the compiled bots.

Random play is timed again as the engine alone walking a batch's rows (`random_play`'s kernel, no
observation): one decision in each of 1,024 and of 8,192 games in turn, every row's state coming back
through the memory hierarchy, against one game playing on in the cache; their ratio is what a batch's
states cost for leaving the cache (docs/engine.md "Natural widths"). A shared machine's load moves either
rate by more than that cost, so the ratio is taken window by window, each batch's window between two of
the one game, and reported as the median and quartiles of 30 windows.

An engine change must keep its speed, and a busy machine's load drifts more than the change moves it,
so the code before and after run alternately, each in a fresh process importing its own checkout
(ahead of the installed package) with its own compiled cache. Figures are per CPU second of the
process, on one numba thread. The bots' checksum of their choices shows they play the same moves.
Prints figures; asserts nothing.

    git worktree add /tmp/before <commit>
    python benchmarks/side_by_side.py /tmp/before . --rounds 3      # the first round compiles each one
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

# run in a child process, with the checkout's folder as argv[1]
CHILD = r'''
import importlib.util, json, sys, time
root = sys.argv[1]
sys.path.insert(0, root)
for name, folder in (("nefertiti_env.agents", "agents"),):      # top-level folders installed as subpackages
    spec = importlib.util.spec_from_file_location(name, f"{root}/{folder}/__init__.py",
                                                  submodule_search_locations=[f"{root}/{folder}"])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
import numba
numba.set_num_threads(1)
import numpy as np
import nefertiti_env
from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot
from nefertiti_env.vector import NefertitiVectorEnv, random_play
import inspect
assert nefertiti_env.__file__.startswith(root), nefertiti_env.__file__

def step_rate(seconds):
    venv = NefertitiVectorEnv(1024, 4, seed=0, observation="v0")
    _, masks, *_ = venv.reset()
    rng = np.random.default_rng(0)
    n, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        _, masks, *_ = venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
        n += 1024
    return n / (time.process_time() - t0)

def play_rate(seconds, decisions=500):
    venv = NefertitiVectorEnv(64, 4, seed=0)
    venv.reset()
    if len(inspect.signature(random_play).parameters) == 3:
        play = lambda d: random_play(venv, d, 1)
    else:                                                           # its signature before it took the env
        play = lambda d: random_play(venv.R, venv.rows, 0, venv.games, d, 1)
    play(1)
    n, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        play(decisions)
        n += 64 * decisions
    return n / (time.process_time() - t0)

def rows_window(games, decisions):
    """A function timing n calls of the kernel over `games` rows, `decisions` each: seconds a decision."""
    from nefertiti_env import vector
    venv = NefertitiVectorEnv(games, 4, seed=0, observation="v0")
    venv.reset()
    random_play(venv, 100, 1)                                       # games at every stage, not all new
    args = (venv.R, venv.batch, venv.plan, np.full(games, decisions, np.int64), venv._all,
            vector.Advance(vector.PLAY, False, 1.0, venv.seed), 0, games)
    vector._advance_rows(*args)

    def window(n):
        t0 = time.process_time()
        for _ in range(n):
            vector._advance_rows(*args)
        return (time.process_time() - t0) / (n * games * decisions)
    return window

def rows_ratios(windows=30):
    """One game in the cache (decisions per CPU s, median) and each batch's x slower (quartiles)."""
    cache, batches = rows_window(1, 20000), {"1024": (rows_window(1024, 1), 200), "8192": (rows_window(8192, 1), 25)}
    alone, ratios = [], {games: [] for games in batches}
    for _ in range(windows):
        for games, (window, calls) in batches.items():
            before, t, after = cache(10), window(calls), cache(10)
            alone += [before, after]
            ratios[games].append(2 * t / (before + after))
    return {"in cache": 1 / np.median(alone), **{g: np.percentile(r, [25, 50, 75]).tolist() for g, r in ratios.items()}}

def bot_times():
    rng = np.random.default_rng(1)
    positions = []
    for seed in range(6):
        g = NefertitiGame(4, seed=seed)
        while not g.is_over():
            if rng.random() < 0.05 and len(g.legal_actions()) > 1:
                positions.append(g.clone())
            legal = g.legal_actions()
            g.apply(legal[rng.integers(len(legal))])
    out = {}
    for spec in ("banker", "mcts:iterations=200"):
        bot = make_bot(spec, seed=0)
        bot.act(positions[0], positions[0].current_player)
        picks, t0 = [], time.process_time()
        for p in positions * 2:
            picks.append(bot.act(p, p.current_player))
        out[spec] = ((time.process_time() - t0) / len(picks) * 1e3, sum(picks))
    return out

step_rate(0.5)
print(json.dumps({"step": step_rate(3.0), "random_play": play_rate(3.0), "rows": rows_ratios(), "bots": bot_times()}))
'''


def measure(checkout: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, str(checkout.resolve())], capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{checkout}: {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path, help="a checkout of the code before the change")
    parser.add_argument("after", type=Path, help="a checkout of the code after it")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of one run each, in turns (default 3)")
    args = parser.parse_args()
    for round_ in range(args.rounds):
        for name, checkout in (("before", args.before), ("after", args.after)):
            m = measure(checkout)
            bots = "; ".join(f"{spec} {ms:.3f} ms (checksum {check})" for spec, (ms, check) in m["bots"].items())
            rows = ", ".join(f"{games} games {q[1]:.2f}x slower [{q[0]:.2f}, {q[2]:.2f}]"
                             for games, q in m["rows"].items() if games != "in cache")
            print(f"round {round_ + 1} {name:>6}: step {m['step']:,.0f}/s, random_play {m['random_play']:,.0f}/s; "
                  f"one decision a row: in cache {m['rows']['in cache']:,.0f}/s, {rows}; {bots}", flush=True)


if __name__ == "__main__":
    main()
