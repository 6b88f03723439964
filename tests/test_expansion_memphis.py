"""docs/rules.md §7 and the expansion's "The Port of Memphis and Foreign Gifts".

Memphis is market index 4 ("Memphis" in the action grammar). Refills are caused the
way the game causes them: a market closes and the previously closed one reopens
(`reopen_louqsor`), with the deck's next cards stacked by `stack_deck`.
"""
import numpy as np
import pytest

from conftest import (ABOU_SIMBEL, GIZEH, LOUQSOR, MEMPHIS, act, give, holdings, kind, legal, new_game, position,
                      put, refresh, reopen_louqsor, set_memphis, set_turn, stack_deck)
from nefertiti_env.core.phases import PH_HIGH, PH_OTHER, PH_PLACE, PH_SECOND, PH_SHAME, PH_TURN
from nefertiti_env.core.scoring import gift_points

FOREIGN = ["foreign_harp_1", "foreign_chair_2", "foreign_mirror_1", "foreign_gold_1", "foreign_statuette_1",
           "foreign_necklace_1"]
CLASSIC = ["harp", "chair", "mirror", "gold"]


def memphis_game(players=3, money=20, **kw):
    return position(players, money=[money] * players, memphis=True, **kw)


def memphis_cards(g) -> list[str]:
    return [g.rules.kind_names[c] for c in g.state.slots[MEMPHIS].tolist() if c >= 0]


def is_foreign(g, code: int) -> bool:
    return g.rules.kind_bonus[code] > 0


# ------------------------------------------------------------------- filling (§7)

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_s7_foreign_gifts_drawn_at_setup_go_to_memphis_and_drawing_continues(players):
    """docs/rules.md §1/§7: filling the three open markets, each foreign gift drawn goes to Memphis and drawing
    continues until every market holds 4 classic gifts; no seal at Memphis; its Reserve starts with 1."""
    seen_foreign = 0
    for seed in range(20):
        g = new_game(players, seed, memphis=True)
        drawn = g.deck[:g.state.deck_pos].tolist()
        classic = [c for c in drawn if not is_foreign(g, c)]
        foreign = [c for c in drawn if is_foreign(g, c)]
        markets = [c for m in (GIZEH, 1, ABOU_SIMBEL) for c in g.state.slots[m, :4].tolist()]
        assert markets == classic and len(classic) == 12
        assert sorted(c for c in g.state.slots[MEMPHIS].tolist() if c >= 0) == sorted(foreign)
        assert not g.state.seal_on[MEMPHIS] and g.state.reserve[MEMPHIS] == 1 and g.state.is_open[MEMPHIS]
        assert (g.state.slots[LOUQSOR] < 0).all()
        seen_foreign += len(foreign)
    assert seen_foreign > 0


def test_s7_without_memphis_no_foreign_gift_is_in_play():
    """docs/rules.md §7: foreign gifts and papyrus are only used with the Port of Memphis."""
    for players in (2, 3, 4):
        g = new_game(players, 1, memphis=False)
        assert not any(is_foreign(g, c) or g.rules.kind_names[c] == "papyrus" for c in g.deck[:-1].tolist()
                       if c < g.rules.num_kinds)
        assert not g.state.is_open[MEMPHIS] and g.state.reserve[MEMPHIS] == 0
        assert not any(s.startswith("place Memphis") for s in legal(g))


def test_s7_foreign_gifts_drawn_in_a_refill_go_to_memphis_and_drawing_continues():
    """docs/rules.md §7: a foreign gift drawn for a market goes to Memphis; keep drawing for the market."""
    g = memphis_game()
    set_memphis(g, ["foreign_harp_1"])
    stack_deck(g, ["foreign_chair_2", "harp", "foreign_mirror_1", "chair", "mirror", "gold", "harp"])
    reopen_louqsor(g, 0)
    assert [g.rules.kind_names[c] for c in g.state.slots[LOUQSOR].tolist() if c >= 0] == CLASSIC
    assert memphis_cards(g) == ["foreign_harp_1", "foreign_chair_2", "foreign_mirror_1"]
    assert g.state.seal_on[LOUQSOR] and not g.state.seal_on[MEMPHIS]
    assert g.state.res_market == -1 and (g.phase, g.current_player) == (PH_TURN, 1)     # 3 there: no distribution


# ------------------------------------------------------------ distribution trigger (§7)

