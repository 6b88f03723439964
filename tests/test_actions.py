"""The flat action table and its readable grammar (nefertiti_env.core.actions), and illegal-action errors."""
import numpy as np
import pytest

from conftest import character, kind, new_game, play_random
from nefertiti_env import NUM_ACTIONS, IllegalActionError
from nefertiti_env.core import actions as A


def test_action_table_layout():
    """One flat Discrete space: the blocks tile 0..NUM_ACTIONS-1 in order."""
    assert NUM_ACTIONS == 147
    first = 0
    for start, size, _ in A.BLOCKS:
        assert start == first
        first += size
    assert first == NUM_ACTIONS
    assert A.block_of(A.place(2, 7)) == ("place", 2 * 13 + 7)
    with pytest.raises(ValueError, match="outside"):
        A.block_of(NUM_ACTIONS)


@pytest.mark.parametrize("players", [3, 4])
def test_every_named_action_round_trips(players):
    """action_to_string and string_to_action are inverse for every id with a name (any case)."""
    g = new_game(players)
    names = [g.action_to_string(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS, "every id has its own text"
    named = [a for a in range(NUM_ACTIONS) if "#" not in names[a]]
    for a in named:
        assert g.string_to_action(names[a]) == a
        assert g.string_to_action(f"  {names[a].upper()} ") == a
    unnamed = NUM_ACTIONS - len(named)        # spare character, kind and type ids of this ruleset
    assert unnamed == (16 - len(g.rules.characters)) + (24 - g.rules.num_kinds) + (12 - g.rules.num_types)


def test_documented_grammar_examples():
    """The grammar of the actions module docstring, one example per form."""
    g = new_game(4)
    examples = {
        "place Abou Simbel 7": A.place(2, 7),
        "place gizeh 0": A.place(0, 0),
        "close Louqsor": A.CLOSE + 3,
        "character Thief": A.CHARACTER + character(g, "thief"),
        "character Scribe +2": A.CHARACTER + character(g, "scribe_2"),
        "market Akhet-Aton": A.MARKET + 1,
        "card upper": A.CARD,
        "upper": A.CARD,
        "card 2": A.CARD + 2,
        "lower 3": A.CARD + 3,
        "take half": A.TAKE_HALF,
        "take deben": A.TAKE_DEBEN,
        "kind double_senet": A.KIND + kind(g, "double_senet"),
        "type gold": A.TYPE + g.rules.type_names.index("gold"),
        "target +1": A.TARGET,
        "target +3": A.TARGET + 2,
        "target neutral": A.TARGET + A.NEUTRAL_TARGET,
        "done": A.DONE,
    }
    for text, action in examples.items():
        assert g.string_to_action(text) == action, text


@pytest.mark.parametrize("text, words", [
    ("", "empty"),
    ("place Nowhere 3", "unknown market 'nowhere'"),
    ("place Gizeh 13", "bid value must be 0..12"),
    ("place Gizeh seven", "bid value"),
    ("close Thebes", "unknown market"),
    ("character Jester", "unknown character 'jester'"),
    ("card 12", "card place"),
    ("card left", "card place"),
    ("kind lute", "unknown card kind 'lute'"),
    ("type lute", "unknown gift type 'lute'"),
    ("target +5", "target must be"),
    ("target left", "target must be"),
    ("fly to the moon", "cannot read action"),
])
def test_bad_action_text_names_the_problem(text, words):
    """string_to_action raises a ValueError that quotes the problem."""
    with pytest.raises(ValueError) as info:
        new_game(4).string_to_action(text)
    assert words in str(info.value)


def test_illegal_action_error_names_the_action_and_the_legal_ones():
    """apply() of an illegal action: IllegalActionError (a ValueError) naming it and the legal actions; no change."""
    g = new_game(4, 0)
    before = g.to_json()
    with pytest.raises(IllegalActionError) as info:
        g.apply(A.TAKE_HALF)
    message = str(info.value)
    assert f"action {A.TAKE_HALF} (take half)" in message and "not legal" in message
    assert f"seat {g.current_player}" in message
    for a in g.legal_actions():
        assert f"{a} ({g.action_to_string(a)})" in message
    assert g.to_json() == before
    assert issubclass(IllegalActionError, ValueError)


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 10_000])
def test_out_of_range_action_is_illegal(action):
    """An id outside the table is an IllegalActionError, not a crash."""
    g = new_game(3)
    with pytest.raises(IllegalActionError, match="out of range"):
        g.apply(action)


def test_no_action_is_legal_once_over():
    """After the end, every action is illegal and the message says the game is over."""
    g = new_game(3)
    play_random(g, np.random.default_rng(0))
    assert g.is_over() and not g.legal_actions()
    with pytest.raises(IllegalActionError, match="game over"):
        g.apply(A.DONE)
