"""Shared kernels over the board and the owners' gifts: card places, taking cards, scoring.

Used by the powers (docs/rules.md §6), the market resolution (§4) and the results (§5), so
that none of them imports another for these. All take the rules `R` and the state `S`
(layout.py), read them as records (`layout.rules`, `layout.state`) and are compiled with numba;
the list-field helpers take a record's field array and its count.
"""
from __future__ import annotations

import numpy as np

from ..limits import MAX_KINDS, MAX_SLOTS, MAX_TYPES, MEMPHIS, NUM_BIDS
from . import layout as L
from .entry import kernel, njit


@kernel
def kind_roaming(R) -> int:
    """Card code of the Roaming Thief card once it lies on the board (after Akhenaton's code)."""
    return L.rules(R).num_kinds + 1


@kernel
def card_places(R, S, m, skip, out) -> int:
    """Write into `out` the places of the face-up cards above market m, less those holding
    card code `skip` (-1: none); return how many."""
    s = L.state(S)
    n = 0
    for k in range(MAX_SLOTS):
        c = s.slots[m, k]
        if c >= 0 and c != skip and s.face_down[m, k] == 0:
            out[n] = k
            n += 1
    return n


@kernel
def gift_places(R, S, m, out) -> int:
    """Places of the face-up gifts above market m (the Roaming Thief card is no gift)."""
    return card_places(R, S, m, kind_roaming(R), out)


@kernel
def is_gift(R, S, m, k) -> bool:
    """A face-up gift lies in place k above market m (the Roaming Thief card is no gift)."""
    s = L.state(S)
    c = s.slots[m, k]
    return c >= 0 and c != kind_roaming(R) and s.face_down[m, k] == 0


@kernel
def has_gift(R, S, m, lower_only) -> bool:
    """Is there a face-up gift above market m (in the lower row only, if `lower_only`)?"""
    for k in range(1 if lower_only else 0, MAX_SLOTS):
        if is_gift(R, S, m, k):
            return True
    return False


@kernel
def take_card(R, S, p, m, k) -> bool:
    """Owner p takes the card in place k above market m (with the seal on an upper card).

    A papyrus brings a seal from the supply; the neutral player gets no seal (the seal on an
    upper card goes back to the supply). Returns True when the card is the Roaming Thief,
    which its taker must use at once (§6)."""
    r, s = L.rules(R), L.state(S)
    kind = s.slots[m, k]
    s.slots[m, k] = -1
    gets_seal = p != L.NEUTRAL
    if k == 0 and m != MEMPHIS and s.seal_on[m] != 0:
        s.seal_on[m] = 0
        if gets_seal:
            s.seals[p] += 1
        else:
            s.seal_supply += 1
    if kind == kind_roaming(R):
        return True
    if r.kind_seal[kind] != 0 and gets_seal and s.seal_supply > 0:
        s.seal_supply -= 1
        s.seals[p] += 1
    s.owned[p, kind] += 1
    return False


@kernel
def take_from_board(R, S, p, m, k, replacement) -> int:
    """p takes the gift in place k of market m, leaving `replacement` there (a seal stays on its
    place); a papyrus brings a seal from the supply. Returns the kind taken."""
    r, s = L.rules(R), L.state(S)
    kind = s.slots[m, k]
    s.slots[m, k] = replacement
    s.owned[p, kind] += 1
    if r.kind_seal[kind] != 0 and s.seal_supply > 0:
        s.seal_supply -= 1
        s.seals[p] += 1
    return kind


@kernel
def discard(R, S, p, kind) -> None:
    """Owner p's card of `kind` leaves the game."""
    s = L.state(S)
    s.owned[p, kind] -= 1
    s.discarded[kind] += 1


@kernel
def owns_any(S, o) -> bool:
    s = L.state(S)
    for k in range(MAX_KINDS):
        if s.owned[o, k] != 0:
            return True
    return False


@kernel
def occ_bits(S, m) -> int:
    """Bitmask of market m's occupied bid squares (bit v: square v holds a piece)."""
    s = L.state(S)
    bits = 0
    for v in range(NUM_BIDS):
        if s.occ[m, v] >= 0:
            bits |= 1 << v
    return bits


@kernel
def is_free(R, S, m, v) -> bool:
    """May a piece go on square v of market m: the market is open, the square exists on its
    visible stall and is empty? The three tests are all made (`&`, no branch), so that the legal
    placements are marked without a branch per square (mispredicted branches cost the legal-move
    generator more than the tests)."""
    r, s = L.rules(R), L.state(S)
    return (s.is_open[m] != 0) & (s.occ[m, v] < 0) & (r.square_exists[m, s.side[m], v] != 0)


# ---------------------------------------------------------------- scoring (§5)
@kernel
def _per_type(R, S, per_kind) -> np.ndarray:
    """[owner, gift type] sum over the owner's cards of `per_kind` (a rules field per card kind)."""
    r, s = L.rules(R), L.state(S)
    out = np.zeros((L.NUM_OWNERS, MAX_TYPES), dtype=np.int64)
    for o in range(L.NUM_OWNERS):
        for k in range(r.num_kinds):
            n = s.owned[o, k]
            if n:
                out[o, r.kind_type[k]] += n * per_kind[k]
    return out


