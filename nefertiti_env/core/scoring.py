"""Scoring (docs/rules.md §5) for games, bots and the balance lab: one implementation, the engine's.

The formula lives in `engine/board.scores_from` (gift values by owner count, foreign bonuses,
Deben, seals, points scored in play) and the end-of-game effects of characters in
`engine/powers.end_bonus`; these functions call them for a game, or for stacks of positions
that bots and the lab build from arrays.
"""
from __future__ import annotations

import numpy as np

from .engine import board, step


def type_items(g) -> np.ndarray:
    """[owner, gift type] number of items held (a double senet is two items)."""
    return board.type_items(g.R, g.S)[:, :g.rules.num_types]


def type_bonus(g) -> np.ndarray:
    """[owner, gift type] sum of foreign bonuses, added to every item of the type."""
    return board.type_bonus(g.R, g.S)[:, :g.rules.num_types]


def type_values(g, items: np.ndarray | None = None) -> np.ndarray:
    """[gift type] points per item now: by the number of owners (the neutral player counts)."""
    return board.values_by_owners(g.rules.type_values, type_items(g) if items is None else items)


def scores_of(rules, items, bonus, money: np.ndarray, seals: np.ndarray, points: np.ndarray) -> np.ndarray:
    """[..., owner] scores before end-of-game effects of positions given as int64 arrays: items and
    foreign bonus per type ([..., owner, type]), money, seals, points ([..., owner])."""
    if np.ndim(items) == 2:                      # one position (the bots' case)
        return board.scores_from(rules.type_values, items, bonus, money, seals, points)
    lead, owners = np.shape(items)[:-2], np.shape(items)[-2:]
    out = board.scores_batch(rules.type_values, *(np.reshape(x, (-1, *owners)) for x in (items, bonus)),
                             *(np.reshape(x, (-1, owners[0])) for x in (money, seals, points)))
    return out.reshape(lead + owners[:1])


def gift_points(g) -> np.ndarray:
    """[owner] points of the gifts each owner holds now."""
    items, zero = type_items(g), np.zeros(len(g.state.money), dtype=np.int64)
    return board.scores_from(g.rules.type_values, items, type_bonus(g), zero, zero, zero)


def base_scores(g) -> np.ndarray:
    """[owner] scores before the rank bonuses of the end of the game."""
    return board.base_scores(g.R, g.S)


def final_scores(g) -> np.ndarray:
    """[owner] base scores plus the end-of-game effects of characters (Priest of Amon rank bonus)."""
    return step.final_scores(g.R, g.S)
