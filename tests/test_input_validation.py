"""Untrusted inputs are checked. `apply` takes integer ids only, `from_json` lists every
problem of a saved state at once (shape, keys, types, ranges, conservation, phase context), and a
replay names the index of the action it failed at."""
import json

import numpy as np
import pytest

from conftest import play_random
from nefertiti_env import IllegalActionError, NefertitiGame, StateError
from nefertiti_env.core.phases import PH_HIGH, PH_OTHER, PH_TURN


def mid_game(seed: int = 5, steps: int = 40, **options) -> NefertitiGame:
    g = NefertitiGame(num_players=4, seed=seed, **options)
    play_random(g, np.random.default_rng(seed), steps=steps)
    return g


def edited(g: NefertitiGame, edit) -> str:
    """g's saved state with `edit` (a function of the state dict) applied."""
    data = json.loads(g.to_json())
    edit(data["state"])
    return json.dumps(data)


def problems(text: str) -> list[str]:
    with pytest.raises(StateError) as info:
        NefertitiGame.from_json(text)
    assert isinstance(info.value, ValueError)
    return info.value.problems


@pytest.mark.parametrize("action", [3.9, 3.0, "3", True, np.bool_(True), None, [3]])
def test_apply_takes_integers_only(action):
    """A float, a string or a bool is never silently read as an action id."""
    g = NefertitiGame(num_players=4, seed=1)
    before = g.to_json()
    with pytest.raises(TypeError, match="an action is an integer id"):
        g.apply(action)
    assert g.to_json() == before


def test_apply_takes_python_and_numpy_integers():
    for kind in (int, np.int64, np.int32, np.uint8):
        g = NefertitiGame(num_players=4, seed=1)
        action = g.legal_actions()[0]
        g.apply(kind(action))
        assert g.history == [action] and type(g.history[0]) is int


def test_replay_names_the_failing_action_index():
    g = mid_game()
    record = g.record()
    bad = next(a for a in range(200) if a not in NefertitiGame.replay({**record, "actions": record["actions"][:17]})
               .legal_actions())
    record["actions"] = record["actions"][:17] + [bad] + record["actions"][17:]
    with pytest.raises(IllegalActionError, match=rf"at action index 17 of {len(record['actions'])}: action {bad} \("):
        NefertitiGame.replay(record)
    record["actions"][17] = 2.5
    with pytest.raises(TypeError, match="at action index 17"):
        NefertitiGame.replay(record)


@pytest.mark.parametrize("text, words", [
    ("[1, 2]", "a JSON object"),
    ("not json", "not JSON text"),
    ('{"format": "something else"}', "nefertiti-state-2"),
    ('{"format": "nefertiti-state-2", "ruleset": "default", "state": 3}', "'state' must be a JSON object"),
    ("[" * 100_000, "not JSON text"),
])
def test_from_json_rejects_text_that_is_not_a_saved_state(text, words):
    assert any(words in p for p in problems(text))


EDITS = {
    "negative money": (lambda s: s["money"].__setitem__(0, -3), "money: negative value -3"),
    "money created": (lambda s: s["money"].__setitem__(0, s["money"][0] + 1), "Deben: "),
    "a duplicated deck card": (lambda s: s["deck"].__setitem__(-5, s["deck"][-6]), "cards: "),
    "a second Akhenaton card": (lambda s: s["deck"].__setitem__(-8, max(s["deck"])), "exactly one Akhenaton"),
    "phase 99": (lambda s: s.update(phase=99), "phase: must be 0..10, got 99"),
    "an unknown key shadowing a method": (lambda s: s.update(legal_actions=[1]), "state.legal_actions: unknown key"),
    "a missing key": (lambda s: s.pop("deck_pos"), "state.deck_pos: missing"),
    "a wrong type": (lambda s: s.update(deck_pos="12"), "state.deck_pos: must be an integer"),
    "a bool for an integer": (lambda s: s.update(actor=True), "state.actor: must be an integer"),
    "an array of the wrong shape": (lambda s: s.update(money=[1, 2]), "state.money: shape (2,), expected (6,)"),
    "an integer beyond int64": (lambda s: s["money"].__setitem__(1, 2**70), "state.money: must hold integers"),
    "a seal created": (lambda s: s.update(seal_supply=s["seal_supply"] + 1), "seals: "),
    "a servant lost": (lambda s: s["servants"].__setitem__(2, s["servants"][2] + 1), "servants: "),
    "an actor beyond the seats": (lambda s: s.update(actor=4), "actor: 4 does not fit"),
    "a resolution outside a resolution phase": (lambda s: s.update(res_market=2), "res_market 2"),
    "a character outside the character phase": (lambda s: s.update(char_index=3), "char_index, char_sel"),
    "a piece of a seat not playing": (lambda s: s["occ"][0].__setitem__(0, 4), "occ: pieces must be"),
    "a player count other than the options'": (lambda s: s.update(num_players=5), "num_players: must be 4"),
    "a character card created": (lambda s: s["char_avail"].__setitem__(0, 3), "char_avail + char_played"),
}


@pytest.mark.parametrize("case", sorted(EDITS))
def test_from_json_names_each_problem(case):
    edit, words = EDITS[case]
    g = mid_game()
    while g.phase != PH_TURN:
        play_random(g, np.random.default_rng(0), steps=1)
    found = problems(edited(g, edit))
    assert any(words in p for p in found), found


