"""Cheap evaluation of a position, shared by the heuristic bots and the search bot (compiled).

Scores only count at the end, but most of a seat's future is already on the table:
the servants on bid squares will buy cards or take half a Reserve when their
market closes. A *position* is a light copy of the scoring state (items and foreign
bonus per gift type, Deben, seals, score per owner row; owner counts per type) on which
every open market is resolved *provisionally*, as if it closed now, each owner choosing by
margin gain (`card_gain`); a share (`Weights.projection`) of that outcome is added to the
current score. This makes placements, purchases and characters comparable by one number.

`quick_action` is the same reasoning as a fast policy for the resolution decisions
(choose cards, buy or take half, shame discard); lookahead uses it to play a
market resolution to its end (`settle_in`) before evaluating.

Everything here is a numba kernel over the engine's arrays (R, S, read by name as their records,
`layout.rules` and `layout.state`; docs/engine.md); random numbers come from a generator array `G`
(`engine.hidden.generator_array`) through the engine's numpy-exact kernels, so a bot consumes its
`np.random.Generator`'s stream exactly as numpy would. A position is one numpy record (`POSITION`, its
fields named there): the scoring state per owner row (the seats, plus the neutral player, row 2, in
2-player games), the owners per type, and the scratch space of the provisional resolution. numba passes
a record by pointer, with no reference to count, and the kernels read its fields by name
(`pos.items[r, t]`, `pos.places[i]`). The bots fill the position of a decision's work space (`scratch`,
`position_into`), so their valuations allocate nothing. Float sums keep one order throughout, so equal
values tie alike on every run.
"""
from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from typing import NamedTuple

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.engine import hidden, layout as L, step
from nefertiti_env.core.engine.board import owner_score, value_column, value_table
from nefertiti_env.core.engine.entry import as_record, borrow, njit
from nefertiti_env.core.engine.rng import rng_integers
from nefertiti_env.core.limits import EXTRA, MAX_CHARACTERS, MAX_SLOTS, MAX_TYPES, MEMPHIS, NUM_BIDS, \
    NUM_MARKETS, SINGLE
from nefertiti_env.core.phases import NEUTRAL, PH_HIGH, PH_OTHER, PH_SHAME, SERVANT_PHASES, TUTOR

MEMPHIS_HIGH = -1             # the highest bidder at Memphis takes two cards of choice
OWNERS, TAKEN = L.NUM_OWNERS, 3    # owner rows; the most cards one bidder takes (two lower + 1 on an extra square)
POSITION = np.dtype((np.record, np.dtype([
    # the scoring state ([owner row]: `position_into`)
    ("items", np.int64, (OWNERS, MAX_TYPES)),   # [row, type] items held
    ("bonus", np.int64, (OWNERS, MAX_TYPES)),   # [row, type] foreign bonus per item
    ("money", np.int64, OWNERS),
    ("seals", np.int64, OWNERS),
    ("points", np.int64, OWNERS),
    ("score", np.float64, OWNERS),              # the score, every Deben worth half a point
    ("owners", np.int64, MAX_TYPES),            # [type] owner rows holding it
    ("supply", np.int64),                       # seals left in the supply
    ("seats", np.int64),
    ("rows", np.int64),                         # owner rows: the seats and, at two players, the neutral player
    # the provisional resolution's scratch: the market's face-up gifts (`face_up_gifts`: place, kind,
    # still there), the highest bidder's ranked places and the best lower ones with their gains, and
    # the places it takes (not `take`: a field must not share a name with a numpy scalar's method, which
    # plain Python, NUMBA_DISABLE_JIT=1, would read instead)
    ("places", np.int64, MAX_SLOTS),
    ("kinds", np.int64, MAX_SLOTS),
    ("alive", np.int64, MAX_SLOTS),
    ("ranked", np.int64, MAX_SLOTS),
    ("ranked_gains", np.float64, MAX_SLOTS),
    ("lower", np.int64, TAKEN),
    ("lower_gains", np.float64, TAKEN),
    ("chosen", np.int64, TAKEN),
    # [row] score changes of one card (`deltas_into`); each seat's worth now, after the provisional
    # resolution, and the two mixed (`worth_into`)
    ("deltas", np.float64, OWNERS),
    ("now", np.float64, OWNERS),
    ("after", np.float64, OWNERS),
    ("worth", np.float64, OWNERS),
], align=True)))

