"""The worked examples of the expansion rules (seeds/expansion_en.txt), replayed through the core."""
import numpy as np

from conftest import (finish, ABOU_SIMBEL, AKHET_ATON, GIZEH, LOUQSOR, MEMPHIS, act, give, holdings, legal, position, put,
                      set_memphis, stack_deck)
from nefertiti_env.core.phases import PH_HIGH, PH_OTHER, PH_PLACE, PH_TURN
from nefertiti_env.core.scoring import gift_points


def foreign(g, seat) -> dict[str, int]:
    return {name: n for name, n in holdings(g, seat).items() if name.startswith("foreign")}


def test_expansion_example_foreign_chairs_score_5_times_10():
    """Expansion, foreign gifts: "Red owns the 2 foreign chairs +1 and +2 and 3 classic chairs. Another player also
    owns chairs. Red will therefore score 10 points per chair (7 + 1 + 2) for a total of 5 x 10 = 50 points"."""
    red, other = 0, 1
    g = position(3, memphis=True)
    give(g, red, foreign_chair_1=1, foreign_chair_2=1, chair=3)
    give(g, other, chair=1)
    assert gift_points(g)[red] == 50
    assert gift_points(g)[other] == 7                   # the bonuses are Red's alone


def test_expansion_example_royal_scribe_scores_49_points():
    """Expansion, Royal Scribe: 3 chairs (sole owner), 2 statuettes (another player owns one) and a cup: he scores
    his 3 chairs (3 x 9 + 3 x 1), one statuette (8 + 1) and his cup (9 + 1): 49 points, and keeps one statuette."""
    g = position(5, seals=[1, 0, 0, 0, 0], characters=["royal_scribe"])
    give(g, 0, chair=3, statuette=2, cup=1)
    give(g, 3, statuette=1)
    act(g, "character Royal Scribe", "kind chair", "kind chair", "kind chair", "kind statuette", "kind cup", "done")
    assert g.state.points[0] == 49
    assert holdings(g, 0) == {"statuette": 1}
    assert g.phase == PH_PLACE


def test_expansion_example_priest_of_amon_tied_for_third_place_scores_9():
    """Expansion, Priest of Amon: "Green is tied with Black for 3rd place, thus scoring 9 points"."""
    red, green, black, blue, orange = range(5)
    g = position(5, turn=green, seals=[0, 1, 0, 0, 0], characters=["priest_of_amon"])
    act(g, "character Priest of Amon")
    g.state.money[:5] = 0
    g.state.points[:5] = [40, 20, 20, 30, 10]                 # Red 1st, Blue 2nd, Green and Black 3rd, Orange 5th
    finish(g)
    assert g.scores().tolist() == [40, 20 + 9, 20, 30, 10]


def test_expansion_example_beggar():
    """Expansion, Beggar: "The Green player decides to use the Beggar to take 1 Deben at Gizeh and Akhet-Aton (for a
    total of 2 Deben) and turn face down a Necklace card at Louqsor and a Chair card at Abou Simbel"."""
    green = 0
    g = position(3, turn=green, money=[5, 5, 5], seals=[1, 0, 0], reserve=[2, 3, 1, 1], characters=["beggar"],
                 cards={ABOU_SIMBEL: ["gold", "harp", "chair", "mirror"], LOUQSOR: ["statuette", "necklace", None, None]})
    act(g, "character Beggar", "take deben", "take deben", "card 2", "card 1")
    assert g.state.money[green] == 7 and g.state.reserve[:4].tolist() == [1, 2, 1, 1]
    assert np.flatnonzero(g.state.face_down[ABOU_SIMBEL]).tolist() == [2]          # the chair
    assert np.flatnonzero(g.state.face_down[LOUQSOR]).tolist() == [1]              # the necklace
    assert (g.phase, g.current_player) == (PH_PLACE, green)


