"""The atlas's questions on the game's parts, on tables whose answers are known by hand: pooling cells,
gift types' points per Deben, the tutors' cost (the neutral owner's gifts, docs/rules.md §8), which stall's
closing ends the game (§5.2) and what Memphis changes at each position (§7)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from nefertiti_env import load_ruleset
from nefertiti_env.balance import analysis, atlas, tables
from nefertiti_env.balance import atlas_questions as Q


def _table(name: str, rows: list[dict]) -> tables.Table:
    """A table with the study's columns, unset cells 0 (text columns "")."""
    return {c: np.array([r.get(c, "" if c in tables.TEXT else 0) for r in rows],
                        dtype=str if c in tables.TEXT else float if c in ("win", "deben_paid") else np.int64)
            for c in tables.COLUMNS[name]}


def _cell(games: int, seats=(), gifts=(), closings=(), tutors=()) -> dict[str, tables.Table]:
    return {"games": _table("games", [{"game": g} for g in range(games)]), "seats": _table("seats", list(seats)),
            "gifts": _table("gifts", list(gifts)), "closings": _table("closings", list(closings)),
            "characters": _table("characters", []), "tutors": _table("tutors", list(tutors))}


def test_pooled_cells_keep_their_games_apart():
    one = _cell(2, gifts=[{"game": 0, "type": "gold", "items": 1, "owners": 1, "points": 14, "cards_bought": 1,
                           "deben_paid": 7}])
    pooled = Q.pool([one, one])
    assert pooled["games"]["game"].tolist() == [0, 1, 2, 3]
    assert pooled["gifts"]["game"].tolist() == [0, 2]
    gold = analysis.gift_economy(pooled)[0]
    assert gold["monopoly_games"] == 2 and gold["monopoly"][0] == pytest.approx(0.5)      # 2 of 4 games


def test_points_per_deben_per_gift_type():
    c = _cell(1, gifts=[{"type": "gold", "items": 2, "points": 20, "cards_bought": 2, "deben_paid": 8},
                        {"seat": 1, "type": "harp", "items": 1, "points": 9, "cards_bought": 1, "deben_paid": 3},
                        {"seat": 1, "type": "chair", "items": 1, "points": 9}])           # taken, not bought
    v = Q.points_per_deben(c)
    assert v["gold"] == pytest.approx(2.5) and v["harp"] == pytest.approx(3.0) and math.isnan(v["chair"])


def test_the_tutors_cost_is_the_value_the_neutral_owner_takes_from_a_type():
    """docs/rules.md §8: the neutral owner's gifts count as an owner for values (§5.1)."""
    rules = load_ruleset("default")
    values, names = np.asarray(rules.type_values), list(rules.type_names)
    gold, harp = values[names.index("gold")], values[names.index("harp")]
    seats = [{"game": 0, "seat": 0, "position": 0}, {"game": 0, "seat": 1, "position": 1}]
    gifts = [{"seat": 0, "type": "gold", "items": 2, "owners": 2},          # the neutral owner holds gold too
             {"seat": 0, "type": "harp", "items": 1, "owners": 3},          # both seats and the neutral owner
             {"seat": 1, "type": "harp", "items": 2, "owners": 3},
             {"seat": 1, "type": "chair", "items": 1, "owners": 1}]         # alone: no cost
    cost = Q.neutral_cost(_cell(1, seats, gifts), values, names)
    assert cost.tolist() == [2 * (gold[0] - gold[1]) + (harp[1] - harp[2]), 2 * (harp[1] - harp[2])]
    q = Q.tutor_question(atlas.Table(2, "beginner", "base", False),
                         {"pop": _cell(2, seats + [{**s, "game": 1} for s in seats],
                                               gifts + [{**g, "game": 1} for g in gifts])}, values, names)
    assert q.answers[0].estimate[0] == pytest.approx(cost[0] - cost[1])
    assert q.extra["cost"]["pop"][0][0] == pytest.approx(cost[0])


def test_what_the_tutors_do_per_position():
    """docs/rules.md §8: a tutor is placed or the chance declined; once resolved it took Deben or a gift (§4.3)."""
    tutors = [{"position": 0, "market": "Gizeh", "bid": 4, "outcome": "deben"},
              {"position": 0, "market": "Gizeh", "bid": 2, "outcome": "gold"},
              {"position": 0, "market": "Louqsor", "bid": 3, "outcome": "unresolved"},
              {"position": 0, "bid": -1, "outcome": "declined"},
              {"position": 1, "bid": -1, "outcome": "declined"},
              {"position": 1, "market": "Memphis", "bid": 5, "outcome": "harp"}]
    first, second = Q.tutor_use(_cell(2, tutors=tutors))
    assert first["per_game"] == pytest.approx(1.5) and first["declined"] == pytest.approx(0.25)
    assert first["deben"] == pytest.approx(0.5) and first["unresolved"] == pytest.approx(1 / 3)
    assert first["bid"] == pytest.approx(3) and first["markets"] == pytest.approx({"Gizeh": 2 / 3, "Louqsor": 1 / 3})
    assert second["per_game"] == pytest.approx(0.5) and second["declined"] == pytest.approx(0.5)
    assert second["deben"] == 0 and second["markets"] == {"Memphis": 1.0}
    assert all(math.isnan(v) for k, v in Q.tutor_use(_cell(2))[0].items() if k not in ("per_game", "markets"))


def test_the_last_classic_closing_ends_the_game():
    """docs/rules.md §5.2: the game ends when no classic market is open; Memphis never closes (§7.3)."""
    closings = [{"game": 0, "decision": 5, "market": "Gizeh", "stall": "Gizeh left"},
                {"game": 0, "decision": 9, "market": "Louqsor", "stall": "Louqsor right"},
                {"game": 0, "decision": 12, "market": "Memphis", "stall": "Memphis"},
                {"game": 1, "decision": 7, "market": "Gizeh", "stall": "Gizeh left"},
                {"game": 1, "decision": 3, "market": "Louqsor", "stall": "Louqsor right"},
                {"game": 2, "decision": 4, "market": "Gizeh", "stall": "Gizeh left"}]
    ends = Q.game_enders(_cell(3, closings=closings))
    assert list(ends) == ["Gizeh left", "Louqsor right"]
    assert ends["Gizeh left"][0] == pytest.approx(2 / 3) and ends["Louqsor right"][0] == pytest.approx(1 / 3)


def test_memphis_changes_each_positions_win_rate():
    def seats(first_wins, games=20):
        return [{"game": g, "seat": p, "position": p, "win": float((p == 0) == (g < first_wins))}
                for g in range(games) for p in range(2)]
    off, on = _cell(20, seats(10)), _cell(20, seats(15))
    qs = Q.memphis_seat_questions(atlas.Table(2, "beginner", "base", False), atlas.Table(2, "beginner", "base", True),
                                  {"pop": off}, {"pop": on}, 2)
    assert [q.subject for q in qs] == ["position 1", "position 2"]
    assert qs[0].answers[0].estimate[0] == pytest.approx(0.25) and qs[1].answers[0].estimate[0] == pytest.approx(-0.25)
    assert 0 < qs[0].answers[0].p < 0.2 and qs[0].answers[0].detectable > 0.25