# The small kernels of a valuation, called in its innermost loops: inlined by LLVM into their
# callers, and compiled without reference counting (they neither allocate nor keep an array), since
# numba passes every array to a call field by field and counts a reference in and out of it: each
# call of `card_gain` cost more than its inlined body (docs/bots.md, "Compiled bots").
hot = njit(cache=True, forceinline=True, _nrt=False)


@dataclass(frozen=True)
class Weights:
    """How a bot values a position for its own seat (points are the unit).

    money: points per Deben held (the final score counts 0.5; more = keeps money to buy later).
    seal: points per unspent Royal Seal (the score counts 3; more = hoards seals for characters).
    projection: share of the provisional resolution of the open markets that is counted.
    opponent: weight of the best other seat's worth, subtracted from the seat's own.
    monopoly: extra points per item of a gift type the seat alone owns.
    rarity: extra points per item times the type's 1-owner value / the highest 1-owner value.
    character: extra points per character card the seat has played.
    """

    money: float = 0.5
    seal: float = 3.0
    projection: float = 0.6
    opponent: float = 1.0
    monopoly: float = 0.0
    rarity: float = 0.0
    character: float = 0.0

    def array(self) -> np.ndarray:
        """The weights as the kernels take them: float64 words in field order, which a kernel reads by name
        (`weights`); a plain array, so a batch of bots' weights is a 2-D array of rows."""
        return np.array(astuple(self), dtype=np.float64)


# The weights array's words as a record, one float64 field per field of `Weights`, in its order.
WEIGHTS = np.dtype((np.record, [(field.name, np.float64) for field in fields(Weights)]))


@hot
def weights(w):
    """The weights array `w` (`Weights.array`, or a row of a batch of them) as its `WEIGHTS` record: the same
    memory, read by name (`weights(w).money`), as the engine's `layout.state` reads a state."""
    return as_record(w, WEIGHTS)


# ---------------------------------------------------------------- positions
@hot
def _clear(pos) -> None:
    """Zero every field of a position, its scratch too: equal states make equal positions. A loop per
    field (`_zero`), which LLVM turns into a memset."""
    _zero2(pos.items)
    _zero2(pos.bonus)
    _zero(pos.money)
    _zero(pos.seals)
    _zero(pos.points)
    _zero(pos.score)
    _zero(pos.owners)
    pos.supply = 0
    pos.seats = 0
    pos.rows = 0
    _zero(pos.places)
    _zero(pos.kinds)
    _zero(pos.alive)
    _zero(pos.ranked)
    _zero(pos.ranked_gains)
    _zero(pos.lower)
    _zero(pos.lower_gains)
    _zero(pos.chosen)
    _zero(pos.deltas)
    _zero(pos.now)
    _zero(pos.after)
    _zero(pos.worth)


@hot
def _zero(a) -> None:
    """a[:] = 0 for a field of one dimension (`_zero2`: two)."""
    for i in range(a.shape[0]):
        a[i] = 0


@hot
def _zero2(a) -> None:
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = 0


@hot
def position_into(R, S, pos) -> None:
    """Fill the position `pos` (a `POSITION` record) with the scoring state of S; the scores are the
    engine's `board.owner_score`."""
    r, s = L.rules(R), L.state(S)
    n = s.num_players
    rows = n + 1 if n == 2 else n
    _clear(pos)
    for row in range(rows):
        o = row if row < n else NEUTRAL
        for k in range(r.num_kinds):
            c = s.owned[o, k]
            if c:
                t = r.kind_type[k]
                pos.items[row, t] += c * r.kind_items[k]
                pos.bonus[row, t] += c * r.kind_bonus[k]
        pos.money[row] = s.money[o]
        pos.seals[row] = s.seals[o]
        pos.points[row] = s.points[o]
    for t in range(MAX_TYPES):
        for row in range(rows):
            if pos.items[row, t] > 0:
                pos.owners[t] += 1
    pos.supply = s.seal_supply
    pos.seats = n
    pos.rows = rows
    table = value_table(R)
    for row in range(rows):
        total = owner_score(table, pos.owners, pos.items[row], pos.bonus[row], pos.money[row], pos.seals[row],
                            pos.points[row])
        pos.score[row] = total + pos.money[row] % 2 / 2


