"""Market closing conditions (RULES.md section 3): every closing kind lives here.

A kind is a parameter schema plus a check. The ruleset file names a kind and its
parameters per stall; a corrected reference sheet needs no new code unless it
invents a new kind. Checks read the stall's occupancy row (index = bid value,
-1 empty, otherwise a piece colour: seat for a servant, 5 + seat for a tutor, so
red and black tutors count as two extra colours).
"""
from __future__ import annotations

import numpy as np

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
    """A stall's closing condition, with the grid facts its kind needs precomputed."""

    def __init__(self, kind: str, params: dict, grid: list[list[int]]):
        self.kind = kind
        self.params = params
        self.grid = grid
        self.values = np.array(sorted(v for row in grid for v in row), dtype=np.int64)
        pos = {v: (r, c) for r, row in enumerate(grid) for c, v in enumerate(row)}
        self.neighbours = {
            v: [u for u, (r2, c2) in pos.items() if abs(r - r2) + abs(c - c2) == 1]
            for v, (r, c) in pos.items()
        }
        n = len(grid)
        square = n > 0 and all(len(row) == n for row in grid)
        self.diagonals = (
            [[grid[i][i] for i in range(n)], [grid[i][n - 1 - i] for i in range(n)]] if square else []
        )
        self._check = getattr(self, "_" + kind)

    def closes(self, occ: np.ndarray, rng: np.random.Generator) -> bool:
        """True when the condition holds after a placement on this stall.

        `rng` is used only by kinds that roll dice; it is the game's own generator.
        """
        return self._check(occ, rng)

    # --- the kinds -------------------------------------------------------
    def _bid_sum(self, occ, rng):
        return int(np.flatnonzero(occ >= 0).sum()) >= self.params["total"]

    def _colours_or_count(self, occ, rng):
        pieces = occ[occ >= 0]
        return len(pieces) >= self.params["count"] or len(set(pieces.tolist())) >= self.params["colours"]

    def _connected_group(self, occ, rng):
        occupied = set(np.flatnonzero(occ >= 0).tolist())
        seen: set[int] = set()
        for start in occupied:
            if start in seen:
                continue
            stack, size = [start], 0
            seen.add(start)
            while stack:
                v = stack.pop()
                size += 1
                for u in self.neighbours[v]:
                    if u in occupied and u not in seen:
                        seen.add(u)
                        stack.append(u)
            if size >= self.params["size"]:
                return True
        return False

    def _line(self, occ, rng):
        need = self.params["length"]
        for row in self.grid:
            run = 0
            for v in row:
                run = run + 1 if occ[v] >= 0 else 0
                if run >= need:
                    return True
        return False

    def _diagonal(self, occ, rng):
        return any(all(occ[v] >= 0 for v in diag) for diag in self.diagonals)

    def _dice_match(self, occ, rng):
        roll = int(rng.integers(1, self.params["sides"] + 1, size=self.params["dice"]).sum())
        return roll < occ.shape[0] and bool(occ[roll] >= 0)

    def _count(self, occ, rng):
        return int((occ >= 0).sum()) >= self.params["count"]

    def _square_or_count(self, occ, rng):
        return occ[self.params["square"]] >= 0 or int((occ >= 0).sum()) >= self.params["count"]

    def _never(self, occ, rng):
        return False


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
        elif params[name] < 0:
            problems.append(f"closing parameter {name!r} must not be negative")
    for name in params:
        if name not in schema:
            problems.append(f"closing kind {kind!r} has no parameter {name!r}")
    values = {v for row in grid for v in row}
    if kind == "square_or_count" and isinstance(params.get("square"), int) and params["square"] not in values:
        problems.append(f"closing square {params['square']} is not a square of this stall")
    if kind == "diagonal" and not (grid and all(len(row) == len(grid) for row in grid)):
        problems.append("closing kind 'diagonal' needs a square grid of squares")
    return problems