def test_from_json_lists_every_problem_at_once():
    """Several mistakes of one stage are reported together, each named."""
    g = mid_game()
    text = edited(g, lambda s: s.update(legal_actions=[1], deck_pos="x", money=[1], history=[1.5]))
    found = problems(text)
    assert len(found) == 4 and "(4 problem(s))" in str(pytest.raises(StateError, NefertitiGame.from_json, text).value)
    text = edited(g, lambda s: (s["money"].__setitem__(0, -3), s.update(phase=99, seal_supply=99)))
    found = problems(text)
    assert any("money: negative" in p for p in found) and any("phase" in p for p in found) \
        and any("seals" in p for p in found)


def test_valid_states_of_every_phase_load():
    """The checks accept every real state (resolutions and characters included) unchanged."""
    phases = set()
    for seed in range(3):
        g = NefertitiGame(num_players=2 + seed, seed=seed, memphis=True, characters="expansion", setup="advanced")
        rng = np.random.default_rng(seed)
        while not g.is_over():
            text = g.to_json()
            assert NefertitiGame.from_json(text).to_json() == text
            phases.add(g.phase)
            play_random(g, rng, steps=1)
        assert NefertitiGame.from_json(g.to_json()).is_over()
    assert {PH_HIGH, PH_OTHER} <= phases


def _in_phase(phase: int, seed: int = 0) -> NefertitiGame:
    rng = np.random.default_rng(seed)
    g = NefertitiGame(num_players=4, seed=seed)
    while g.phase != phase:
        play_random(g, rng, steps=1)
    return g


@pytest.mark.parametrize("value", [[10**12], [4000], [-1], [13], [5, 7]])
def test_from_json_holds_the_resolution_order_to_the_squares_of_the_market(value):
    """The engine indexes the board by res_order[res_pos] unchecked: a value past the board once made the
    next apply write outside the state (a segfault, or a heap overwritten)."""
    g = _in_phase(PH_HIGH)
    assert any("res_order" in p for p in problems(edited(g, lambda s: s.update(res_order=value))))


@pytest.mark.parametrize("pos", [-1, 13, 10**9])
def test_from_json_holds_res_pos_to_the_order(pos):
    g = _in_phase(PH_HIGH)
    assert any("res_pos" in p for p in problems(edited(g, lambda s: s.update(res_pos=pos))))


def test_from_json_refuses_sums_that_would_wrap_around():
    """2**62 more Deben for each of four seats wraps an int64 sum back to the right total."""
    g = mid_game()
    text = edited(g, lambda s: s.update(money=[v + 2**62 if i < 4 else v for i, v in enumerate(s["money"])]))
    assert any("money" in p and "within" in p for p in problems(text))


@pytest.mark.parametrize("field, value, words", [
    ("money", [40_000, 0, 0, 0, 0, 0], "state.money: must hold integers within -32768..32767 (the field's width)"),
    ("seal_supply", 128, "state.seal_supply: must be an integer within -128..127 (the field's width), got 128"),
    ("deck_pos", -40_000, "state.deck_pos: must be an integer within -32768..32767"),
    ("points", [2**31, 0, 0, 0, 0, 0], "state.points: must hold integers within -2147483648..2147483647"),
    ("pending", [300], "state.pending: pending: entries must be within -128..127 (the field's width)"),
    ("placed", [[9, 12]], "state.placed: placed: entries must be within -128..127"),    # the square 9 * 13 + 12
])
def test_from_json_refuses_a_value_beyond_its_fields_width(field, value, words):
    """docs/engine.md "Checks at the boundary": each field of S has a width (`layout.STATE_FIELDS`); a saved
    value it cannot hold is refused by name, never stored cut short (wrapped around) into the state."""
    found = problems(edited(mid_game(), lambda s: s.update({field: value})))
    assert any(words in p for p in found), found


def test_from_json_holds_a_characters_choices_to_its_step():
    """char_sel entries index markets, places and card kinds: checked per power and step."""
    from nefertiti_env.core.phases import PH_CHARACTER
    for seed in range(40):
        g = NefertitiGame(num_players=4, seed=seed, characters="expansion")
        rng = np.random.default_rng(seed)
        while not g.is_over() and not (g.phase == PH_CHARACTER and g.state.char_sel_n):
            play_random(g, rng, steps=1)
        if not g.is_over():
            break
    assert g.state.char_sel_n
    for sel in ([10**6], [-5], g.state.char_sel[:g.state.char_sel_n].tolist() * 3):
        assert any("char_sel" in p for p in problems(edited(g, lambda s: s.update(char_sel=sel))))


def test_known_cards_and_resample_hidden_take_a_seat_only():
    """-1 (no Oracle seat yet) would be read as the Oracle player's, seeing the whole undrawn deck."""
    g = NefertitiGame(num_players=4, seed=1)
    for seat in (-1, 4, True, 1.0):
        with pytest.raises(ValueError, match="seat must be an integer 0..3"):
            g.known_cards(seat)
    with pytest.raises(ValueError, match="seat must be"):
        g.resample_hidden(-1, np.random.default_rng(0))
