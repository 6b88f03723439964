"""Nefertiti-v1's compact observation: v0's information in 657 floats instead of 3,225.

Most of v0 is one-hot axes that are almost always zero (a typical vector has ~140
non-zero entries): 26 kind columns per card place, 10 piece columns per bid square.
v1 keeps every v0 block whose entries carry numbers (the linear blocks: counts,
money, flags, the small one-hots such as the phase) and folds the last axis of
the big one-hot blocks (FOLDED) into one code per row: column c lit becomes the
value (c + 1) / columns, and nothing lit stays 0. So a card place holds its kind
as a scaled small integer, a bid square its piece, the Oracle rows their card.
The face-down column of a card place is not exclusive of its kind, so it gets
its own block; the visible stall's squares (`market_squares`) are dropped, being
a function of the market's visible side (`market` column "right stall visible")
and the ruleset.

Nothing is lost or added: `expand(v1, rules)` rebuilds the v0 vector exactly
(tests/test_compact_observation.py checks it on every decision of random games
over every option set). v1 is built from v0's tables, so it is rotated to the
observer, hides the same things and costs one call of the same compiled encoder.
"""
from __future__ import annotations

import numpy as np

from ..core.limits import MAX_SLOTS, NUM_MARKETS, SYMBOL_CODES
from ..core.ruleset import Ruleset
from .observation import BLOCKS, FACE_DOWN_ENTRIES, INDICATOR_BLOCKS, LINEAR, LINEAR_BLOCKS, OBS_SIZE, SLICES, \
    Plan, block_slices, encode, make_plan, observation_high, seat_plan

DROPPED = ("market_squares",)
FOLDED = {"market_cards": "card in the place: (kind + 1) / 26, Roaming Thief 26 / 26, empty 0",
          "market_occupants": "piece on the square: servant of seat +r (r + 1) / 10, tutor of seat +r (r + 6) / 10, "
                              "empty 0",
          "bid": "bid value being resolved: (value + 1) / 13, none 0",
          "character_kind": "card kind the character chose: (kind + 1) / 24, none 0",
          "character_places": "Oracle: the i-th place chosen for the new order, (place + 1) / 8, none 0",
          "known_cards": "Oracle player only: i-th deck card from the bottom, (kind + 1) / 25, Akhenaton 25 / 25, "
                         "unknown 0"}
FACE_DOWN = ("market_face_down", (NUM_MARKETS, MAX_SLOTS), None, "card place holds a gift turned face down (Beggar)")


def _v1_blocks() -> tuple:
    blocks = [block for block in LINEAR_BLOCKS if block[0] not in DROPPED]
    for name, shape, scale, meaning in INDICATOR_BLOCKS:
        blocks.append((name, shape[:-1] or (1,), scale, FOLDED[name]) if name in FOLDED else (name, shape, scale, meaning))
        if name == "market_cards":
            blocks.append(FACE_DOWN)
    return tuple(blocks)


V1_BLOCKS = _v1_blocks()
V1_SLICES, V1_SHAPES, V1_SIZE = block_slices(V1_BLOCKS)


def _v0_to_v1() -> tuple[np.ndarray, np.ndarray]:
    """[OBS_SIZE + 1] the v1 entry of each v0 entry (V1_SIZE: none; the last stands for v0's `size`, lit by
    nothing) and the value it takes when the v0 entry is 1 (a code for folded blocks, else 1)."""
    target, value = np.full(OBS_SIZE + 1, V1_SIZE), np.zeros(OBS_SIZE + 1, np.float32)
    for name, shape, _, _ in BLOCKS:
        if name in DROPPED:
            continue
        flat = np.arange(SLICES[name].stop - SLICES[name].start)
        entries = SLICES[name].start + flat
        if name in FOLDED:                   # row-major: the row is the flat index over the last axis' size
            target[entries] = V1_SLICES[name].start + flat // shape[-1]
            value[entries] = (flat % shape[-1] + 1).astype(np.float32) / np.float32(shape[-1])
        else:
            target[entries], value[entries] = V1_SLICES[name].start + flat, 1
    target[FACE_DOWN_ENTRIES] = V1_SLICES["market_face_down"].start + np.arange(NUM_MARKETS * MAX_SLOTS)
    value[FACE_DOWN_ENTRIES] = 1
    return target, value


TARGET, VALUE = _v0_to_v1()
_KEPT_LINEAR = np.flatnonzero(TARGET[:LINEAR] < V1_SIZE)     # v1's linear entries, first and in v0's order
_FOLDED_V0 = np.zeros(OBS_SIZE, dtype=bool)                  # v0 entries whose v1 entry holds a code
for _name in FOLDED:
    _FOLDED_V0[SLICES[_name]] = True
_FOLDED_V0[FACE_DOWN_ENTRIES] = False
assert np.array_equal(TARGET[_KEPT_LINEAR], np.arange(_KEPT_LINEAR.size))

_PLANS: dict[int, tuple[Plan, Plan]] = {}


def plan_v1(game, seat: int) -> Plan:
    """v0's tables of the observer with every entry moved to its v1 entry (cached per v0 plan)."""
    v0 = seat_plan(game, seat)
    entry = _PLANS.get(id(v0))
    if entry is None or entry[0] is not v0:
        plan = make_plan(v0.src[_KEPT_LINEAR], v0.a[_KEPT_LINEAR], v0.b[_KEPT_LINEAR], v0.ind_src, v0.ind_offset,
                         TARGET[v0.lit], VALUE[v0.lit], TARGET[v0.face_down], V1_SIZE, v0.relative)
        entry = _PLANS[id(v0)] = (v0, plan)
    return entry[1]


def observe_v1(game, seat: int) -> np.ndarray:
    """float32[V1_SIZE]: the compact observation of `seat` (layout in V1_BLOCKS and docs/observation.md)."""
    return encode(game, seat, plan_v1(game, seat))


def observation_v1_high(rules: Ruleset) -> np.ndarray:
    """[V1_SIZE] the largest value of each entry under `rules`: v0's for the numbers, 1 for flags and codes."""
    high = np.ones(V1_SIZE, dtype=np.float32)
    high[:_KEPT_LINEAR.size] = observation_high(rules)[:LINEAR][_KEPT_LINEAR]
    return high


def expand(v1: np.ndarray, rules: Ruleset) -> np.ndarray:
    """The v0 vector a v1 vector stands for: codes unfolded to one-hots, the visible stalls' squares
    recomputed from each market's side and the ruleset's stall layouts."""
    v1 = np.append(np.asarray(v1, dtype=np.float32), np.float32(0))      # TARGET's "none" reads 0
    picked = v1[TARGET[:OBS_SIZE]]
    v0 = np.where(_FOLDED_V0, picked == VALUE[:OBS_SIZE], picked).astype(np.float32)
    side = v1[V1_SLICES["market"]].reshape(V1_SHAPES["market"])[:, 2].astype(int)
    visible = np.arange(NUM_MARKETS), side
    features = [rules.square_exists[visible]] + [rules.square_symbol[visible] == s for s in SYMBOL_CODES]
    v0[SLICES["market_squares"]] = np.stack(features, axis=-1).astype(np.float32).ravel()
    return v0
