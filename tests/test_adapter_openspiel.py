"""The OpenSpiel game "python_nefertiti": API test, explicit chance, no hidden future in clones, MCTS and ISMCTS."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from conftest import import_extra

pyspiel = import_extra("pyspiel", "openspiel")
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from nefertiti_env.adapters import openspiel  # noqa: E402
from nefertiti_env.encoding import V1_SIZE, observe_v1  # noqa: E402
from nefertiti_env.env.render import board_text  # noqa: E402


def load(**params):
    return pyspiel.load_game("python_nefertiti", {"players": 3, **params})


def play(state, rng, decisions=10**6, stop=lambda s: False):
    """Random play (chance by its odds) until `decisions` more decisions, the end, or `stop(state)`."""
    while not state.is_terminal() and decisions and not stop(state):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            decisions -= 1
    return state


def free_places_are_canonical(state):
    g = state.game
    free = [p for p in range(g.state.deck_pos, len(g.deck)) if p not in state._fixed]
    return (np.diff(g.deck[free]) >= 0).all() and g.rng_state == openspiel._NO_FUTURE


@pytest.mark.parametrize("players", [2, 4])
def test_random_sim_test_passes_with_serialization(players):
    """random_sim_test(serialize=True) round-trips states through serialize_game_and_state along the game."""
    pyspiel.random_sim_test(load(players=players), num_sims=1, serialize=True, verbose=False)


def test_a_deserialized_state_plays_on_as_the_original():
    game, rng = load(), np.random.default_rng(4)
    state = play(game.new_initial_state(), rng, decisions=40)
    copy = game.deserialize_state(state.serialize())
    assert str(copy) == str(state) and copy.history() == state.history() and copy._fixed == state._fixed
    assert all(copy.information_state_string(p) == state.information_state_string(p) for p in range(3))
    assert copy.chance_outcomes() == state.chance_outcomes() if state.is_chance_node() else \
        copy.legal_actions() == state.legal_actions()
    for a, b in zip(play(state, np.random.default_rng(5)).history(), play(copy, np.random.default_rng(5)).history()):
        assert a == b
    assert copy.returns() == state.returns() and copy.is_terminal()
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, copy))
    assert str(again) == str(copy)


def test_tensors_are_the_v1_observation_and_declared():
    game = load()
    kind = game.get_type()
    assert kind.provides_information_state_tensor and kind.provides_observation_tensor
    assert game.information_state_tensor_shape() == game.observation_tensor_shape() == [V1_SIZE]
    state = play(game.new_initial_state(), np.random.default_rng(2), decisions=15)
    for seat in range(3):
        want = observe_v1(state.game, seat)
        np.testing.assert_array_equal(np.array(state.information_state_tensor(seat), np.float32), want)
        np.testing.assert_array_equal(np.array(state.observation_tensor(seat), np.float32), want)
    assert not np.array_equal(state.observation_tensor(0), state.observation_tensor(1))


def test_str_is_the_board_and_the_chance_to_come():
    state = load().new_initial_state()
    assert str(state) == "before setup (chance: one of 1000 seeded setups)"
    state.apply_action(7)
    text = str(state)
    assert text == board_text(state.game) and "Gizeh" in text and len(text.splitlines()) > 15
    play(state, np.random.default_rng(0), stop=lambda s: s.is_chance_node() and s._need[0] == "card")
    assert str(state).splitlines()[-1].startswith(f"chance: the card at deck place {state._need[1]} for ")


def test_impossible_chance_outcomes_are_refused():
    """A die outside its sides, a setup beyond `setups`, a card no undecided place can hold: errors, not states."""
    state = load(setups=10).new_initial_state()
    with pytest.raises(ValueError, match=r"chance outcome 1000000000 is impossible .* possible: 0..9"):
        state.apply_action(10**9)
    assert state.game is None and state.is_chance_node()
    rng = np.random.default_rng(0)
    play(state, rng, stop=lambda s: s.is_chance_node() and s._need[0] == "card")
    impossible = next(k for k in range(state.game.kind_akhenaton + 1) if k not in dict(state.chance_outcomes()))
    with pytest.raises(ValueError, match=f"chance outcome {impossible} is impossible"):
        state.apply_action(impossible)
    game = load(players=4, characters="expansion")
    for seed in range(200):          # a game whose placements roll the dice stall's die
        state = play(game.new_initial_state(), np.random.default_rng(seed),
                     stop=lambda s: s.is_chance_node() and s._need[0] == "roll")
        if not state.is_terminal():
            break
    assert state.is_chance_node(), "no game of 200 rolled the die"
    low, high = state._need[1:]
    assert (low, high) == (1, 7)                                     # a six-sided die: 7 is no outcome
    for die in (0, 7):
        with pytest.raises(ValueError, match=rf"chance outcome {die} is impossible .*\(a die 1\.\.6 for place "):
            state.apply_action(die)
    state.apply_action(low)


def test_openspiel_policy_gradient_trains_on_the_tensors():
    """OpenSpiel's own learner (A2C, its torch policy_gradient) plays and updates through rl_environment."""
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import policy_gradient

    torch.set_num_threads(1)
    torch.manual_seed(0)
    np.random.seed(0)     # the learner samples its actions with numpy's global generator: the same games every run
    env = rl_environment.Environment(load(players=2), seed=0)
    size, actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    assert (size, actions) == (V1_SIZE, 147)
    agents = [policy_gradient.PolicyGradient(p, size, actions, loss_str="a2c", hidden_layers_sizes=[16], batch_size=2)
              for p in range(2)]
    before = [torch.nn.utils.parameters_to_vector(a.policy_logits_network.parameters()).clone() for a in agents]
    for _ in range(4):
        step = env.reset()
        while not step.last():
            player = step.observations["current_player"]
            action = agents[player].step(step).action
            assert action in step.observations["legal_actions"][player]
            step = env.step([action])
        for agent in agents:
            agent.step(step)
        assert sorted(step.rewards) == [-1.0, 1.0]
    for agent, weights in zip(agents, before):
        assert not torch.equal(torch.nn.utils.parameters_to_vector(agent.policy_logits_network.parameters()), weights)


