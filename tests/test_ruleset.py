"""The ruleset file (docs/rules.md (introduction), §1, §3, §5, §6 data): loading, and every validation error.

Invalid rulesets are modified copies of the default TOML, built as dicts (tomllib) or
written as files; `RulesetError.problems` must name each problem's key with a reason.
"""
import copy
import tomllib

import pytest

from conftest import give, refresh
from nefertiti_env import NefertitiGame, RulesetError, load_ruleset
from nefertiti_env.core.limits import COIN, EXTRA, MAX_DECK, NO_SYMBOL, SINGLE, SYMBOL_NAMES
from nefertiti_env.core.ruleset import DEFAULT_RULESET, MAX_COUNT, deck_counts

DEFAULT_TEXT = DEFAULT_RULESET.read_text(encoding="utf-8")
DEFAULT = tomllib.loads(DEFAULT_TEXT)


def modified(*edits):
    """A deep copy of the default ruleset dict with each edit (a function of the dict) applied."""
    data = copy.deepcopy(DEFAULT)
    for edit in edits:
        edit(data)
    return data


def problems_of(data) -> list[tuple[str, str]]:
    with pytest.raises(RulesetError) as info:
        load_ruleset(data)
    return info.value.problems


def setter(*path_and_value):
    """Edit that sets data[p0][p1]...[pn] = value."""
    *path, last, value = path_and_value

    def edit(data):
        for key in path:
            data = data[key]
        data[last] = value
    return edit


def deleter(*path):
    *path, last = path

    def edit(data):
        for key in path:
            data = data[key]
        del data[last]
    return edit


ABOU_RIGHT = ("markets", 2, "right")
GIZEH_LEFT = ("markets", 0, "left")

