"""docs/rules.md §1: components and setup for 3 and 4 players."""
from collections import Counter

import numpy as np
import pytest

from conftest import ABOU_SIMBEL, AKHET_ATON, GIZEH, LOUQSOR, LEFT, RIGHT, character, kind, new_game
from nefertiti_env.core.phases import PH_TURN

SEEDS = range(40)
MONEY = {3: [9, 10, 10], 4: [8, 9, 9, 10]}


@pytest.mark.parametrize("players", [3, 4])
def test_s1_money_by_seat_from_the_first_player(players):
    """docs/rules.md §1: starting Deben by seat in turn order, starting with the first player."""
    firsts = set()
    for seed in SEEDS:
        g = new_game(players, seed)
        first = g.state.first_player
        firsts.add(first)
        assert [int(g.state.money[(first + i) % players]) for i in range(players)] == MONEY[players]
        assert g.current_player == g.state.turn_player == first
        assert g.phase == PH_TURN
        assert not g.state.money[players:].any()
    assert firsts == set(range(players)), "the first player is drawn at random"


@pytest.mark.parametrize("players", [3, 4])
def test_s1_servants_reserves_and_seals(players):
    """docs/rules.md §1: 4 servants each, 1 Deben on each Reserve, 12 Royal Seals (3 on the upper cards)."""
    g = new_game(players, 3)
    assert g.state.servants[:players].tolist() == [4] * players
    assert not g.state.servants[players:].any() and not g.state.tutors.any()
    assert g.state.reserve[:4].tolist() == [1, 1, 1, 1]
    assert g.state.reserve[4] == 0
    assert g.state.seals.sum() == 0
    assert g.state.seal_on[:4].tolist() == [True, True, True, False]
    assert g.state.seal_supply == 9
    assert (g.state.occ < 0).all()


def test_s1_senets_removed_with_3_players():
    """docs/rules.md §1: the 8 senet cards go back in the box with 3 players; all 46 gifts with 4."""
    senets = [kind(new_game(3), "senet"), kind(new_game(3), "double_senet")]
    g3, g4 = new_game(3, 5), new_game(4, 5)
    akhenaton3, akhenaton4 = g3.rules.num_kinds, g4.rules.num_kinds
    deck3, deck4 = Counter(g3.deck.tolist()), Counter(g4.deck.tolist())
    assert all(deck3[s] == 0 for s in senets)
    assert deck4[senets[0]] == 5 and deck4[senets[1]] == 3
    assert deck4[akhenaton4] == deck3[akhenaton3] == 1
    assert len(g4.deck) == 46 + 1 and len(g3.deck) == 38 + 1
    expected = {"harp": 8, "chair": 8, "mirror": 6, "statuette": 6, "necklace": 5, "gold": 5}
    for name, n in expected.items():
        assert deck3[kind(g3, name)] == deck4[kind(g4, name)] == n


def test_s1_one_scribe_plus_2_removed_with_3_players():
    """docs/rules.md §1/§6: 13 base characters with 4 players; one Scribe +2 fewer with 3."""
    g3, g4 = new_game(3), new_game(4)
    roster = {"scribe_3": 1, "scribe_2": 3, "merchant": 2, "royal_servant": 2, "treasurer": 2,
              "vizier": 1, "head_priest": 1, "thief": 1}
    for key, n in roster.items():
        assert g4.state.char_avail[character(g4, key)] == n
        assert g3.state.char_avail[character(g3, key)] == (n - 1 if key == "scribe_2" else n)
    assert g4.state.char_avail.sum() == 13 and g3.state.char_avail.sum() == 12


@pytest.mark.parametrize("players", [3, 4])
def test_s1_akhenaton_among_the_last_five_cards(players):
    """docs/rules.md §1: Akhenaton is shuffled with 4 unseen gifts at the bottom of the deck."""
    places = Counter()
    for seed in SEEDS:
        g = new_game(players, seed)
        where = np.flatnonzero(g.deck == g.rules.num_kinds)
        assert len(where) == 1
        places[len(g.deck) - int(where[0])] += 1
        assert not g.state.akhenaton_drawn
    assert set(places) == {1, 2, 3, 4, 5}


@pytest.mark.parametrize("players", [3, 4])
def test_s1_three_open_markets_filled_with_four_cards_and_a_seal(players):
    """docs/rules.md §1: each open market gets 4 gifts, the first drawn on the upper slot with a seal."""
    g = new_game(players, 11)
    open_markets = [GIZEH, AKHET_ATON, ABOU_SIMBEL]
    assert g.state.deck_pos == 12
    drawn = {tuple(g.deck[i:i + 4].tolist()) for i in (0, 4, 8)}
    assert {tuple(g.state.slots[m, :4].tolist()) for m in open_markets} == drawn
    for m in open_markets:
        assert g.state.is_open[m] and g.state.seal_on[m]
        assert (g.state.slots[m, 4:] < 0).all() and not g.state.face_down[m].any()


def test_s1_louqsor_starts_closed_and_empty():
    """docs/rules.md §1: the Market Closed tile covers Louqsor's visible stall; nobody may place there."""
    g = new_game(4, 2)
    assert not g.state.is_open[LOUQSOR] and not g.state.dead[LOUQSOR]
    assert (g.state.slots[LOUQSOR] < 0).all() and not g.state.seal_on[LOUQSOR]
    assert not any(g.action_to_string(a).startswith("place Louqsor") for a in g.legal_actions())


def test_s1_beginner_visible_stalls():
    """docs/rules.md §1/§3: beginner setup shows the right stalls, and Louqsor's left stall (closed)."""
    for seed in range(5):
        g = new_game(4, seed, setup="beginner")
        assert g.state.side[:4].tolist() == [RIGHT, RIGHT, RIGHT, LEFT]
    g = new_game(4, 0)
    assert g.stall(GIZEH).closing.kind == "colours_or_count"
    assert g.stall(AKHET_ATON).closing.kind == "line"
    assert g.stall(ABOU_SIMBEL).closing.kind == "bid_sum"
    assert g.stall(LOUQSOR).closing.kind == "count"


def test_s1_advanced_setup_randomises_sides_seeded():
    """docs/rules.md §1: advanced setup puts each Reserve on a random side, from the game's seed."""
    sides = [tuple(new_game(4, seed, setup="advanced").state.side[:4].tolist()) for seed in SEEDS]
    for m in range(4):
        assert {s[m] for s in sides} == {LEFT, RIGHT}
    assert len(set(sides)) > 4
    again = [tuple(new_game(4, seed, setup="advanced").state.side[:4].tolist()) for seed in SEEDS]
    assert sides == again


def test_s1_bad_options_are_refused():
    """docs/rules.md §1: base game with 3 or 4 players; a bad option names the problem."""
    with pytest.raises(ValueError, match="setup"):
        new_game(4, setup="expert")
    with pytest.raises(ValueError, match="num_players"):
        new_game(7)
