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

Everything here is a numba kernel over the engine's arrays (R, S; docs/engine.md); random
numbers come from a generator array `G` (`engine.hidden.generator_array`) through the
engine's numpy-exact kernels, so a bot consumes its `np.random.Generator`'s stream exactly as
numpy would. A position is three arrays: `pi` [owner row, ROW_*] (items per type, foreign
bonus per type, Deben, seals, points), `pc` (owners per type, then C_SUPPLY, C_SEATS, C_ROWS)
and `ps` [owner row] the score with every Deben worth half a point. Owner rows are the seats,
plus the neutral player (row 2) in 2-player games. `pc` and `ps` end with the scratch space
of the provisional resolution (C_*/F_* regions); the bots fill the position of a decision's work
space (`scratch`, `position_into`), so their valuations allocate nothing. Float sums keep one
order throughout, so equal values tie alike on every run.
"""
from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import NamedTuple

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.engine import hidden, layout as L, step
from nefertiti_env.core.engine.board import owner_score, value_column, value_table
from nefertiti_env.core.engine.entry import borrow, njit
from nefertiti_env.core.engine.rng import rng_integers
from nefertiti_env.core.limits import EXTRA, MAX_CHARACTERS, MAX_KINDS, MAX_SLOTS, MAX_TYPES, MEMPHIS, NUM_BIDS, \
    NUM_MARKETS, SINGLE
from nefertiti_env.core.phases import NEUTRAL, PH_HIGH, PH_OTHER, PH_SHAME, SERVANT_PHASES, TUTOR

MEMPHIS_HIGH = -1             # the highest bidder at Memphis takes two cards of choice
ROW_MONEY, ROW_SEALS, ROW_POINTS = 2 * MAX_TYPES, 2 * MAX_TYPES + 1, 2 * MAX_TYPES + 2  # pi columns after
WIDTH = 2 * MAX_TYPES + 3                                                 # items 0.., bonus MAX_TYPES..
C_SUPPLY, C_SEATS, C_ROWS = MAX_TYPES, MAX_TYPES + 1, MAX_TYPES + 2     # pc entries after the counts
# scratch (see the module docstring): the market's face-up gifts (places, kinds, still there), the
# highest bidder's take, ranked places, best lower places; ranked gains, best lower gains, score
# changes of one card, worth now, after the provisional resolution, mixed
C_PLACES = MAX_TYPES + 3
C_KINDS, C_ALIVE, C_TAKE = C_PLACES + MAX_SLOTS, C_PLACES + 2 * MAX_SLOTS, C_PLACES + 3 * MAX_SLOTS
C_RANKED = C_TAKE + 3
C_LOWER = C_RANKED + MAX_SLOTS
C_SIZE = C_LOWER + 3
F_GAINS = L.NUM_OWNERS
F_LOWER = F_GAINS + MAX_SLOTS
F_DELTAS = F_LOWER + 3
F_NOW, F_AFTER, F_WORTH = F_DELTAS + L.NUM_OWNERS, F_DELTAS + 2 * L.NUM_OWNERS, F_DELTAS + 3 * L.NUM_OWNERS
F_SIZE = F_WORTH + L.NUM_OWNERS
W_MONEY, W_SEAL, W_PROJECTION, W_OPPONENT, W_MONOPOLY, W_RARITY, W_CHARACTER = range(7)

# The small kernels of a valuation, called in its innermost loops: inlined by LLVM into their
# callers, and compiled without reference counting (they neither allocate nor keep an array), since
# numba passes every array to a call field by field and counts a reference in and out of it: each
# call of `card_gain` cost three times its inlined body (docs/bots.md, "Compiled bots").
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
        """The weights as the kernels take them (float64, in field order: W_MONEY ... W_CHARACTER)."""
        return np.array(astuple(self), dtype=np.float64)


# ---------------------------------------------------------------- positions
@njit(cache=True)
def new_position():
    """An empty position (pi, pc, ps) to fill with `position_into`."""
    return np.zeros((L.NUM_OWNERS, WIDTH), dtype=np.int64), np.zeros(C_SIZE, dtype=np.int64), np.zeros(F_SIZE)


@hot
def position_into(R, S, pi, pc, ps) -> None:
    """Fill the position (pi, pc, ps) with the scoring state of S; the scores are the engine's
    `board.owner_score` (its owner counts: pc's first MAX_TYPES entries)."""
    n = S[L.NUM_PLAYERS]
    rows = n + 1 if n == 2 else n
    for r in range(L.NUM_OWNERS):
        for j in range(WIDTH):
            pi[r, j] = 0
    for j in range(C_SIZE):
        pc[j] = 0
    for j in range(F_SIZE):
        ps[j] = 0.0
    for r in range(rows):
        o = r if r < n else NEUTRAL
        for k in range(R[L.NUM_KINDS]):
            c = S[L.OWNED + o * MAX_KINDS + k]
            if c:
                t = R[L.KIND_TYPE + k]
                pi[r, t] += c * R[L.KIND_ITEMS + k]
                pi[r, MAX_TYPES + t] += c * R[L.KIND_BONUS + k]
        pi[r, ROW_MONEY] = S[L.MONEY + o]
        pi[r, ROW_SEALS] = S[L.SEALS + o]
        pi[r, ROW_POINTS] = S[L.POINTS + o]
    for t in range(MAX_TYPES):
        for r in range(rows):
            if pi[r, t] > 0:
                pc[t] += 1
    pc[C_SUPPLY], pc[C_SEATS], pc[C_ROWS] = S[L.SEAL_SUPPLY], n, rows
    table = value_table(R)
    for r in range(rows):
        total = owner_score(table, pc, pi[r, :MAX_TYPES], pi[r, MAX_TYPES:2 * MAX_TYPES], pi[r, ROW_MONEY],
                            pi[r, ROW_SEALS], pi[r, ROW_POINTS])
        ps[r] = total + pi[r, ROW_MONEY] % 2 / 2


@hot
def _type_value(R, t, owners) -> int:
    """Points per item of type t with `owners` owners."""
    return R[L.TYPE_VALUES + t * 3 + value_column(owners)] if owners else 0


@hot
def deltas_into(R, pi, pc, ps, p, kind, sign) -> None:
    """Change of every owner row's points if row p gains (sign=-1: loses) one card of `kind`, into the
    position's scratch (ps[F_DELTAS + row])."""
    t = R[L.KIND_TYPE + kind]
    count = pc[t]
    have = pi[p, t]
    after = have + sign * R[L.KIND_ITEMS + kind]
    old_value = _type_value(R, t, count)
    new_value = _type_value(R, t, count + (1 if have == 0 and after > 0 else 0) - (1 if have > 0 and after <= 0 else 0))
    for o in range(pc[C_ROWS]):
        ps[F_DELTAS + o] = 0.0
    if new_value != old_value:
        for o in range(pc[C_ROWS]):
            if pi[o, t]:
                ps[F_DELTAS + o] = pi[o, t] * (new_value - old_value)
    bonus = pi[p, MAX_TYPES + t]
    ps[F_DELTAS + p] = after * (new_value + bonus + sign * R[L.KIND_BONUS + kind]) - have * (old_value + bonus)


@hot
def margin_gain(ps, n, p) -> float:
    """How much row p's lead over the best other seat grows with the score changes of the
    position's scratch (`deltas_into`)."""
    best_before = best_after = -1e9
    for o in range(n):
        if o != p:
            best_before = max(best_before, ps[o])
            best_after = max(best_after, ps[o] + ps[F_DELTAS + o])
    return ps[F_DELTAS + p] - (best_after - best_before)


@hot
def card_gain(R, pi, pc, ps, p, kind, seal) -> float:
    """`margin_gain` of row p taking one card of `kind` (with a seal if `seal`): the hot path."""
    t = R[L.KIND_TYPE + kind]
    count = pc[t]
    have = pi[p, t]
    old_value = _type_value(R, t, count)
    new_value = _type_value(R, t, count + (1 if have == 0 else 0))
    bonus = pi[p, MAX_TYPES + t]
    own = ((have + R[L.KIND_ITEMS + kind]) * (new_value + bonus + R[L.KIND_BONUS + kind])
           - have * (old_value + bonus))
    if seal or (R[L.KIND_SEAL + kind] != 0 and pc[C_SUPPLY] > 0):
        own += 3
    if new_value == old_value:
        return float(own)
    drop = new_value - old_value
    best_before = best_after = -1e9
    for o in range(pc[C_SEATS]):
        if o != p:
            x = ps[o]
            if x > best_before:
                best_before = x
            x += pi[o, t] * drop
            if x > best_after:
                best_after = x
    return own - (best_after - best_before)


@hot
def give(R, pi, pc, ps, p, kind, seal) -> None:
    """Row p takes one card of `kind` (a papyrus brings a seal from the supply; `seal`: one more)."""
    deltas_into(R, pi, pc, ps, p, kind, 1)
    t = R[L.KIND_TYPE + kind]
    if pi[p, t] == 0:
        pc[t] += 1
    pi[p, t] += R[L.KIND_ITEMS + kind]
    pi[p, MAX_TYPES + t] += R[L.KIND_BONUS + kind]
    if R[L.KIND_SEAL + kind] != 0 and pc[C_SUPPLY] > 0:
        pc[C_SUPPLY] -= 1
        seal = True
    if seal:
        pi[p, ROW_SEALS] += 1
        ps[F_DELTAS + p] += 3
    for o in range(pc[C_ROWS]):
        ps[o] += ps[F_DELTAS + o]


@hot
def pay(pi, ps, p, amount) -> None:
    pi[p, ROW_MONEY] -= amount
    ps[p] -= amount / 2


# ---------------------------------------------------------------- provisional closing
@hot
def high_choice(R, pi, pc, ps, p, count, seal_on, symbol) -> int:
    """Places the highest bidder takes among the first `count` face-up gifts of the scratch still
    there, into the scratch's take (return how many): the upper card, or two lower cards (+1 on an
    extra square; one card on a single square; two of choice at Memphis). Cards are ranked by
    gain, ties by the higher place. (The scratch is indexed in place, no views: see `scratch`.)"""
    n = 0
    for i in range(count):
        if pc[C_ALIVE + i]:
            k = pc[C_PLACES + i]
            g = card_gain(R, pi, pc, ps, p, pc[C_KINDS + i], k == 0 and seal_on)
            j = n                               # insertion: gain descending, then place descending
            while j > 0 and (ps[F_GAINS + j - 1] < g or (ps[F_GAINS + j - 1] == g and pc[C_RANKED + j - 1] < k)):
                ps[F_GAINS + j] = ps[F_GAINS + j - 1]
                pc[C_RANKED + j] = pc[C_RANKED + j - 1]
                j -= 1
            ps[F_GAINS + j] = g
            pc[C_RANKED + j] = k
            n += 1
    if symbol == SINGLE:
        if n:
            pc[C_TAKE] = pc[C_RANKED]
            return 1
        return 0
    if symbol == MEMPHIS_HIGH:
        for i in range(min(n, 2)):
            pc[C_TAKE + i] = pc[C_RANKED + i]
        return min(n, 2)
    upper, upper_gain, lower = False, 0.0, 0
    for i in range(n):
        if pc[C_RANKED + i] == 0:
            upper, upper_gain = True, ps[F_GAINS + i]
        elif lower < 3:
            pc[C_LOWER + lower], ps[F_LOWER + lower] = pc[C_RANKED + i], ps[F_GAINS + i]
            lower += 1
    two = min(lower, 2)
    two_sum = 0.0
    for i in range(two):
        two_sum += ps[F_LOWER + i]
    if upper and (two == 0 or upper_gain >= two_sum):
        pc[C_TAKE] = 0
        taken, rest = 1, 0
    else:
        for i in range(two):
            pc[C_TAKE + i] = pc[C_LOWER + i]
        taken, rest = two, 2
    if symbol == EXTRA and rest < lower:
        pc[C_TAKE + taken] = pc[C_LOWER + rest]
        taken += 1
    return taken


@hot
def face_up_gifts(R, S, m, pc) -> int:
    """The face-up gifts above market m (not the Roaming Thief card) into the scratch of position
    `pc`: places, kinds, all still there; how many."""
    n = 0
    for k in range(MAX_SLOTS):
        c = S[L.SLOTS + m * MAX_SLOTS + k]
        if 0 <= c < R[L.NUM_KINDS] and S[L.FACE_DOWN + m * MAX_SLOTS + k] == 0:
            pc[C_PLACES + n], pc[C_KINDS + n], pc[C_ALIVE + n] = k, c, 1
            n += 1
    return n


@hot
def resolve(R, S, pi, pc, ps, m) -> None:
    """Resolve market m on the position as if it closed now, every owner choosing by margin gain."""
    count = face_up_gifts(R, S, m, pc)
    seal_on = S[L.SEAL_ON + m] != 0 and m != MEMPHIS
    reserve = S[L.RESERVE + m]
    i = -1
    for v in range(NUM_BIDS - 1, -1, -1):
        p = S[L.OCC + m * NUM_BIDS + v]
        if not 0 <= p < TUTOR:
            continue
        i += 1
        if pi[p, ROW_MONEY] < v:
            continue
        if i == 0:
            pay(pi, ps, p, v)
            reserve += v
            symbol = R[L.SQUARE_SYMBOL + (m * 2 + S[L.SIDE + m]) * NUM_BIDS + v] if m != MEMPHIS else MEMPHIS_HIGH
            for j in range(high_choice(R, pi, pc, ps, p, count, seal_on, symbol)):
                place = pc[C_TAKE + j]
                for c in range(count):
                    if pc[C_ALIVE + c] and pc[C_PLACES + c] == place:
                        pc[C_ALIVE + c] = 0
                        give(R, pi, pc, ps, p, pc[C_KINDS + c], place == 0 and seal_on)
            continue
        half = (reserve + 1) // 2
        best, best_gain = -1, half / 2
        for c in range(count):
            if pc[C_ALIVE + c]:
                gain = card_gain(R, pi, pc, ps, p, pc[C_KINDS + c], pc[C_PLACES + c] == 0 and seal_on) - v / 2
                if gain > best_gain:
                    best, best_gain = c, gain
        if best < 0:
            reserve -= half
            pay(pi, ps, p, -half)
        else:
            pay(pi, ps, p, v)
            reserve += v
            pc[C_ALIVE + best] = 0
            give(R, pi, pc, ps, p, pc[C_KINDS + best], pc[C_PLACES + best] == 0 and seal_on)


@hot
def _worth(R, pi, pc, ps, w, out) -> None:
    """Every seat's worth on a position into ps[out + seat]: its score with Deben and seals
    re-weighted, plus the monopoly and rarity terms."""
    top = R[L.TYPE_VALUES]                 # the highest 1-owner value
    for t in range(1, R[L.NUM_TYPES]):
        top = max(top, R[L.TYPE_VALUES + t * 3])
    for p in range(pc[C_SEATS]):
        x = ps[p] + (w[W_MONEY] - 0.5) * pi[p, ROW_MONEY] + (w[W_SEAL] - 3) * pi[p, ROW_SEALS]
        if w[W_MONOPOLY] != 0 or w[W_RARITY] != 0:
            for t in range(R[L.NUM_TYPES]):
                have = pi[p, t]
                if have:
                    x += have * (w[W_MONOPOLY] * (1.0 if pc[t] == 1 else 0.0)
                                 + w[W_RARITY] * (R[L.TYPE_VALUES + t * 3] / top))
        ps[out + p] = x


@hot
def _resolves(S, m) -> bool:
    """Does market m resolve provisionally: open, with pieces, not the one being resolved?"""
    if S[L.IS_OPEN + m] == 0 or m == S[L.RES_MARKET]:
        return False
    for v in range(NUM_BIDS):
        if S[L.OCC + m * NUM_BIDS + v] >= 0:
            return True
    return False


@njit(cache=True)
def worth_into(R, S, w, pi, pc, ps) -> None:
    """Every seat's worth of S under weights w into ps[F_WORTH + seat], mixing the position now and after
    the provisional resolution of every open market with servants by the projection weight; the
    position (pi, pc, ps) is the work space."""
    position_into(R, S, pi, pc, ps)
    _worth(R, pi, pc, ps, w, F_NOW)
    worth_from(R, S, w, pi, pc, ps, 0)


@hot
def worth_from(R, S, w, pi, pc, ps, first) -> None:
    """`worth_into` from a position whose worth now is known and whose markets before `first` are
    resolved already."""
    for m in range(first, NUM_MARKETS):
        if _resolves(S, m):
            resolve(R, S, pi, pc, ps, m)
    _worth(R, pi, pc, ps, w, F_AFTER)
    for p in range(S[L.NUM_PLAYERS]):
        x = (1 - w[W_PROJECTION]) * ps[F_NOW + p] + w[W_PROJECTION] * ps[F_AFTER + p]
        if w[W_CHARACTER] != 0:
            played = 0
            for c in range(MAX_CHARACTERS):
                played += S[L.CHAR_PLAYED + p * MAX_CHARACTERS + c]
            x = x + w[W_CHARACTER] * played
        ps[F_WORTH + p] = x


# ---------------------------------------------------------------- incremental valuation
# Most moves a bot weighs (a placement that closes nothing) leave the scoring state and every
# market but one as they were. `prefixes_into` keeps the base position's provisional resolution
# before each market; `seat_value_near` starts a nearby position from the snapshot before the
# first market that differs and resolves only from there: the same operations in the same
# order as `seat_value_in`, hence the same value to the last bit.
class Prefixes(NamedTuple):
    """[k] a position (pi, pc, ps) with the markets before k resolved (`prefixes_into`)."""
    pi: np.ndarray
    pc: np.ndarray
    ps: np.ndarray


@njit(cache=True)
def new_prefixes(markets=NUM_MARKETS + 1) -> Prefixes:
    """Empty Prefixes for `prefixes_into` (`markets` rows: one per market boundary, or none)."""
    return Prefixes(np.empty((markets, L.NUM_OWNERS, WIDTH), dtype=np.int64),
                    np.empty((markets, C_SIZE), dtype=np.int64), np.empty((markets, F_SIZE)))


@hot
def _snapshot(pi, pc, ps, to_i, to_c, to_s) -> None:
    """Copy the position (pi, pc, ps) into (to_i, to_c, to_s), element by element: numba's slice
    assignment between arrays checks for overlap and may copy through a temporary array."""
    for o in range(L.NUM_OWNERS):
        for j in range(WIDTH):
            to_i[o, j] = pi[o, j]
    for j in range(C_SIZE):
        to_c[j] = pc[j]
    for j in range(F_SIZE):
        to_s[j] = ps[j]


@njit(cache=True)
def prefixes_into(R, S, w, pi, pc, ps, P) -> None:
    """The Prefixes P of S: P[k] the position of S with its worth now, markets before k resolved; the
    position (pi, pc, ps) is the work space."""
    position_into(R, S, pi, pc, ps)
    _worth(R, pi, pc, ps, w, F_NOW)
    for m in range(NUM_MARKETS + 1):
        _snapshot(pi, pc, ps, P.pi[m], P.pc[m], P.ps[m])
        if m < NUM_MARKETS and _resolves(S, m):
            resolve(R, S, pi, pc, ps, m)


@hot
def _same(S, base, start, size) -> bool:
    for i in range(start, start + size):
        if S[i] != base[i]:
            return False
    return True


@hot
def first_change(S, base) -> int:
    """The first market whose provisional resolution may differ between S and `base` (NUM_MARKETS:
    none), or -1 when their scoring states differ."""
    if not (_same(S, base, L.OWNED, L.OWNED_SIZE) and _same(S, base, L.MONEY, L.NUM_OWNERS)
            and _same(S, base, L.SEALS, L.NUM_OWNERS) and _same(S, base, L.POINTS, L.NUM_OWNERS)
            and S[L.SEAL_SUPPLY] == base[L.SEAL_SUPPLY] and S[L.RES_MARKET] == base[L.RES_MARKET]):
        return -1
    for m in range(NUM_MARKETS):
        if not (S[L.IS_OPEN + m] == base[L.IS_OPEN + m] and S[L.SIDE + m] == base[L.SIDE + m]
                and S[L.RESERVE + m] == base[L.RESERVE + m] and S[L.SEAL_ON + m] == base[L.SEAL_ON + m]
                and _same(S, base, L.OCC + m * NUM_BIDS, NUM_BIDS)
                and _same(S, base, L.SLOTS + m * MAX_SLOTS, MAX_SLOTS)
                and _same(S, base, L.FACE_DOWN + m * MAX_SLOTS, MAX_SLOTS)):
            return m
    return NUM_MARKETS


@njit(cache=True)
def seat_value_near(R, S, seat, w, base, P, pi, pc, ps) -> float:
    """`seat_value_in` of S, resolving only from the first market where S differs from `base`
    (whose Prefixes are P), on the position (pi, pc, ps) as work space."""
    first = first_change(S, base)
    if first < 0:
        return seat_value_in(R, S, seat, w, pi, pc, ps)
    _snapshot(P.pi[first], P.pc[first], P.ps[first], pi, pc, ps)
    worth_from(R, S, w, pi, pc, ps, first)
    return seat_value_of(ps, S[L.NUM_PLAYERS], seat, w)


@hot
def seat_value_of(ps, n, p, w) -> float:
    """Seat p's value from the worths in ps[F_WORTH:F_WORTH + n]: its worth minus `opponent` times
    the best other seat's."""
    best = -np.inf
    for o in range(n):
        if o != p and ps[F_WORTH + o] > best:
            best = ps[F_WORTH + o]
    return ps[F_WORTH + p] - w[W_OPPONENT] * best


@njit(cache=True)
def seat_value_in(R, S, seat, w, pi, pc, ps) -> float:
    """The value of S for `seat` under weights w (higher is better); the position (pi, pc, ps) is the
    work space (nothing allocated)."""
    worth_into(R, S, w, pi, pc, ps)
    return seat_value_of(ps, S[L.NUM_PLAYERS], seat, w)


# ---------------------------------------------------------------- work space
class Scratch(NamedTuple):
    """The work space of a decision (`scratch`), so that its hot loop allocates nothing. A NamedTuple:
    numba compiles it as a tuple, the kernels read it by name."""
    states: np.ndarray       # [level] a state row, one per level of the lookahead
    legals: np.ndarray       # [level] the legal actions (at least one row)
    mask: np.ndarray         # the legal mask the rows are listed from
    pi: np.ndarray           # a position (pi, pc, ps: `new_position`)
    pc: np.ndarray
    ps: np.ndarray
    gains: np.ndarray        # [place] the resolution choice's gain of each card above the market
    gift: np.ndarray         # [place] the kind of the face-up gift there, -1 none
    prefixes: Prefixes       # the base position's (no rows when levels is 0: a resolution policy's space)
    lines: np.ndarray        # [level] the best line of a power's choices below it: how many, then the
                             # choices (`heuristic.power_value`)
    hidden_work: np.ndarray  # the determinisations' work space (`engine.hidden.work`)


@njit(cache=True)
def scratch(levels):
    """A decision's `Scratch` with `levels` lookahead levels."""
    pi, pc, ps = new_position()
    markets = NUM_MARKETS + 1 if levels else 0
    return Scratch(np.empty((levels, L.STATE_SIZE), dtype=np.int64), np.empty((max(levels, 1), A.NUM_ACTIONS), dtype=np.int64),
                   np.zeros(A.NUM_ACTIONS, dtype=np.int8), pi, pc, ps, np.zeros(MAX_SLOTS), np.zeros(MAX_SLOTS, dtype=np.int64),
                   new_prefixes(markets), np.zeros((levels + 1, levels + 1), dtype=np.int64), hidden.work())


@njit(cache=True)
def borrowed(X):
    """The work space X with every array borrowed (`borrow`)."""
    return Scratch(borrow(X.states), borrow(X.legals), borrow(X.mask), borrow(X.pi), borrow(X.pc), borrow(X.ps),
                   borrow(X.gains), borrow(X.gift),
                   Prefixes(borrow(X.prefixes.pi), borrow(X.prefixes.pc), borrow(X.prefixes.ps)),
                   borrow(X.lines), borrow(X.hidden_work))


@hot
def clone_into(g, S) -> None:
    """g = S in every place a kernel reads (`layout.AFTER_DECK`): a quarter of the state is the deck's
    unused tail and the Oracle's list, which a search's clone need not copy. Element by element: numba's
    `g[:] = S` checks the two for overlap, which costs more than the copy."""
    for i in range(L.DECK + S[L.DECK_LEN]):
        g[i] = S[i]
    for i in range(L.AFTER_DECK, L.ORACLE_GIVEN + S[L.ORACLE_GIVEN_N]):
        g[i] = S[i]
    for i in range(L.ORACLE_GIVEN_N, L.STATE_SIZE):
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
    legals, pi, pc, ps, gains, gift = X.legals, X.pi, X.pc, X.ps, X.gains, X.gift
    position_into(R, S, pi, pc, ps)
    p, m = S[L.ACTOR], S[L.RES_MARKET]
    seal_on = S[L.SEAL_ON + m] != 0 and m != MEMPHIS
    count = face_up_gifts(R, S, m, pc)
    gift[:] = -1                                       # place -> kind
    for c in range(count):
        gift[pc[C_PLACES + c]] = pc[C_KINDS + c]
    gains[:] = 0.0
    best, best_gain, take_half = -1, -np.inf, False
    for i in range(n):
        a = legals[0, i]
        if a == A.TAKE_HALF:
            take_half = True
        if A.CARD <= a < A.CARD + MAX_SLOTS:
            k = a - A.CARD
            if gift[k] >= 0:
                gains[k] = card_gain(R, pi, pc, ps, p, gift[k], a == A.CARD and seal_on)
            if best < 0 or gains[k] > best_gain:
                best, best_gain = a, gains[k]
    if S[L.PHASE] == PH_OTHER:
        if best < 0:
            best = A.TAKE_HALF
        if not take_half:
            return best
        bid = S[L.RES_ORDER + S[L.RES_POS]]
        half = (S[L.RESERVE + m] + 1) // 2
        if best != A.TAKE_HALF and best_gain - bid / 2 > half / 2:
            return best
        return A.TAKE_HALF
    cards = 0
    for c in range(count):
        alive = 0
        for i in range(n):
            if legals[0, i] == A.CARD + pc[C_PLACES + c]:
                alive = 1
        pc[C_ALIVE + c] = alive
        cards += alive
    if S[L.RES_STAGE] == 0 and m != MEMPHIS and cards:
        symbol = R[L.SQUARE_SYMBOL + (m * 2 + S[L.SIDE + m]) * NUM_BIDS + S[L.RES_ORDER + S[L.RES_POS]]]
        high_choice(R, pi, pc, ps, p, count, seal_on, symbol)
        return A.CARD + pc[C_TAKE]
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
    ph = S[L.PHASE]
    if ph == PH_HIGH or ph == PH_OTHER:
        choice = _resolution_choice(R, S, X, n)
        for i in range(n):
            if legals[0, i] == choice:
                return choice
    if ph == PH_SHAME:
        best, best_gain = -1, -np.inf
        pi, pc, ps = X.pi, X.pc, X.ps
        position_into(R, S, pi, pc, ps)
        p = S[L.ACTOR]
        for i in range(n):
            a = legals[0, i]
            if A.KIND <= a < A.KIND + R[L.NUM_KINDS]:
                deltas_into(R, pi, pc, ps, p, a - A.KIND, -1)
                gain = margin_gain(ps, pc[C_SEATS], p)
                if best < 0 or gain > best_gain:
                    best, best_gain = a, gain
        if best >= 0:
            return best
    return legals[0, rng_integers(G, 0, n)]


@njit(cache=True)
def settle_kernel(R, S, G) -> None:
    """Play the decisions after a turn action (market resolutions) with `quick_action`."""
    settle_in(R, S, G, scratch(0))


@njit(cache=True)
def settle_in(R, S, G, X) -> None:
    """`settle_kernel` with the work space X (`scratch`)."""
    R, S, G, X = borrow(R), borrow(S), borrow(G), borrowed(X)
    while not step.is_over(R, S) and S[L.PHASE] not in SERVANT_PHASES:
        step.apply(R, S, quick_action(R, S, G, X))


# ---------------------------------------------------------------- Python wrapper (the tests)
def settle(game, rng: np.random.Generator) -> None:
    """Play a NefertitiGame's market resolutions to their end with `quick_action` (no history
    kept), drawing from numpy generator `rng`."""
    G = hidden.generator_array(rng)
    settle_kernel(game.R, game.S, G)
    rng.bit_generator.state = hidden.generator_state(G)
    game.board_changed()