@hot
def _type_value(R, t, owners) -> int:
    """Points per item of type t with `owners` owners."""
    return L.rules(R).type_values[t, value_column(owners)] if owners else 0


@hot
def deltas_into(R, pos, p, kind, sign) -> None:
    """Change of every owner row's points if row p gains (sign=-1: loses) one card of `kind`, into the
    position's `deltas`."""
    r = L.rules(R)
    t = r.kind_type[kind]
    count = pos.owners[t]
    have = pos.items[p, t]
    after = have + sign * r.kind_items[kind]
    old_value = _type_value(R, t, count)
    new_value = _type_value(R, t, count + (1 if have == 0 and after > 0 else 0) - (1 if have > 0 and after <= 0 else 0))
    for o in range(pos.rows):
        pos.deltas[o] = 0.0
    if new_value != old_value:
        for o in range(pos.rows):
            if pos.items[o, t]:
                pos.deltas[o] = pos.items[o, t] * (new_value - old_value)
    bonus = pos.bonus[p, t]
    pos.deltas[p] = after * (new_value + bonus + sign * r.kind_bonus[kind]) - have * (old_value + bonus)


@hot
def margin_gain(pos, n, p) -> float:
    """How much row p's lead over the best other seat grows with the position's score changes
    (`deltas_into`)."""
    best_before = best_after = -1e9
    for o in range(n):
        if o != p:
            best_before = max(best_before, pos.score[o])
            best_after = max(best_after, pos.score[o] + pos.deltas[o])
    return pos.deltas[p] - (best_after - best_before)


@hot
def card_gain(R, pos, p, kind, seal) -> float:
    """`margin_gain` of row p taking one card of `kind` (with a seal if `seal`): the hot path."""
    r = L.rules(R)
    t = r.kind_type[kind]
    count = pos.owners[t]
    have = pos.items[p, t]
    old_value = _type_value(R, t, count)
    new_value = _type_value(R, t, count + (1 if have == 0 else 0))
    bonus = pos.bonus[p, t]
    own = ((have + r.kind_items[kind]) * (new_value + bonus + r.kind_bonus[kind])
           - have * (old_value + bonus))
    if seal or (r.kind_seal[kind] != 0 and pos.supply > 0):
        own += 3
    if new_value == old_value:
        return float(own)
    drop = new_value - old_value
    best_before = best_after = -1e9
    for o in range(pos.seats):
        if o != p:
            x = pos.score[o]
            if x > best_before:
                best_before = x
            x += pos.items[o, t] * drop
            if x > best_after:
                best_after = x
    return own - (best_after - best_before)


@hot
def give(R, pos, p, kind, seal) -> None:
    """Row p takes one card of `kind` (a papyrus brings a seal from the supply; `seal`: one more)."""
    deltas_into(R, pos, p, kind, 1)
    r = L.rules(R)
    t = r.kind_type[kind]
    if pos.items[p, t] == 0:
        pos.owners[t] += 1
    pos.items[p, t] += r.kind_items[kind]
    pos.bonus[p, t] += r.kind_bonus[kind]
    if r.kind_seal[kind] != 0 and pos.supply > 0:
        pos.supply -= 1
        seal = True
    if seal:
        pos.seals[p] += 1
        pos.deltas[p] += 3
    for o in range(pos.rows):
        pos.score[o] += pos.deltas[o]


@hot
def pay(pos, p, amount) -> None:
    pos.money[p] -= amount
    pos.score[p] -= amount / 2


