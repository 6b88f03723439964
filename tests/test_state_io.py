"""State I/O and determinism: to_json/from_json, record/replay, clone, same seed + actions = same game."""
import json

import numpy as np
import pytest

from conftest import AKHET_ATON, LEFT, play_random
from nefertiti_env import NefertitiGame
from nefertiti_env.core.phases import PH_CHARACTER, PH_HIGH, PH_OTHER


def dice_game(players: int, seed: int) -> NefertitiGame:
    """An advanced-setup game (from `seed` on) whose Akhet-Aton shows the dice stall, so futures roll dice."""
    while True:
        g = NefertitiGame(num_players=players, seed=seed, setup="advanced")
        if g.state.side[AKHET_ATON] == LEFT:
            return g
        seed += 1


def play_both(a: NefertitiGame, b: NefertitiGame, rng: np.random.Generator) -> int:
    """Play `a` to the end with random actions, mirroring each on `b`; the states must stay identical."""
    steps = 0
    while not a.is_over():
        action = play_random(a, rng, steps=1)[0]
        b.apply(action)
        assert b.to_json() == a.to_json(), f"states differ after {steps} mirrored decisions"
        steps += 1
    assert b.is_over() and b.scores().tolist() == a.scores().tolist()
    return steps


def dice_rolled(g: NefertitiGame) -> bool:
    """Whether a placement on the dice stall happened (it draws from the game's generator)."""
    return any(g.action_to_string(a).startswith("place Akhet-Aton") for a in g.history)


@pytest.mark.parametrize("players, seed", [(3, 0), (4, 10)])
def test_json_round_trip_mid_game_and_identical_futures(players, seed):
    """to_json/from_json keeps the complete state (generator included): both copies continue identically."""
    g = dice_game(players, seed)
    play_random(g, np.random.default_rng(seed), steps=40)
    text = g.to_json()
    restored = NefertitiGame.from_json(text)
    assert restored.to_json() == text
    assert np.array_equal(restored.legal_action_mask(), g.legal_action_mask())
    assert restored.current_player == g.current_player
    play_both(g, restored, np.random.default_rng(seed + 1))
    assert dice_rolled(g)


def test_json_round_trip_in_every_phase():
    """Every state of a game, resolutions and characters included, survives a JSON round trip."""
    phases = set()
    for seed in range(6):
        g = dice_game(4, 100 + 7 * seed)
        rng = np.random.default_rng(seed)
        while not g.is_over():
            text = g.to_json()
            copy = NefertitiGame.from_json(text)
            assert copy.to_json() == text
            assert np.array_equal(copy.legal_action_mask(), g.legal_action_mask())
            phases.add(g.phase)
            play_random(g, rng, steps=1)
        assert NefertitiGame.from_json(g.to_json()).is_over()
    assert {PH_HIGH, PH_OTHER} <= phases


def test_json_state_through_a_file(tmp_path):
    """A position saved to a file sets up the same game."""
    g = dice_game(3, 50)
    play_random(g, np.random.default_rng(3), steps=25)
    path = tmp_path / "position.json"
    path.write_text(g.to_json())
    assert NefertitiGame.from_json(path.read_text()).to_json() == g.to_json()


def test_from_json_rejects_other_text():
    """from_json names the problem when the text is not a saved game."""
    with pytest.raises(ValueError, match="nefertiti-state-2"):
        NefertitiGame.from_json(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError):
        NefertitiGame.from_json("not json at all")


@pytest.mark.parametrize("players", [3, 4])
def test_record_replays_to_an_identical_state(players):
    """A game record (seed, options, actions) replays to the identical state, mid-game and at the end."""
    g = dice_game(players, 20)
    rng = np.random.default_rng(players)
    play_random(g, rng, steps=30)
    record = json.loads(json.dumps(g.record()))
    assert NefertitiGame.replay(record).to_json() == g.to_json()
    play_random(g, rng)
    replayed = NefertitiGame.replay(json.loads(json.dumps(g.record())))
    assert replayed.to_json() == g.to_json()
    assert replayed.is_over() and dice_rolled(g)


