"""docs/rules.md §4: market resolution, rotation, refill, seals and the Akhenaton end."""
import numpy as np
import pytest

from conftest import (ABOU_SIMBEL, AKHET_ATON, GIZEH, LEFT, LOUQSOR, RIGHT, act, close_with, give, kind, legal,
                      position, refresh, set_cards, set_turn)
from nefertiti_env.core.phases import PH_HIGH, PH_OTHER, PH_SHAME, PH_TURN

CARDS = ["statuette", "harp", "chair", "gold"]          # upper card first


def abou_simbel(money=20, reserve=2, cards=CARDS, players=4):
    """Seat 0 to play; Abou Simbel (bid_sum 17) holds `cards` and `reserve` Deben."""
    return position(players, money=[money] * players if isinstance(money, int) else money,
                    reserve=[1, 1, reserve, 1], cards={ABOU_SIMBEL: cards})


def owned(g, seat) -> dict[str, int]:
    return {g.rules.kind_names[k]: int(n) for k, n in enumerate(g.state.owned[seat]) if n}


def test_rulebook_abou_simbel_closing_example():
    """docs/rules.md §4, rulebook "Example of a market closing", replayed move by move (Red 0, Green 1, Blue 2)."""
    red, green, blue, black = range(4)
    g = position(4, turn=red, money=[10, 10, 10, 10], reserve=[1, 1, 4, 1],
                 cards={ABOU_SIMBEL: ["statuette", "harp", "chair", "gold"]})
    reserve = lambda: int(g.state.reserve[ABOU_SIMBEL])      # noqa: E731

    act(g, "place Abou Simbel 7")                       # Red opens the market: +1 Deben
    assert (reserve(), g.state.money[red]) == (3, 11)
    act(g, "place Abou Simbel 3")                       # Green on the coin square: +1 Deben
    assert (reserve(), g.state.money[green]) == (2, 11)
    act(g, "place Gizeh 0", "place Akhet-Aton 0", "place Gizeh 2")   # Blue, Black, Red play elsewhere
    act(g, "place Abou Simbel 6")                       # Green's second servant
    assert (reserve(), g.state.money[green]) == (2, 11)
    assert g.state.is_open[ABOU_SIMBEL] and g.state.res_market < 0  # 16 < 17
    act(g, "place Abou Simbel 1")                       # Blue: 1 + 3 + 6 + 7 = 17, the market closes
    assert g.state.res_market == ABOU_SIMBEL and g.state.turn_player == blue
    assert g.state.money[blue] == 11

    assert (g.current_player, g.phase) == (red, PH_HIGH)
    assert (reserve(), g.state.money[red]) == (9, 4)          # Red pays 7 before choosing: 2 + 7 = 9
    act(g, "card 1", "card 2")                          # and takes two lower-row cards
    assert reserve() == 9
    assert owned(g, red) == {"harp": 1, "chair": 1} and g.state.seals[red] == 0

    assert (g.current_player, g.phase) == (green, PH_OTHER)
    act(g, "take half")                                 # Green (6) takes 5, leaves 4
    assert (reserve(), g.state.money[green]) == (4, 16)

    assert (g.current_player, g.phase) == (green, PH_OTHER)
    act(g, "card upper")                                # Green (3) buys the sealed card
    assert (reserve(), g.state.money[green]) == (7, 13)
    assert owned(g, green) == {"statuette": 1} and g.state.seals[green] == 1

    assert (g.current_player, g.phase) == (blue, PH_OTHER)
    assert "card 3" in legal(g)                         # Blue could pay 1 for the last gift
    act(g, "take half")                                 # Blue takes 4
    assert (reserve(), g.state.money[blue]) == (3, 15)

    assert g.state.slots[ABOU_SIMBEL].tolist().count(-1) == 11 and g.state.slots[ABOU_SIMBEL, 3] == kind(g, "gold")
    assert not g.state.is_open[ABOU_SIMBEL] and (g.state.occ[ABOU_SIMBEL] < 0).all()
    assert g.state.servants[:4].tolist() == [3, 4, 3, 3]      # Red and Blue on Gizeh, Black on Akhet-Aton
    assert (g.current_player, g.phase) == (black, PH_TURN)


def test_s4_resolution_in_descending_bid_order():
    """docs/rules.md §4: servants are resolved from the highest bid down, each by its owner."""
    g = abou_simbel()
    close_with(g, ABOU_SIMBEL, {8: 3, 5: 1, 1: 2}, 3)         # 17
    deciders = []
    while g.state.res_market == ABOU_SIMBEL:
        if (g.current_player, g.phase) not in deciders:
            deciders.append((g.current_player, g.phase))
        act(g, "take half" if g.phase == PH_OTHER else sorted(legal(g))[0])
    assert deciders == [(3, PH_HIGH), (1, PH_OTHER), (0, PH_OTHER), (2, PH_OTHER)]


