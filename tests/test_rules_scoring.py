"""docs/rules.md §5: the end of the game, scoring by owner count, double senets, Deben, seals, in-play points, winners."""
import numpy as np
import pytest

from conftest import give, position, refresh
from nefertiti_env.core.engine import resolution
from nefertiti_env.core.game import NefertitiGame
from nefertiti_env.core.limits import MEMPHIS
from nefertiti_env.core.phases import PH_OVER
from nefertiti_env.core.scoring import base_scores, scores_of


def scored(players=4, gifts=None, money=0, seals=0, points=0):
    """A position where only the listed things count; gifts: seat -> {kind: count}."""
    g = position(players, money=[money] * players if isinstance(money, int) else money,
                 seals=[seals] * players if isinstance(seals, int) else seals)
    for seat, cards in (gifts or {}).items():
        give(g, seat, **cards)
    g.state.points[:players] = [points] * players if isinstance(points, int) else points
    refresh(g)
    return g


@pytest.mark.parametrize("owners, value", [(1, 9), (2, 7), (3, 5), (4, 5)])
def test_s5_value_by_owner_count(owners, value):
    """docs/rules.md §5: a harp is worth 9, 7, 5 points with 1, 2, 3+ owners of harps."""
    g = scored(gifts={seat: {"harp": 2} for seat in range(owners)})
    assert g.scores().tolist() == [2 * value] * owners + [0] * (4 - owners)


def test_s5_gold_and_statuette_rulebook_values():
    """docs/rules.md §5 (rulebook): gold 14 alone, 7 with 3+ owners; statuette 11 alone, 6 with 3+ owners."""
    assert scored(gifts={0: {"gold": 1}}).scores()[0] == 14
    assert scored(gifts={s: {"gold": 1} for s in range(3)}).scores()[0] == 7
    assert scored(gifts={0: {"statuette": 1}}).scores()[0] == 11
    assert scored(gifts={s: {"statuette": 1} for s in range(4)}).scores()[0] == 6


@pytest.mark.parametrize("others, double_value", [(0, 12), (1, 10), (2, 8)])
def test_s5_double_senet_counts_two_items(others, double_value):
    """docs/rules.md §5: a double senet is two senets: 12, 10 or 8 points; single and double senets are one type."""
    gifts = {0: {"double_senet": 1}}
    gifts.update({1 + i: {"senet": 1} for i in range(others)})
    g = scored(gifts=gifts)
    assert g.scores()[0] == double_value
    if others:
        assert g.scores()[1] == double_value // 2


def test_s5_one_point_per_two_deben_three_per_seal_and_in_play_points():
    """docs/rules.md §5: +1 point per 2 Deben (rounded down), +3 per unspent seal, plus points scored in play."""
    g = scored(money=[0, 1, 7, 10], seals=[0, 0, 1, 2], points=[0, 4, 0, 1])
    assert g.scores().tolist() == [0, 0 + 4, 3 + 3, 5 + 6 + 1]


def test_s5_scores_equal_a_hand_computation():
    """docs/rules.md §5: a hand-built 4-player position, counted by hand."""
    g = scored(gifts={0: {"harp": 2, "double_senet": 1, "gold": 1},
                      1: {"harp": 1, "senet": 1, "necklace": 2},
                      2: {"senet": 2, "mirror": 1, "statuette": 1},
                      3: {"mirror": 1, "chair": 3}},
               money=[5, 8, 0, 3], seals=[0, 0, 1, 2], points=[0, 0, 0, 10])
    # harp 2 owners: 7; senet 3 owners: 4; gold 1: 14; necklace 1: 14; mirror 2: 8; statuette 1: 11; chair 1: 9
    expected = [2 * 7 + 2 * 4 + 14 + 2,
                7 + 4 + 2 * 14 + 4,
                2 * 4 + 8 + 11 + 3,
                8 + 3 * 9 + 1 + 6 + 10]
    assert g.scores().tolist() == expected == [38, 43, 30, 52]
    assert g.winners() == [3]


def test_s5_three_player_scores():
    """docs/rules.md §5 with 3 players: 3 owners is the 3+ column."""
    g = scored(players=3, gifts={0: {"chair": 1}, 1: {"chair": 2}, 2: {"chair": 1, "gold": 1}}, money=[2, 0, 0])
    assert g.scores().tolist() == [5 + 1, 10, 5 + 14]


def _over(g):
    g.state.phase = PH_OVER
    g.state.actor = -1
    refresh(g)
    return g


def test_s5_tie_broken_by_most_deben():
    """docs/rules.md §5: equal points: the player with most Deben wins."""
    g = _over(scored(gifts={0: {"harp": 1}, 1: {"chair": 1}}, money=[9, 8, 0, 0]))
    assert g.scores()[0] == g.scores()[1] == 9 + 4
    assert g.winners() == [0]
    assert g.returns().tolist() == [1, -1, -1, -1]


def test_s5_still_tied_is_a_shared_win():
    """docs/rules.md §5: equal points and equal Deben: a shared win."""
    g = _over(scored(gifts={0: {"harp": 1}, 2: {"chair": 1}}, money=[4, 0, 4, 0]))
    assert g.winners() == [0, 2]
    assert g.returns().tolist() == [1, -1, 1, -1]


def test_s5_returns_are_zero_before_the_end():
    """docs/rules.md §5: the winner is decided at the end; returns are zero while the game runs."""
    g = scored(gifts={0: {"gold": 1}})
    assert g.winners() == [0]
    assert not g.returns().any()


def test_scores_of_stacked_snapshots_are_each_position_s_base_scores():
    """The array scoring the balance lab and bots call gives, snapshot by snapshot, the game's own scores."""
    g, rng = NefertitiGame(4, seed=3, memphis=True), np.random.default_rng(3)
    snaps, expected = [], []
    while not g.is_over():
        snaps.append((g.state.owned[:, :g.rules.num_kinds].copy(), g.state.money.copy(), g.state.seals.copy(), g.state.points.copy()))
        expected.append(base_scores(g))
        legal = g.legal_actions()
        g.apply(legal[rng.integers(len(legal))])
    owned, money, seals, points = (np.stack(x) for x in zip(*snaps))
    stacked = scores_of(g.rules, owned @ g.rules.kind_type_items, owned @ g.rules.kind_type_bonus, money, seals, points)
    assert stacked.shape == (len(snaps), g.state.owned.shape[0])
    assert (stacked == np.stack(expected)).all()
    assert stacked[-1, :4].max() > 0                   # the game really scored something


@pytest.mark.parametrize("drawn, open_markets, over", [
    (True, [], True),                  # Akhenaton out, every classic market closed: the end
    (True, [MEMPHIS], True),           # the Port does not count as an open market
    (True, [2], False),                # one classic market still open: play goes on
    (False, [], False),                # every market closed between turns, no Akhenaton: they reopen
])
def test_s5_2_game_over_once_akhenaton_is_out_and_no_classic_market_is_open(drawn, open_markets, over):
    """docs/rules.md §5.2: the game ends when the Akhenaton card has come up and no classic market is open."""
    g = position(4, memphis=True)
    g.state.akhenaton_drawn = drawn
    g.state.is_open[:] = [m in open_markets for m in range(len(g.state.is_open))]
    assert bool(resolution.game_over(g.S)) is over
