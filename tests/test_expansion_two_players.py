"""docs/rules.md §8 and the expansion's "2-player game": tutors, the neutral player, 2-player setup.

Red is seat 0 and Black seat 1. A tutor on a bid square is stored as 5 + its owner's seat.
"""
from collections import Counter

import pytest

from conftest import (finish, ABOU_SIMBEL, AKHET_ATON, GIZEH, MARKET_NAMES, MEMPHIS, act, character, give, holdings, kind,
                      legal, new_game, position, put, put_tutor, refresh, reopen_louqsor, set_cards, set_memphis,
                      set_turn, stack_deck)
from nefertiti_env.core.phases import (NEUTRAL, PH_HIGH, PH_TURN, PH_TUTOR, PH_TUTOR_DIST, PH_TUTOR_RES,
                                       TUTOR)
from nefertiti_env.core.scoring import gift_points

RED, BLACK = 0, 1
CARDS = ["statuette", "harp", "chair", "gold"]


def two(money=(20, 20), reserve=(1, 1, 1, 1), turn=RED, memphis=False, cards=None, seals=None):
    return position(2, turn=turn, money=list(money), reserve=list(reserve), memphis=memphis, seals=seals,
                    cards=cards or {})


def placements(g) -> set[str]:
    return {s for s in legal(g) if s.startswith("place ")}


# ----------------------------------------------------------------------------- setup

def test_s8_setup_money_10_11_by_seat_from_the_first_player_4_servants_2_tutors():
    """docs/rules.md §1/§8: the first player takes 10 Deben, the second 11; 4 servants and 2 tutors each."""
    firsts = set()
    for seed in range(20):
        g = new_game(2, seed)
        first = g.state.first_player
        firsts.add(first)
        assert (g.state.money[first], g.state.money[1 - first]) == (10, 11)
        assert g.current_player == first
        assert g.state.servants[:2].tolist() == [4, 4] and g.state.tutors[:2].tolist() == [2, 2]
        assert not g.state.money[2:].any() and not g.state.tutors[2:].any() and not g.state.servants[2:].any()
    assert firsts == {0, 1}


@pytest.mark.parametrize("memphis", [False, True])
@pytest.mark.parametrize("characters", ["base", "expansion"])
def test_s8_setup_no_senets_scribes_removed_14_seals(memphis, characters):
    """docs/rules.md §1/§8: no senet cards; Scribe +3 and one Scribe +2 removed; 14 Royal Seals (3 on the upper cards)."""
    for seed in range(5):
        g = new_game(2, seed, memphis=memphis, characters=characters)
        deck = Counter(g.deck.tolist())
        assert deck[kind(g, "senet")] == deck[kind(g, "double_senet")] == 0
        assert g.state.char_avail[character(g, "scribe_3")] == 0
        assert g.state.char_avail[character(g, "scribe_2")] == 2
        assert g.state.char_avail[character(g, "merchant")] == 2
        assert g.state.seal_supply + g.state.seal_on.sum() + g.state.seals.sum() == 14
        assert g.state.seal_on[:4].tolist() == [True, True, True, False]


# ------------------------------------------------------------------ tutor placement

def test_s8_tutor_placement_follows_the_servant_placement_below_a_higher_servant():
    """docs/rules.md §8: after the servant, one tutor on an empty square of an open market holding a servant
    with a higher bid (either colour); `done` is always possible."""
    g = two()
    put(g, GIZEH, 4, BLACK)
    act(g, "place Akhet-Aton 3")
    assert (g.phase, g.current_player) == (PH_TUTOR, RED)
    assert legal(g) == {"done"} | {f"place Gizeh {v}" for v in (0, 1, 2, 3)} \
        | {f"place Akhet-Aton {v}" for v in (0, 1, 2)}


def test_s8_tutor_never_on_the_square_just_used():
    """docs/rules.md §8: never on the square just used (nor any other occupied square)."""
    g = two()
    put(g, ABOU_SIMBEL, 6, BLACK)
    act(g, "place Abou Simbel 2")
    assert "place Abou Simbel 2" not in legal(g) and "place Abou Simbel 6" not in legal(g)
    assert {"place Abou Simbel 0", "place Abou Simbel 1", "place Abou Simbel 3"} <= legal(g)


