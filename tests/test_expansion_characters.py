"""docs/rules.md §6, expansion characters (powers from the expansion text): Oracle, Beggar, Merchant of Amon,
Priest of Amon, Royal Scribe, Roaming Thief, Trader. Each test plays the card through `apply`."""
import numpy as np
import pytest

from conftest import (finish, ABOU_SIMBEL, AKHET_ATON, GIZEH, LOUQSOR, act, card_code, character, give, holdings, kind, legal,
                      position, put, refresh, set_cards, set_turn)
from nefertiti_env.core.phases import PH_CHARACTER, PH_HIGH, PH_OTHER, PH_PLACE

CARDS = ["statuette", "harp", "chair", "gold"]          # upper card first


def game(players=3, characters=None, seals=1, money=20, **kw):
    """Seat 0 to play with `seals` seals; only the given characters in play (default: all seven expansion ones)."""
    roster = characters or ["oracle", "beggar", "merchant_of_amon", "priest_of_amon", "royal_scribe",
                            "roaming_thief", "trader"]
    return position(players, money=[money] * players, seals=[seals] + [0] * (players - 1), characters=roster, **kw)


def card_names(g, codes) -> list[str]:
    names = {g.kind_akhenaton: "akhenaton", g.kind_roaming: "roaming thief"}
    return [names.get(c) or g.rules.kind_names[c] for c in codes]


def market_cards(g, m) -> list[str | None]:
    return [None if c < 0 else card_names(g, [c])[0] for c in g.state.slots[m, :4].tolist()]


def set_bottom(g, names: list[str]) -> None:
    """The last cards of the deck (hand edit)."""
    g.deck[len(g.deck) - len(names):] = [card_code(g, n) for n in names]
    refresh(g)


# ------------------------------------------------------------------------------ Oracle

def oracle_game():
    g = game(characters=["oracle"])
    set_bottom(g, ["mirror", "harp", "akhenaton", "chair", "gold"])
    give(g, 0, gold=1, harp=1, statuette=1)
    return g


def test_s6_oracle_sees_the_bottom_five_cards():
    """Expansion, Oracle: the player looks at the last 5 cards (4 gifts and Akhenaton); only that player knows them."""
    g = oracle_game()
    assert g.known_cards(0) == {}
    act(g, "character Oracle")
    n = len(g.deck)
    assert g.known_cards(0) == {n - 5 + i: card_code(g, name) for i, name in
                                enumerate(["mirror", "harp", "akhenaton", "chair", "gold"])}
    assert g.known_cards(1) == g.known_cards(2) == {}


def test_s6_oracle_swaps_own_gifts_for_ones_of_equal_or_lower_maximum_value():
    """Expansion, Oracle: exchange own gifts for bottom gifts of equal or lower maximum value; never Akhenaton."""
    g = oracle_game()
    act(g, "character Oracle")
    assert legal(g) == {"kind gold", "kind harp", "kind statuette", "done"}
    act(g, "kind harp")
    assert legal(g) == {"card 1", "card 3"}                 # harp 9, chair 9; not mirror 11, gold 14, Akhenaton
    act(g, "card 3")
    assert holdings(g, 0) == {"gold": 1, "chair": 1, "statuette": 1}
    assert card_names(g, g.deck[-5:]) == ["mirror", "harp", "akhenaton", "harp", "gold"]
    act(g, "kind statuette")
    assert legal(g) == {"card upper", "card 1"}     # "card upper" is place 0; mirror 11 = statuette 11; not place 3
    act(g, "card 0")
    act(g, "kind gold", "card 4")                           # gold for gold is allowed (equal)
    assert holdings(g, 0) == {"gold": 1, "chair": 1, "mirror": 1}
    assert card_names(g, g.deck[-5:]) == ["statuette", "harp", "akhenaton", "harp", "gold"]
    assert g.phase == PH_CHARACTER