def test_s4_highest_bidder_pays_and_takes_upper_card_with_seal():
    """docs/rules.md §4: the highest bidder pays the bid into the Reserve and takes the upper card with its seal."""
    g = abou_simbel()
    supply = g.state.seal_supply
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    assert g.current_player == 1 and legal(g) == {"card upper", "card 1", "card 2", "card 3"}
    act(g, "card upper")
    assert g.state.money[1] == 13 and g.state.reserve[ABOU_SIMBEL] == 2 + 7
    assert owned(g, 1) == {"statuette": 1} and g.state.seals[1] == 1
    assert not g.state.seal_on[ABOU_SIMBEL] and g.state.slots[ABOU_SIMBEL, 0] == -1
    assert (g.current_player, g.phase) == (2, PH_OTHER)     # one card only: the next servant's turn
    assert g.state.seal_supply == supply


def test_s4_highest_bidder_takes_two_lower_cards():
    """docs/rules.md §4: instead of the upper card, two lower-row cards of choice (no seal)."""
    g = abou_simbel()
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card 3")
    assert g.current_player == 1 and legal(g) == {"card 1", "card 2"}     # upper card no longer allowed
    act(g, "card 1")
    assert owned(g, 1) == {"gold": 1, "harp": 1} and g.state.seals[1] == 0
    assert g.state.seal_on[ABOU_SIMBEL] and g.state.slots[ABOU_SIMBEL, 0] == kind(g, "statuette")
    assert (g.current_player, g.phase) == (2, PH_OTHER)


@pytest.mark.parametrize("first", ["card upper", "card 2"])
def test_s4_single_square_takes_exactly_one_card(first):
    """docs/rules.md §4: on a `single` square the highest bidder takes exactly one card, upper or lower."""
    g = position(4, money=[20] * 4, cards={AKHET_ATON: CARDS})
    close_with(g, AKHET_ATON, {4: 1, 5: 2}, 6)          # Akhet-Aton right: 4-5-6 line; 6 is `single`
    assert g.square_symbol[AKHET_ATON, RIGHT, 6] == 2
    assert g.current_player == 0 and g.phase == PH_HIGH
    act(g, first)
    assert sum(owned(g, 0).values()) == 1 and g.state.money[0] == 20 - 6
    assert (g.current_player, g.phase) == (2, PH_OTHER)


def test_s4_extra_square_after_upper_card_takes_one_lower_card():
    """docs/rules.md §4: on an `extra` square the highest bidder takes one more lower-row card after the upper card."""
    g = abou_simbel()
    close_with(g, ABOU_SIMBEL, {7: 1, 2: 2}, 8)          # 8 is `extra`
    act(g, "card upper")
    assert g.current_player == 0 and legal(g) == {"card 1", "card 2", "card 3"}
    act(g, "card 2")
    assert owned(g, 0) == {"statuette": 1, "chair": 1} and g.state.seals[0] == 1
    assert (g.current_player, g.phase) == (1, PH_OTHER)


def test_s4_extra_square_after_two_lower_cards_takes_a_third():
    """docs/rules.md §4: `extra` after two lower-row cards: the third lower card too (never the upper one)."""
    g = abou_simbel()
    close_with(g, ABOU_SIMBEL, {7: 1, 2: 2}, 8)
    act(g, "card 1", "card 2")
    assert legal(g) == {"card 3"}
    act(g, "card 3")
    assert owned(g, 0) == {"harp": 1, "chair": 1, "gold": 1} and g.state.seals[0] == 0
    assert g.state.money[0] == 12 and g.state.reserve[ABOU_SIMBEL] == 2 + 8


@pytest.mark.parametrize("cards, picks, expected", [
    ([None, "harp", None, None], ["card 1"], {"harp": 1}),                      # one lower card for two
    (["statuette", None, None, None], ["card upper"], {"statuette": 1}),
    ([None, None, "chair", "gold"], ["card 2", "card 3"], {"chair": 1, "gold": 1}),
])
def test_s4_fewer_cards_than_allowed_take_what_there_is(cards, picks, expected):
    """docs/rules.md §4: with fewer cards available than allowed, the highest bidder takes what there is."""
    g = abou_simbel(cards=cards)
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, *picks)
    assert owned(g, 1) == expected
    assert (g.current_player, g.phase) == (2, PH_OTHER)