# (edit, key the problem is reported under, words of the reason)
SINGLE_PROBLEMS = {
    "unknown closing kind": (setter(*GIZEH_LEFT, "closing", {"kind": "zigzag"}), "markets[0].left.closing",
                             "unknown closing kind 'zigzag'"),
    "closing kind missing": (deleter(*ABOU_RIGHT, "closing", "kind"), "markets[2].right.closing.kind", "missing"),
    "closing parameter missing": (deleter(*ABOU_RIGHT, "closing", "total"), "markets[2].right.closing",
                                  "needs parameter 'total'"),
    "closing parameter type": (setter(*ABOU_RIGHT, "closing", "total", "17"), "markets[2].right.closing",
                               "'total' must be int"),
    "closing parameter negative": (setter(*ABOU_RIGHT, "closing", "total", -1), "markets[2].right.closing",
                                   "'total' must be 0..100, got -1"),
    "closing parameter too large": (setter("markets", 1, "left", "closing", "dice", 10**9), "markets[1].left.closing",
                                    "'dice' must be 0..8"),
    "closing parameter below its minimum": (setter("markets", 1, "right", "closing", "length", 0),
                                           "markets[1].right.closing", "'length' must be at least 1"),
    "unknown key in a card": (setter("cards", "harp", "colour", "gold"), "cards.harp.colour", "unknown key"),
    "unknown key in a stall": (setter(*ABOU_RIGHT, "shape", "row"), "markets[2].right.shape", "unknown key"),
    "closing parameter unknown": (setter(*ABOU_RIGHT, "closing", "colours", 3), "markets[2].right.closing",
                                  "has no parameter 'colours'"),
    "closing square not on the stall": (setter("markets", 3, "right", "closing", "square", 11),
                                        "markets[3].right.closing", "closing square 11 is not a square"),
    "diagonal needs a square grid": (setter("markets", 2, "left", "squares", [["1", "6", "11"], ["4c", "7", "2"]]),
                                     "markets[2].left.closing", "square grid"),
    "duplicate bid value": (setter(*ABOU_RIGHT, "squares", [["0", "1", "1", "3c"]]), "markets[2].right.squares[0][2]",
                            "duplicate bid value 1"),
    "unknown symbol": (setter(*ABOU_RIGHT, "squares", [["0", "1", "2", "3z"]]), "markets[2].right.squares[0][3]",
                       "unknown symbol 'z'"),
    "square without a value": (setter(*ABOU_RIGHT, "squares", [["0", "c"]]), "markets[2].right.squares[0][1]",
                               "must start with its bid value"),
    "bid value out of range": (setter(*ABOU_RIGHT, "squares", [["0", "13"]]), "markets[2].right.squares[0][1]",
                               "bid value 13 outside 0..12"),
    "square not a string": (setter(*ABOU_RIGHT, "squares", [["0", 7]]), "markets[2].right.squares[0][1]",
                            "must be a string"),
    "squares not rows": (setter(*ABOU_RIGHT, "squares", ["0", "1"]), "markets[2].right.squares",
                         "non-empty list of non-empty rows"),
    "stall missing": (deleter("markets", 1, "left"), "markets[1].left", "missing stall table"),
    "beginner side": (setter("markets", 0, "beginner", "up"), "markets[0].beginner", "'left' or 'right'"),
    "market name reserved": (setter("markets", 0, "name", "Memphis"), "markets[0].name", "reserved"),
    "market name twice": (setter("markets", 0, "name", "Louqsor"), "markets[3].name", "used twice"),
    "three markets": (lambda d: d["markets"].pop(), "markets", "exactly 4 markets, got 3"),
    "two markets start closed": (setter("markets", 0, "start_closed", True), "markets",
                                 "exactly one market must have start_closed"),
    "start_closed type": (setter("markets", 3, "start_closed", "yes"), "markets[3].start_closed", "must be bool"),
    "name type": (setter("name", 5), "name", "must be str, got int 5"),
    "setup value type": (setter("setup", "reserve_start", 1.5), "setup.reserve_start", "must be int, got float"),
    "setup value missing": (deleter("setup", "seals"), "setup.seals", "missing"),
    "setup value negative": (setter("setup", "seals", -2), "setup.seals", "must be 0..100, got -2"),
    "setup value beyond int64": (setter("setup", "reserve_start", 2**70), "setup.reserve_start", "must be 0..1000"),
    "setup bool type": (setter("setup", "close_when_full", 1), "setup.close_when_full", "must be bool"),
    "cards per market": (setter("setup", "cards_per_market", 5), "setup.cards_per_market", "1..4"),
    "akhenaton among last": (setter("setup", "akhenaton_among_last", 0), "setup.akhenaton_among_last",
                             "at least 1"),
    "gift values length": (setter("gift_types", "harp", "values", [9, 7]), "gift_types.harp.values",
                           "three integers 0..1000"),
    "gift values beyond int64": (setter("gift_types", "harp", "values", [2**64, 7, 5]), "gift_types.harp.values",
                                 "three integers 0..1000"),
    "card count too large": (setter("cards", "chair", "count", 101), "cards.chair.count", "must be 0..100, got 101"),
    "gift values type": (setter("gift_types", "harp", "values", "9 7 5"), "gift_types.harp.values",
                         "must be list"),
    "gift values missing": (setter("gift_types", "harp", {}), "gift_types.harp.values", "missing"),
    "card count missing": (deleter("cards", "chair", "count"), "cards.chair.count", "missing"),
    "card count type": (setter("cards", "chair", "count", True), "cards.chair.count", "must be int"),
    "card items zero": (setter("cards", "double_senet", "items", 0), "cards.double_senet.items", "at least 1"),
    "card items type": (setter("cards", "double_senet", "items", "2"), "cards.double_senet.items", "must be int"),
    "card of unknown gift type": (setter("cards", "harp", "type", "lute"), "cards.harp.type",
                                  "unknown gift type 'lute'"),
    "card module": (setter("cards", "harp", "module", "nile"), "cards.harp.module", "unknown module 'nile'"),
    "unknown card kind removed": (setter("players", "3", "remove_cards", ["lute"]), "players.3.remove_cards",
                                  "unknown card kind 'lute'"),
    "unknown card kind added": (setter("players", "5", "add_cards", {"lute": 2}), "players.5.add_cards",
                                "unknown card kind 'lute'"),
    "unknown card kind replaced": (setter("memphis", "replaces", {"lute": 1}), "memphis.replaces",
                                   "unknown card kind 'lute'"),
    "replaces more than the deck": (setter("memphis", "replaces", {"gold": 9}), "memphis.replaces.gold",
                                    "replaces 9 cards but the deck has only 5"),
    "memphis squares": (setter("memphis", "squares", [["0", "0"]]), "memphis.squares[0][1]", "duplicate bid value"),
    "unknown power": (setter("characters", "thief", "power", "teleport"), "characters.thief.power",
                      "unknown power 'teleport'"),
    "power parameter missing": (deleter("characters", "scribe_2", "bonus"), "characters.scribe_2",
                                "needs parameter 'bonus'"),
    "power parameter type": (setter("characters", "vizier", "points_per_type", "2"),
                             "characters.vizier.points_per_type", "integer 0..1000"),
    "power parameter beyond int64": (setter("characters", "head_priest", "servants", 2**63),
                                     "characters.head_priest.servants", "integer 0..1000"),
    "rank bonus beyond int64": (setter("characters", "priest_of_amon", "rank_bonus", [0, 6, 9, 12, -2**70]),
                                "characters.priest_of_amon.rank_bonus", "integers -1000..1000"),
    "rank bonus empty": (setter("characters", "priest_of_amon", "rank_bonus", []),
                         "characters.priest_of_amon.rank_bonus", "must be a non-empty list"),
    "power parameter unknown": (setter("characters", "thief", "speed", 2), "characters.thief.speed",
                                "has no parameter 'speed'"),
    "character set": (setter("characters", "thief", "set", "promo"), "characters.thief.set", "'base' or 'expansion'"),
    "character count negative": (setter("characters", "vizier", "count", -1), "characters.vizier.count",
                                 "must be 0..10, got -1"),
    "character names unique": (setter("characters", "thief", "name", "Vizier"), "characters", "unique"),
    "unknown character removed": (setter("players", "3", "remove_characters", {"jester": 1}),
                                  "players.3.remove_characters", "unknown character 'jester'"),
    "removes more characters than exist": (setter("players", "3", "remove_characters", {"vizier": 2}),
                                           "players.3.remove_characters.vizier", "removes 2 cards but there are only 1"),
    "unknown character in scenario": (setter("scenarios", "curse_of_amon", ["jester"]), "scenarios.curse_of_amon",
                                      "unknown character 'jester'"),
    "scenario uses a card twice": (setter("scenarios", "curse_of_amon", ["vizier", "vizier"]),
                                   "scenarios.curse_of_amon", "uses 'vizier' 2 times but there are only 1"),
    "scenario not a list": (setter("scenarios", "curse_of_amon", "vizier"), "scenarios.curse_of_amon",
                            "must be a list"),
    "player count missing": (deleter("players", "4"), "players.4", "missing"),
    "money per seat": (setter("players", "4", "money", [8, 9, 9]), "players.4.money", "must list 4"),
    "money negative": (setter("players", "3", "money", [9, -10, 10]), "players.3.money", "integers 0..1000"),
    "money beyond int64": (setter("players", "3", "money", [9, 2**64, 10]), "players.3.money", "integers 0..1000"),
    "servants too many": (setter("players", "4", "servants", 1000), "players.4.servants", "must be 0..20, got 1000"),
    "tutors too many": (setter("players", "2", "tutors", 21), "players.2.tutors", "must be 0..20, got 21"),
    "added cards beyond int64": (setter("players", "5", "add_cards", {"harp": 2**64}), "players.5.add_cards.harp",
                                 "integer 0..100"),
    "replaced cards beyond int64": (setter("memphis", "replaces", {"gold": 2**64}), "memphis.replaces.gold",
                                    "integer 0..100"),
    "servants": (setter("players", "4", "servants", 0), "players.4.servants", "at least 1"),
    "memphis mode": (setter("players", "4", "memphis", "sometimes"), "players.4.memphis", "'optional' or 'mandatory'"),
    "deck too small": (setter("setup", "akhenaton_among_last", 60), "players.4",
                       "too small to fill three markets"),
}