def test_s6_oracle_exchanges_each_bottom_card_at_most_once():
    """Expansion, Oracle: the gifts are exchanged for the cards that were in the pile, so a gift given in exchange
    is never taken back: no place twice, at most four exchanges (a swap loop never ends otherwise)."""
    g = oracle_game()
    act(g, "character Oracle", "kind gold", "card 4")       # gold for the bottom gold
    act(g, "kind gold")
    assert legal(g) == {"card upper", "card 1", "card 3"}   # the gold just given (place 4) stays
    act(g, "card 1", "kind harp", "card 3")
    assert legal(g) == {"kind statuette", "done"}           # only place 0 (mirror 11) is left
    act(g, "kind statuette", "card 0")
    assert legal(g) == {"done"}                             # four exchanges: every gift place is used
    assert holdings(g, 0) == {"harp": 1, "chair": 1, "mirror": 1}
    assert card_names(g, g.deck[-5:]) == ["statuette", "gold", "akhenaton", "harp", "gold"]
    act(g, "done")
    assert legal(g) == {f"card {i}" for i in range(1, 5)} | {"card upper"}


def test_s6_oracle_reorders_the_bottom_cards():
    """Expansion, Oracle: finally the player decides the order of the 5 cards at the bottom (first chosen drawn first)."""
    g = oracle_game()
    act(g, "character Oracle", "done")
    assert legal(g) == {f"card {i}" for i in range(1, 5)} | {"card upper"}
    act(g, "card 2", "card 4", "card 0")
    assert legal(g) == {"card 1", "card 3"}
    act(g, "card 3")                                        # the last one goes last by itself
    assert card_names(g, g.deck[-5:]) == ["akhenaton", "gold", "mirror", "chair", "harp"]
    assert (g.phase, g.current_player) == (PH_PLACE, 0)
    n = len(g.deck)
    assert g.known_cards(0) == {n - 5 + i: c for i, c in enumerate(g.deck[-5:].tolist())}


def test_s6_oracle_without_a_tradeable_gift_only_reorders():
    """Expansion, Oracle: "It may happen that the player cannot trade anything"."""
    g = game(characters=["oracle"])
    set_bottom(g, ["gold", "gold", "necklace", "akhenaton", "gold"])
    give(g, 0, harp=2)
    act(g, "character Oracle")
    assert legal(g) == {"done"}


def test_s6_oracle_knowledge_shrinks_as_the_cards_are_drawn():
    """Expansion, Oracle: `known_cards` lists the seen cards still undrawn."""
    g = oracle_game()
    act(g, "character Oracle", "done", "card 0", "card 1", "card 2", "card 3")
    g.state.deck_pos = len(g.deck) - 2
    refresh(g)
    n = len(g.deck)
    assert g.known_cards(0) == {n - 2: card_code(g, "chair"), n - 1: card_code(g, "gold")}


# ------------------------------------------------------------------------------ Beggar

def test_s6_beggar_per_market_takes_a_deben_turns_a_gift_face_down_or_nothing():
    """Expansion, Beggar: for each market on the board: take 1 Deben from its Reserve, or turn one gift face down,
    or nothing; an empty Reserve gives no Deben to take."""
    g = game(characters=["beggar"], money=5, reserve=[3, 0, 2, 1],
             cards={GIZEH: CARDS, AKHET_ATON: CARDS, ABOU_SIMBEL: CARDS, LOUQSOR: CARDS})
    act(g, "character Beggar")
    assert legal(g) == {"card upper", "card 1", "card 2", "card 3", "take deben", "done"}
    act(g, "take deben")                                            # Gizeh
    assert "take deben" not in legal(g)                             # Akhet-Aton's Reserve is empty
    act(g, "card 2")                                                # Akhet-Aton: the chair
    act(g, "done")                                                  # Abou Simbel: nothing
    act(g, "card upper")                                            # Louqsor: the statuette
    assert g.state.money[0] == 6 and g.state.reserve[:4].tolist() == [2, 0, 2, 1]
    assert np.flatnonzero(g.state.face_down[AKHET_ATON]).tolist() == [2]
    assert np.flatnonzero(g.state.face_down[LOUQSOR]).tolist() == [0]
    assert not g.state.face_down[[GIZEH, ABOU_SIMBEL]].any()
    assert (g.phase, g.current_player) == (PH_PLACE, 0)


