"""The OpenSpiel game "python_nefertiti": API test, explicit chance, no hidden future in clones, MCTS and ISMCTS."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

from conftest import import_extra

pyspiel = import_extra("pyspiel", "openspiel")
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from nefertiti_env.adapters import openspiel  # noqa: E402


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
    free = [p for p in range(g.deck_pos, len(g.deck)) if p not in state._fixed]
    return (np.diff(g.deck[free]) >= 0).all() and g.rng_state == openspiel._NO_FUTURE


@pytest.mark.parametrize("players", [2, 4])
def test_random_sim_test_passes(players):
    pyspiel.random_sim_test(load(players=players), num_sims=1, serialize=False, verbose=False)


def test_a_draw_is_a_chance_node_with_the_odds_of_the_unseen_gifts():
    state, rng = load().new_initial_state(), np.random.default_rng(0)
    play(state, rng, decisions=1)                        # the setup chance node, then one decision
    draws = 0
    while draws < 5 and not state.is_terminal():
        if state.is_chance_node() and state._need[0] == "card":
            g, pos = state.game, state._need[1]
            odds = dict(state.chance_outcomes())
            assert sum(odds.values()) == pytest.approx(1.0)
            free = [p for p in range(g.deck_pos, len(g.deck)) if p not in state._fixed] + [pos]
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
                 stop=lambda s: not s.is_chance_node() and s.game is not None and s.game.oracle_seat >= 0)
    g = state.game
    oracle = g.oracle_seat
    bottom = slice(g.oracle_from, len(g.deck))
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
                 stop=lambda s: not s.is_chance_node() and s.game is not None and s.game.oracle_seat >= 0)
    state = play(state, rng, stop=lambda s: not s.is_chance_node() and s.game.char_index < 0)
    oracle = state.game.oracle_seat
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
