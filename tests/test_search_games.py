"""Expert iteration's steps (training/search_games.py): search self-play games give one row per searched
decision (the visit distribution over legal actions, the deciding seat's outcome), the same rows on any number
of workers, and `distill` fits the policy to them."""
from __future__ import annotations

import numpy as np
import pytest

from nefertiti_env import NUM_ACTIONS
from nefertiti_env.agents import policy_file
from nefertiti_env.encoding.table import V2_SIZE
from nefertiti_env.training.search_games import distill, search_games

TABLES = [{"num_players": 2}, {"num_players": 3, "memphis": True, "characters": "expansion", "setup": "advanced"}]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """An untrained v2 policy's model file."""
    path = tmp_path_factory.mktemp("model") / "model.pt"
    policy_file.save(path, policy_file.build_policy({"obs_size": V2_SIZE, "num_actions": NUM_ACTIONS,
                                                     "net_arch": [16]}))
    return str(path)


def test_search_games_give_visit_targets_and_outcomes_the_same_on_any_workers(model):
    data = search_games(model, TABLES, games=1, seed=5, iterations=8, temperature=1.0)
    rows = len(data.obs)
    assert rows > 50 and data.obs.shape == (rows, V2_SIZE) and data.mask.shape == data.target.shape == (rows,
                                                                                                     NUM_ACTIONS)
    assert np.allclose(data.target.sum(axis=1), 1) and not data.target[~data.mask].any()
    assert (data.target > 0).sum(axis=1).max() > 1                      # the search spread its visits
    assert set(np.unique(data.value)) == {-1.0, 1.0}
    again = search_games(model, TABLES, games=1, seed=5, iterations=8, workers=2, temperature=1.0)
    assert all(np.array_equal(a, b) for a, b in zip(data, again))


def test_distill_fits_the_policy_to_the_search(model):
    data = search_games(model, TABLES[:1], games=1, seed=6, iterations=8)
    policy = policy_file.load_policy(model)
    losses = distill(policy, data, learning_rate=1e-3, epochs=4, batch_size=32)
    assert losses[-1] < losses[0]


def test_expert_iteration_rounds_resume_to_the_same_files(model, tmp_path):
    """A run stopped after round 1 and resumed gives round 2's weights bit for bit as a run that went through;
    each round's search is guided by the previous round's policy."""
    import torch

    from nefertiti_env.agents.run_folder import RunFolderError
    from nefertiti_env.training.expert_iteration import expert_iteration

    args = dict(tables=TABLES[:1], games=1, iterations=4, learning_rate=1e-3, epochs=1, batch_size=64, seed=3,
                progress=False)
    through = expert_iteration(model, tmp_path / "through", rounds=2, **args)
    expert_iteration(model, tmp_path / "legs", rounds=1, **args)
    legs = expert_iteration(model, tmp_path / "legs", rounds=2, resume=True, **args)
    assert [r["round"] for r in through] == [r["round"] for r in legs] == [1, 2]
    assert [r["rows"] for r in through] == [r["rows"] for r in legs] and through[0]["rows"] > 20
    weights = [policy_file.read(tmp_path / run / "rounds" / "round_002.pt")[1]["policy"] for run in ("through", "legs")]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    first = policy_file.read(tmp_path / "through" / "rounds" / "round_001.pt")[1]["policy"]
    assert not all(torch.equal(first[k], weights[0][k]) for k in first)          # round 2 trained on
    with pytest.raises(RunFolderError, match="other settings \\(iterations\\)"):
        expert_iteration(model, tmp_path / "legs", rounds=3, resume=True, **{**args, "iterations": 8})


def test_a_table_weighted_twice_plays_twice_its_games_on_the_seeds_in_table_order(model):
    """Weighted tables (a training mixture's `weight`) get their share of the search games; game seeds run on
    across the tables, so one count per table equals the tables played one after another."""
    from nefertiti_env.training.expert_iteration import table_games

    assert table_games(4, [1, 1]) == 4 and table_games(4, [1, 0.5, 2, 0.01]) == [4, 2, 8, 1]
    weighted = search_games(model, TABLES, games=[1, 2], seed=7, iterations=4)
    first = search_games(model, TABLES[:1], games=1, seed=7, iterations=4)
    second = search_games(model, TABLES[1:], games=2, seed=8, iterations=4)
    assert all(np.array_equal(w, np.concatenate([a, b])) for w, a, b in zip(weighted, first, second))
    with pytest.raises(ValueError, match="2 game counts for 1 tables"):
        search_games(model, TABLES[:1], games=[1, 1], seed=7, iterations=4)


def test_at_temperature_0_the_target_is_the_most_visited_move():
    """The default: the policy learns the move the search plays, not its flat visit distribution."""
    from nefertiti_env.training.search_games import sharpen

    visits = np.array([30.0, 50.0, 50.0, 20.0])
    assert sharpen(visits, 0).tolist() == [0, 1, 0, 0]
    assert np.allclose(sharpen(visits, 1), visits / visits.sum())
    assert np.allclose(sharpen(visits, 0.5), visits ** 2 / (visits ** 2).sum())


def test_search_game_targets_at_temperature_0_are_one_move_each(model):
    data = search_games(model, TABLES[:1], games=1, seed=5, iterations=8)
    assert len(data.target) > 20 and ((data.target == 1).sum(axis=1) == 1).all()


def test_the_improved_policy_moves_the_prior_only_where_the_search_values_differ():
    from nefertiti_env.training.search_games import improved_policy

    prior = np.array([0.0, 0.7, 0.2, 0.1])                  # action 0 illegal, action 3 not searched
    actions, visits = np.array([1, 2]), np.array([60.0, 40.0])
    assert np.allclose(improved_policy(prior, actions, visits, np.array([0.5, 0.5]), 40), prior)
    better = improved_policy(prior, actions, visits, np.array([0.4, 0.5]), 40)
    assert better[0] == 0 and np.isclose(better.sum(), 1) and better[2] > better[1]
    assert np.isclose(better[2] / better[3], 2 * np.exp(40 * (0.5 - 0.44)))     # action 3 at the visits' mean


def test_search_game_targets_can_be_the_improved_policy(model):
    data = search_games(model, TABLES[:1], games=1, seed=5, iterations=8, q_scale=40)
    assert len(data.target) > 20 and np.allclose(data.target.sum(axis=1), 1) and not data.target[~data.mask].any()
    assert ((data.target > 0) == data.mask).all()            # the prior's support: every legal action
