"""Market closing conditions (docs/rules.md §3): every closing kind lives here.

A kind is a parameter schema plus a check. The ruleset file names a kind and its
parameters per stall; a corrected reference sheet needs no new code unless it
invents a new kind. Checks read the stall's occupancy row (index = bid value,
-1 empty, otherwise a piece colour: seat for a servant, 5 + seat for a tutor, so
red and black tutors count as two extra colours).
"""
from __future__ import annotations

import itertools

import numpy as np

from .limits import NUM_BIDS

# kind -> {parameter: type}; every parameter is required.
CLOSING_KINDS: dict[str, dict[str, type]] = {
    "bid_sum": {"total": int},
    "colours_or_count": {"colours": int, "count": int},
    "connected_group": {"size": int},
    "line": {"length": int},
    "diagonal": {},
    "dice_match": {"dice": int, "sides": int},
    "count": {"count": int},
    "square_or_count": {"square": int, "count": int},
    "never": {},  # Port of Memphis
}


class ClosingRule:
    """A stall's closing condition, with the grid facts its kind needs precomputed.

    Occupancy arrives as a bitmask (bit v set: bid square v holds a piece); the
    geometric kinds (line, diagonal, connected group) become lists of square sets,
    any one of which fully occupied closes the stall.
    """

    def __init__(self, kind: str, params: dict, grid: list[list[int]]):
        self.kind = kind
        self.params = params
        self.grid = grid
        values = [v for row in grid for v in row]
        self.all_squares = sum(1 << v for v in values)
        groups = self._groups(kind, params, grid)
        # a placement on square v can only complete the square sets that contain v
        self.patterns = [[sum(1 << u for u in g) for g in groups if v in g] for v in range(NUM_BIDS)]
        self.bid_sums = [sum(v for v in range(NUM_BIDS) if bits >> v & 1) for bits in range(1 << NUM_BIDS)] \
            if kind == "bid_sum" else None
        self.rolls_dice = kind == "dice_match"
        self._check = getattr(self, "_" + kind)

    @staticmethod
    def _groups(kind, params, grid) -> list[tuple[int, ...]]:
        """Square sets that close the stall when all occupied (geometric kinds only)."""
        if kind == "line":
            n = params["length"]
            return [tuple(row[i:i + n]) for row in grid for i in range(len(row) - n + 1)]
        if kind == "diagonal":
            n = len(grid)
            return [tuple(grid[i][i] for i in range(n)), tuple(grid[i][n - 1 - i] for i in range(n))]
        if kind == "connected_group":
            pos = {v: (r, c) for r, row in enumerate(grid) for c, v in enumerate(row)}
            return [group for group in itertools.combinations(sorted(pos), params["size"])
                    if _connected(group, pos)]
        return []

    def closes(self, bits: int, v: int, occ: np.ndarray, rng: np.random.Generator | None) -> bool:
        """True when the condition holds after a placement on square v of this stall.

        `bits` is the occupancy bitmask, `occ` the occupancy row (for colours);
        `rng` (the game's own generator) is needed only when `rolls_dice`.
        """
        return self._check(bits, v, occ, rng)

    # --- the kinds -------------------------------------------------------
    def _bid_sum(self, bits, v, occ, rng):
        return self.bid_sums[bits] >= self.params["total"]

    def _colours_or_count(self, bits, v, occ, rng):
        if bits.bit_count() >= self.params["count"]:
            return True
        return len(set(occ.tolist())) - 1 >= self.params["colours"]     # -1: the empty marker

    def _pattern(self, bits, v, occ, rng):
        return any(bits & p == p for p in self.patterns[v])

    _connected_group = _line = _diagonal = _pattern

    def _dice_match(self, bits, v, occ, rng):
        # one scalar draw per die: the same stream as a single `size=dice` draw, at half the cost
        sides = self.params["sides"] + 1
        roll = sum(int(rng.integers(1, sides)) for _ in range(self.params["dice"]))
        return roll < NUM_BIDS and bool(bits >> roll & 1)

    def _count(self, bits, v, occ, rng):
        return bits.bit_count() >= self.params["count"]

    def _square_or_count(self, bits, v, occ, rng):
        return bool(bits >> self.params["square"] & 1) or bits.bit_count() >= self.params["count"]

    def _never(self, bits, v, occ, rng):
        return False


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


_MINIMUM = {"dice": 1, "sides": 1, "count": 1, "size": 1, "length": 1, "colours": 1}
MAXIMUM = 100          # every closing parameter: above any stall's squares, pieces or bid sums


def validate_params(kind: str, params: dict, grid: list[list[int]]) -> list[str]:
    """Reasons why `params` do not fit `kind` on a stall with this grid (empty when fine)."""
    if kind not in CLOSING_KINDS:
        return [f"unknown closing kind {kind!r} (known: {', '.join(sorted(CLOSING_KINDS))})"]
    schema = CLOSING_KINDS[kind]
    problems = []
    for name, typ in schema.items():
        if name not in params:
            problems.append(f"closing kind {kind!r} needs parameter {name!r}")
        elif not isinstance(params[name], typ) or isinstance(params[name], bool):
            problems.append(f"closing parameter {name!r} must be {typ.__name__}, got {params[name]!r}")
        elif not 0 <= params[name] <= MAXIMUM:
            problems.append(f"closing parameter {name!r} must be 0..{MAXIMUM}, got {params[name]}")
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
    return problems