@pytest.mark.parametrize("case", sorted(SINGLE_PROBLEMS))
def test_ruleset_error_names_key_and_reason(case):
    """Each validation error names its key and reason (RulesetError is a ValueError)."""
    edit, key, reason = SINGLE_PROBLEMS[case]
    problems = problems_of(modified(edit))
    assert any(k == key and reason in why for k, why in problems), problems
    assert issubclass(RulesetError, ValueError)


def test_ruleset_reports_every_problem_at_once():
    """Several mistakes in one ruleset: one RulesetError lists each with its key."""
    cases = ["unknown closing kind", "duplicate bid value", "memphis squares", "setup value type", "card count missing",
             "card of unknown gift type", "unknown power", "unknown character removed", "money per seat",
             "character set", "beginner side", "scenario uses a card twice"]
    data = modified(*(SINGLE_PROBLEMS[c][0] for c in cases))
    with pytest.raises(RulesetError) as info:
        load_ruleset(data)
    keys = [k for k, _ in info.value.problems]
    for case in cases:
        assert SINGLE_PROBLEMS[case][1] in keys, case
        assert SINGLE_PROBLEMS[case][1] in str(info.value)
    assert "<dict>" in str(info.value) and f"({len(keys)} problem(s))" in str(info.value)


def test_ruleset_reports_counts_with_other_problems():
    """Counts that do not add up are reported together with the other problems."""
    keys = [k for k, _ in problems_of(modified(SINGLE_PROBLEMS["deck too small"][0],
                                               SINGLE_PROBLEMS["unknown closing kind"][0]))]
    assert "markets[0].left.closing" in keys and "players.4" in keys