def test_expansion_example_port_of_memphis_timeline():
    """Expansion, the Port of Memphis example (Red 0, Black 1, Green 2):
    setup puts 2 foreign gifts at Memphis; the first opening draws 2 more (4, but no servant to claim them);
    Black goes there; the next opening draws none: no distribution despite 4; Red outbids Black, Green outbids Red;
    the next opening draws 2: distribution, Green (highest) buys 2 of the 6, then Red, then Black choose."""
    red, black, green = range(3)
    g = position(3, turn=red, money=[20, 20, 20], memphis=True,
                 cards={GIZEH: ["statuette", "harp", "chair", "gold"], AKHET_ATON: ["mirror", "harp", "chair", "gold"],
                        ABOU_SIMBEL: ["statuette", "harp", "chair", "gold"]})
    set_memphis(g, ["foreign_harp_1", "foreign_chair_1"])                    # "during initial setup, 2"

    # first opening of a classic market: Red closes Abou Simbel (7 + 6 + 4), Louqsor reopens with 2 foreign drawn
    stack_deck(g, ["foreign_mirror_1", "harp", "foreign_statuette_1", "chair", "mirror", "gold"])
    put(g, ABOU_SIMBEL, 7, red)
    put(g, ABOU_SIMBEL, 6, red)
    act(g, "place Abou Simbel 4", "card upper", "take half", "take half")
    assert g.state.slots[MEMPHIS].tolist().count(-1) == 12 - 4 and g.state.res_market == -1     # 4 and nobody to claim them
    assert (g.phase, g.current_player) == (PH_TURN, black)

    act(g, "place Memphis 2")                                                  # Black goes there
    # next opening: Green closes Gizeh (three colours), Abou Simbel reopens and draws no foreign gift
    stack_deck(g, ["necklace", "gold", "harp", "mirror"])
    put(g, GIZEH, 5, red)
    put(g, GIZEH, 4, black)
    act(g, "place Gizeh 3", "card upper", "take half", "take half")
    assert g.state.is_open[ABOU_SIMBEL] and g.state.slots[MEMPHIS].tolist().count(-1) == 8
    assert g.state.res_market == -1 and g.state.occ[MEMPHIS, 2] == black                   # no distribution despite 4
    assert (g.phase, g.current_player) == (PH_TURN, red)

    act(g, "place Memphis 4")                                                  # Red outbids Black
    act(g, "place Louqsor 0")                                                  # Black plays elsewhere
    act(g, "place Memphis 6")                                                  # Green outbids Red

    # next opening: Red closes Akhet-Aton (3, 4, 5 in a row), Gizeh reopens and 2 foreign gifts are drawn
    stack_deck(g, ["foreign_gold_1", "foreign_necklace_1", "harp", "chair", "mirror"])
    put(g, AKHET_ATON, 4, black)
    put(g, AKHET_ATON, 5, green)
    act(g, "place Akhet-Aton 3", "card upper", "take half", "take half")
    assert g.state.is_open[GIZEH]
    assert (g.state.res_market, g.phase, g.current_player) == (MEMPHIS, PH_HIGH, green)
    assert len(legal(g)) == 6                                                  # Green buys 2 of the 6
    act(g, "card 4", "card 5")
    assert foreign(g, green) == {"foreign_gold_1": 1, "foreign_necklace_1": 1}
    assert (g.phase, g.current_player) == (PH_OTHER, red)
    assert legal(g) == {"card upper", "card 1", "card 2", "card 3", "take half"}   # half the money or 1 gift
    act(g, "card 1")
    assert foreign(g, red) == {"foreign_chair_1": 1}
    assert (g.phase, g.current_player) == (PH_OTHER, black)
    act(g, "take half")
    assert foreign(g, black) == {}
    assert g.state.slots[MEMPHIS].tolist().count(-1) == 12 - 3 and (g.state.occ[MEMPHIS] < 0).all()
    assert (g.phase, g.current_player) == (PH_TURN, black)
