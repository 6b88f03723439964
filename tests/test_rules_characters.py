"""docs/rules.md §6: the base characters' powers, their cost (one seal) and when they are playable."""
import pytest

from conftest import (ABOU_SIMBEL, AKHET_ATON, LOUQSOR, act, character, close_with, give, kind, legal, position,
                      put, set_cards, set_turn)
from nefertiti_env.core.phases import PH_CHARACTER, PH_OTHER, PH_PLACE, PH_SECOND, PH_TURN


def owned(g, seat) -> dict[str, int]:
    return {g.rules.kind_names[k]: int(n) for k, n in enumerate(g.state.owned[seat]) if n}


def characters(g) -> set[str]:
    return {s.removeprefix("character ") for s in legal(g) if s.startswith("character ")}


def with_seal(players=4, **kw):
    return position(players, seals=[1] + [0] * (players - 1), **kw)


@pytest.mark.parametrize("name, key, bonus", [("Scribe +2", "scribe_2", 2), ("Scribe +3", "scribe_3", 3)])
def test_s6_scribe_scores_one_type_at_current_value_plus_n_and_discards_it(name, key, bonus):
    """docs/rules.md §6: Scribe +N: each item of a chosen owned type scores its current value + N; the cards are discarded."""
    g = with_seal()
    give(g, 0, chair=2, harp=1)
    give(g, 1, chair=1)
    act(g, f"character {name}")
    assert (g.phase, g.current_player) == (PH_CHARACTER, 0)
    assert legal(g) == {"type harp", "type chair"}
    act(g, "type chair")
    assert g.state.points[0] == 2 * (7 + bonus)                   # chairs have 2 owners now: 7 each
    assert owned(g, 0) == {"harp": 1} and owned(g, 1) == {"chair": 1}
    assert g.state.discarded[kind(g, "chair")] == 2
    assert g.state.char_avail[character(g, key)] == {"scribe_2": 2, "scribe_3": 0}[key]
    assert (g.phase, g.current_player) == (PH_PLACE, 0)


def test_s6_scribe_counts_a_double_senet_as_two_items():
    """docs/rules.md §6/§5: Scribe on senets: a double senet is two items at the current senet value + N."""
    g = with_seal()
    give(g, 0, double_senet=1, senet=1)
    act(g, "character Scribe +2", "type senet")
    assert g.state.points[0] == 3 * (6 + 2)
    assert not g.state.owned[0].any()


def test_s6_merchant_swaps_a_gift_with_another_player():
    """docs/rules.md §6: Merchant: give one of your gifts, take one gift of another player."""
    g = with_seal()
    give(g, 0, harp=1)
    give(g, 2, gold=1, chair=1)
    act(g, "character Merchant")
    assert legal(g) == {"kind harp"}
    act(g, "kind harp")
    assert legal(g) == {"target +2"}                        # only seat 2 owns gifts
    act(g, "target +2")
    assert legal(g) == {"kind gold", "kind chair"}
    act(g, "kind gold")
    assert owned(g, 0) == {"gold": 1}
    assert owned(g, 2) == {"harp": 1, "chair": 1}
    assert g.phase == PH_PLACE and g.current_player == 0


def test_s6_merchant_targets_are_relative_to_the_player():
    """docs/rules.md §6: target +r is the seat r places to the player's left."""
    g = position(4, turn=2, seals=[0, 0, 1, 0])
    give(g, 2, harp=1)
    give(g, 1, mirror=1)
    act(g, "character Merchant", "kind harp")
    assert legal(g) == {"target +3"}
    act(g, "target +3", "kind mirror")
    assert owned(g, 2) == {"mirror": 1} and owned(g, 1) == {"harp": 1}


def test_s6_royal_servant_every_other_owner_discards_their_least_valuable_card():
    """docs/rules.md §6: Royal Servant names a type; each other owner discards one card of it, a single senet first."""
    g = with_seal()
    give(g, 0, senet=1)
    give(g, 1, senet=1, double_senet=1)
    give(g, 2, double_senet=2, harp=1)
    act(g, "character Royal Servant")
    assert "type gold" in legal(g) and "type senet" in legal(g)     # the type need not be owned
    act(g, "type senet")
    assert owned(g, 0) == {"senet": 1}
    assert owned(g, 1) == {"double_senet": 1}
    assert owned(g, 2) == {"double_senet": 1, "harp": 1}
    assert g.state.discarded[kind(g, "senet")] == 1 and g.state.discarded[kind(g, "double_senet")] == 1


def test_s6_treasurer_takes_half_a_reserve_rounded_up():
    """docs/rules.md §6: Treasurer takes half (rounded up) of one market Reserve, not Memphis."""
    g = with_seal(money=[5, 5, 5, 5], reserve=[1, 7, 2, 3])
    act(g, "character Treasurer")
    assert legal(g) == {"market Gizeh", "market Akhet-Aton", "market Abou Simbel", "market Louqsor"}
    act(g, "market Akhet-Aton")
    assert g.state.money[0] == 9 and g.state.reserve[AKHET_ATON] == 3
    assert g.phase == PH_PLACE


def test_s6_vizier_scores_two_points_per_owned_type():
    """docs/rules.md §6: Vizier scores 2 points per different gift type owned (single and double senet are one type)."""
    g = with_seal()
    give(g, 0, senet=1, double_senet=1, harp=2, gold=1)
    act(g, "character Vizier")
    assert g.state.points[0] == 2 * 3
    assert owned(g, 0) == {"senet": 1, "double_senet": 1, "harp": 2, "gold": 1}
    assert g.phase == PH_PLACE and g.current_player == 0


