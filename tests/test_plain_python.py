"""`NUMBA_DISABLE_JIT=1` runs the same engine as plain Python, bit for bit (docs/engine.md "Debugging").

One seeded random game per option set (every player count, Memphis on and off, each character option, both
setups) is played compiled here and as plain Python in a subprocess; per decision the legal action mask, the
whole state array, both observations and the action are hashed in a chain, and the final saved state and record
too, so the two engines agree byte for byte or the test names the first option set where they part.

    NUMBA_DISABLE_JIT=1 python tests/test_plain_python.py    # the plain-Python digests, as JSON
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import golden
import numpy as np

from nefertiti_env import NefertitiGame
from nefertiti_env.encoding import observe, observe_v1


def game_digest(set_index: int) -> str:
    """The chained hash of one random game of option set `set_index`, decision by decision."""
    seed = golden.game_seed(set_index, 0)
    h = hashlib.blake2b(digest_size=16)

    def on_decision(g: NefertitiGame, legal, action):
        seat = g.current_player
        for part in (g.legal_action_mask(), g.S, observe(g, seat), observe_v1(g, seat), np.int64(action)):
            h.update(np.ascontiguousarray(part).tobytes())

    g = golden.play(golden.OPTION_SETS[set_index], seed, on_decision)
    h.update(g.S.tobytes())
    h.update(g.to_json().encode())
    h.update(json.dumps(g.record(), sort_keys=True).encode())
    h.update(np.asarray(g.scores()).tobytes())
    return f"{len(g.history)}:{h.hexdigest()}"


def all_digests() -> list[str]:
    return [game_digest(s) for s in range(len(golden.OPTION_SETS))]


def test_plain_python_plays_every_option_set_as_the_compiled_engine():
    compiled = all_digests()
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    run = subprocess.run([sys.executable, "-W", "ignore::RuntimeWarning", __file__], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    plain = json.loads(run.stdout)
    assert plain["jit_disabled"], "the subprocess ran compiled code"
    assert len(plain["digests"]) == len(golden.OPTION_SETS)
    for options, a, b in zip(golden.OPTION_SETS, compiled, plain["digests"]):
        assert a == b, f"compiled and plain Python differ for {options} (decisions:hash {a} vs {b})"


def test_the_comparison_can_fail(monkeypatch):
    """A game of another seed hashes differently, so equal digests mean equal games."""
    first = game_digest(0)
    original = golden.game_seed
    monkeypatch.setattr(golden, "game_seed", lambda s, i: original(s, i) + 1)
    assert game_digest(0) != first


if __name__ == "__main__":
    import numba
    print(json.dumps({"jit_disabled": bool(numba.config.DISABLE_JIT), "digests": all_digests()}))
