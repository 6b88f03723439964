"""What a seat cannot know, as kernels: the order of the undrawn deck and the dice to come.

The multiset of undrawn cards is public (deck composition minus every card seen), but their
order is not, except the bottom places a seat saw with the Oracle; the Akhenaton card is known
only to lie among the last `akhenaton_among_last` places, and gifts an Oracle player publicly
swapped into the bottom places stay among those places until seen drawn. `resample_hidden`
deals the unseen places again consistently with that (a determinisation for search, on a copy
of S); `determinize` also forgets the true order first and reseeds the dice.

Random numbers come from a generator other than the game's: `G` is an int64 array holding
PCG64 words at `layout.RNG` (`generator_array`), so rng.py's numpy-exact kernels draw from it
as from a state, and a bot's stream is consumed exactly as numpy's `Generator` would.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..limits import MAX_DECK
from . import layout as L
from .rng import _bounded, rng_integers, rng_seed, rng_shuffle, rng_state, rng_words
from .entry import kernel

_SEED_TOP = np.uint64(2**63 - 1)      # `Generator.integers(2**63)`: uniform in [0, 2**63 - 1]


@njit(cache=True)
def unseen_end(S, seat) -> int:
    """Undrawn places deck_pos .. unseen_end - 1 are hidden from `seat`; the places from there to
    the deck's end are the ones it saw with the Oracle (`known_cards`)."""
    end = S[L.DECK_LEN]
    if seat == S[L.ORACLE_SEAT]:
        end = max(S[L.DECK_POS], S[L.ORACLE_FROM])
    return end


@kernel
def oracle_pending(S, out) -> int:
    """Write into `out` the gifts publicly swapped into the bottom places by the Oracle, less those
    seen drawn since, in the order given; return how many."""
    n = S[L.ORACLE_GIVEN_N]
    for i in range(n):
        out[i] = S[L.ORACLE_GIVEN + i]
    if n == 0:
        return 0
    for pos in range(S[L.ORACLE_FROM], S[L.DECK_POS]):
        kind = S[L.DECK + pos]
        for i in range(n):
            if out[i] == kind:
                out[i:n - 1] = out[i + 1:n].copy()
                n -= 1
                break
    return n


@kernel
def _remove_first(pool, n, kind) -> int:
    """Remove the first `kind` from pool[:n]; return the new length."""
    for i in range(n):
        if pool[i] == kind:
            pool[i:n - 1] = pool[i + 1:n].copy()
            return n - 1
    return n


@njit(cache=True)
def resample_hidden(R, S, seat, G) -> None:
    """Deal the undrawn places hidden from `seat` again, in place, drawing from generator `G`
    (numpy's draws: the Akhenaton card's place, each pending Oracle gift's place, then a shuffle
    of the rest). The Akhenaton card stays among the last `akhenaton_among_last` places and the
    pending Oracle gifts among the places from `oracle_from` on."""
    start, end, deck_len = S[L.DECK_POS], unseen_end(S, seat), S[L.DECK_LEN]
    if end <= start:
        return
    pool = S[L.DECK + start:L.DECK + end].copy()
    n = end - start
    placed = np.full(MAX_DECK, -1, dtype=np.int64)       # per deck place: the card put there, or -1
    spots = np.empty(MAX_DECK, dtype=np.int64)
    akhenaton = R[L.NUM_KINDS]
    for i in range(n):
        if pool[i] == akhenaton:
            bottom = deck_len - R[L.AKHENATON_AMONG_LAST]
            count = 0
            for pos in range(max(start, bottom), end):
                spots[count] = pos
                count += 1
            placed[spots[rng_integers(G, 0, count)]] = akhenaton
            n = _remove_first(pool, n, akhenaton)
            break
    pending = np.empty(L.MAX_ORACLE_GIVEN, dtype=np.int64)
    for j in range(oracle_pending(S, pending)):
        kind = pending[j]
        count = 0
        for pos in range(max(start, S[L.ORACLE_FROM]), end):
            if placed[pos] < 0:
                spots[count] = pos
                count += 1
        in_pool = False
        for i in range(n):
            if pool[i] == kind:
                in_pool = True
                break
        if count and in_pool:
            placed[spots[rng_integers(G, 0, count)]] = kind
            n = _remove_first(pool, n, kind)
    rest = pool[:n]
    rng_shuffle(G, rest)
    i = 0
    for pos in range(start, end):
        if placed[pos] >= 0:
            S[L.DECK + pos] = placed[pos]
        else:
            S[L.DECK + pos] = rest[i]
            i += 1


@njit(cache=True)
def determinize(R, S, seat, G) -> None:
    """Turn S, in place, into a determinisation for `seat`: the places hidden from it sorted (so
    nothing of the true order survives, not even through the shuffle) and dealt again by
    `resample_hidden`, and the game's generator (the dice to come) reseeded from `G` as
    `PCG64(G.integers(2**63))`."""
    start, end = S[L.DECK_POS], unseen_end(S, seat)
    if end > start:
        S[L.DECK + start:L.DECK + end] = np.sort(S[L.DECK + start:L.DECK + end])
    resample_hidden(R, S, seat, G)
    rng_seed(S, np.int64(_bounded(G, _SEED_TOP)))


def generator_array(rng: np.random.Generator) -> np.ndarray:
    """An array holding numpy generator `rng`'s PCG64 words where the kernels read a generator."""
    G = np.zeros(L.RNG + L.RNG_WORDS, dtype=np.int64)
    G[L.RNG:] = rng_words(rng.bit_generator.state)
    return G


def generator_state(G: np.ndarray) -> dict:
    """The numpy `bit_generator.state` held by a generator array (to write back into the Generator)."""
    return rng_state(G[L.RNG:])
