"""The Python engine's position as the compiled engine's arrays: differential tests of the kernels.

Temporary: used while the kernels are checked against the Python engine (issue #20); the
golden games guard the engine once the Python engine is gone.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from nefertiti_env.core.engine import layout as L
from nefertiti_env.core.engine.rules import rules_array
from nefertiti_env.core.ruleset import load_ruleset
from nefertiti_env.core.limits import NUM_BIDS

FIELDS = L.field_slices(L.STATE_FIELDS)
MASK64 = (1 << 64) - 1


def to_int64(u: int) -> int:
    """A 64-bit unsigned value as the int64 with the same bits."""
    return u - (1 << 64) if u >= 1 << 63 else u


def rng_words(state: dict) -> list[int]:
    """numpy's PCG64 `bit_generator.state` as the six words of S[L.RNG:]."""
    s, inc = state["state"]["state"], state["state"]["inc"]
    return [to_int64(s >> 64), to_int64(s & MASK64), to_int64(inc >> 64), to_int64(inc & MASK64),
            int(state["has_uint32"]), to_int64(int(state["uinteger"]))]


_RULES: dict = {}


def rules_of(g) -> np.ndarray:
    """R of `g`'s options, from this package's loading of `g`'s ruleset (the game may be another engine's)."""
    o = g.options
    key = (g.rules.source, repr(o))
    if key not in _RULES:
        rs = load_ruleset(g.rules.data if g.rules.source == "<dict>" else Path(g.rules.source).stem)
        _RULES[key] = rules_array(rs, o["num_players"], o["memphis"], o["setup"], o["characters"], o["max_decisions"])
    return _RULES[key]


def pack_state(g) -> np.ndarray:
    """S of the Python engine's game `g` (every field of layout.STATE_FIELDS)."""
    S = np.zeros(L.STATE_SIZE, dtype=np.int64)

    def put(name, value):
        part, shape, what = FIELDS[name]
        if what == "list":
            value = list(value)
            S[part.start:part.start + len(value)] = value
            S[part.stop] = len(value)
        elif shape:
            value = np.asarray(value, dtype=np.int64)
            S[part].reshape(shape)[tuple(slice(0, n) for n in value.shape)] = value
        else:
            S[part.start] = int(value)

    for name in ("money", "seals", "points", "servants", "tutors", "owned", "char_played", "side", "reserve",
                 "char_avail", "discarded", "slots", "occ", "is_open", "dead", "face_down", "seal_on", "deck",
                 "res_order", "pending", "tutor_given", "char_sel", "oracle_given", "num_players", "first_player",
                 "seal_supply", "deben_out", "deck_pos", "akhenaton_drawn", "phase", "actor", "turn_player",
                 "character_used", "extra_placements", "tutor_ready", "res_market", "res_pos", "res_picks",
                 "res_stage", "tutor_left", "char_index", "char_step", "roam_resume", "roam_slot", "oracle_seat",
                 "oracle_from"):
        put(name, getattr(g, name))
    put("placed", [m * NUM_BIDS + v for m, v in g.placed])
    put("deck_len", len(g.deck))
    put("decisions", len(g.history))
    put("rng", rng_words(g.rng.bit_generator.state))
    return S


def pack(g) -> tuple[np.ndarray, np.ndarray]:
    """(R, S) of the Python engine's game `g`."""
    return rules_of(g), pack_state(g)


def diff(S: np.ndarray, expected: np.ndarray, ignore=()) -> list[str]:
    """Names (with values) of the state fields where S differs from `expected`."""
    out = []
    for name, (part, shape, what) in FIELDS.items():
        if name in ignore:
            continue
        stop = part.stop + 1 if what == "list" else part.stop
        if not np.array_equal(S[part.start:stop], expected[part.start:stop]):
            out.append(f"{name}: got {S[part.start:stop].tolist()}, expected {expected[part.start:stop].tolist()}")
    return out


