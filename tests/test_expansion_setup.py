"""docs/rules.md §1, §6-§8 setup with the expansion: player counts 2-5, the `memphis` and `characters` options,
5-player components, the deck with foreign gifts and papyrus, seals."""
from collections import Counter

import pytest

from conftest import character, new_game
from nefertiti_env import NefertitiGame
from nefertiti_env.core.limits import MEMPHIS
from nefertiti_env.core.phases import PH_TURN

BASE = {"scribe_3": 1, "scribe_2": 3, "merchant": 2, "royal_servant": 2, "treasurer": 2, "vizier": 1,
        "head_priest": 1, "thief": 1}
EXPANSION = ["oracle", "beggar", "merchant_of_amon", "priest_of_amon", "royal_scribe", "roaming_thief", "trader"]
ALWAYS = {2: {"scribe_2": 2, "merchant": 2}, 3: {"scribe_2": 2, "scribe_3": 1, "merchant": 2},
          4: {"scribe_2": 3, "scribe_3": 1, "merchant": 2}, 5: {"scribe_2": 3, "scribe_3": 1, "merchant": 2}}
SCENARIOS = {   # seeds/expansion_en.txt, "Scenarios"
    "curse_of_amon": ["priest_of_amon", "merchant_of_amon", "vizier", "treasurer", "beggar", "trader"],
    "intrigue_at_court": ["merchant_of_amon", "royal_servant", "royal_servant", "royal_scribe", "roaming_thief",
                          "oracle"],
    "race_for_the_nile": ["head_priest", "treasurer", "beggar", "roaming_thief", "thief", "trader"],
}


def roster(g) -> Counter:
    """Character cards available, by key."""
    return Counter({c.key: int(g.state.char_avail[i]) for i, c in enumerate(g.rules.characters) if g.state.char_avail[i]})


def deck(g) -> Counter:
    """The whole deck (drawn or not) by card name, Akhenaton included."""
    names = g.rules.kind_names + ["akhenaton"]
    return Counter(names[c] for c in g.deck.tolist())


# ------------------------------------------------------------------------ player counts

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_s1_every_player_count_from_2_to_5(players):
    """docs/rules.md §1: 2 to 5 players (2 and 5 with the expansion rules)."""
    g = new_game(players, 7)
    assert g.num_players == players and g.phase == PH_TURN
    assert 0 <= g.current_player < players and g.legal_actions()
    assert g.state.money[:players].all() and not g.state.money[players:].any()


@pytest.mark.parametrize("players", [0, 1, 6, "3"])
def test_s1_bad_player_count_raises(players):
    """docs/rules.md §1: any other player count is refused with a message naming it."""
    with pytest.raises(ValueError, match="num_players"):
        NefertitiGame(num_players=players)


# ------------------------------------------------------------------------------ memphis

@pytest.mark.parametrize("players, default", [(2, False), (3, False), (4, False), (5, True)])
def test_s1_memphis_default_only_where_mandatory(players, default):
    """docs/rules.md §1: the Port of Memphis is optional with 2-4 players and mandatory with 5 (memphis=None)."""
    g = new_game(players, 0)
    assert g.options["memphis"] is default and g.state.is_open[MEMPHIS] == default
    assert new_game(players, 0, memphis=None).options["memphis"] is default


@pytest.mark.parametrize("players", [2, 3, 4])
def test_s1_memphis_can_be_switched_on_with_2_to_4_players(players):
    """docs/rules.md §1/§7: optional with 2-4 players: Memphis open with 1 Deben on its Reserve."""
    g = new_game(players, 0, memphis=True)
    assert g.options["memphis"] is True and g.state.is_open[MEMPHIS] and g.state.reserve[MEMPHIS] == 1
    assert any(g.action_to_string(a).startswith("place Memphis") for a in g.legal_actions())


def test_s1_memphis_is_forced_on_with_5_players():
    """docs/rules.md §1: mandatory for 5 players: memphis=False is refused, naming the reason."""
    with pytest.raises(ValueError, match="Memphis is mandatory with 5 players"):
        NefertitiGame(num_players=5, memphis=False)
    assert NefertitiGame(num_players=5, memphis=True).options["memphis"] is True