@pytest.mark.parametrize("before, drawn, distributes", [
    (3, 1, True),        # one added, four there
    (0, 4, True),
    (5, 2, True),
    (2, 1, False),       # one added, only three there
    (4, 0, False),       # four there, none added by this refill
    (7, 0, False),
])
def test_s7_distribution_needs_a_foreign_gift_added_by_this_refill_and_four_there(before, drawn, distributes):
    """docs/rules.md §7: after a refill, Memphis is resolved only if at least one foreign gift was added AND it holds
    at least four."""
    g = memphis_game()
    set_memphis(g, ["foreign_gold_1"] * before)
    stack_deck(g, FOREIGN[:drawn] + CLASSIC)
    put(g, MEMPHIS, 5, 1)
    reopen_louqsor(g, 0)
    assert len(memphis_cards(g)) == before + drawn
    if distributes:
        assert (g.state.res_market, g.phase, g.current_player) == (MEMPHIS, PH_HIGH, 1)
    else:
        assert g.state.res_market == -1 and g.state.occ[MEMPHIS, 5] == 1
        assert (g.phase, g.current_player) == (PH_TURN, 1)


def test_s7_a_distribution_without_servants_changes_nothing():
    """Expansion example: 4 foreign gifts at Memphis "but no Servant with which to claim them": they stay."""
    g = memphis_game()
    set_memphis(g, ["foreign_gold_1", "foreign_harp_1"])
    stack_deck(g, ["foreign_chair_2", "foreign_mirror_1"] + CLASSIC)
    reserve = int(g.state.reserve[MEMPHIS])
    reopen_louqsor(g, 0)
    assert memphis_cards(g) == ["foreign_gold_1", "foreign_harp_1", "foreign_chair_2", "foreign_mirror_1"]
    assert g.state.reserve[MEMPHIS] == reserve and g.state.is_open[MEMPHIS]
    assert (g.phase, g.current_player) == (PH_TURN, 1)


# ---------------------------------------------------------------- resolution (§7, §4)

def distribution(money=(20, 20, 20), reserve=1):
    """Memphis holds 3 foreign gifts; Black (1) on 6, Green (2) on 4, Red (0) on 1; Red's refill adds a fourth."""
    g = memphis_game(money=20)
    g.state.money[:3] = money
    g.state.reserve[MEMPHIS] = reserve
    set_memphis(g, ["foreign_harp_1", "foreign_chair_2", "foreign_mirror_1"])
    stack_deck(g, ["foreign_gold_1"] + CLASSIC)
    put(g, MEMPHIS, 6, 1)
    put(g, MEMPHIS, 4, 2)
    put(g, MEMPHIS, 1, 0)
    reopen_louqsor(g, 0)
    assert g.state.res_market == MEMPHIS
    return g


def test_s7_memphis_resolves_like_a_market_the_highest_bidder_takes_two_cards():
    """docs/rules.md §7: in bid order; the highest bidder pays the bid into Memphis' Reserve and takes two cards of
    choice (no seal); the others buy one card or take half the Reserve; unbought gifts stay; Memphis stays open."""
    g = distribution(reserve=1)
    assert (g.phase, g.current_player) == (PH_HIGH, 1)
    assert g.state.money[1] == 14 and g.state.reserve[MEMPHIS] == 7
    assert legal(g) == {"card upper", "card 1", "card 2", "card 3"}      # any of the four
    act(g, "card 3")
    assert legal(g) == {"card upper", "card 1", "card 2"}
    act(g, "card 1")
    assert holdings(g, 1) == {"foreign_gold_1": 1, "foreign_chair_2": 1} and g.state.seals[1] == 0
    assert (g.phase, g.current_player) == (PH_OTHER, 2)
    assert legal(g) == {"card upper", "card 2", "take half"}
    act(g, "card upper")                                # Green pays 4
    assert holdings(g, 2) == {"foreign_harp_1": 1} and g.state.seals[2] == 0
    assert g.state.reserve[MEMPHIS] == 11 and g.state.money[2] == 16
    assert (g.phase, g.current_player) == (PH_OTHER, 0)
    money = int(g.state.money[0])
    act(g, "take half")                                 # Red takes 6 of 11
    assert g.state.money[0] == money + 6 and g.state.reserve[MEMPHIS] == 5
    assert memphis_cards(g) == ["foreign_mirror_1"]
    assert g.state.is_open[MEMPHIS] and (g.state.occ[MEMPHIS] < 0).all() and g.state.servants[:3].tolist() == [4, 4, 4]
    assert not g.state.seal_on[MEMPHIS]
    assert (g.phase, g.current_player) == (PH_TURN, 1)