def test_s4_extra_square_with_two_cards_left():
    """docs/rules.md §4: `extra` square, only the upper card and one lower card: both, then the next servant."""
    g = abou_simbel(cards=["statuette", None, "gold", None])
    close_with(g, ABOU_SIMBEL, {7: 1, 2: 2}, 8)
    act(g, "card upper", "card 2")
    assert owned(g, 0) == {"statuette": 1, "gold": 1}
    assert (g.current_player, g.phase) == (1, PH_OTHER)


def test_s4_highest_bidder_cannot_pay_discards_one_gift():
    """docs/rules.md §4: a highest bidder who cannot pay pays nothing, takes nothing, discards a gift of choice."""
    g = abou_simbel(money=[20, 6, 20, 20])
    give(g, 1, harp=1, gold=2)
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    assert (g.current_player, g.phase) == (1, PH_SHAME)
    assert legal(g) == {"kind harp", "kind gold"}
    act(g, "kind gold")
    assert owned(g, 1) == {"harp": 1, "gold": 1}
    assert g.state.discarded[kind(g, "gold")] == 1
    assert g.state.money[1] == 6 and g.state.reserve[ABOU_SIMBEL] == 2
    assert g.state.slots[ABOU_SIMBEL, :4].tolist() == [kind(g, c) for c in CARDS]


def test_s4_after_shame_the_next_servant_is_not_highest_bidder():
    """docs/rules.md §4: after a highest bidder who cannot pay, the next servant buys one card or takes half."""
    g = abou_simbel(money=[20, 6, 20, 20])
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)          # seat 1 owns nothing: no discard, no decision
    assert (g.current_player, g.phase) == (2, PH_OTHER)
    assert legal(g) == {"take half", "card upper", "card 1", "card 2", "card 3"}
    act(g, "card 1")
    assert owned(g, 2) == {"harp": 1}
    assert (g.current_player, g.phase) == (0, PH_OTHER)  # one card only
    assert g.state.money[1] == 6 and g.state.servants[1] == 4 and g.state.occ[ABOU_SIMBEL, 7] == -1


def test_s4_other_servant_buys_one_card_paying_its_bid():
    """docs/rules.md §4: another servant may buy one remaining card (upper with its seal) paying its bid."""
    g = abou_simbel()
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card 1")
    act(g, "card 2")
    act(g, "card upper")                                  # seat 2 (6) buys the sealed card
    assert owned(g, 2) == {"statuette": 1} and g.state.seals[2] == 1
    assert g.state.money[2] == 14 and g.state.reserve[ABOU_SIMBEL] == 2 + 7 + 6
    assert (g.current_player, g.phase) == (0, PH_OTHER)
    assert legal(g) == {"take half", "card 3"}


def test_s4_other_servant_who_cannot_pay_only_takes_half():
    """docs/rules.md §4: buying needs the bid in hand; otherwise only half the Reserve."""
    g = abou_simbel(money=[20, 20, 5, 20])
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper")
    assert g.current_player == 2 and legal(g) == {"take half"}


@pytest.mark.parametrize("reserve, half", [(9, 5), (8, 4), (1, 1), (0, 0)])
def test_s4_take_half_the_reserve_rounded_up(reserve, half):
    """docs/rules.md §4: take half the Reserve, rounded up (0 if empty)."""
    g = abou_simbel(money=[20, 20, 5, 20], reserve=0)
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper")
    g.state.reserve[ABOU_SIMBEL] = reserve
    refresh(g)
    act(g, "take half")
    assert g.state.money[2] == 5 + half and g.state.reserve[ABOU_SIMBEL] == reserve - half


def test_s4_market_flips_closes_and_the_closed_market_reopens():
    """docs/rules.md §4: the resolved stall flips and closes; unbought cards stay; the closed market reopens."""
    g = abou_simbel()
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper", "take half", "take half")
    assert g.state.res_market == -1
    assert not g.state.is_open[ABOU_SIMBEL] and g.state.side[ABOU_SIMBEL] == LEFT
    assert g.state.slots[ABOU_SIMBEL, 1:4].tolist() == [kind(g, c) for c in CARDS[1:]]
    assert g.state.is_open[LOUQSOR] and g.state.side[LOUQSOR] == LEFT
    assert (g.state.slots[LOUQSOR, :4] >= 0).all() and g.state.seal_on[LOUQSOR]
    assert (g.state.occ < 0).all() and g.state.servants[:4].tolist() == [4, 4, 4, 4]
    assert "place Louqsor 10" in legal(g) and not any(s.startswith("place Abou") for s in legal(g))