def test_s8_tutor_placement_also_at_memphis():
    """Expansion, 2-player game: tutors are resolved at Memphis too, so they may be placed there."""
    g = two(memphis=True)
    act(g, "place Memphis 5")
    assert placements(g) == {f"place Memphis {v}" for v in range(5)}


def test_s8_tutor_placement_is_optional_done_skips_it():
    """docs/rules.md §8: the tutor is optional: `done` ends the turn with both tutors kept."""
    g = two()
    act(g, "place Gizeh 6", "place Gizeh 2")
    assert g.state.occ[GIZEH, 2] == TUTOR + RED and g.state.tutors[RED] == 1
    assert (g.phase, g.current_player) == (PH_TURN, BLACK)
    act(g, "place Akhet-Aton 5", "done")
    assert g.state.tutors[BLACK] == 2 and g.state.servants[BLACK] == 3
    assert (g.phase, g.current_player) == (PH_TURN, RED)


def test_s8_no_tutor_placement_without_a_tutor_or_a_square():
    """docs/rules.md §8: no tutor left, or no empty square below a servant: the turn simply passes."""
    g = two()
    act(g, "place Gizeh 0")                             # nothing below bid 0 anywhere
    assert (g.phase, g.current_player) == (PH_TURN, BLACK)
    g = two()
    g.state.tutors[RED] = 0
    refresh(g)
    act(g, "place Gizeh 6")
    assert (g.phase, g.current_player) == (PH_TURN, BLACK)


def test_s8_tutor_placement_after_the_closing_the_servant_caused():
    """docs/rules.md §8: the tutor comes after the servant's placement and the closing it caused (then the turn passes)."""
    g = two(reserve=(1, 1, 5, 1), cards={ABOU_SIMBEL: CARDS})
    put(g, GIZEH, 5, BLACK)
    put(g, ABOU_SIMBEL, 7, BLACK)
    put(g, ABOU_SIMBEL, 6, RED)
    act(g, "place Abou Simbel 4")                       # 7 + 6 + 4 = 17: Abou Simbel closes
    assert (g.phase, g.current_player) == (PH_HIGH, BLACK)
    act(g, "card upper", "take half", "take half")
    assert not g.state.is_open[ABOU_SIMBEL]
    assert (g.phase, g.current_player) == (PH_TUTOR, RED)
    assert legal(g) == {"done"} | {f"place Gizeh {v}" for v in range(5)}
    act(g, "place Gizeh 4")
    assert (g.phase, g.current_player) == (PH_TURN, BLACK)


def test_s8_no_tutor_after_closing_by_choice():
    """Expansion, 2-player game: the tutor follows a servant's placement; closing by choice places none."""
    g = two(cards={GIZEH: CARDS})
    for v in (0, 2, 4):
        put(g, AKHET_ATON, v, RED)
    put(g, GIZEH, 6, RED)
    put(g, GIZEH, 5, BLACK)
    assert g.state.servants[RED] == 0
    act(g, "close Gizeh")
    act(g, "card upper", "take half")
    assert (g.phase, g.current_player) == (PH_TURN, BLACK)
    assert g.state.tutors[RED] == 2


def test_s8_closing_by_choice_needs_a_servant_of_yours_not_a_tutor():
    """Expansion, 2-player game: without a free servant, a player closes a market holding one of his
    servants; a market holding only his tutor cannot be closed that way."""
    g = two()
    for market, v in ((AKHET_ATON, 0), (AKHET_ATON, 2), (AKHET_ATON, 4), (GIZEH, 5)):
        put(g, market, v, RED)
    put(g, ABOU_SIMBEL, 8, BLACK)
    put_tutor(g, ABOU_SIMBEL, 2, RED)
    assert legal(g) == {"close Akhet-Aton", "close Gizeh"}