# ---------------------------------------------------------------- provisional closing
@hot
def high_choice(R, pos, p, count, seal_on, symbol) -> int:
    """Places the highest bidder takes among the first `count` face-up gifts of the position's scratch
    still there, into its `chosen` (return how many): the upper card, or two lower cards (+1 on an extra
    square; one card on a single square; two of choice at Memphis). Cards are ranked by gain, ties by
    the higher place."""
    n = 0
    for i in range(count):
        if pos.alive[i]:
            k = pos.places[i]
            g = card_gain(R, pos, p, pos.kinds[i], k == 0 and seal_on)
            j = n                               # insertion: gain descending, then place descending
            while j > 0 and (pos.ranked_gains[j - 1] < g or (pos.ranked_gains[j - 1] == g and pos.ranked[j - 1] < k)):
                pos.ranked_gains[j] = pos.ranked_gains[j - 1]
                pos.ranked[j] = pos.ranked[j - 1]
                j -= 1
            pos.ranked_gains[j] = g
            pos.ranked[j] = k
            n += 1
    if symbol == SINGLE:
        if n:
            pos.chosen[0] = pos.ranked[0]
            return 1
        return 0
    if symbol == MEMPHIS_HIGH:
        for i in range(min(n, 2)):
            pos.chosen[i] = pos.ranked[i]
        return min(n, 2)
    upper, upper_gain, lower = False, 0.0, 0
    for i in range(n):
        if pos.ranked[i] == 0:
            upper, upper_gain = True, pos.ranked_gains[i]
        elif lower < TAKEN:
            pos.lower[lower] = pos.ranked[i]
            pos.lower_gains[lower] = pos.ranked_gains[i]
            lower += 1
    two = min(lower, 2)
    two_sum = 0.0
    for i in range(two):
        two_sum += pos.lower_gains[i]
    if upper and (two == 0 or upper_gain >= two_sum):
        pos.chosen[0] = 0
        taken, rest = 1, 0
    else:
        for i in range(two):
            pos.chosen[i] = pos.lower[i]
        taken, rest = two, 2
    if symbol == EXTRA and rest < lower:
        pos.chosen[taken] = pos.lower[rest]
        taken += 1
    return taken


@hot
def face_up_gifts(R, S, m, pos) -> int:
    """The face-up gifts above market m (not the Roaming Thief card) into the position's scratch:
    places, kinds, all still there; how many."""
    r, s = L.rules(R), L.state(S)
    n = 0
    for k in range(MAX_SLOTS):
        c = s.slots[m, k]
        if 0 <= c < r.num_kinds and s.face_down[m, k] == 0:
            pos.places[n] = k
            pos.kinds[n] = c
            pos.alive[n] = 1
            n += 1
    return n


@hot
def resolve(R, S, pos, m) -> None:
    """Resolve market m on the position as if it closed now, every owner choosing by margin gain."""
    r, s = L.rules(R), L.state(S)
    count = face_up_gifts(R, S, m, pos)
    seal_on = s.seal_on[m] != 0 and m != MEMPHIS
    reserve = s.reserve[m]
    i = -1
    for v in range(NUM_BIDS - 1, -1, -1):
        p = s.occ[m, v]
        if not 0 <= p < TUTOR:
            continue
        i += 1
        if pos.money[p] < v:
            continue
        if i == 0:
            pay(pos, p, v)
            reserve += v
            symbol = r.square_symbol[m, s.side[m], v] if m != MEMPHIS else MEMPHIS_HIGH
            for j in range(high_choice(R, pos, p, count, seal_on, symbol)):
                place = pos.chosen[j]
                for c in range(count):
                    if pos.alive[c] and pos.places[c] == place:
                        pos.alive[c] = 0
                        give(R, pos, p, pos.kinds[c], place == 0 and seal_on)
            continue
        half = (reserve + 1) // 2
        best, best_gain = -1, half / 2
        for c in range(count):
            if pos.alive[c]:
                gain = card_gain(R, pos, p, pos.kinds[c], pos.places[c] == 0 and seal_on) - v / 2
                if gain > best_gain:
                    best, best_gain = c, gain
        if best < 0:
            reserve -= half
            pay(pos, p, -half)
        else:
            pay(pos, p, v)
            reserve += v
            pos.alive[best] = 0
            give(R, pos, p, pos.kinds[best], pos.places[best] == 0 and seal_on)