def beggared(slot=1):
    """Gizeh's gift in place `slot` is face down (hand edit: as the Beggar leaves it)."""
    g = game(characters=["beggar", "thief", "trader", "roaming_thief"], cards={GIZEH: CARDS})
    g.state.face_down[GIZEH, slot] = True
    refresh(g)
    return g


def test_s6_beggar_face_down_gift_cannot_be_bought():
    """Expansion, Beggar: the face-down card can no longer be bought."""
    g = beggared(slot=0)
    put(g, GIZEH, 6, 1)
    put(g, GIZEH, 5, 2)
    act(g, "place Gizeh 4")
    assert (g.phase, g.current_player) == (PH_HIGH, 1)
    assert legal(g) == {"card 1", "card 2", "card 3"}
    act(g, "card 1", "card 2")
    assert legal(g) == {"card 3", "take half"}


@pytest.mark.parametrize("name, steps, places", [
    ("Thief", ["market Gizeh"], {"card 2", "card 3"}),
    ("Trader", ["kind gold", "market Gizeh"], {"card upper", "card 2", "card 3"}),
    ("Roaming Thief", ["market Gizeh"], {"card 2"}),        # the harp is hidden: the chair is the lowest left
])
def test_s6_beggar_face_down_gift_cannot_be_stolen_traded_or_roamed(name, steps, places):
    """Expansion, Beggar: a face-down card cannot be stolen (Thief, Roaming Thief) or traded (Trader)."""
    g = beggared(slot=1)
    give(g, 0, gold=1)
    act(g, f"character {name}", *steps)
    assert legal(g) == places


def test_s6_beggar_face_down_gift_turns_face_up_when_the_market_next_opens():
    """Expansion, Beggar: the card is turned face up again when that market opens next."""
    g = game(characters=["beggar"], cards={LOUQSOR: ["gold", "harp", "chair", "mirror"]})
    g.state.face_down[LOUQSOR, 2] = True
    refresh(g)
    set_cards(g, ABOU_SIMBEL, CARDS)
    put(g, ABOU_SIMBEL, 7, 0)
    put(g, ABOU_SIMBEL, 6, 0)
    set_turn(g, 0)
    act(g, "place Abou Simbel 4", "card upper", "take half", "take half")        # Louqsor reopens
    assert g.state.is_open[LOUQSOR] and not g.state.face_down[LOUQSOR].any()
    assert market_cards(g, LOUQSOR) == ["gold", "harp", "chair", "mirror"]


# -------------------------------------------------------------------- Merchant of Amon

def test_s6_merchant_of_amon_scores_8_points_per_discarded_item_double_senet_16():
    """Expansion, Merchant of Amon: discard as many gifts as wished for 8 points each; a double senet is 16."""
    g = game(players=4, characters=["merchant_of_amon"])
    give(g, 0, double_senet=1, harp=2, gold=1)
    act(g, "character Merchant of Amon")
    assert legal(g) == {"kind double_senet", "kind harp", "kind gold", "done"}
    act(g, "kind double_senet", "kind harp")
    assert g.state.points[0] == 16 + 8
    act(g, "done")
    assert holdings(g, 0) == {"harp": 1, "gold": 1}
    assert g.state.discarded[kind(g, "double_senet")] == 1 and g.state.discarded[kind(g, "harp")] == 1
    assert g.phase == PH_PLACE


def test_s6_merchant_of_amon_ends_when_nothing_is_left():
    """Expansion, Merchant of Amon: once every gift is discarded the power is over."""
    g = game(characters=["merchant_of_amon"])
    give(g, 0, chair=1)
    act(g, "character Merchant of Amon", "kind chair")
    assert g.state.points[0] == 8 and g.phase == PH_PLACE


def test_s6_merchant_of_amon_needs_a_gift():
    """docs/rules.md §6: a character is playable only when its power can be carried out."""
    g = game(characters=["merchant_of_amon", "royal_scribe"])
    assert not any(s.startswith("character") for s in legal(g))


# ---------------------------------------------------------------------- Priest of Amon

