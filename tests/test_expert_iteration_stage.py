"""Expert iteration in `nefertiti train` (training/config.py `expert_iteration`, training/expert_iteration.py
`run_stage`): the packaged tiny config trains PPO then plays its rounds; a run stopped between rounds and
resumed writes the same files as one that went through; a run may start its rounds from a model instead of
training PPO first."""
from __future__ import annotations

import json

import pytest

from nefertiti_env import NUM_ACTIONS
from nefertiti_env.agents import policy_file
from nefertiti_env.encoding.compact import V1_SIZE
from nefertiti_env.training.config import ConfigError, config_from_dict, load_config
from nefertiti_env.training.trainer import load_run_config, train


def _weights(path):
    return policy_file.read(path)[1]["policy"]


def _same(a, b) -> bool:
    import torch
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_tiny_config_trains_ppo_then_its_rounds(tmp_path):
    from nefertiti_env.agents.ppo import PPOAgent

    config = load_config("configs/tiny_expert_iteration.yaml")
    config = config_from_dict({**config.to_dict(), "out": str(tmp_path / "run")})
    train(config, progress=False)
    run = tmp_path / "run"
    rounds = json.loads((run / "expert_iteration" / "rounds.json").read_text())["rounds"]
    assert [r["round"] for r in rounds] == [1, 2] and all(r["rows"] > 20 for r in rounds)
    assert not _same(_weights(run / "final_model.pt"), _weights(run / "expert_iteration/rounds/round_001.pt"))
    PPOAgent(run / "expert_iteration/rounds/round_002.pt")          # a round's file is a playable model


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    path = tmp_path_factory.mktemp("start") / "model.pt"
    policy_file.save(path, policy_file.build_policy({"obs_size": V1_SIZE, "num_actions": NUM_ACTIONS,
                                                     "net_arch": [16]}))
    return str(path)


def test_rounds_instead_of_ppo_resume_between_rounds_to_the_same_files(start, tmp_path):
    def config(out, rounds):
        return config_from_dict({"seed": 4, "out": str(out), "env": {"num_players": 2, "observation": "v1"},
                                 "expert_iteration": {"start": start, "rounds": rounds, "games": 1, "iterations": 6,
                                                      "leaf_value": 1.0, "learning_rate": 1e-3, "epochs": 1,
                                                      "batch_size": 32, "workers": 1}})

    train(config(tmp_path / "through", 2), progress=False)
    train(config(tmp_path / "legs", 1), progress=False)             # stopped after round 1
    assert not (tmp_path / "legs" / "checkpoints").exists()         # no PPO stage
    resumed = load_run_config(tmp_path / "legs")
    resumed = config_from_dict({**resumed.to_dict(), "expert_iteration": {**resumed.expert_iteration.model_dump(),
                                                                         "rounds": 2}})
    train(resumed, resume=True, progress=False)
    for k in (1, 2):
        name = f"expert_iteration/rounds/round_{k:03d}.pt"
        assert _same(_weights(tmp_path / "through" / name), _weights(tmp_path / "legs" / name))
    assert not _same(_weights(start), _weights(tmp_path / "legs" / "expert_iteration/rounds/round_001.pt"))


def test_the_section_is_checked(tmp_path):
    with pytest.raises(ConfigError, match="expert_iteration.start: .*no model at"):
        config_from_dict({"expert_iteration": {"start": str(tmp_path / "none.pt"), "rounds": 1}})
    with pytest.raises(ConfigError, match="expert_iteration.leaf_value"):
        config_from_dict({"expert_iteration": {"leaf_value": 2}})


def test_the_packaged_expert_iteration_starts_from_the_shipped_agent_with_weighted_tables():
    from nefertiti_env.agents.champion import CHAMPION_FILE
    from nefertiti_env.training.expert_iteration import table_games

    config = load_config("configs/expert_iteration.yaml")
    ei, tables = config.expert_iteration, config.env.table_list()
    assert ei.start == str(CHAMPION_FILE) and ei.rounds > 0 and ei.q_scale > 0 and ei.temperature == 0
    counts = table_games(ei.games, [t.weight for t in tables])
    games = dict(zip([(t.num_players, t.setup, t.characters) for t in tables], counts))
    assert games[(4, "beginner", "base")] == 2 * games[(3, "beginner", "base")] == 80 and sum(games.values()) == 500