@hot
def _worth(R, pos, w, out) -> None:
    """Every seat's worth on a position into out[seat] (one of its worth fields): its score with Deben
    and seals re-weighted, plus the monopoly and rarity terms."""
    r = L.rules(R)
    top = r.type_values[0, 0]              # the highest 1-owner value
    for t in range(1, r.num_types):
        top = max(top, r.type_values[t, 0])
    weight = weights(w)
    for p in range(pos.seats):
        x = pos.score[p] + (weight.money - 0.5) * pos.money[p] + (weight.seal - 3) * pos.seals[p]
        if weight.monopoly != 0 or weight.rarity != 0:
            for t in range(r.num_types):
                have = pos.items[p, t]
                if have:
                    x += have * (weight.monopoly * (1.0 if pos.owners[t] == 1 else 0.0)
                                 + weight.rarity * (r.type_values[t, 0] / top))
        out[p] = x


@hot
def _resolves(S, m) -> bool:
    """Does market m resolve provisionally: open, with pieces, not the one being resolved?"""
    s = L.state(S)
    if s.is_open[m] == 0 or m == s.res_market:
        return False
    for v in range(NUM_BIDS):
        if s.occ[m, v] >= 0:
            return True
    return False


@njit(cache=True)
def worth_into(R, S, w, pos) -> None:
    """Every seat's worth of S under weights w into the position's `worth`, mixing the position now and
    after the provisional resolution of every open market with servants by the projection weight; the
    position `pos` is the work space."""
    position_into(R, S, pos)
    _worth(R, pos, w, pos.now)
    worth_from(R, S, w, pos, 0)


@hot
def worth_from(R, S, w, pos, first) -> None:
    """`worth_into` from a position whose worth now is known and whose markets before `first` are
    resolved already."""
    for m in range(first, NUM_MARKETS):
        if _resolves(S, m):
            resolve(R, S, pos, m)
    s, weight = L.state(S), weights(w)
    _worth(R, pos, w, pos.after)
    for p in range(s.num_players):
        x = (1 - weight.projection) * pos.now[p] + weight.projection * pos.after[p]
        if weight.character != 0:
            played = 0
            for c in range(MAX_CHARACTERS):
                played += s.char_played[p, c]
            x = x + weight.character * played
        pos.worth[p] = x


# ---------------------------------------------------------------- incremental valuation
# Most moves a bot weighs (a placement that closes nothing) leave the scoring state and every
# market but one as they were. `prefixes_into` keeps the base position's provisional resolution
# before each market; `seat_value_near` starts a nearby position from the snapshot before the
# first market that differs and resolves only from there: the same operations in the same
# order as `seat_value_in`, hence the same value to the last bit. The prefixes are an array of
# positions: [k] the position with the markets before k resolved (k up to NUM_MARKETS), then one
# more, the work position of `prefixes_into` and `seat_value_near`.
NEAR = NUM_MARKETS + 1          # the prefixes' work position


@njit(cache=True)
def new_prefixes(rows):
    """Empty prefixes for `prefixes_into`: NUM_MARKETS + 2 rows (the markets' and the work position), or
    none."""
    return np.zeros(rows, POSITION)


@njit(cache=True)
def prefixes_into(R, S, w, P) -> None:
    """The prefixes P of S: P[k] the position of S with its worth now, markets before k resolved; P's
    work position is the work space. A record is copied into an array's element in one move."""
    pos = P[NEAR]
    position_into(R, S, pos)
    _worth(R, pos, w, pos.now)
    for m in range(NUM_MARKETS + 1):
        P[m] = pos
        if m < NUM_MARKETS and _resolves(S, m):
            resolve(R, S, pos, m)


@hot
def _same(a, b) -> bool:
    """a == b for two fields of one dimension (`_same2`: two)."""
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@hot
def _same2(a, b) -> bool:
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if a[i, j] != b[i, j]:
                return False
    return True


@hot
def first_change(S, base) -> int:
    """The first market whose provisional resolution may differ between S and `base` (NUM_MARKETS:
    none), or -1 when their scoring states differ."""
    s, b = L.state(S), L.state(base)
    if not (_same2(s.owned, b.owned) and _same(s.money, b.money) and _same(s.seals, b.seals)
            and _same(s.points, b.points) and s.seal_supply == b.seal_supply and s.res_market == b.res_market):
        return -1
    for m in range(NUM_MARKETS):
        if not (s.is_open[m] == b.is_open[m] and s.side[m] == b.side[m] and s.reserve[m] == b.reserve[m]
                and s.seal_on[m] == b.seal_on[m] and _same(s.occ[m], b.occ[m]) and _same(s.slots[m], b.slots[m])
                and _same(s.face_down[m], b.face_down[m])):
            return m
    return NUM_MARKETS


