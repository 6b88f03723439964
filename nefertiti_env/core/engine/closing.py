"""Market closing conditions (docs/rules.md §3): every closing kind lives here.

A kind is a parameter schema (checked by the ruleset loader), a Python precompute of the
square sets that close a stall (geometric kinds), and a compiled check after each placement.
The ruleset names a kind and its parameters per stall; `rules.rules_array` stores them in R as
`close_kind` (its `ClosingKind` code), `close_params` (in schema order) and
`close_groups` (bitmasks), so a corrected reference sheet needs no new code unless it invents
a new kind. Occupancy is a bitmask (bit v: bid square v holds a piece); colours are read from
the occupancy row (a seat for a servant, TUTOR + seat for a tutor, so tutors count as colours).
The kernels read the arrays R and S as records (`layout.rules`, `layout.state`).
"""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from enum import IntEnum, auto

import numpy as np

from ..limits import MEMPHIS, NUM_BIDS
from . import layout as L
from .board import pop_first
from .rng import rng_integers
from .entry import kernel, njit


class ClosingKind(IntEnum):
    """The closing kinds (docs/rules.md §3.3), each declared here once, by its code in R (`close_kind`); a
    ruleset names a kind by its member's name in lower case (`bid_sum`). numba compiles a member as its code."""
    NEVER = 0                # the Port of Memphis
    BID_SUM = auto()
    COLOURS_OR_COUNT = auto()
    CONNECTED_GROUP = auto()
    LINE = auto()
    DIAGONAL = auto()
    DICE_MATCH = auto()
    COUNT = auto()
    SQUARE_OR_COUNT = auto()


# each kind's parameters {name: type}, every one required, in the order R keeps them (`close_params`):
# a kind left out here fails the import
_PARAMS = {
    ClosingKind.NEVER: {},
    ClosingKind.BID_SUM: {"total": int},
    ClosingKind.COLOURS_OR_COUNT: {"colours": int, "count": int},
    ClosingKind.CONNECTED_GROUP: {"size": int},
    ClosingKind.LINE: {"length": int},
    ClosingKind.DIAGONAL: {},
    ClosingKind.DICE_MATCH: {"dice": int, "sides": int},
    ClosingKind.COUNT: {"count": int},
    ClosingKind.SQUARE_OR_COUNT: {"square": int, "count": int},
}
# the ruleset's name of each kind -> its parameters, in code order
CLOSING_KINDS: dict[str, dict[str, type]] = {kind.name.lower(): _PARAMS[kind] for kind in ClosingKind}
_MINIMUM = {"dice": 1, "sides": 1, "count": 1, "size": 1, "length": 1, "colours": 1}
MAXIMUM = 100          # every closing parameter: above any stall's squares, pieces or bid sums
_MAXIMA = {"dice": L.MAX_DICE_SCRIPT}     # dice per roll: as many as explicit chance can script


@dataclass(frozen=True)
class Closing:
    """A stall's closing condition as the ruleset gives it: kind, parameters, grid of bid values."""
    kind: str
    params: dict
    grid: list

    @property
    def code(self) -> int:
        return int(ClosingKind[self.kind.upper()])

    @property
    def all_squares(self) -> int:
        """Bitmask of the stall's squares."""
        return sum(1 << v for row in self.grid for v in row)

    @functools.cached_property
    def groups(self) -> np.ndarray:
        """Bitmasks of the square sets that close the stall when all occupied (geometric kinds)."""
        return np.array(stall_groups(self.kind, self.params, self.grid), dtype=np.int64)

    def holds(self, bits: int, v: int, row) -> bool:
        """Does the condition (dice aside: never) hold after a placement on square v, with `bits`
        the occupancy and `row` the pieces per bid square? The kernel's own check (`holds`)."""
        values = [self.params[name] for name in CLOSING_KINDS[self.kind]] + [0, 0]
        return bool(holds(self.code, values[0], values[1], self.groups, len(self.groups), bits, v,
                          np.asarray(row, dtype=np.int64)))


def stall_groups(kind: str, params: dict, grid: list[list[int]]) -> list[int]:
    """Bitmasks of the square sets that close the stall when all occupied (geometric kinds only)."""
    if kind == "line":
        n = params["length"]
        groups = [tuple(row[i:i + n]) for row in grid for i in range(len(row) - n + 1)]
    elif kind == "diagonal":
        n = len(grid)
        groups = [tuple(grid[i][i] for i in range(n)), tuple(grid[i][n - 1 - i] for i in range(n))]
    elif kind == "connected_group":
        pos = {v: (r, c) for r, row in enumerate(grid) for c, v in enumerate(row)}
        groups = [group for group in itertools.combinations(sorted(pos), params["size"]) if _connected(group, pos)]
    else:
        groups = []
    return [sum(1 << u for u in group) for group in groups]