def test_s8_tutor_bonus_square_coin_goes_to_the_neutral_player_and_leaves_the_game():
    """docs/rules.md §8 [R]: a tutor on a coin square takes the Deben for the neutral player: it leaves the game."""
    g = two(money=(5, 5), reserve=(3, 1, 1, 1))
    act(g, "place Gizeh 4", "place Gizeh 1")           # Gizeh right: 1 is a coin square
    assert g.state.money[RED] == 6                            # the servant's first-into-market bonus only
    assert g.state.reserve[GIZEH] == 1 and g.state.deben_out == 1


# ------------------------------------------------------------------- closing (§3)

@pytest.mark.parametrize("market, servants, tutor, closes", [
    (ABOU_SIMBEL, {8: BLACK, 6: RED}, 3, True),       # bid sum 8 + 6 + 3 = 17
    (ABOU_SIMBEL, {8: BLACK, 6: RED}, 2, False),      # 16
    (AKHET_ATON, {5: BLACK, 4: RED}, 3, True),        # three in a row
    (AKHET_ATON, {5: BLACK, 4: RED}, 2, False),
    (GIZEH, {8: RED, 6: RED, 5: RED}, 0, True),       # four pieces (two colours)
])
def test_s3_a_tutor_counts_as_a_servant_for_closing(market, servants, tutor, closes):
    """docs/rules.md §3: tutors (2p) count as servants for every closing kind; a tutor's placement can close a market."""
    g = two(cards={market: CARDS}, reserve=(1, 1, 1, 1))
    for v, seat in list(servants.items())[:-1]:
        put(g, market, v, seat)
    last_v, last_seat = list(servants.items())[-1]
    set_turn(g, last_seat)
    act(g, f"place {MARKET_NAMES[market]} {last_v}")
    assert g.phase == PH_TUTOR and g.state.is_open[market]
    act(g, f"place {MARKET_NAMES[market]} {tutor}")
    assert (g.state.res_market == market) == closes


@pytest.mark.parametrize("pieces, closes", [
    ({8: RED, 6: BLACK, 2: TUTOR + RED}, True),              # two servants of different colours and a tutor
    ({8: RED, 2: TUTOR + RED, 1: TUTOR + BLACK}, True),      # two tutors of different colours and a servant
    ({8: RED, 6: RED, 2: TUTOR + RED}, False),               # two colours, three pieces
    ({8: RED, 2: TUTOR + BLACK, 1: TUTOR + BLACK}, False),  # Black's two tutors are one colour
])
def test_s3_gizeh_right_red_and_black_tutors_are_two_more_colours(pieces, closes):
    """docs/rules.md §3 / expansion: for Gizeh right's three colours, a red and a black tutor are two extra colours."""
    g = two(cards={GIZEH: CARDS})
    *first, (last_v, last_piece) = sorted(pieces.items(), reverse=True)
    for v, piece in first:
        (put_tutor if piece >= TUTOR else put)(g, GIZEH, v, piece % TUTOR)
    seat = last_piece % TUTOR
    set_turn(g, seat)
    if last_piece >= TUTOR:                                 # the tutor comes after a servant placed elsewhere
        act(g, "place Akhet-Aton 0")
    act(g, f"place Gizeh {last_v}")
    assert (g.state.res_market == GIZEH) == closes


# ---------------------------------------------------------------- resolution (§4)

def gizeh_with_tutor(reserve=5, memphis=False):
    """Gizeh closes with Red's servant on 6 (highest), Black's tutor on 3, Red's tutor on 2 (three colours)."""
    g = two(reserve=(reserve, 1, 1, 1), memphis=memphis, cards={GIZEH: CARDS})
    put(g, GIZEH, 6, RED)
    put_tutor(g, GIZEH, 3, BLACK)
    act(g, "place Akhet-Aton 0", "place Gizeh 2")
    assert g.state.res_market == GIZEH
    return g