def test_s6_head_priest_places_two_servants():
    """docs/rules.md §6: Head Priest: two placements this turn, each with its bonuses."""
    g = with_seal(money=[5, 5, 5, 5], reserve=[2, 2, 2, 2])
    act(g, "character Head Priest", "place Gizeh 1")        # first into Gizeh, coin square: +2
    assert (g.phase, g.current_player) == (PH_SECOND, 0)
    assert not any(s.startswith(("character", "close")) for s in legal(g))
    act(g, "place Abou Simbel 5")                           # first into Abou Simbel: +1
    assert g.state.money[0] == 8 and g.state.servants[0] == 2
    assert (g.phase, g.current_player) == (PH_TURN, 1)


def test_s6_head_priest_second_placement_after_a_close():
    """docs/rules.md §6: with the Head Priest a market may close after the first placement; the second follows."""
    g = with_seal(money=[20] * 4, cards={ABOU_SIMBEL: ["statuette", "harp", "chair", "gold"]})
    act(g, "character Head Priest")
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper", "take half", "take half")
    assert g.state.res_market == -1 and not g.state.is_open[ABOU_SIMBEL]
    assert (g.phase, g.current_player, g.state.servants[0]) == (PH_SECOND, 0, 4)
    act(g, "place Louqsor 2")                               # Louqsor has just reopened
    assert g.state.occ[LOUQSOR, 2] == 0
    assert (g.phase, g.current_player) == (PH_TURN, 1)


def test_s6_thief_takes_a_lower_card_from_a_closed_market_for_free():
    """docs/rules.md §6: Thief takes one face-up lower-row gift, for free, from any market, even a closed one."""
    g = with_seal(money=[5, 5, 5, 5])
    set_cards(g, LOUQSOR, ["mirror", "harp", None, "chair"], seal=True)
    act(g, "character Thief")
    assert "market Louqsor" in legal(g) and "market Memphis" not in legal(g)
    act(g, "market Louqsor")
    assert legal(g) == {"card 1", "card 3"}                 # never the upper card
    act(g, "card 3")
    assert owned(g, 0) == {"chair": 1}
    assert g.state.money[0] == 5 and g.state.seals[0] == 0              # the seal paid for the Thief; none gained
    assert g.state.slots[LOUQSOR, :4].tolist() == [kind(g, "mirror"), kind(g, "harp"), -1, -1]
    assert g.state.seal_on[LOUQSOR]
    assert g.phase == PH_PLACE


def test_s6_a_character_costs_one_seal_that_returns_to_the_supply():
    """docs/rules.md §2/§6: playing a character spends one seal into the supply and removes the card from the game."""
    g = position(4, seals=[2, 1, 0, 0])
    supply = g.state.seal_supply
    vizier = character(g, "vizier")
    act(g, "character Vizier")
    assert g.state.seals[0] == 1 and g.state.seal_supply == supply + 1
    assert g.state.char_avail[vizier] == 0 and g.state.char_played[0, vizier] == 1
    act(g, "place Gizeh 2")
    assert g.current_player == 1 and "Vizier" not in characters(g)      # the only Vizier is gone
    assert "Treasurer" in characters(g)


def test_s6_no_character_without_a_seal():
    """docs/rules.md §2: a character needs a Royal Seal acquired earlier."""
    g = position(4)
    give(g, 0, harp=1)
    assert characters(g) == set()


def test_s6_unplayable_characters_are_masked():
    """docs/rules.md §6: characters whose power cannot be carried out are not legal."""
    g = with_seal()
    assert characters(g) == {"Royal Servant", "Treasurer", "Vizier", "Head Priest", "Thief"}
    give(g, 0, harp=1)
    assert characters(g) == {"Scribe +3", "Scribe +2", "Royal Servant", "Treasurer", "Vizier", "Head Priest",
                             "Thief"}                     # Merchant: nobody else owns a gift
    give(g, 3, gold=1)
    assert "Merchant" in characters(g)


def test_s6_head_priest_needs_two_servants_in_supply():
    """docs/rules.md §6: the Head Priest needs two servants in supply."""
    g = with_seal()
    for v in (0, 2, 4):
        put(g, ABOU_SIMBEL, v, 0)
    assert g.state.servants[0] == 1 and "Head Priest" not in characters(g)
    set_turn(g, 0)
    assert "Vizier" in characters(g)


def test_s6_thief_needs_a_face_up_lower_card():
    """docs/rules.md §6: no lower-row card anywhere: the Thief is not playable."""
    g = with_seal()
    for m in range(4):
        set_cards(g, m, ["mirror", None, None, None], seal=m != LOUQSOR)
    assert "Thief" not in characters(g)
    set_cards(g, AKHET_ATON, ["mirror", None, None, "gold"])
    assert "Thief" in characters(g)


def test_s6_character_only_at_the_start_of_a_turn():
    """docs/rules.md §2: characters are played on one's own turn, not during a resolution decision."""
    g = position(4, seals=[0, 1, 1, 0], money=[20] * 4, cards={ABOU_SIMBEL: ["statuette", "harp", "chair", "gold"]})
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper")
    assert g.phase == PH_OTHER and g.current_player == 2
    assert characters(g) == set()
