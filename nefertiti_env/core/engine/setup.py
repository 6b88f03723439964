"""Setting up a game (docs/rules.md §1, expansion setup), compiled: roster, seats, deck, stalls.

The random draws come in a fixed order from the game's own generator (the roster draw of the
expansion, the first seat, the gift shuffle, the bottom shuffle, the stall sides of the
advanced setup), the same stream as numpy's, so a seed deals the same game in every engine.
"""
from __future__ import annotations

import numpy as np

from ..limits import MAX_CHARACTERS, MAX_SLOTS, MEMPHIS, NUM_BIDS, NUM_MARKETS
from . import layout as L
from .flow import begin_turn, settle
from .resolution import refill
from .rng import rng_choice, rng_integers, rng_seed, rng_shuffle
from .entry import kernel, njit


@njit(cache=True)
def new_game(R, S, seed) -> None:
    """A new game from `seed` (0 <= seed < 2**63): the generator seeded as numpy's PCG64(seed)."""
    S[:] = 0
    rng_seed(S, seed)
    setup(R, S)


@njit(cache=True, inline="always")
def setup(R, S) -> None:
    """Deal the game of R on S, whose fields are zero but for the seeded generator words."""
    n = R[L.R_NUM_PLAYERS]
    S[L.NUM_PLAYERS] = n
    S[L.OCC:L.OCC + NUM_MARKETS * NUM_BIDS] = -1
    S[L.SLOTS:L.SLOTS + NUM_MARKETS * MAX_SLOTS] = -1
    _roster(R, S)

    first = rng_integers(S, 0, n)
    S[L.FIRST_PLAYER] = first
    for i in range(n):
        S[L.MONEY + (first + i) % n] = R[L.START_MONEY + i]
        S[L.SERVANTS + i] = R[L.START_SERVANTS]
        S[L.TUTORS + i] = R[L.START_TUTORS]
    S[L.SEAL_SUPPLY] = R[L.SEALS_START]
    S[L.RESERVE:L.RESERVE + MEMPHIS] = R[L.RESERVE_START]
    if R[L.R_MEMPHIS] != 0:
        S[L.RESERVE + MEMPHIS] = R[L.RESERVE_START]
    _deal_deck(R, S)

    for m in range(MEMPHIS):
        S[L.SIDE + m] = rng_integers(S, 0, 2) if R[L.R_ADVANCED] != 0 else R[L.BEGINNER_SIDE + m]
        S[L.IS_OPEN + m] = 1 - R[L.START_CLOSED + m]
    S[L.IS_OPEN + MEMPHIS] = R[L.R_MEMPHIS]
    for m in range(MEMPHIS):
        if S[L.IS_OPEN + m] != 0:
            refill(R, S, m)

    for name in (L.RES_MARKET, L.CHAR_INDEX, L.ROAM_RESUME, L.ROAM_SLOT, L.ORACLE_SEAT):
        S[name] = -1
    settle(R, S, begin_turn(R, S, first))


@kernel
def _roster(R, S) -> None:
    """Character cards of this game: the fixed ones, plus `roster_draw` drawn from the pool
    (expansion: six from all characters but the Scribes and Merchants)."""
    pool = np.empty(R[L.ROSTER_POOL:L.ROSTER_POOL + MAX_CHARACTERS].sum(), np.int64)
    size = 0
    for c in range(MAX_CHARACTERS):
        S[L.CHAR_AVAIL + c] = R[L.ROSTER_FIXED + c]
        for _ in range(R[L.ROSTER_POOL + c]):
            pool[size] = c
            size += 1
    draw = R[L.ROSTER_DRAW]
    if draw > 0:
        drawn = np.empty(draw, np.int64)
        rng_choice(S, size, draw, drawn)
        for i in range(draw):
            S[L.CHAR_AVAIL + pool[drawn[i]]] += 1


@kernel
def _deal_deck(R, S) -> None:
    """Shuffle the gifts, then put the Akhenaton card at random among the last
    `akhenaton_among_last` places with the (among_last - 1) gifts shuffled with it."""
    nk, size = R[L.NUM_KINDS], 0
    for k in range(nk):
        size += R[L.DECK_COUNTS + k]
    gifts = np.empty(size, np.int64)
    i = 0
    for k in range(nk):
        for _ in range(R[L.DECK_COUNTS + k]):
            gifts[i] = k
            i += 1
    rng_shuffle(S, gifts)
    last = R[L.AKHENATON_AMONG_LAST] - 1
    bottom = np.empty(last + 1, np.int64)
    for j in range(last):
        bottom[j] = gifts[j]
    bottom[last] = nk
    rng_shuffle(S, bottom)
    for j in range(size - last):
        S[L.DECK + j] = gifts[last + j]
    for j in range(last + 1):
        S[L.DECK + size - last + j] = bottom[j]
    S[L.DECK_LEN] = size + 1