def test_s1_bad_memphis_value_raises():
    """Brief, bad input: memphis must be True, False or None; a string is refused, naming the option."""
    with pytest.raises(ValueError, match="memphis"):
        NefertitiGame(num_players=4, memphis="no")


# -------------------------------------------------------------------------------- deck

@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_s7_deck_with_memphis_replaces_ten_classic_gifts_by_foreign_ones_and_adds_papyrus(players):
    """docs/rules.md §7: with Memphis, 1 gold, 1 necklace, 2 statuettes, 2 mirrors, 2 harps, 2 chairs are replaced by the
    10 foreign gifts; one papyrus per player; senets only with 4-5 players, cups only with 5."""
    g = new_game(players, 3, memphis=True)
    senets = {"senet": 5, "double_senet": 3} if players >= 4 else {}
    cups = {"cup": 4} if players == 5 else {}
    expected = Counter({"harp": 6, "chair": 6, "mirror": 4, "statuette": 4, "necklace": 4, "gold": 4,
                        "foreign_gold_1": 1, "foreign_necklace_1": 1, "foreign_statuette_1": 2,
                        "foreign_mirror_1": 2, "foreign_harp_1": 1, "foreign_harp_2": 1, "foreign_chair_1": 1,
                        "foreign_chair_2": 1, "papyrus": players, "akhenaton": 1, **senets, **cups})
    assert deck(g) == expected
    foreign = [k for k in range(g.rules.num_kinds) if g.rules.kind_bonus[k] > 0]
    assert sorted(int(g.rules.kind_bonus[k]) for k in foreign for _ in range(expected[g.rules.kind_names[k]])) \
        == [1] * 8 + [2] * 2                                # eight +1 and two +2 cards


@pytest.mark.parametrize("players", [2, 3, 4])
def test_s1_deck_without_memphis_has_no_foreign_gift_papyrus_or_cup(players):
    """docs/rules.md §1/§7: without Memphis the deck is the base deck (no senets with 2 or 3 players)."""
    g = new_game(players, 3, memphis=False)
    senets = {"senet": 5, "double_senet": 3} if players == 4 else {}
    assert deck(g) == Counter({"harp": 8, "chair": 8, "mirror": 6, "statuette": 6, "necklace": 5, "gold": 5,
                               "akhenaton": 1, **senets})


@pytest.mark.parametrize("players, memphis", [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True),
                                              (5, True)])
def test_s1_akhenaton_among_the_last_five_cards(players, memphis):
    """docs/rules.md §1: 4 unseen gifts shuffled with the Akhenaton card at the bottom."""
    places = {len(g.deck) - list(g.deck).index(g.kind_akhenaton)
              for g in (new_game(players, seed, memphis=memphis) for seed in range(30))}
    assert places <= {1, 2, 3, 4, 5} and len(places) >= 3


@pytest.mark.parametrize("players, memphis, seals", [(2, False, 14), (2, True, 14), (3, False, 12), (3, True, 14),
                                                     (4, False, 12), (4, True, 14), (5, True, 14)])
def test_s1_twelve_royal_seals_fourteen_with_the_expansion(players, memphis, seals):
    """docs/rules.md §1: 12 Royal Seals, 14 with the expansion components (2 or 5 players, or the Port of Memphis)."""
    g = new_game(players, 0, memphis=memphis)
    assert g.state.seal_supply + g.state.seal_on.sum() + g.state.seals.sum() == seals
    assert g.state.seal_on.tolist() == [True, True, True, False, False]


# -------------------------------------------------------------------------- 5 players

def test_s1_five_players_money_8_8_8_9_9_by_seat_and_3_servants():
    """docs/rules.md §1: 5 players: 8, 8, 8, 9, 9 Deben from the first player on; 3 servants each, no tutors."""
    firsts = set()
    for seed in range(30):
        g = new_game(5, seed)
        first = g.state.first_player
        firsts.add(first)
        assert [int(g.state.money[(first + i) % 5]) for i in range(5)] == [8, 8, 8, 9, 9]
        assert g.state.servants[:5].tolist() == [3] * 5 and not g.state.tutors.any()
        assert g.current_player == first
    assert firsts == set(range(5))