def test_s7_memphis_highest_bidder_who_cannot_pay_discards_and_the_next_does_not_take_two():
    """docs/rules.md §4 at Memphis: the highest bidder who cannot pay discards a gift; the next servant is no highest bidder."""
    g = memphis_game()
    g.state.money[1] = 3
    give(g, 1, harp=1)
    set_memphis(g, ["foreign_harp_1", "foreign_chair_2", "foreign_mirror_1"])
    stack_deck(g, ["foreign_gold_1"] + CLASSIC)
    put(g, MEMPHIS, 6, 1)
    put(g, MEMPHIS, 4, 2)
    reopen_louqsor(g, 0)
    assert (g.phase, g.current_player) == (PH_SHAME, 1)
    act(g, "kind harp")
    assert holdings(g, 1) == {} and g.state.money[1] == 3
    assert (g.phase, g.current_player) == (PH_OTHER, 2)
    act(g, "card 3")
    assert holdings(g, 2) == {"foreign_gold_1": 1} and len(memphis_cards(g)) == 3


def test_s7_memphis_never_closes():
    """docs/rules.md §7: no placement closes Memphis (not even filling every square), and it cannot be closed by choice."""
    g = memphis_game()
    squares = [0, 1, 2, 3, 4, 5, 6, 8]
    for v in squares[:-1]:
        g.state.occ[MEMPHIS, v] = v % 3                  # Red 3, Black 2, Green 2: every colour, 8 pieces
    g.state.servants[:3] = [1, 2, 2]
    refresh(g)
    act(g, "place Memphis 8")
    assert g.state.res_market == -1 and g.state.is_open[MEMPHIS] and (g.state.occ[MEMPHIS, squares] >= 0).all()
    assert (g.phase, g.current_player) == (PH_TURN, 1)
    g = memphis_game()
    for v in (0, 2, 4, 6):
        put(g, MEMPHIS, v, 0)
    assert g.state.servants[0] == 0
    assert not any(s.startswith("close") for s in legal(g))


def test_s7_memphis_placement_bonuses_come_from_its_reserve():
    """docs/rules.md §2/§3: Memphis's stall has a coin on 1; first into Memphis and the coin take from its Reserve."""
    g = memphis_game(money=5)
    g.state.reserve[MEMPHIS] = 3
    refresh(g)
    act(g, "place Memphis 1")
    assert g.state.money[0] == 7 and g.state.reserve[MEMPHIS] == 1


# ------------------------------------------------------------- the final distribution (§7)

def test_s7_memphis_is_resolved_one_last_time_when_akhenaton_is_drawn():
    """docs/rules.md §7: when the Akhenaton card is drawn, Memphis is resolved (no new foreign gift needed, fewer than 4)."""
    g = memphis_game()
    set_memphis(g, ["foreign_harp_1"])
    stack_deck(g, ["akhenaton"])
    put(g, MEMPHIS, 5, 1)
    reopen_louqsor(g, 0)
    assert g.state.akhenaton_drawn and g.state.dead[LOUQSOR] and not g.state.is_open[LOUQSOR]
    assert (g.state.res_market, g.phase, g.current_player) == (MEMPHIS, PH_HIGH, 1)
    act(g, "card upper")
    assert holdings(g, 1) == {"foreign_harp_1": 1}
    assert (g.phase, g.current_player) == (PH_TURN, 1) and g.state.is_open[MEMPHIS]
    assert g.state.is_open[:4].tolist() == [True, True, False, False]


def test_s7_after_akhenaton_memphis_is_not_resolved_again_and_the_game_ends():
    """docs/rules.md §4/§7: resolved "one last time": servants placed at Memphis after the Akhenaton card stay there;
    the game ends when the two open markets have closed."""
    g = memphis_game()
    stack_deck(g, ["akhenaton"])
    reopen_louqsor(g, 0)
    assert g.state.is_open[:4].tolist() == [True, True, False, False]
    put(g, MEMPHIS, 5, 2)
    for v in (0, 2):
        put(g, GIZEH, v, 0)
        put(g, 1, v, 0)
    for v in (5, 7):
        put(g, 1, v, 1)
        put(g, MEMPHIS, v - 4, 1)
    set_turn(g, 0)
    act(g, "close Gizeh", "card upper", "take half")
    assert (g.phase, g.current_player) == (PH_TURN, 1)
    act(g, "close Akhet-Aton", "card upper", "take half", "take half", "take half")
    assert g.is_over()
    assert g.state.occ[MEMPHIS].tolist().count(-1) == 10 and g.state.occ[MEMPHIS, 5] == 2