def test_seals_expansion_smaller_than_seals():
    """Seal counts must add up: the expansion's seals include the base game's."""
    problems = problems_of(modified(setter("setup", "seals_expansion", 5)))
    assert ("setup.seals_expansion", "must not be smaller than setup.seals") in problems


def test_each_problem_is_listed_once():
    """A single mistake is listed once."""
    assert len(problems_of(modified(setter("setup", "seals_expansion", 5)))) == 1


def test_negative_character_removal_is_an_error():
    """players.N.remove_characters counts must be non-negative."""
    problems = problems_of(modified(setter("players", "3", "remove_characters", {"scribe_2": -1})))
    assert any(k.startswith("players.3.remove_characters") for k, _ in problems)


def test_dice_without_sides_is_an_error():
    """A dice_match stall needs dice with at least one side."""
    problems_of(modified(setter("markets", 1, "left", "closing", "sides", 0)))


def test_unknown_key_is_an_error():
    """A misspelt key is reported rather than silently ignored."""
    problems = problems_of(modified(setter("setup", "close_when_ful", False)))
    assert any("close_when_ful" in k for k, _ in problems)


def test_default_ruleset_loads_and_says_it_is_reconstructed():
    """docs/rules.md (introduction): the default ruleset is the reconstruction and says so."""
    rs = load_ruleset()
    assert rs.reconstructed and rs.name == "default"
    assert "RECONSTRUCTION" in DEFAULT_TEXT
    assert load_ruleset(copy.deepcopy(DEFAULT)).kind_names == rs.kind_names


def test_ruleset_file_errors_name_the_file(tmp_path):
    """A modified ruleset file: the error names the file, every key and reason."""
    text = DEFAULT_TEXT.replace('closing = { kind = "bid_sum", total = 17 }', 'closing = { kind = "bid_summ", total = 17 }')
    text = text.replace('senet     = { values = [6, 5, 4] }', 'senet     = { values = [6, 5] }')
    assert text.count("bid_summ") == 1
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesetError) as info:
        NefertitiGame(num_players=4, ruleset=str(path))
    assert info.value.source == str(path) and str(path) in str(info.value)
    keys = [k for k, _ in info.value.problems]
    assert "markets[2].right.closing" in keys and "gift_types.senet.values" in keys


def test_ruleset_file_that_is_not_toml(tmp_path):
    """A file that is not TOML is reported as such."""
    path = tmp_path / "notes.toml"
    path.write_text("this = is [not toml\n", encoding="utf-8")
    with pytest.raises(RulesetError, match="not valid TOML") as info:
        load_ruleset(str(path))
    assert info.value.problems[0][0] == "<file>"


def test_missing_ruleset_file(tmp_path):
    """A missing file is reported with its path."""
    path = tmp_path / "nowhere.toml"
    with pytest.raises(RulesetError, match="no such file") as info:
        load_ruleset(path)
    assert str(path) in str(info.value)


def test_user_ruleset_file_changes_gift_values_and_scores(tmp_path):
    """docs/rules.md: a user corrects a value in their own file; the game scores with it."""
    old = "gold      = { values = [14, 10, 7]"
    assert old in DEFAULT_TEXT
    path = tmp_path / "my_rules.toml"
    path.write_text(DEFAULT_TEXT.replace(old, "gold      = { values = [20, 12, 7]"), encoding="utf-8")
    scores = []
    for ruleset in ("default", str(path)):
        g = NefertitiGame(num_players=4, seed=1, ruleset=ruleset)
        g.state.money[:] = 0
        refresh(g)
        give(g, 0, gold=2)
        give(g, 1, gold=1)
        scores.append(g.scores().tolist())
    assert scores == [[20, 10, 0, 0], [24, 12, 0, 0]]
    g = NefertitiGame(num_players=4, seed=1, ruleset=str(path))
    assert g.record()["ruleset"] == {"path": str(path), "sha256": load_ruleset(path).sha256}
    g.apply(g.legal_actions()[0])
    assert NefertitiGame.replay(g.record()).to_json() == g.to_json()