def test_s1_five_players_cups_senets_memphis_and_the_whole_base_roster():
    """docs/rules.md §1: 5 players: the 4 cups are added, senets stay, Memphis is in play, no character is removed."""
    g = new_game(5, 2)
    cards = deck(g)
    assert cards["cup"] == 4 and cards["senet"] == 5 and cards["double_senet"] == 3
    assert g.state.is_open[MEMPHIS] and g.options["memphis"]
    assert roster(g) == Counter(BASE)


# -------------------------------------------------------------------------- characters

@pytest.mark.parametrize("players, removed", [(2, {"scribe_3": 1, "scribe_2": 1}), (3, {"scribe_2": 1}), (4, {}),
                                              (5, {})])
def test_s6_base_characters_with_player_count_removals(players, removed):
    """docs/rules.md §1/§6: characters="base" is the 13-card base roster minus the player-count removals."""
    g = new_game(players, 0, characters="base")
    assert roster(g) == Counter(BASE) - Counter(removed)
    assert roster(new_game(players, 0)) == roster(g)                 # the default


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_s6_expansion_characters_scribes_merchants_plus_six_drawn(players):
    """docs/rules.md §6 / expansion setup: the Scribes and Merchants (minus player-count removals) plus 6 cards drawn at
    random from all other base and expansion characters; the draw follows the seed."""
    others = Counter({k: n for k, n in BASE.items() if k not in ("scribe_3", "scribe_2", "merchant")}) \
        + Counter(EXPANSION)
    seen = Counter()
    rosters = set()
    for seed in range(40):
        g = new_game(players, seed, characters="expansion")
        cards = roster(g)
        drawn = cards - Counter(ALWAYS[players])
        assert cards - drawn == Counter(ALWAYS[players])
        assert sum(drawn.values()) == 6 and not drawn - others
        assert roster(new_game(players, seed, characters="expansion")) == cards
        seen += Counter(drawn.keys())
        rosters.add(tuple(sorted(cards.items())))
    assert set(seen) == set(others), "every other character can be drawn"
    assert len(rosters) > 20


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_s6_scenarios_are_the_scribes_merchants_and_their_six_characters(scenario, players):
    """Expansion "Scenarios": The Curse of Amon, Intrigue at the Pharaoh's Court, Race for the Nile."""
    g = new_game(players, 0, characters=scenario)
    assert roster(g) == Counter(ALWAYS[players]) + Counter(SCENARIOS[scenario])


def test_s6_explicit_character_list_is_exactly_those_cards():
    """docs/rules.md §6: a list of character keys (one entry per card) is the whole roster."""
    keys = ["oracle", "royal_servant", "royal_servant", "scribe_3"]
    g = new_game(2, 0, characters=keys)
    assert roster(g) == Counter(keys)
    assert g.state.char_avail[character(g, "scribe_2")] == 0
    assert roster(new_game(4, 0, characters=[])) == Counter()
    assert roster(new_game(4, 0, characters=("trader",))) == Counter({"trader": 1})


@pytest.mark.parametrize("characters, message", [
    ("bogus", "characters must be one of base, expansion, curse_of_amon, intrigue_at_court, race_for_the_nile"),
    ("Expansion", "got 'Expansion'"),
    (["oracle", "nobody"], r"unknown character keys \['nobody'\]"),
    (["oracle", "oracle"], "'oracle' listed 2 times, but there are only 1"),
    (["royal_servant"] * 3, "'royal_servant' listed 3 times, but there are only 2"),
])
def test_s6_bad_characters_option_raises_naming_the_problem(characters, message):
    """Brief: a bad `characters` value raises ValueError naming the problem."""
    with pytest.raises(ValueError, match=message):
        NefertitiGame(num_players=4, characters=characters)


def test_s6_characters_option_of_the_wrong_type_raises_value_error():
    """Brief: a bad `characters` value (not a name nor a list) raises ValueError naming the option."""
    with pytest.raises(ValueError, match="characters"):
        NefertitiGame(num_players=4, characters=5)