def test_clone_is_independent():
    """Mutating a clone (decisions and arrays) leaves the original unchanged."""
    g = dice_game(4, 30)
    play_random(g, np.random.default_rng(0), steps=30)
    before = g.to_json()
    c = g.clone()
    play_random(c, np.random.default_rng(1), steps=60)
    c.state.money[:] = 99
    c.state.owned[0, 0] += 5
    c.state.occ[:] = 0
    c.deck[:] = 0
    c.history.append(-1)
    c.rng_state = np.random.PCG64(5).state
    assert g.to_json() == before


def test_deepcopy_is_a_clone_and_pickling_is_refused():
    """copy.deepcopy gives an independent game whose fields are still views of its own state; a game is
    never pickled (nothing the project loads may run code): the error names the safe formats."""
    import copy
    import pickle

    g = dice_game(4, 30)
    play_random(g, np.random.default_rng(0), steps=30)
    c = copy.deepcopy(g)
    assert c.to_json() == g.to_json() and c.legal_actions() == g.legal_actions()
    assert np.array_equal(c.legal_action_mask(), g.legal_action_mask())
    c.apply(c.legal_actions()[0])
    before = json.loads(g.to_json())["state"]["money"]
    c.state.money[0] += 7                                 # a view of the copy's state: its saved state shows it
    assert json.loads(c.to_json())["state"]["money"][0] == c.state.money[0] and c.state.money[0] != g.state.money[0]
    assert json.loads(g.to_json())["state"]["money"] == before and len(c.history) == len(g.history) + 1
    with pytest.raises(TypeError, match="to_json"):
        pickle.dumps(g)


def test_clone_continues_identically():
    """A clone plays on exactly like its original, dice included; so does a clone of a clone."""
    g = dice_game(4, 40)
    play_random(g, np.random.default_rng(2), steps=20)
    c = g.clone()
    assert c.to_json() == g.to_json()
    play_both(g, c, np.random.default_rng(5))
    assert dice_rolled(g)
    h = dice_game(3, 60)
    play_random(h, np.random.default_rng(2), steps=10)
    play_both(h, h.clone().clone(), np.random.default_rng(6))


def test_clone_mid_resolution():
    """A clone taken during a resolution or a character choice continues identically."""
    g = dice_game(4, 70)
    rng = np.random.default_rng(9)
    seen = set()
    while not g.is_over():
        if g.phase in (PH_HIGH, PH_OTHER, PH_CHARACTER) and g.phase not in seen:
            seen.add(g.phase)
            play_both(g.clone(), g.clone(), np.random.default_rng(len(seen)))
        play_random(g, rng, steps=1)
    assert {PH_HIGH, PH_OTHER} <= seen


@pytest.mark.parametrize("players", [3, 4])
def test_same_seed_and_actions_give_the_same_game(players):
    """Same seed + same actions = the same game, bit for bit (deck, first player, dice)."""
    a = NefertitiGame(num_players=players, seed=123, setup="advanced")
    b = NefertitiGame(num_players=players, seed=123, setup="advanced")
    assert a.to_json() == b.to_json()
    play_both(a, b, np.random.default_rng(7))
    other = NefertitiGame(num_players=players, seed=124, setup="advanced")
    assert not np.array_equal(other.deck, NefertitiGame(num_players=players, seed=123, setup="advanced").deck)


def test_state_arrays_are_views_of_the_state_array_in_every_copy():
    """The array fields of engine/layout.py stay views of their own game's `S` after setup, clone and
    from_json, so the kernels and the observation (which read `S`) see every change made through them."""
    from nefertiti_env.core.engine.layout import STATE_FIELDS
    from nefertiti_env.encoding import observe
    g = NefertitiGame(num_players=4, seed=12)
    play_random(g, np.random.default_rng(3), steps=30)
    copies = [g, g.clone(), NefertitiGame.from_json(g.to_json())]
    for game in copies:
        for name, shape, what, _ in STATE_FIELDS:
            if what != "scalar":
                assert np.shares_memory(getattr(game.state, name), game.S), name
        assert all(not np.shares_memory(other.S, game.S) for other in copies if other is not game)
    clone = copies[1]
    before = observe(g, 0)
    clone.state.money[0] += 7
    assert g.state.money[0] + 7 == clone.state.money[0] and np.array_equal(observe(g, 0), before)
    assert not np.array_equal(observe(clone, 0), before)