@njit(cache=True)
def seat_value_near(R, S, seat, w, base, P) -> float:
    """`seat_value_in` of S, resolving only from the first market where S differs from `base`
    (whose prefixes are P), on P's work position."""
    first = first_change(S, base)
    pos = P[NEAR]
    if first < 0:
        return seat_value_in(R, S, seat, w, pos)
    P[NEAR] = P[first]
    worth_from(R, S, w, pos, first)
    return seat_value_of(pos, L.state(S).num_players, seat, w)


@hot
def seat_value_of(pos, n, p, w) -> float:
    """Seat p's value from the position's worths of the n seats: its worth minus `opponent` times the
    best other seat's."""
    best = -np.inf
    for o in range(n):
        if o != p and pos.worth[o] > best:
            best = pos.worth[o]
    return pos.worth[p] - weights(w).opponent * best


@njit(cache=True)
def seat_value_in(R, S, seat, w, pos) -> float:
    """The value of S for `seat` under weights w (higher is better); the position `pos` is the work
    space (nothing allocated)."""
    worth_into(R, S, w, pos)
    return seat_value_of(pos, L.state(S).num_players, seat, w)


# ---------------------------------------------------------------- work space
class Scratch(NamedTuple):
    """The work space of a decision (`scratch`), so that its hot loop allocates nothing. A NamedTuple:
    numba compiles it as a tuple, the kernels read it by name."""
    states: np.ndarray       # [level] a state row, one per level of the lookahead
    legals: np.ndarray       # [level] the legal actions (at least one row)
    mask: np.ndarray         # the legal mask the rows are listed from
    position: np.ndarray     # [0] a position (`POSITION`; an array of one, as the kernels borrow arrays)
    gains: np.ndarray        # [place] the resolution choice's gain of each card above the market
    gift: np.ndarray         # [place] the kind of the face-up gift there, -1 none
    prefixes: np.ndarray     # the base position's (`new_prefixes`; none when levels is 0: a resolution policy's space)
    lines: np.ndarray        # [level] the best line of a power's choices below it: how many, then the
                             # choices (`heuristic.power_value`)
    hidden_work: np.ndarray  # the determinisations' work space (`engine.hidden.work`)


@njit(cache=True)
def scratch(levels):
    """A decision's `Scratch` with `levels` lookahead levels."""
    return Scratch(np.empty((levels, L.STATE_BYTES), dtype=np.uint8), np.empty((max(levels, 1), A.NUM_ACTIONS), dtype=np.int64),
                   np.zeros(A.NUM_ACTIONS, dtype=np.int8), np.zeros(1, POSITION), np.zeros(MAX_SLOTS),
                   np.zeros(MAX_SLOTS, dtype=np.int64), new_prefixes(NUM_MARKETS + 2 if levels else 0),
                   np.zeros((levels + 1, levels + 1), dtype=np.int64), hidden.work())


@njit(cache=True)
def borrowed(X):
    """The work space X with every array borrowed (`borrow`)."""
    return Scratch(borrow(X.states), borrow(X.legals), borrow(X.mask), borrow(X.position), borrow(X.gains),
                   borrow(X.gift), borrow(X.prefixes), borrow(X.lines), borrow(X.hidden_work))


@hot
def clone_into(g, S) -> None:
    """g = S in every byte a kernel reads (`layout.AFTER_DECK`): the deck's unused tail and the Oracle's list
    are about a seventh of the state, which a search's clone need not copy. Element by element: numba's
    `g[:] = S` checks the two for overlap, which costs more than the copy."""
    s = L.state(S)
    for i in range(L.DECK_AT + s.deck_len):
        g[i] = S[i]
    for i in range(L.AFTER_DECK, L.ORACLE_GIVEN_AT + s.oracle_given_n):
        g[i] = S[i]
    for i in range(L.ORACLE_GIVEN_N_AT, L.STATE_BYTES):
        g[i] = S[i]


@njit(cache=True)
def legal_row(R, S, X, row) -> int:
    """`step.legal_list_into` of S into the scratch's legal row `row` (its mask reused); how many."""
    return step.legal_list_into(R, S, X.legals[row], X.mask)


