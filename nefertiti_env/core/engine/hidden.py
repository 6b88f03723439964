"""What a seat cannot know, as kernels: the order of the undrawn deck and the dice to come.

The multiset of undrawn cards is public (deck composition minus every card seen), but their
order is not, except the bottom places a seat saw with the Oracle; the Akhenaton card is known
only to lie among the last `akhenaton_among_last` places, and gifts an Oracle player publicly
swapped into the bottom places stay among those places until seen drawn. `resample_hidden`
deals the unseen places again consistently with that (a determinisation for search, on a copy
of S); `determinize` also forgets the true order first and reseeds the dice.

Random numbers come from a generator other than the game's: `G` is an int64 array of the six
PCG64 words a state begins with (`generator_array`), so rng.py's numpy-exact kernels draw from it
as from a state, and a bot's stream is consumed exactly as numpy's `Generator` would.

The kernels take the arrays `R`, `S` and read them as records (`layout.rules`, `layout.state`).
"""
from __future__ import annotations

import numpy as np

from ..limits import MAX_DECK, MAX_KINDS
from . import layout as L
from .rng import _bounded, generator, rng_integers, rng_seed, rng_shuffle, rng_state, rng_words
from .entry import kernel, njit

_SEED_TOP = np.uint64(2**63 - 1)      # `Generator.integers(2**63)`: uniform in [0, 2**63 - 1]


@njit(cache=True)
def unseen_end(S, seat) -> int:
    """Undrawn places deck_pos .. unseen_end - 1 are hidden from `seat`; the places from there to
    the deck's end are the ones it saw with the Oracle (`known_cards`)."""
    s = L.state(S)
    end = s.deck_len
    if seat == s.oracle_seat:
        end = max(s.deck_pos, s.oracle_from)
    return end


# A determinisation's work space (`work`): the hidden cards, per deck place the card put there, the
# free places to draw from, the pending Oracle gifts, and a count per card code (for the sort).
_POOL, _PLACED, _SPOTS = 0, MAX_DECK, 2 * MAX_DECK
_PENDING = 3 * MAX_DECK
_COUNTS = _PENDING + L.MAX_ORACLE_GIVEN
WORK_SIZE = _COUNTS + MAX_KINDS + 1


@njit(cache=True)
def work():
    """A work space for `resample_hidden` and `determinize` (made once by the caller, reused by every call,
    so a search's determinisations allocate nothing)."""
    return np.empty(WORK_SIZE, dtype=np.int64)


@kernel
def oracle_pending(S, out) -> int:
    """Write into `out` the gifts publicly swapped into the bottom places by the Oracle, less those
    seen drawn since, in the order given; return how many."""
    s = L.state(S)
    n = s.oracle_given_n
    for i in range(n):
        out[i] = s.oracle_given[i]
    for pos in range(s.oracle_from, s.deck_pos):
        n = _remove_first(out, n, s.deck[pos])
    return n


@kernel
def _remove_first(pool, n, kind) -> int:
    """Remove the first `kind` from pool[:n]; return the new length."""
    for i in range(n):
        if pool[i] == kind:
            for j in range(i, n - 1):
                pool[j] = pool[j + 1]
            return n - 1
    return n


@njit(cache=True)
def resample_hidden(R, S, seat, G, W) -> None:
    """Deal the undrawn places hidden from `seat` again, in place, drawing from generator `G`
    (numpy's draws: the Akhenaton card's place, each pending Oracle gift's place, then a shuffle
    of the rest). The Akhenaton card stays among the last `akhenaton_among_last` places and the
    pending Oracle gifts among the places from `oracle_from` on. W: the work space (`work`)."""
    r, s = L.rules(R), L.state(S)
    start, end, deck_len = s.deck_pos, unseen_end(S, seat), s.deck_len
    if end <= start:
        return
    n = end - start
    pool = W[_POOL:_POOL + n]
    for i in range(n):                                    # not a slice assignment: numba's may copy twice
        pool[i] = s.deck[start + i]
    placed = W[_PLACED:_PLACED + MAX_DECK]                # per deck place: the card put there, or -1
    placed[start:end] = -1
    spots = W[_SPOTS:_SPOTS + MAX_DECK]
    akhenaton = r.num_kinds
    for i in range(n):
        if pool[i] == akhenaton:
            bottom = deck_len - r.akhenaton_among_last
            count = 0
            for pos in range(max(start, bottom), end):
                spots[count] = pos
                count += 1
            placed[spots[rng_integers(G, 0, count)]] = akhenaton
            n = _remove_first(pool, n, akhenaton)
            break
    pending = W[_PENDING:_PENDING + L.MAX_ORACLE_GIVEN]
    for j in range(oracle_pending(S, pending)):
        kind = pending[j]
        count = 0
        for pos in range(max(start, s.oracle_from), end):
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
            s.deck[pos] = placed[pos]
        else:
            s.deck[pos] = rest[i]
            i += 1


@njit(cache=True)
def determinize(R, S, seat, G, W) -> None:
    """Turn S, in place, into a determinisation for `seat`: the places hidden from it sorted (so
    nothing of the true order survives, not even through the shuffle) and dealt again by
    `resample_hidden`, and the game's generator (the dice to come) reseeded from `G` as
    `PCG64(G.integers(2**63))`. W: the work space (`work`); nothing else is allocated but the
    reseeding's small arrays."""
    s = L.state(S)
    start, end = s.deck_pos, unseen_end(S, seat)
    if end > start:
        _sort_cards(s.deck[start:end], W[_COUNTS:_COUNTS + MAX_KINDS + 1])
    resample_hidden(R, S, seat, G, W)
    rng_seed(S, np.int64(_bounded(generator(G), _SEED_TOP)))


@kernel
def _sort_cards(cards, counts) -> None:
    """Sort card codes (0 .. MAX_KINDS: the gift kinds and the Akhenaton card) in place, by counting."""
    counts[:] = 0
    for c in cards:
        counts[c] += 1
    i = 0
    for c in range(counts.size):
        for _ in range(counts[c]):
            cards[i] = c
            i += 1


def generator_array(rng: np.random.Generator) -> np.ndarray:
    """An array holding numpy generator `rng`'s PCG64 words where the kernels read a generator: its first six."""
    return rng_words(rng.bit_generator.state)


def generator_state(G: np.ndarray) -> dict:
    """The numpy `bit_generator.state` held by a generator array (to write back into the Generator)."""
    return rng_state(G)