def test_a_draw_is_a_chance_node_with_the_odds_of_the_unseen_gifts():
    state, rng = load().new_initial_state(), np.random.default_rng(0)
    play(state, rng, decisions=1)                        # the setup chance node, then one decision
    draws = 0
    while draws < 5 and not state.is_terminal():
        if state.is_chance_node() and state._need[0] == "card":
            g, pos = state.game, state._need[1]
            odds = dict(state.chance_outcomes())
            assert sum(odds.values()) == pytest.approx(1.0)
            free = [p for p in range(g.state.deck_pos, len(g.deck)) if p not in state._fixed] + [pos]
            gifts = np.bincount(g.deck[free][g.deck[free] != g.kind_akhenaton], minlength=g.kind_akhenaton)
            bottom = pos >= len(g.deck) - g.rules.setup["akhenaton_among_last"]
            for kind, count in enumerate(gifts):
                assert odds.get(kind, 0.0) == pytest.approx(count / gifts.sum() * (1 - odds.get(g.kind_akhenaton, 0)))
            assert (g.kind_akhenaton in odds) == bool(bottom and g.kind_akhenaton in g.deck[free])
            draws += 1
        play(state, rng, decisions=1, stop=lambda s: s.is_chance_node() and s._need[0] == "card")
    assert draws == 5


def test_clones_hold_no_future_and_chance_decides_it():
    """At every decision the undecided deck places are in canonical order and the generator is the
    constant no-future one; two clones given different outcomes for the same draw see different cards."""
    state, rng = load().new_initial_state(), np.random.default_rng(1)
    play(state, rng, decisions=1)
    branched = False
    while not state.is_terminal():
        if not state.is_chance_node():
            assert free_places_are_canonical(state.clone())
        if state.is_chance_node() and state._need[0] == "card" and not branched:
            outcomes = [k for k, _ in state.chance_outcomes()]
            a, b = state.clone(), state.clone()
            a.apply_action(outcomes[0])
            b.apply_action(outcomes[-1])
            assert a.game.deck[state._need[1]] != b.game.deck[state._need[1]]
            branched = True
        play(state, rng, decisions=1)
    assert branched


def test_resampling_redraws_what_the_oracle_saw_for_other_seats_only():
    rng = np.random.default_rng(6)
    state = play(load(players=4, characters="intrigue_at_court").new_initial_state(), rng,
                 stop=lambda s: not s.is_chance_node() and s.game is not None and s.game.state.oracle_seat >= 0)
    g = state.game
    oracle = g.state.oracle_seat
    bottom = slice(g.state.oracle_from, len(g.deck))
    other = (oracle + 1) % 4
    for seat in (oracle, other):
        view = state.information_state_string(seat)
        samples = [state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
                   for _ in range(8)]
        assert all(s.information_state_string(seat) == view for s in samples)
        orders = {tuple(s.game.deck[bottom]) for s in samples}
        assert (len(orders) == 1 and orders.pop() == tuple(g.deck[bottom])) if seat == oracle else len(orders) > 1
    assert "saw" in state.information_state_string(oracle) and "saw" not in state.information_state_string(other)


def test_the_oracle_players_private_choices_are_hidden_from_other_seats():
    """Which bottom place it took and the order it chose: the core's `history_for` decides what is shown."""
    rng = np.random.default_rng(6)
    state = play(load(players=4, characters="intrigue_at_court").new_initial_state(), rng,
                 stop=lambda s: not s.is_chance_node() and s.game is not None and s.game.state.oracle_seat >= 0)
    state = play(state, rng, stop=lambda s: not s.is_chance_node() and s.game.state.char_index < 0)
    oracle = state.game.state.oracle_seat
    hidden = f"{oracle}:?"
    for seat in range(4):
        assert (hidden in state.information_state_string(seat).split("|")) == (seat != oracle)


@pytest.mark.parametrize("bot", ["mcts", "ismcts"])
def test_search_bots_choose_legal_actions(bot):
    game, rs = load(), np.random.RandomState(0)
    state = play(game.new_initial_state(), np.random.default_rng(2), decisions=30)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    searcher = mcts.MCTSBot(game, 2.0, 6, evaluator, random_state=rs) if bot == "mcts" else \
        ismcts.ISMCTSBot(game, evaluator, 2.0, 6, random_state=rs)
    deck = state.game.deck.copy()
    for _ in range(3):
        action = searcher.step(state)
        assert action in state.legal_actions()
        np.testing.assert_array_equal(state.game.deck, deck)        # search never touches the real state
        state.apply_action(action)
        play(state, np.random.default_rng(3), decisions=0)           # the chance nodes that follow
        deck = state.game.deck.copy()


def test_example_plays_search_bots_against_random():
    path = Path(__file__).parents[1] / "examples" / "openspiel_search.py"
    spec = importlib.util.spec_from_file_location("openspiel_search", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert len(example.main(["--players", "3", "--simulations", "4", "--decisions", "12"])) == 3