@pytest.mark.parametrize("money, bonus", [
    ([20, 10, 8, 6, 4], 0),      # 1st
    ([10, 20, 8, 6, 4], 6),      # 2nd
    ([8, 20, 10, 6, 4], 9),      # 3rd
    ([6, 20, 10, 8, 4], 12),     # 4th
    ([4, 20, 10, 8, 6], 15),     # 5th
    ([8, 20, 8, 10, 4], 9),      # tied with seat 2 for 3rd
    ([10, 20, 20, 10, 4], 9),    # tied with seat 3 for 3rd behind two tied first
])
def test_s6_priest_of_amon_rank_bonus_after_final_scoring(money, bonus):
    """Expansion, Priest of Amon: after the final scoring (Deben and seals included) 0/6/9/12/15 points for
    1st/2nd/3rd/4th/5th place; tied players share the place."""
    g = game(players=5, characters=["priest_of_amon"])
    act(g, "character Priest of Amon")
    assert g.phase == PH_PLACE and g.state.points[0] == 0         # nothing happens in play
    g.state.money[:5] = money
    refresh(g)
    assert g.scores().tolist() == [money[0] // 2 + bonus] + [m // 2 for m in money[1:]]


def test_s6_priest_of_amon_bonus_can_decide_the_winner():
    """docs/rules.md §5: the Priest of Amon bonus comes last and counts for the win."""
    g = game(players=3, characters=["priest_of_amon"], seals=1)
    act(g, "character Priest of Amon")
    g.state.money[:3] = [10, 20, 0]                               # 5 against 10 before the bonus
    refresh(g)
    finish(g)
    assert g.scores().tolist() == [5 + 6, 10, 0] and g.winners() == [0]


# ------------------------------------------------------------------------ Royal Scribe

def test_s6_royal_scribe_scores_chosen_gifts_at_current_value_plus_one():
    """Expansion, Royal Scribe: score any gifts at their current value + 1 each (foreign bonuses included);
    different types allowed, not all of a type needed; they leave play."""
    g = game(players=4, characters=["royal_scribe"], memphis=True)
    give(g, 0, harp=1, foreign_harp_2=1, mirror=2)
    give(g, 1, mirror=1)
    act(g, "character Royal Scribe")
    assert legal(g) == {"kind harp", "kind foreign_harp_2", "kind mirror", "done"}
    act(g, "kind harp")
    assert g.state.points[0] == 9 + 2 + 1                         # sole owner, +2 from the foreign harp, +1
    act(g, "kind mirror", "done")
    assert g.state.points[0] == 12 + 8 + 1                        # two owners of mirrors
    assert holdings(g, 0) == {"foreign_harp_2": 1, "mirror": 1}
    assert g.state.discarded[kind(g, "harp")] == 1 and g.state.discarded[kind(g, "mirror")] == 1
    assert g.phase == PH_PLACE


# ----------------------------------------------------------------------- Roaming Thief

def roaming_game(**kw):
    return game(characters=["roaming_thief"], cards={GIZEH: CARDS, ABOU_SIMBEL: ["gold", "mirror", "necklace", "chair"],
                                                      AKHET_ATON: ["gold", "necklace", "mirror", "statuette"]}, **kw)


def test_s6_roaming_thief_takes_the_lowest_maximum_value_gift_and_takes_its_place():
    """Expansion, Roaming Thief: take the gift with the lowest maximum value from a market of one's choice; the
    Roaming Thief card takes its place (a seal there is not taken)."""
    g = roaming_game()
    set_cards(g, LOUQSOR, ["harp", "gold", None, None], seal=True)
    act(g, "character Roaming Thief")
    assert legal(g) == {"market Gizeh", "market Akhet-Aton", "market Abou Simbel", "market Louqsor"}
    act(g, "market Gizeh")
    assert legal(g) == {"card 1", "card 2"}                 # harp and chair: 9
    act(g, "card 1")
    assert holdings(g, 0) == {"harp": 1} and g.state.seals[0] == 0
    assert market_cards(g, GIZEH) == ["statuette", "roaming thief", "chair", "gold"]
    assert g.phase == PH_PLACE
    h = roaming_game()
    set_cards(h, LOUQSOR, ["harp", "gold", None, None], seal=True)
    act(h, "character Roaming Thief", "market Louqsor")     # a closed market; the lowest is the upper card
    assert legal(h) == {"card upper"}
    act(h, "card upper")
    assert holdings(h, 0) == {"harp": 1} and h.state.seals[0] == 0 and h.state.seal_on[LOUQSOR]
    assert market_cards(h, LOUQSOR) == ["roaming thief", "gold", None, None]


def placed_roaming_thief(place=1):
    """The Roaming Thief card lies in `place` above Gizeh (hand edit: as after the character was played)."""
    g = roaming_game(seals=0)
    g.state.slots[GIZEH, place] = g.kind_roaming
    refresh(g)
    return g


def test_s6_roaming_thief_bought_by_the_highest_bidder_is_used_at_once():
    """Expansion, Roaming Thief: whoever buys it must use it immediately on one of the other markets; then the
    resolution goes on (the highest bidder still takes his second lower card)."""
    g = placed_roaming_thief()
    put(g, GIZEH, 6, 1)
    put(g, GIZEH, 5, 2)
    act(g, "place Gizeh 4")
    assert (g.phase, g.current_player) == (PH_HIGH, 1)
    act(g, "card 1")
    assert (g.phase, g.current_player) == (PH_CHARACTER, 1)
    assert legal(g) == {"market Akhet-Aton", "market Abou Simbel"}      # not Gizeh; Louqsor holds no gift
    act(g, "market Abou Simbel")
    assert legal(g) == {"card 3"}
    act(g, "card 3")
    assert holdings(g, 1) == {"chair": 1}
    assert market_cards(g, ABOU_SIMBEL) == ["gold", "mirror", "necklace", "roaming thief"]
    assert (g.phase, g.current_player) == (PH_HIGH, 1)
    assert legal(g) == {"card 2", "card 3"}
    act(g, "card 2")
    assert holdings(g, 1) == {"chair": 2}
    assert (g.phase, g.current_player) == (PH_OTHER, 2)
    assert g.state.char_played.sum() == 0                         # no seal spent: it was bought, not played


def test_s6_roaming_thief_bought_by_another_servant_is_paid_then_used():
    """Expansion, Roaming Thief: "can be bought just like any other gift": the other servant pays its bid."""
    g = placed_roaming_thief()
    put(g, GIZEH, 6, 1)
    put(g, GIZEH, 5, 2)
    act(g, "place Gizeh 4", "card upper")
    assert (g.phase, g.current_player) == (PH_OTHER, 2)
    act(g, "card 1")
    assert g.state.money[2] == 15 and (g.phase, g.current_player) == (PH_CHARACTER, 2)
    act(g, "market Akhet-Aton", "card 2")
    assert holdings(g, 2) == {"mirror": 1}
    assert (g.phase, g.current_player) == (PH_OTHER, 0)


def test_s6_roaming_thief_never_on_the_market_closed_for_good_by_akhenaton():
    """Expansion: the Roaming Thief can never be used on the market where the Akhenaton card has just been drawn."""
    g = roaming_game()
    g.state.dead[ABOU_SIMBEL] = True
    g.state.is_open[ABOU_SIMBEL] = False
    refresh(g)
    act(g, "character Roaming Thief")
    assert legal(g) == {"market Gizeh", "market Akhet-Aton"}


def test_s6_roaming_thief_card_cannot_be_stolen_or_traded():
    """Expansion: the Roaming Thief can never be stolen by the Thief, nor exchanged by the Trader."""
    g = placed_roaming_thief(place=3)
    g.state.char_avail[character(g, "thief")] = 1
    g.state.char_avail[character(g, "trader")] = 1
    g.state.seals[0] = 2
    g.state.seal_supply -= 2
    refresh(g)
    give(g, 0, gold=1)
    act(g, "character Thief", "market Gizeh")
    assert legal(g) == {"card 1", "card 2"}
    set_turn(g, 0)
    act(g, "character Trader", "kind gold", "market Gizeh")
    assert legal(g) == {"card upper", "card 1", "card 2"}


def test_s6_roaming_thief_with_no_market_to_use_it_on_leaves_the_game():
    """Expansion, Roaming Thief [R]: bought when no other market holds a gift, the card leaves the game."""
    g = placed_roaming_thief()
    for m in (AKHET_ATON, ABOU_SIMBEL):
        set_cards(g, m, [None] * 4, seal=False)
    put(g, GIZEH, 6, 1)
    put(g, GIZEH, 5, 2)
    act(g, "place Gizeh 4", "card 1")
    assert (g.phase, g.current_player) == (PH_HIGH, 1)      # straight on to his second lower card
    assert g.kind_roaming not in g.state.slots and holdings(g, 1) == {}
    assert legal(g) == {"card 2", "card 3"}


def test_s6_roaming_thief_needs_a_market_with_a_gift():
    """docs/rules.md §6: not playable when no classic market holds a face-up gift."""
    g = game(characters=["roaming_thief"])
    for m in range(4):
        set_cards(g, m, [None] * 4, seal=False)
    assert "character Roaming Thief" not in legal(g)


# ------------------------------------------------------------------------------- Trader

def trader_game(money=20, **kw):
    g = game(characters=["trader"], money=money, reserve=[1, 1, 1, 1],
             cards={GIZEH: CARDS, AKHET_ATON: ["necklace", "mirror", "harp", "chair"]}, **kw)
    return g


def test_s6_trader_pays_the_max_value_difference_to_that_reserve_when_taking_more():
    """Expansion, Trader: exchange a gift with the board; taking a gift worth more pays the difference to that
    market's Reserve; the given gift goes where the taken one was."""
    g = trader_game()
    give(g, 0, harp=1, chair=1)
    act(g, "character Trader", "kind harp", "market Gizeh", "card 3")        # harp 9 for gold 14
    assert holdings(g, 0) == {"chair": 1, "gold": 1}
    assert g.state.money[0] == 15 and g.state.reserve[GIZEH] == 6
    assert market_cards(g, GIZEH) == ["statuette", "harp", "chair", "harp"]
    assert g.phase == PH_CHARACTER                          # a second exchange may follow
    act(g, "kind gold", "market Akhet-Aton", "card 1")      # gold 14 for mirror 11: nothing paid or refunded
    assert holdings(g, 0) == {"chair": 1, "mirror": 1}
    assert g.state.money[0] == 15 and g.state.reserve[AKHET_ATON] == 1
    assert (g.phase, g.current_player) == (PH_PLACE, 0)     # two exchanges at most


def test_s6_trader_may_stop_after_one_exchange():
    """Expansion, Trader: "up to 2" exchanges."""
    g = trader_game()
    give(g, 0, harp=1, chair=1)
    act(g, "character Trader", "kind harp", "market Gizeh", "card 2")        # harp for chair: equal
    assert g.state.money[0] == 20 and g.state.reserve[GIZEH] == 1
    act(g, "done")
    assert (g.phase, g.current_player) == (PH_PLACE, 0)


def test_s6_trader_only_takes_what_the_player_can_pay_for():
    """Expansion, Trader: the difference must be affordable."""
    g = trader_game(money=2)
    give(g, 0, harp=1)
    act(g, "character Trader", "kind harp", "market Akhet-Aton")
    assert legal(g) == {"card 1", "card 2", "card 3"}       # mirror 11 = 9 + 2; not the necklace 14
    h = trader_game(money=0)
    give(h, 0, chair=1)
    act(h, "character Trader", "kind chair", "market Gizeh")
    assert legal(h) == {"card 1", "card 2"}


def test_s6_trader_not_playable_without_an_affordable_exchange():
    """docs/rules.md §6: the Trader needs a gift to give and one it can afford on a classic market."""
    g = trader_game(money=0)
    assert "character Trader" not in legal(g)
    for m in range(4):
        set_cards(g, m, ["gold", "gold", None, None])
    give(g, 0, harp=1)
    assert "character Trader" not in legal(g)
    g.state.money[0] = 5
    refresh(g)
    assert "character Trader" in legal(g)
