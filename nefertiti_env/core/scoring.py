"""Scoring (docs/rules.md §5): gift values by owner count, foreign bonuses, Deben, seals."""
from __future__ import annotations

import numpy as np


def type_items(g) -> np.ndarray:
    """[owner, gift type] number of items held (a double senet is two items)."""
    return g.owned @ g.rules.kind_type_items


def type_bonus(g) -> np.ndarray:
    """[owner, gift type] sum of foreign bonuses, added to every item of the type."""
    return g.owned @ g.rules.kind_type_bonus


def values_by_owners(rules, items: np.ndarray) -> np.ndarray:
    """[..., gift type] points per item, by the number of owner rows of `items` ([..., owner, type])
    holding the type (the neutral player counts)."""
    # ufuncs, not sum()/clip(): their Python-level wrappers cost more than the work (bots score often)
    owners = np.add.reduce(items > 0, axis=-2)
    column = np.minimum(np.maximum(owners, 1), 3) - 1
    return rules.type_values[np.arange(rules.num_types), column]


def type_values(g, items: np.ndarray | None = None) -> np.ndarray:
    """[gift type] points per item now: by the number of owners (the neutral player counts)."""
    return values_by_owners(g.rules, type_items(g) if items is None else items)


def gift_points_of(rules, items: np.ndarray, bonus: np.ndarray) -> np.ndarray:
    """[..., owner] points of the gifts held: `items` and foreign `bonus` per type ([..., owner, type]).

    Pure over arrays, so bots and the balance lab score positions and snapshots with this code.
    """
    per_item = values_by_owners(rules, items)[..., None, :] + bonus
    return np.add.reduce(items * per_item, axis=-1)


def scores_of(rules, items, bonus, money: np.ndarray, seals: np.ndarray, points: np.ndarray) -> np.ndarray:
    """[..., owner] gifts + 1 per 2 Deben + 3 per unspent seal + points scored during play
    (items, bonus as in `gift_points_of`; money, seals, points: [..., owner])."""
    return gift_points_of(rules, items, bonus) + money // 2 + 3 * seals + points


def gift_points(g) -> np.ndarray:
    """[owner] points of the gifts each owner holds now."""
    return gift_points_of(g.rules, type_items(g), type_bonus(g))


def base_scores(g) -> np.ndarray:
    """[owner] scores before the rank bonuses of the end of the game."""
    return scores_of(g.rules, type_items(g), type_bonus(g), g.money, g.seals, g.points)


def final_scores(g) -> np.ndarray:
    """[owner] base scores plus rank bonuses (Priest of Amon), which come last."""
    scores = base_scores(g)
    n = g.num_players
    for c, char in enumerate(g.rules.characters):
        if char.power != "priest_of_amon":
            continue
        for p in np.flatnonzero(g.char_played[:n, c]):
            rank = int((scores[:n] > scores[p]).sum())    # ties share a place
            bonus = char.params["rank_bonus"]
            scores[p] += bonus[min(rank, len(bonus) - 1)]
    return scores


def winners(g) -> list[int]:
    """Most points; tie: most Deben; still tied: a shared win. The neutral player never wins."""
    n = g.num_players
    scores = final_scores(g)[:n]
    best = scores.max()
    tied = np.flatnonzero(scores == best)
    money = g.money[tied]
    return tied[money == money.max()].tolist()