def test_s4_a_tutor_is_never_the_highest_bidder():
    """docs/rules.md §4/§8: the top servant is the highest bidder; tutors below it are resolved by their owners."""
    g = gizeh_with_tutor()
    assert (g.phase, g.current_player) == (PH_HIGH, RED)
    act(g, "card upper")
    assert (g.phase, g.current_player) == (PH_TUTOR_RES, BLACK)
    assert legal(g) == {"card 1", "card 2", "card 3", "take deben"}      # no half Reserve, no paying


def test_s8_a_market_without_servants_takes_no_tutor():
    """Expansion: "if there are no Servants on a bid square no Tutors can be in that market"."""
    g = two(memphis=True)
    put(g, GIZEH, 6, BLACK)
    act(g, "place Akhet-Aton 0")
    assert not any(s.startswith(("place Abou Simbel", "place Memphis", "place Louqsor")) for s in legal(g))


def test_s4_tutor_takes_3_deben_and_puts_one_on_each_other_reserve():
    """docs/rules.md §4: tutor: take 3 Deben from this Reserve and put exactly 1 on each other Reserve."""
    g = gizeh_with_tutor(reserve=1)
    act(g, "card upper")                                # Red paid 6: Gizeh's Reserve holds 7
    assert g.state.reserve[:5].tolist() == [7, 0, 1, 1, 0]    # Red's servant took Akhet-Aton's Deben
    act(g, "take deben")
    assert g.state.reserve[:5].tolist() == [4, 1, 2, 2, 0]
    assert g.state.money[BLACK] == 20 and g.state.deben_out == 0
    assert (g.phase, g.current_player) == (PH_TUTOR_RES, RED)


def test_s4_tutor_takes_4_deben_with_memphis_one_for_each_other_reserve():
    """docs/rules.md §4: with the Port of Memphis the tutor takes 4 Deben: one for each of the other four Reserves."""
    g = gizeh_with_tutor(reserve=1, memphis=True)
    act(g, "card upper")
    assert g.state.reserve.tolist() == [7, 0, 1, 1, 1]
    act(g, "take deben")
    assert g.state.reserve.tolist() == [3, 1, 2, 2, 2]


def test_s4_tutor_with_a_short_reserve_chooses_the_reserves_one_by_one():
    """docs/rules.md §4: with fewer Deben available, the tutor's owner puts each one on a Reserve of his choice,
    at most one per Reserve; an empty Reserve gives nothing."""
    g = two(money=(20, 20), reserve=(0, 1, 1, 1), cards={GIZEH: CARDS})
    put(g, GIZEH, 2, RED)
    put_tutor(g, GIZEH, 1, RED)
    set_turn(g, BLACK)
    act(g, "place Akhet-Aton 0", "place Gizeh 0")       # Red's servant, Red's tutor, Black's tutor: 3 colours
    act(g, "card upper")                                # Red pays 2: the Reserve holds 2
    assert g.state.reserve[GIZEH] == 2
    assert (g.phase, g.current_player) == (PH_TUTOR_RES, RED)
    act(g, "take deben")
    assert (g.phase, g.current_player, g.state.tutor_left) == (PH_TUTOR_DIST, RED, 2)
    assert legal(g) == {"market Akhet-Aton", "market Abou Simbel", "market Louqsor"}
    total = g.state.money.sum() + g.state.reserve.sum() + g.state.deben_out + g.state.tutor_left
    act(g, "market Louqsor")
    assert g.state.money.sum() + g.state.reserve.sum() + g.state.deben_out + g.state.tutor_left == total
    assert legal(g) == {"market Akhet-Aton", "market Abou Simbel"}
    act(g, "market Akhet-Aton")
    assert g.state.reserve[:4].tolist() == [0, 1, 1, 2]        # Akhet-Aton's Deben went to Black's servant
    assert (g.phase, g.current_player) == (PH_TUTOR_RES, BLACK)
    act(g, "take deben")                                # nothing left to take
    assert g.state.reserve[:4].tolist() == [0, 1, 1, 2]
    assert g.state.res_market == -1 and g.state.tutors[:2].tolist() == [2, 2] and g.state.servants[RED] == 4