# ----------------------------------------------------------------- no characters (§6, §7)

@pytest.mark.parametrize("key, name", [("treasurer", "Treasurer"), ("thief", "Thief"), ("trader", "Trader"),
                                       ("roaming_thief", "Roaming Thief")])
def test_s7_characters_never_choose_memphis(key, name):
    """docs/rules.md §6/§7: no character acts on the Port of Memphis (Treasurer, Thief, Trader, Roaming Thief)."""
    g = memphis_game(seals=[1, 0, 0], characters=[key])
    g.state.reserve[MEMPHIS] = 9
    set_memphis(g, ["harp", "chair", "mirror"])     # even cheap classic-looking cards are out of reach
    give(g, 0, gold=1)
    act(g, f"character {name}")
    if key == "trader":
        act(g, "kind gold")
    markets = {s for s in legal(g) if s.startswith("market ")}
    assert markets and "market Memphis" not in markets


def test_s7_beggar_visits_the_four_classic_markets_only():
    """docs/rules.md §7: the Beggar cannot take money at Memphis: its choices go Gizeh, Akhet-Aton, Abou Simbel, Louqsor."""
    g = memphis_game(seals=[1, 0, 0], characters=["beggar"], reserve=[1, 1, 1, 1])
    g.state.reserve[MEMPHIS] = 9
    refresh(g)
    act(g, "character Beggar")
    for _ in range(4):
        assert "take deben" in legal(g)
        act(g, "take deben")
    assert g.phase == PH_PLACE and g.state.reserve.tolist() == [0, 0, 0, 0, 9]


def test_s7_head_priest_second_servant_never_at_memphis():
    """Expansion: the Head Priest cannot place his extra servant at Memphis."""
    g = memphis_game(seals=[1, 0, 0], characters=["head_priest"])
    act(g, "character Head Priest", "place Memphis 2")
    assert g.phase == PH_SECOND
    assert legal(g) and not any(s.startswith("place Memphis") for s in legal(g))


# --------------------------------------------------------------------------- papyrus (§7)

def test_s7_papyrus_bought_from_a_market_brings_a_seal_from_the_supply():
    """docs/rules.md §7: a papyrus taken from the board brings a seal from the supply with it."""
    g = memphis_game(cards={ABOU_SIMBEL: ["statuette", "papyrus", "chair", "gold"]})
    supply = g.state.seal_supply
    put(g, ABOU_SIMBEL, 7, 1)
    put(g, ABOU_SIMBEL, 6, 2)
    act(g, "place Abou Simbel 4")
    act(g, "card 1", "card 2")                  # Black takes the papyrus and the chair
    assert holdings(g, 1) == {"papyrus": 1, "chair": 1}
    assert g.state.seals[1] == 1 and g.state.seal_supply == supply - 1


def test_s7_papyrus_as_upper_card_brings_its_seal_and_one_from_the_supply():
    """docs/rules.md §7: the upper card's seal plus the papyrus' own seal from the supply."""
    g = memphis_game(cards={ABOU_SIMBEL: ["papyrus", "harp", "chair", "gold"]})
    supply = g.state.seal_supply
    put(g, ABOU_SIMBEL, 7, 1)
    put(g, ABOU_SIMBEL, 6, 2)
    act(g, "place Abou Simbel 4", "card upper")
    assert g.state.seals[1] == 2 and g.state.seal_supply == supply - 1


def test_s7_papyrus_without_a_seal_in_the_supply():
    """docs/rules.md §7: "if any": with an empty supply the papyrus comes alone."""
    g = memphis_game(cards={ABOU_SIMBEL: ["statuette", "papyrus", "chair", "gold"]})
    g.state.seals[2] += g.state.seal_supply
    g.state.seal_supply = 0
    refresh(g)
    put(g, ABOU_SIMBEL, 7, 1)
    put(g, ABOU_SIMBEL, 6, 2)
    act(g, "place Abou Simbel 4", "card 1", "card 2")
    assert holdings(g, 1) == {"papyrus": 1, "chair": 1} and g.state.seals[1] == 0