def test_s4_closed_market_reopens_on_its_other_stall():
    """docs/rules.md §4: a market reopens on the stall revealed when it closed."""
    g = abou_simbel()
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper", "take half", "take half")
    set_turn(g, 0)
    close_with(g, GIZEH, {0: 1, 2: 2}, 4)                # three colours
    while g.state.res_market == GIZEH:
        act(g, "take half" if g.phase == PH_OTHER else "card upper")
    assert g.state.is_open[ABOU_SIMBEL] and g.state.side[ABOU_SIMBEL] == LEFT
    assert g.stall(ABOU_SIMBEL).closing.kind == "diagonal"
    assert not g.state.is_open[GIZEH] and g.state.side[GIZEH] == LEFT


def test_s4_refill_slides_cards_then_draws_and_seals():
    """docs/rules.md §4: leftmost lower card moves up if the upper slot is empty, lower cards slide left, draw to 4."""
    g = abou_simbel(cards=CARDS)
    set_cards(g, LOUQSOR, [None, "harp", None, "chair"], seal=False)
    supply, pos = g.state.seal_supply, g.state.deck_pos
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper", "take half", "take half")
    drawn = g.deck[pos:pos + 2].tolist()
    assert g.state.slots[LOUQSOR, :4].tolist() == [kind(g, "harp"), kind(g, "chair")] + drawn
    assert g.state.deck_pos == pos + 2
    assert g.state.seal_on[LOUQSOR] and g.state.seal_supply == supply - 1


def test_s4_refill_keeps_the_seal_already_on_the_upper_card():
    """docs/rules.md §4: an unbought upper card keeps its seal; no new seal is taken."""
    g = abou_simbel(cards=CARDS)
    set_cards(g, LOUQSOR, ["mirror", None, "gold", None], seal=True)
    supply, pos = g.state.seal_supply, g.state.deck_pos
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper", "take half", "take half")
    assert g.state.slots[LOUQSOR, :4].tolist() == [kind(g, "mirror"), kind(g, "gold")] + g.deck[pos:pos + 2].tolist()
    assert g.state.seal_on[LOUQSOR] and g.state.seal_supply == supply


def test_s4_refill_without_seals_in_supply():
    """docs/rules.md §4: the upper card gets a seal only if the supply has one."""
    g = abou_simbel()
    g.state.seals[3] += g.state.seal_supply
    g.state.seal_supply = 0
    refresh(g)
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    act(g, "card upper", "take half", "take half")
    assert g.state.is_open[LOUQSOR] and (g.state.slots[LOUQSOR, :4] >= 0).all()
    assert not g.state.seal_on[LOUQSOR] and g.state.seal_supply == 0


def _akhenaton_next_but(g, cards_before: int):
    """Reorder the undrawn deck so that Akhenaton comes after `cards_before` more gifts."""
    where = int(np.flatnonzero(g.deck == g.rules.num_kinds)[0])
    target = g.state.deck_pos + cards_before
    g.deck[[where, target]] = g.deck[[target, where]]
    refresh(g)


def _resolve_taking_half(g, market):
    while g.state.res_market == market:
        act(g, "take half" if g.phase == PH_OTHER else sorted(legal(g))[0])


def test_s4_akhenaton_closes_the_reopening_market_for_good_and_ends_the_game():
    """docs/rules.md §4: Akhenaton drawn in a refill: that market closes for good, none reopens, two more closings end it."""
    g = abou_simbel()
    set_cards(g, LOUQSOR, [None, "harp", None, None], seal=False)
    _akhenaton_next_but(g, 1)
    close_with(g, ABOU_SIMBEL, {7: 1, 6: 2}, 4)
    _resolve_taking_half(g, ABOU_SIMBEL)
    assert g.state.akhenaton_drawn
    assert g.state.dead[LOUQSOR] and not g.state.is_open[LOUQSOR]
    assert g.state.slots[LOUQSOR, :2].tolist() == [kind(g, "harp"), int(g.deck[g.state.deck_pos - 2])]
    assert g.state.is_open.tolist()[:4] == [True, True, False, False]
    assert not g.is_over()

    set_turn(g, 0)
    close_with(g, GIZEH, {0: 1, 2: 2}, 4)
    _resolve_taking_half(g, GIZEH)
    assert g.state.is_open.tolist()[:4] == [False, True, False, False], "no market reopens after Akhenaton"
    assert not g.is_over() and g.current_player == 1

    set_turn(g, 0)
    close_with(g, AKHET_ATON, {3: 1, 4: 2}, 5)
    _resolve_taking_half(g, AKHET_ATON)
    assert g.is_over() and g.current_player == -1
    assert not g.legal_actions()