# ---------------------------------------------------------------- fast policy
@njit(cache=True)
def _resolution_choice(R, S, X, n) -> int:
    """The card (or take half) the deciding owner picks by margin gain in a market resolution
    (the legal actions in the scratch's row 0)."""
    r, s = L.rules(R), L.state(S)
    legals, pos, gains, gift = X.legals, X.position[0], X.gains, X.gift
    position_into(R, S, pos)
    p, m = s.actor, s.res_market
    seal_on = s.seal_on[m] != 0 and m != MEMPHIS
    count = face_up_gifts(R, S, m, pos)
    gift[:] = -1                                       # place -> kind
    for c in range(count):
        gift[pos.places[c]] = pos.kinds[c]
    gains[:] = 0.0
    best, best_gain, take_half = -1, -np.inf, False
    for i in range(n):
        a = legals[0, i]
        if a == A.TAKE_HALF:
            take_half = True
        if A.CARD <= a < A.CARD + MAX_SLOTS:
            k = a - A.CARD
            if gift[k] >= 0:
                gains[k] = card_gain(R, pos, p, gift[k], a == A.CARD and seal_on)
            if best < 0 or gains[k] > best_gain:
                best, best_gain = a, gains[k]
    if s.phase == PH_OTHER:
        if best < 0:
            best = A.TAKE_HALF
        if not take_half:
            return best
        bid = s.res_order[s.res_pos]
        half = (s.reserve[m] + 1) // 2
        if best != A.TAKE_HALF and best_gain - bid / 2 > half / 2:
            return best
        return A.TAKE_HALF
    cards = 0
    for c in range(count):
        alive = 0
        for i in range(n):
            if legals[0, i] == A.CARD + pos.places[c]:
                alive = 1
        pos.alive[c] = alive
        cards += alive
    if s.res_stage == 0 and m != MEMPHIS and cards:
        symbol = r.square_symbol[m, s.side[m], s.res_order[s.res_pos]]
        high_choice(R, pos, p, count, seal_on, symbol)
        return A.CARD + pos.chosen[0]
    return best


@njit(cache=True)
def quick_action(R, S, G, X) -> int:
    """A fast, sensible choice for resolution decisions; uniform random (from G) for the others.
    X is the work space (`scratch`; its legal row 0 is overwritten)."""
    R, S, G, X = borrow(R), borrow(S), borrow(G), borrowed(X)
    n = legal_row(R, S, X, 0)
    legals = X.legals
    if n == 1:
        return legals[0, 0]
    r, s = L.rules(R), L.state(S)
    ph = s.phase
    if ph == PH_HIGH or ph == PH_OTHER:
        choice = _resolution_choice(R, S, X, n)
        for i in range(n):
            if legals[0, i] == choice:
                return choice
    if ph == PH_SHAME:
        best, best_gain = -1, -np.inf
        pos = X.position[0]
        position_into(R, S, pos)
        p = s.actor
        for i in range(n):
            a = legals[0, i]
            if A.KIND <= a < A.KIND + r.num_kinds:
                deltas_into(R, pos, p, a - A.KIND, -1)
                gain = margin_gain(pos, pos.seats, p)
                if best < 0 or gain > best_gain:
                    best, best_gain = a, gain
        if best >= 0:
            return best
    return legals[0, rng_integers(G, 0, n)]


@njit(cache=True)
def settle_in(R, S, G, X) -> None:
    """Play the decisions after a turn action (market resolutions) with `quick_action`, in the work space X
    (`scratch`)."""
    R, S, G, X = borrow(R), borrow(S), borrow(G), borrowed(X)
    s = L.state(S)
    while not step.is_over(R, S) and s.phase not in SERVANT_PHASES:
        step.apply(R, S, quick_action(R, S, G, X))


# ---------------------------------------------------------------- Python wrapper (the tests)
def settle(game, rng: np.random.Generator) -> None:
    """Play a NefertitiGame's market resolutions to their end with `quick_action` (no history
    kept), drawing from numpy generator `rng`."""
    G = hidden.generator_array(rng)
    settle_in(game.R, game.S, G, scratch(0))
    rng.bit_generator.state = hidden.generator_state(G)
    game.board_changed()