@pytest.mark.parametrize("memphis", [False, True])
def test_s4_every_tutor_puts_one_deben_on_each_other_reserve_after_a_short_distribution(memphis):
    """docs/rules.md §1/§4: a tutor takes 3 (4) Deben and puts exactly 1 on each other Reserve, whatever an earlier
    tutor did; money only moves (a full take never sends Deben out of the game)."""
    g = two(money=(20, 20), reserve=(0, 1, 1, 1), memphis=memphis, cards={GIZEH: CARDS})
    put(g, GIZEH, 2, RED)
    put_tutor(g, GIZEH, 1, RED)
    set_turn(g, BLACK)
    act(g, "place Akhet-Aton 0", "place Gizeh 0", "card upper")
    act(g, "take deben", "market Louqsor", "market Akhet-Aton", "take deben")    # a short distribution first
    set_cards(g, ABOU_SIMBEL, CARDS)
    g.state.reserve[ABOU_SIMBEL] = 10
    put(g, ABOU_SIMBEL, 7, BLACK)
    put(g, ABOU_SIMBEL, 6, BLACK)
    put_tutor(g, ABOU_SIMBEL, 3, RED)
    set_turn(g, RED)
    act(g, "place Abou Simbel 5", "card upper", "take half", "take half")  # 7 + 6 + 5 + 3 >= 17
    assert (g.phase, g.current_player) == (PH_TUTOR_RES, RED)
    before = g.state.reserve.tolist()
    assert before[ABOU_SIMBEL] >= 4
    act(g, "take deben")
    take = 4 if memphis else 3
    others = [m for m in range(5 if memphis else 4) if m != ABOU_SIMBEL]
    expected = [r + (m in others) - take * (m == ABOU_SIMBEL) for m, r in enumerate(before)]
    assert g.state.reserve.tolist() == expected and g.state.deben_out == 0


def test_s4_tutor_takes_a_card_for_the_neutral_player_and_its_seal_goes_to_the_supply():
    """docs/rules.md §4: tutor: take one remaining card for the neutral player; a seal on it goes to the supply."""
    g = gizeh_with_tutor()
    act(g, "card 1", "card 2")                          # Red takes two lower cards: the seal stays up
    supply = g.state.seal_supply
    act(g, "card upper")                                # Black's tutor takes the statuette and its seal
    assert holdings(g, NEUTRAL) == {"statuette": 1}
    assert g.state.seals[NEUTRAL] == 0 and g.state.seal_supply == supply + 1 and not g.state.seal_on[GIZEH]
    assert g.state.money[BLACK] == 20 and g.state.reserve[GIZEH] == 11
    act(g, "card 3")                                    # Red's tutor takes the gold for the neutral player
    assert holdings(g, NEUTRAL) == {"statuette": 1, "gold": 1}
    assert holdings(g, RED) == {"harp": 1, "chair": 1}


def test_s7_a_papyrus_taken_by_a_tutor_brings_no_seal_to_the_neutral_player():
    """docs/rules.md §7/§8: the neutral player holds no seals: a papyrus a tutor takes leaves the seal in the supply."""
    g = two(memphis=True, cards={GIZEH: ["statuette", "papyrus", "chair", "gold"]})
    put(g, GIZEH, 6, RED)
    put_tutor(g, GIZEH, 3, BLACK)
    act(g, "place Akhet-Aton 0", "place Gizeh 2", "card upper")
    supply = g.state.seal_supply
    act(g, "card 1")
    assert holdings(g, NEUTRAL) == {"papyrus": 1}
    assert g.state.seal_supply == supply and g.state.seals[NEUTRAL] == 0


def test_s8_tutors_return_to_their_owners():
    """docs/rules.md §8: after the resolution each tutor goes back to the player who placed it."""
    g = gizeh_with_tutor()
    assert g.state.tutors[:2].tolist() == [1, 1]
    act(g, "card upper", "take deben", "take deben")
    assert g.state.tutors[:2].tolist() == [2, 2] and (g.state.occ[GIZEH] < 0).all()
    assert (g.phase, g.current_player) == (PH_TURN, BLACK)


