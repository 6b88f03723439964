"""Nefertiti-v2: v1's 657 floats, then the table the observer sits at (the `table_*` blocks).

One policy that plays every table must know which table it is at: the player count, the setup,
whether the Port of Memphis (and its foreign gifts) is in play and which characters are in the
game. v1 shows the player count and Memphis among its numbers and the characters only as cards
left and played; v2 adds them as one block of flags, the same size at every table, so v2[:657]
is v1 exactly and the rest describes the table.

The roster is the characters dealt at set-up (expansion games draw six at random, so it is not
a constant of the option set): each character's cards left plus those played, counted in the
compiled state vector. Every table entry is an indicator of one number of that vector, so v2 is
v1's plan with a few more indicator rows: the same single compiled call, batched like the others.
"""
from __future__ import annotations

import numpy as np

from ..core.limits import MAX_CHARACTERS, MAX_PLAYERS
from ..core.ruleset import Ruleset
from .compact import V1_BLOCKS, V1_SIZE, observation_v1_high, plan_v1
from .observation import _FIRST, _LOWEST, _WIDTH, SCALARS, SCALARS_AT, Plan, block_slices, encode, make_plan

PLAYER_COUNTS = tuple(range(2, MAX_PLAYERS + 1))
SETUPS = ("beginner", "advanced")
TABLE_BLOCKS = (
    ("table_players", (len(PLAYER_COUNTS),), None,
     "players at the table, one-hot: " + ", ".join(map(str, PLAYER_COUNTS))),
    ("table_setup", (len(SETUPS),), None, "setup, one-hot: " + ", ".join(SETUPS)),
    ("table_memphis", (1,), None, "the Port of Memphis and its foreign gifts are in play"),
    ("table_roster", (MAX_CHARACTERS,), None, "character in this game's roster (dealt at set-up), per character "
                                              "of the ruleset"),
)
V2_BLOCKS = V1_BLOCKS + TABLE_BLOCKS
V2_SLICES, V2_SHAPES, V2_SIZE = block_slices(V2_BLOCKS)
_SCALAR = {name: SCALARS_AT + i for i, name in enumerate(SCALARS)}


def _table_indicators() -> list[tuple[int, int, int]]:
    """(state vector position, value, v2 entry): the entry is 1 when the number has the value."""
    found = [(_FIRST["num_players"], n, V2_SLICES["table_players"].start + i) for i, n in enumerate(PLAYER_COUNTS)]
    found += [(_SCALAR["advanced setup"], v, V2_SLICES["table_setup"].start + v) for v in range(len(SETUPS))]
    found.append((_SCALAR["memphis in play"], 1, V2_SLICES["table_memphis"].start))
    found += [(_SCALAR[f"roster {c}"], count, V2_SLICES["table_roster"].start + c)
              for c in range(MAX_CHARACTERS) for count in range(1, _WIDTH + _LOWEST)]
    return found


def _table_rows() -> tuple[np.ndarray, np.ndarray]:
    """The table's indicator numbers (ind_src) and their lit rows, _WIDTH entries each (V2_SIZE: none)."""
    found = _table_indicators()
    sources = sorted({source for source, _, _ in found})
    lit = np.full((len(sources), _WIDTH), V2_SIZE)
    for source, value, entry in found:
        lit[sources.index(source), value - _LOWEST] = entry
    return np.array(sources), lit.ravel()


_SOURCES, _LIT = _table_rows()
_PLANS: dict[int, tuple[Plan, Plan]] = {}


def plan_v2(game, seat: int) -> Plan:
    """v1's tables of the observer, its vector widened to V2_SIZE, plus the table's rows (cached per v1 plan)."""
    v1 = plan_v1(game, seat)
    entry = _PLANS.get(id(v1))
    if entry is None or entry[0] is not v1:
        lit = np.where(v1.lit == V1_SIZE, V2_SIZE, v1.lit)          # v1's "lights nothing" stays past the end
        offset = len(lit) + np.arange(len(_SOURCES)) * _WIDTH - _LOWEST
        plan = make_plan(v1.src, v1.a, v1.b, np.concatenate([v1.ind_src, _SOURCES]),
                         np.concatenate([v1.ind_offset, offset]), np.concatenate([lit, _LIT]),
                         np.concatenate([v1.lit_value, np.ones(len(_LIT), np.float32)]), v1.face_down, V2_SIZE,
                         v1.relative)
        entry = _PLANS[id(v1)] = (v1, plan)
    return entry[1]


def observe_v2(game, seat: int) -> np.ndarray:
    """float32[V2_SIZE]: v1's observation of `seat`, then the table (layout in V2_BLOCKS and docs/observation.md)."""
    return encode(game, seat, plan_v2(game, seat))


def observation_v2_high(rules: Ruleset) -> np.ndarray:
    """[V2_SIZE] v1's bounds, then 1 for the table's flags."""
    return np.concatenate([observation_v1_high(rules), np.ones(V2_SIZE - V1_SIZE, np.float32)])