def test_s7_papyrus_stolen_by_the_thief_brings_a_seal():
    """docs/rules.md §7: stolen from the board (Thief): the papyrus brings a seal."""
    g = memphis_game(seals=[1, 0, 0], cards={LOUQSOR: ["statuette", "harp", "papyrus", "gold"]})
    supply = g.state.seal_supply
    act(g, "character Thief", "market Louqsor", "card 2")
    assert holdings(g, 0) == {"papyrus": 1}
    assert g.state.seals[0] == 1 and g.state.seal_supply == supply       # one spent on the Thief, one gained


def test_s7_papyrus_exchanged_with_the_trader_brings_a_seal():
    """docs/rules.md §7: exchanged on the board (Trader): the papyrus brings a seal."""
    g = memphis_game(seals=[1, 0, 0], characters=["trader"], cards={GIZEH: ["statuette", "harp", "papyrus", "gold"]})
    give(g, 0, chair=1)
    act(g, "character Trader", "kind chair", "market Gizeh", "card 2", "done")
    assert holdings(g, 0) == {"papyrus": 1} and g.state.seals[0] == 1
    assert g.state.slots[GIZEH, 2] == kind(g, "chair")


def test_s7_papyrus_from_another_player_brings_no_seal():
    """docs/rules.md §7: "not from a player": a papyrus swapped with the Merchant brings no seal."""
    g = memphis_game(seals=[1, 0, 0])
    give(g, 0, harp=1)
    give(g, 1, papyrus=1)
    act(g, "character Merchant", "kind harp", "target +1", "kind papyrus")
    assert holdings(g, 0) == {"papyrus": 1} and g.state.seals[0] == 0


# ----------------------------------------------------------------------- scoring (§7)

def test_s7_foreign_bonuses_add_to_every_item_of_the_type_and_stack():
    """docs/rules.md §7: each foreign gift adds its bonus to every item of its type its owner holds (bonuses stack);
    other owners' items and other types get nothing."""
    g = memphis_game()
    give(g, 0, foreign_harp_1=1, foreign_harp_2=1, harp=1, mirror=1)
    give(g, 1, harp=2)
    points = gift_points(g)
    assert points[0] == 3 * (7 + 1 + 2) + 11
    assert points[1] == 2 * 7
    give(g, 1, harp=2, foreign_mirror_1=1)
    assert gift_points(g)[0] == 3 * (7 + 3) + 8 and gift_points(g)[1] == 2 * 7 + (8 + 1)


def test_s5_papyrus_and_cup_values():
    """docs/rules.md §5: papyrus 4 points and cup 9 points whatever the number of owners."""
    g = new_game(5, 0)
    give(g, 0, papyrus=2, cup=1)
    give(g, 1, papyrus=1, cup=1)
    give(g, 2, cup=1)
    assert gift_points(g)[:3].tolist() == [2 * 4 + 9, 4 + 9, 9]


# --------------------------------------------------------------------- stalemate [R]

def test_s7_every_servant_stuck_at_memphis_distributes_it():
    """docs/rules.md §7 [R]: when no player can act because all servants stand at Memphis (which never closes),
    Memphis is resolved so the game goes on."""
    g = memphis_game(players=2)
    set_memphis(g, ["foreign_harp_1", "foreign_chair_2"])
    for v in range(7):
        g.state.occ[MEMPHIS, v] = (v + 1) % 2            # Red on 1, 3, 5; Black on 0, 2, 4, 6
    g.state.servants[:2] = [1, 0]
    refresh(g)
    act(g, "place Memphis 8")                   # nobody has a servant left, none on a closable market
    assert (g.state.res_market, g.phase, g.current_player) == (MEMPHIS, PH_HIGH, 0)
    act(g, "card 0", "card 1")
    while g.state.res_market >= 0:
        act(g, "take half")
    assert g.state.servants[:2].sum() == 8 and (g.state.occ[MEMPHIS] < 0).all()
    assert g.phase == PH_TURN and holdings(g, 0) == {"foreign_harp_1": 1, "foreign_chair_2": 1}
    assert np.count_nonzero(g.legal_action_mask()) > 0
