"""docs/rules.md §2: a turn (character, placement bonuses, closing by choice, turn order)."""
import pytest

from conftest import ABOU_SIMBEL, GIZEH, act, legal, position, put
from nefertiti_env import IllegalActionError
from nefertiti_env.core.phases import PH_HIGH, PH_OTHER, PH_PLACE, PH_TURN


@pytest.mark.parametrize("square, occupied, reserve, gain", [
    ("0", False, 3, 1),     # first servant into an empty market
    ("3", True, 3, 1),      # coin square in a market already holding a servant
    ("3", False, 3, 2),     # both bonuses at once
    ("3", False, 1, 1),     # both, but the Reserve holds only 1 Deben
    ("2", True, 3, 0),      # neither
    ("3", False, 0, 0),     # both, but the Reserve is empty
])
def test_s2_placement_bonuses(square, occupied, reserve, gain):
    """docs/rules.md §2: +1 Deben for the first servant into an empty market, +1 on a coin square, from the Reserve."""
    g = position(4, money=[5, 5, 5, 5], reserve=[1, 1, reserve, 1])
    if occupied:
        put(g, ABOU_SIMBEL, 8, 1)
    act(g, f"place Abou Simbel {square}")
    assert g.state.money[0] == 5 + gain
    assert g.state.reserve[ABOU_SIMBEL] == reserve - gain
    assert g.state.occ[ABOU_SIMBEL, int(square)] == 0 and g.state.servants[0] == 3


def test_s2_one_servant_per_square():
    """docs/rules.md §2: a bid square holds one servant; an occupied square is not a legal placement."""
    g = position(4)
    put(g, ABOU_SIMBEL, 5, 2)
    assert "place Abou Simbel 5" not in legal(g)
    with pytest.raises(IllegalActionError):
        act(g, "place Abou Simbel 5")
    act(g, "place Abou Simbel 4")
    assert g.state.occ[ABOU_SIMBEL, 5] == 2 and g.state.occ[ABOU_SIMBEL, 4] == 0


def test_s2_placement_only_on_visible_stalls_of_open_markets():
    """docs/rules.md §2: servants go on the visible stall of an open market (not Louqsor, not hidden squares)."""
    g = position(4)
    places = {s for s in legal(g) if s.startswith("place")}
    assert "place Gizeh 10" not in places          # square of Gizeh's hidden left stall
    assert "place Gizeh 8" in places
    assert not any(s.startswith(("place Louqsor", "place Memphis")) for s in places)
    n_squares = 8 + 9 + 9                            # Gizeh, Akhet-Aton, Abou Simbel right stalls
    assert len(places) == n_squares


def test_s2_turn_passes_to_the_left():
    """docs/rules.md §2: after a placement the player to the left plays."""
    g = position(3, turn=1)
    act(g, "place Gizeh 2")
    assert g.current_player == g.state.turn_player == 2
    act(g, "place Gizeh 3")
    assert g.current_player == 0


def test_s2_several_servants_of_a_player_in_one_market():
    """docs/rules.md §2: a player may have several servants in the same market."""
    g = position(4)
    put(g, GIZEH, 0, 0)
    act(g, "place Gizeh 5")
    assert (g.state.occ[GIZEH] == 0).sum() == 2


def test_s2_closing_by_choice_only_without_servants_in_supply():
    """docs/rules.md §2: a player with a servant left must place; no close action is legal."""
    g = position(4)
    put(g, GIZEH, 0, 0)
    assert not any(s.startswith("close") for s in legal(g))
    with pytest.raises(IllegalActionError):
        act(g, "close Gizeh")


def test_s2_closing_by_choice_only_markets_holding_your_servant():
    """docs/rules.md §2: with no servant left, choose a market holding one of your servants; it closes at once."""
    g = position(4, money=[10, 10, 10, 10], reserve=[1, 1, 1, 1])
    put(g, GIZEH, 0, 0)
    put(g, GIZEH, 1, 0)
    put(g, ABOU_SIMBEL, 2, 0)
    put(g, ABOU_SIMBEL, 3, 0)
    put(g, ABOU_SIMBEL, 5, 1)
    put(g, 1, 4, 1)                          # Akhet-Aton holds only seat 1's servant
    assert g.state.servants[0] == 0
    assert legal(g) == {"close Gizeh", "close Abou Simbel"}
    act(g, "close Abou Simbel")
    assert g.state.res_market == ABOU_SIMBEL
    assert g.current_player == 1 and g.phase == PH_HIGH       # seat 1's 5 is the highest bid
    assert g.state.turn_player == 0
    act(g, "card upper", "take half", "take half")            # seat 0's servants on 3 and 2
    assert not g.state.is_open[ABOU_SIMBEL] and g.state.servants[0] == 2
    assert (g.current_player, g.phase) == (1, PH_TURN)        # left of the closer


def test_s2_at_most_one_character_per_turn():
    """docs/rules.md §2: a player spends at most one seal (one character) per turn."""
    g = position(4, seals=[2, 0, 0, 0])
    act(g, "character Vizier")
    assert g.phase == PH_PLACE
    assert not any(s.startswith("character") for s in legal(g))
    with pytest.raises(IllegalActionError):
        act(g, "character Head Priest")
    act(g, "place Gizeh 2")
    assert g.current_player == 1 and g.state.seals[0] == 1


def test_s2_placement_is_mandatory_after_a_character():
    """docs/rules.md §2: playing a character does not replace the placement."""
    g = position(4, seals=[1, 0, 0, 0])
    act(g, "character Vizier")
    assert g.current_player == 0 and g.state.turn_player == 0
    assert "done" not in legal(g)
    assert all(s.startswith("place") for s in legal(g))


@pytest.mark.parametrize("players, closer", [(4, 2), (4, 3), (3, 2)])
def test_s2_play_resumes_left_of_the_closer(players, closer):
    """docs/rules.md §2: after a resolution, the player to the left of the one who caused the closing plays."""
    others = [s for s in range(players) if s != closer]
    g = position(players, turn=closer, money=[10] * players)
    put(g, ABOU_SIMBEL, 7, others[0])
    put(g, ABOU_SIMBEL, 6, others[1])
    act(g, "place Abou Simbel 4")                # 7 + 6 + 4 = 17 closes
    assert g.current_player == others[0] and g.phase == PH_HIGH
    act(g, "card upper")
    assert g.current_player == others[1] and g.phase == PH_OTHER
    act(g, "take half")
    assert g.current_player == closer and g.phase == PH_OTHER
    act(g, "take half")
    assert g.state.res_market == -1 and g.phase == PH_TURN
    assert g.current_player == g.state.turn_player == (closer + 1) % players


def test_s2_current_player_is_the_servant_owner_during_resolution():
    """docs/rules.md §2/§4: each servant's owner decides, while the turn stays with the closer."""
    g = position(4, turn=1, money=[10] * 4)
    put(g, ABOU_SIMBEL, 8, 3)
    put(g, ABOU_SIMBEL, 7, 0)
    act(g, "place Abou Simbel 2")
    assert (g.current_player, g.state.turn_player) == (3, 1)
    assert g.state.res_market == ABOU_SIMBEL