def _connected(group, pos) -> bool:
    """Whether the squares of `group` are orthogonally connected on the grid."""
    todo, seen = [group[0]], {group[0]}
    while todo:
        r, c = pos[todo.pop()]
        for u in group:
            if u not in seen and abs(pos[u][0] - r) + abs(pos[u][1] - c) == 1:
                seen.add(u)
                todo.append(u)
    return len(seen) == len(group)


def validate_params(kind: str, params: dict, grid: list[list[int]]) -> list[str]:
    """Reasons why `params` do not fit `kind` on a stall with this grid (empty when fine)."""
    if kind not in CLOSING_KINDS:
        return [f"unknown closing kind {kind!r} (known: {', '.join(sorted(CLOSING_KINDS))})"]
    schema = CLOSING_KINDS[kind]
    problems = []
    for name, typ in schema.items():
        high = _MAXIMA.get(name, MAXIMUM)
        if name not in params:
            problems.append(f"closing kind {kind!r} needs parameter {name!r}")
        elif not isinstance(params[name], typ) or isinstance(params[name], bool):
            problems.append(f"closing parameter {name!r} must be {typ.__name__}, got {params[name]!r}")
        elif not 0 <= params[name] <= high:
            problems.append(f"closing parameter {name!r} must be 0..{high}, got {params[name]}")
        elif params[name] < _MINIMUM.get(name, 0):
            problems.append(f"closing parameter {name!r} must be at least {_MINIMUM[name]}, got {params[name]}")
    for name in params:
        if name not in schema:
            problems.append(f"closing kind {kind!r} has no parameter {name!r}")
    values = {v for row in grid for v in row}
    if kind == "square_or_count" and isinstance(params.get("square"), int) and params["square"] not in values:
        problems.append(f"closing square {params['square']} is not a square of this stall")
    if kind == "diagonal" and not (grid and all(len(row) == len(grid) for row in grid)):
        problems.append("closing kind 'diagonal' needs a square grid of squares")
    if not problems and len(stall_groups(kind, params, grid)) > L.MAX_GROUPS:
        problems.append(f"closing kind {kind!r} with these parameters gives more than {L.MAX_GROUPS} square sets")
    return problems


@kernel
def roll_die(S, low, high) -> int:
    """One die from low to high - 1: the game's generator, or while dice are scripted (explicit
    chance) the next scripted value; a die asked past the script is counted and reads `low`."""
    s = L.state(S)
    if s.dice_scripted == 0:
        return rng_integers(S, low, high)
    n = s.dice_script_n
    if n == 0:
        s.dice_missing += 1
        return low
    s.dice_script_n = n - 1
    return pop_first(s.dice_script, n)


@kernel
def _popcount(bits) -> int:
    n = 0
    while bits:
        bits &= bits - 1
        n += 1
    return n


@njit(cache=True)
def holds(kind, p0, p1, groups, ngroups, bits, v, row) -> bool:
    """Does closing kind `kind` (parameters p0, p1) hold after a placement on square v? `bits`:
    the occupancy, `row`: the piece per bid square, `groups`: the kind's square sets. Dice are
    rolled by `closes`; here a dice stall never holds."""
    if kind == ClosingKind.BID_SUM:
        total = 0
        for u in range(NUM_BIDS):
            if bits >> u & 1:
                total += u
        return total >= p0
    if kind == ClosingKind.COLOURS_OR_COUNT:
        if _popcount(bits) >= p1:
            return True
        distinct = 0        # distinct values of the row, the empty marker among them, less one
        for u in range(NUM_BIDS):
            first = True
            for w in range(u):
                if row[w] == row[u]:
                    first = False
                    break
            if first:
                distinct += 1
        return distinct - 1 >= p0
    if kind == ClosingKind.CONNECTED_GROUP or kind == ClosingKind.LINE or kind == ClosingKind.DIAGONAL:
        for i in range(ngroups):
            if groups[i] >> v & 1 and bits & groups[i] == groups[i]:
                return True
        return False
    if kind == ClosingKind.COUNT:
        return _popcount(bits) >= p0
    if kind == ClosingKind.SQUARE_OR_COUNT:
        return (bits >> p0 & 1) == 1 or _popcount(bits) >= p1
    return False


@kernel
def closes(R, S, m, v, bits) -> bool:
    """Does market m's visible stall close after a placement on square v (`bits`: its occupancy
    after it)? Also when full, if the ruleset says so. The Port of Memphis never closes this way."""
    if m == MEMPHIS:
        return False
    r, s = L.rules(R), L.state(S)
    side = s.side[m]
    kind = r.close_kind[m, side]
    p0, p1 = r.close_params[m, side, 0], r.close_params[m, side, 1]
    if kind == ClosingKind.DICE_MATCH:
        roll = 0
        for _ in range(p0):
            roll += roll_die(S, 1, p1 + 1)
        hit = roll < NUM_BIDS and (bits >> roll & 1) == 1
    else:
        hit = holds(kind, p0, p1, r.close_groups[m, side], r.close_groups_n[m, side], bits, v, s.occ[m])
    return hit or (bits == r.close_all[m, side] and r.close_when_full != 0)