def test_square_letters_load_as_the_one_set_of_symbol_codes():
    """A stall's c/s/x letters become the codes the rules, bots and views compare with (core/limits.py)."""
    rs = load_ruleset(modified(setter(*ABOU_RIGHT, "squares", [["0", "1c", "2s", "3x"]])))
    codes = [int(rs.square_symbol[2, 1, v]) for v in range(4)]
    assert codes == [NO_SYMBOL, COIN, SINGLE, EXTRA]
    assert [SYMBOL_NAMES[c] for c in codes] == ["", "coin", "single", "extra"]


def test_deck_beyond_the_engines_card_places_is_an_error():
    """docs/rules.md (introduction, "Where the numbers live"): the compiled engine holds a deck of at most
    MAX_DECK (128) cards at any option set; a ruleset whose deck is larger is refused, naming each player
    count it concerns."""
    assert MAX_DECK == 128
    data = modified(*(setter("cards", kind, "count", 100) for kind in ("chair", "harp", "mirror")))
    reasons = dict(problems_of(data))
    assert all(f"players.{n}" in reasons for n in range(2, 6))
    assert f"larger than the engine's {MAX_DECK} card places" in reasons["players.4"]
    rs = load_ruleset(modified(*(setter("cards", kind, "count", 25) for kind in ("chair", "harp", "mirror"))))
    assert max(int(deck_counts(rs, n, True).sum()) for n in range(2, 6)) + 1 <= MAX_DECK
    with pytest.raises(RulesetError, match=r"players\.5.*larger than the engine's 128 card places"):
        load_ruleset(modified(setter("cards", "papyrus", "per_player", 16)))    # 5 x 16 + 50 + 1 at 5 players


def test_a_kinds_dealt_cards_beyond_max_count_are_an_error(tmp_path):
    """docs/rules.md §1 and "Where the numbers live": a kind's cards dealt at any option set (its `count`,
    `per_player` times the players, the cards a player count adds) are at most MAX_COUNT (100), since the
    engine counts a kind's cards held or discarded in a byte; the error names the file and the kind."""
    assert MAX_COUNT == 100
    at_most = dict(problems_of(modified(setter("cards", "papyrus", "per_player", 20))))    # 100 at 5 players
    assert "cards.papyrus" not in at_most and "players.5" in at_most                   # (a deck too large, though)
    reasons = dict(problems_of(modified(setter("cards", "papyrus", "per_player", 21))))
    assert "with 5 players and Memphis the deck holds 105 of these cards, more than 100" in reasons["cards.papyrus"]
    path = tmp_path / "many_papyrus.toml"
    path.write_text(DEFAULT_RULESET.read_text().replace("per_player = 1,", "per_player = 21,"))
    with pytest.raises(RulesetError, match=r"many_papyrus\.toml(.|\n)*cards\.papyrus(.|\n)*more than 100"):
        load_ruleset(str(path))


def _never_full(data, closing, market=0):
    data["setup"]["close_when_full"] = False
    for side in ("left", "right"):
        data["markets"][market][side]["closing"] = closing


@pytest.mark.parametrize("closing", [{"kind": "never"}, {"kind": "bid_sum", "total": 100},
                                     {"kind": "count", "count": 100}, {"kind": "line", "length": 9}])
def test_a_market_that_can_never_close_is_refused_at_load(closing):
    """Without close_when_full, a market neither of whose stalls' conditions can hold on its squares stays
    open for ever: no game could end (§7), so the ruleset is refused naming the market. One such stall
    is a rule option (tests/test_rules_closing.py::test_s3_close_when_full)."""
    problems = problems_of(modified(lambda d: _never_full(d, closing)))
    assert any(k == "markets[0].closing" and "would never close" in why for k, why in problems), problems
    one_side = modified(lambda d: _never_full(d, closing),
                        lambda d: d["markets"][0].update(left=copy.deepcopy(DEFAULT["markets"][0]["left"])))
    assert load_ruleset(one_side).markets


def test_every_packaged_stall_can_close_without_close_when_full():
    data = modified(lambda d: d["setup"].update(close_when_full=False))
    assert load_ruleset(data).markets