def test_s4_tutor_at_memphis_takes_4_and_gives_one_to_each_classic_reserve():
    """docs/rules.md §4/§7: a tutor at Memphis takes 4 Deben there and puts 1 on each of the four classic Reserves."""
    g = two(memphis=True, reserve=(1, 1, 1, 1))
    g.state.reserve[MEMPHIS] = 2
    set_memphis(g, ["foreign_harp_1", "foreign_chair_2", "foreign_mirror_1"])
    stack_deck(g, ["foreign_gold_1", "harp", "chair", "mirror", "gold"])
    put(g, MEMPHIS, 6, BLACK)
    put_tutor(g, MEMPHIS, 2, RED)
    reopen_louqsor(g, RED)                              # one more foreign gift: Memphis holds 4
    assert (g.state.res_market, g.phase, g.current_player) == (MEMPHIS, PH_HIGH, BLACK)
    act(g, "card 0", "card 1")
    reserves = g.state.reserve.tolist()
    assert reserves[MEMPHIS] == 8
    act(g, "take deben")
    assert g.state.reserve.tolist() == [r + 1 for r in reserves[:4]] + [4]
    assert g.state.tutors[RED] == 2 and g.state.servants[BLACK] == 4


# ------------------------------------------------------------- the neutral player

def test_s5_the_neutral_player_counts_as_an_owner():
    """docs/rules.md §5: the neutral player counts in the number of owners of a type."""
    g = two()
    give(g, RED, chair=2)
    assert gift_points(g)[RED] == 2 * 9
    give(g, NEUTRAL, chair=1)
    assert gift_points(g)[RED] == 2 * 7                 # two owners
    give(g, BLACK, chair=1)
    assert gift_points(g)[RED] == 2 * 5 and gift_points(g)[NEUTRAL] == 5     # three owners


def test_s5_the_neutral_player_never_wins():
    """docs/rules.md §5: the neutral player is scored like a third player but never wins."""
    g = two(money=(4, 2))
    give(g, NEUTRAL, gold=3, necklace=3)
    give(g, BLACK, harp=1)
    finish(g)
    assert g.winners() == [BLACK]
    assert g.returns().tolist() == [-1, 1]
    assert g.scores().tolist() == [2, 9 + 1]


def test_s6_merchant_can_swap_with_the_neutral_player():
    """Expansion: "exchange gifts with him" (the neutral player) with the Merchant."""
    g = two(seals=[1, 0])
    give(g, RED, harp=1)
    give(g, NEUTRAL, gold=1)
    act(g, "character Merchant", "kind harp")
    assert legal(g) == {"target neutral"}
    act(g, "target neutral", "kind gold")
    assert holdings(g, RED) == {"gold": 1} and holdings(g, NEUTRAL) == {"harp": 1}


def test_s6_royal_servant_makes_the_neutral_player_discard():
    """Expansion: the Serving Woman (Royal Servant) makes the neutral player discard too."""
    g = two(seals=[1, 0])
    give(g, BLACK, chair=2)
    give(g, NEUTRAL, chair=1, foreign_chair_1=1, harp=1)
    act(g, "character Royal Servant", "type chair")
    assert holdings(g, BLACK) == {"chair": 1}
    assert holdings(g, NEUTRAL) == {"foreign_chair_1": 1, "harp": 1}       # the classic card first
    assert g.state.discarded[kind(g, "chair")] == 2


def test_s4_a_tutor_cannot_take_the_roaming_thief_card():
    """docs/rules.md §4 [R]: the Roaming Thief card is no gift: a tutor cannot take it for the neutral player."""
    g = two(cards={GIZEH: CARDS})
    g.state.slots[GIZEH, 3] = g.kind_roaming
    refresh(g)
    put(g, GIZEH, 6, RED)
    put_tutor(g, GIZEH, 3, BLACK)
    act(g, "place Akhet-Aton 0", "place Gizeh 2")
    act(g, "card upper")
    assert legal(g) == {"card 1", "card 2", "take deben"}