@njit(cache=True)
def type_items(R, S) -> np.ndarray:
    """[owner, gift type] items held (a double senet is two items)."""
    return _per_type(R, S, L.rules(R).kind_items)


@njit(cache=True)
def type_bonus(R, S) -> np.ndarray:
    """[owner, gift type] sum of the foreign bonuses held, added to every item of the type."""
    return _per_type(R, S, L.rules(R).kind_bonus)


@kernel
def owner_counts(items) -> np.ndarray:
    """[gift type] how many owner rows of `items` ([owner, type]) hold the type (the neutral player counts)."""
    owners = np.zeros(items.shape[1], dtype=np.int64)
    for t in range(items.shape[1]):
        for o in range(items.shape[0]):
            if items[o, t] > 0:
                owners[t] += 1
    return owners


@njit(cache=True, inline="always")
def value_column(owners) -> int:
    """The column of a [type, 3] value table that scores a type held by `owners` owner rows: 1, 2 or
    3+ owners (§5.1); a type nobody holds reads the one-owner column."""
    return min(max(owners, 1), 3) - 1


@njit(cache=True)
def values_by_owners(table, items) -> np.ndarray:
    """[gift type] points per item by the number of owner rows of `items` ([owner, type]) holding the
    type: column 1, 2 or 3+ owners of `table` ([type, 3])."""
    owners = owner_counts(items)
    values = np.zeros(items.shape[1], dtype=np.int64)
    for t in range(items.shape[1]):
        values[t] = table[t, value_column(owners[t])]
    return values


@njit(cache=True, inline="always")
def owner_score(table, owners, items, bonus, money, seals, points) -> int:
    """One owner row's score: its gifts (`items`, foreign `bonus`: [type]; `owners[t]` owner rows hold
    type t) + 1 per 2 Deben + 3 per unspent seal + points scored during play: the one scoring
    formula (§5), before the end-of-game effects of characters. Inlined, so that the bots' valuation
    (`agents/evaluation.position_into`) scores with it and allocates nothing."""
    total = money // 2 + 3 * seals + points
    for t in range(items.shape[0]):
        total += items[t] * (table[t, value_column(owners[t])] + bonus[t])
    return total


@njit(cache=True)
def scores_from(table, items, bonus, money, seals, points) -> np.ndarray:
    """[owner] `owner_score` of every owner row (`items`, foreign `bonus`: [owner, type]).
    `core.scoring.scores_of` runs it over stacks of positions for bots and the lab."""
    owners = owner_counts(items)
    scores = np.zeros(items.shape[0], dtype=np.int64)
    for o in range(items.shape[0]):
        scores[o] = owner_score(table, owners, items[o], bonus[o], money[o], seals[o], points[o])
    return scores


@njit(cache=True, inline="always")
def value_table(R) -> np.ndarray:
    """[type, 3] the ruleset's points per item for 1, 2, 3+ owners (a view of R)."""
    return L.rules(R).type_values


@njit(cache=True)
def type_values(R, items) -> np.ndarray:
    """[gift type] points per item now (see `values_by_owners`)."""
    return values_by_owners(value_table(R), items)


@kernel
def kind_value(R, S, p, kind) -> int:
    """Points a card of `kind` is worth to owner p now (owner count and p's foreign bonuses)."""
    r = L.rules(R)
    items, bonus = type_items(R, S), type_bonus(R, S)
    t = r.kind_type[kind]
    return (type_values(R, items)[t] + bonus[p, t]) * r.kind_items[kind]


@njit(cache=True)
def base_scores(R, S) -> np.ndarray:
    """[owner] scores before the end-of-game effects of characters (powers.end_bonus)."""
    s = L.state(S)
    return scores_from(value_table(R), type_items(R, S), type_bonus(R, S), s.money, s.seals, s.points)


@njit(cache=True)
def scores_batch(table, items, bonus, money, seals, points) -> np.ndarray:
    """`scores_from` for a stack of positions: items, bonus [position, owner, type]; the rest [position, owner]."""
    out = np.zeros(money.shape, dtype=np.int64)
    for i in range(items.shape[0]):
        out[i] = scores_from(table, items[i], bonus[i], money[i], seals[i], points[i])
    return out


# ---------------------------------------------------------------- list fields
# A list field of layout.py is a prefix of its array, its count in `<name>_n`; places past the count
# are kept at 0, so equal positions are equal arrays. The helpers take the record's field array and its
# count (`s.pending, s.pending_n`); a helper that changes the count leaves it to the caller to write back,
# since a kernel receives the count by value.
@kernel
def append(items, n, value) -> int:
    """Put `value` after the `n` items of a list field's array; return the new count."""
    if n >= items.shape[0]:
        raise ValueError("a list field of the state is full")
    items[n] = value
    return n + 1


@kernel
def pop_first(items, n) -> int:
    """Remove and return the first of the `n` items of a list field's array (a record's field, `s.pending`);
    the caller lowers the count. The place freed is zeroed."""
    value = items[0]
    for k in range(n - 1):
        items[k] = items[k + 1]
    items[n - 1] = 0
    return value


@kernel
def contains(items, n, value) -> bool:
    """Is `value` among the `n` items of a list field's array?"""
    for i in range(n):
        if items[i] == value:
            return True
    return False


@kernel
def clear(items, n) -> None:
    """Zero the `n` items of a list field's array; the caller sets the count to 0."""
    items[:n] = 0
