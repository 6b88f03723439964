"""Setting up a game (docs/rules.md §1, expansion setup), compiled: roster, seats, deck, stalls.

The random draws come in a fixed order from the game's own generator (the roster draw of the
expansion, the first seat, the gift shuffle, the bottom shuffle, the stall sides of the
advanced setup), the same stream as numpy's, so a seed deals the same game in every engine.
The kernels read R and S as records (`layout.rules`, `layout.state`).
"""
from __future__ import annotations

import numpy as np

from ..limits import MAX_CHARACTERS, MEMPHIS
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
    r, s = L.rules(R), L.state(S)
    n = r.r_num_players
    s.num_players = n
    s.occ[:] = -1
    s.slots[:] = -1
    _roster(R, S)

    first = rng_integers(S, 0, n)
    s.first_player = first
    for i in range(n):
        s.money[(first + i) % n] = r.start_money[i]
        s.servants[i] = r.start_servants
        s.tutors[i] = r.start_tutors
    s.seal_supply = r.seals_start
    s.reserve[:MEMPHIS] = r.reserve_start
    if r.r_memphis != 0:
        s.reserve[MEMPHIS] = r.reserve_start
    _deal_deck(R, S)

    for m in range(MEMPHIS):
        s.side[m] = rng_integers(S, 0, 2) if r.r_advanced != 0 else r.beginner_side[m]
        s.is_open[m] = 1 - r.start_closed[m]
    s.is_open[MEMPHIS] = r.r_memphis
    for m in range(MEMPHIS):
        if s.is_open[m] != 0:
            refill(R, S, m)

    s.res_market = -1
    s.char_index = -1
    s.roam_resume = -1
    s.roam_slot = -1
    s.oracle_seat = -1
    settle(R, S, begin_turn(R, S, first))


@kernel
def _roster(R, S) -> None:
    """Character cards of this game: the fixed ones, plus `roster_draw` drawn from the pool
    (expansion: six from all characters but the Scribes and Merchants)."""
    r, s = L.rules(R), L.state(S)
    pool = np.empty(r.roster_pool.sum(), np.int64)
    size = 0
    for c in range(MAX_CHARACTERS):
        s.char_avail[c] = r.roster_fixed[c]
        for _ in range(r.roster_pool[c]):
            pool[size] = c
            size += 1
    draw = r.roster_draw
    if draw > 0:
        drawn = np.empty(draw, np.int64)
        rng_choice(S, size, draw, drawn)
        for i in range(draw):
            s.char_avail[pool[drawn[i]]] += 1


@kernel
def _deal_deck(R, S) -> None:
    """Shuffle the gifts, then put the Akhenaton card at random among the last
    `akhenaton_among_last` places with the (among_last - 1) gifts shuffled with it."""
    r, s = L.rules(R), L.state(S)
    nk, size = r.num_kinds, 0
    for k in range(nk):
        size += r.deck_counts[k]
    gifts = np.empty(size, np.int64)
    i = 0
    for k in range(nk):
        for _ in range(r.deck_counts[k]):
            gifts[i] = k
            i += 1
    rng_shuffle(S, gifts)
    last = r.akhenaton_among_last - 1
    bottom = np.empty(last + 1, np.int64)
    for j in range(last):
        bottom[j] = gifts[j]
    bottom[last] = nk
    rng_shuffle(S, bottom)
    for j in range(size - last):
        s.deck[j] = gifts[last + j]
    for j in range(last + 1):
        s.deck[size - last + j] = bottom[j]
    s.deck_len = size + 1
