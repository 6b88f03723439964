"""The fine-tuning stage of `nefertiti train` (training/config.py `fine_tune`, training/trainer.py
`fine_tune_config`): after the PPO stage, from its final model, a second PPO run in `fine_tune/` at the
stage's tables against its opponents (a search bot here); a run stopped between the stages and resumed
ends with the same model as one that went through; the section is checked."""
from __future__ import annotations

import json
import re

import numba
import pytest
import yaml

from nefertiti_env.agents import policy_file
from nefertiti_env.agents.champion import CHAMPION_FILE
from nefertiti_env.training import trainer
from nefertiti_env.training.config import ConfigError, config_from_dict
from nefertiti_env.training.trainer import RunPaths, load_run_config, train

SEARCH = "mcts:iterations=4"


def _config(out):
    return config_from_dict({
        "total_timesteps": 256, "seed": 5, "out": str(out), "checkpoint_every": 256,
        "env": {"num_players": 3, "n_envs": 2, "observation": "v1"},
        "opponents": {"weights": {"random": 1.0}},
        "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "evaluation": {"every_steps": 10_000, "games": 2, "final_games": 2, "baselines": ["random"], "workers": 1},
        "fine_tune": {"total_timesteps": 256, "tables": [{"num_players": 3, "setup": "advanced"}],
                      "opponents": {"weights": {SEARCH: 1.0}}, "learning_rate": 1e-3, "n_envs": 4, "n_steps": 64}})


def _weights(path):
    return policy_file.read(path)[1]["policy"]


def _same(a, b) -> bool:
    import torch
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_stage_fine_tunes_the_ppo_stage_s_model_at_its_tables_against_its_opponents(tmp_path):
    run = tmp_path / "run"
    results = train(_config(run), progress=False)
    stage = RunPaths(run / "fine_tune")
    saved = yaml.safe_load(stage.config.read_text())
    assert saved["init_from"] == str(RunPaths(run).final_model) and saved["total_timesteps"] == 256
    assert saved["init_optimizer"] is False                       # a fresh optimiser: the policy alone carries over
    assert [t["setup"] for t in saved["env"]["tables"]] == ["advanced"] and saved["opponents"]["weights"] == {SEARCH: 1.0}
    assert saved["ppo"]["learning_rate"] == 1e-3 and saved["fine_tune"]["total_timesteps"] == 0
    assert saved["env"]["n_envs"] == 4 and saved["ppo"]["n_steps"] == 64          # the stage's batch shape
    assert not _same(_weights(RunPaths(run).final_model), _weights(stage.final_model))
    assert results and results[0].games == 2 and stage.results_md.is_file()              # the stage's evaluation
    time = json.loads(stage.summary.read_text())["time"]                               # where its time went
    assert time["searched_decisions"] > 0 and time["opponent_seconds"]["search"] > 0
    train_seconds = json.loads(stage.summary.read_text())["train_seconds"]
    saved_timing = json.loads((stage.latest_checkpoint() / "state.json").read_text())["timing"]
    assert saved_timing["update_seconds"] > 0 and time["rollout_seconds"] > 0 and time["other_seconds"] >= 0
    assert abs(time["rollout_seconds"] + time["update_seconds"] + time["other_seconds"] - train_seconds) < 0.5
    assert json.loads(RunPaths(run).summary.read_text())["time"]["searched_decisions"] == 0     # random opponents
    line = trainer.where_the_time_went(time)
    assert f"{time['searched_decisions']:,} searched decisions" in line and "PPO updates" in line
    assert time["opponent_seconds"]["search"] <= time["rollout_seconds"] * numba.config.NUMBA_NUM_THREADS   # in rollouts


def test_a_run_stopped_between_the_stages_resumes_to_the_same_model(tmp_path, monkeypatch):
    train(_config(tmp_path / "through"), progress=False)
    real = trainer.fine_tune_config

    def stop(config):
        raise KeyboardInterrupt
    monkeypatch.setattr(trainer, "fine_tune_config", stop)
    with pytest.raises(KeyboardInterrupt):
        train(_config(tmp_path / "legs"), progress=False)
    monkeypatch.setattr(trainer, "fine_tune_config", real)
    assert trainer.resume_hint(tmp_path / "legs").startswith(f"the stage in {tmp_path / 'legs'} is finished")
    first = _weights(RunPaths(tmp_path / "legs").final_model)
    train(load_run_config(tmp_path / "legs"), resume=True, progress=False)
    assert _same(first, _weights(RunPaths(tmp_path / "legs").final_model))              # the PPO stage is kept
    assert _same(_weights(tmp_path / "through/fine_tune/final_model.pt"),
                 _weights(tmp_path / "legs/fine_tune/final_model.pt"))


def test_stop_at_ends_the_leg_in_the_stage_being_trained_and_resume_goes_on(tmp_path):
    """Each PPO stage counts its own steps: the PPO stage (256 steps, no periodic checkpoint) runs through,
    and the leg ends at the fine-tuning stage's checkpoint at 256."""
    data = _config(tmp_path / "run").to_dict()
    data["fine_tune"]["total_timesteps"] = 512
    with pytest.raises(trainer.LegEnded) as leg:
        train(config_from_dict(data), progress=False, stop_at=256)
    stage = RunPaths(tmp_path / "run" / "fine_tune")
    assert leg.value.out == stage.out and leg.value.step == 256 and not stage.final_model.exists()
    assert RunPaths(tmp_path / "run").final_model.is_file()
    hint = trainer.resume_hint(tmp_path / "run")
    assert hint.startswith(f"the checkpoint at step 256 of the stage in {stage.out} is saved")
    trainer.remove_checkpoint(stage.latest_checkpoint())                  # as if stopped before that checkpoint
    assert trainer.resume_hint(tmp_path / "run").startswith(f"the stage in {stage.out} saved no checkpoint yet")
    train(load_run_config(tmp_path / "run"), resume=True, progress=False)
    assert json.loads(stage.summary.read_text())["timesteps"] == 512


def test_a_stage_given_its_start_skips_the_ppo_stage_and_trains_as_after_it(tmp_path):
    """`fine_tune.start`: the second stage of a run whose first stage was trained before (the shipped
    agent's fine-tuning) is the same stage, bit for bit, as the one that follows the first in one run."""
    train(_config(tmp_path / "through"), progress=False)
    shipped = tmp_path / "stage1.pt"                            # the policy alone, as the package ships it
    policy_file.save(shipped, policy_file.load_policy(RunPaths(tmp_path / "through").final_model))
    given = _config(tmp_path / "given").to_dict()
    given["fine_tune"]["start"] = str(shipped)
    train(config_from_dict(given), progress=False)
    assert not RunPaths(tmp_path / "given").final_model.exists()                      # no PPO stage
    assert _same(_weights(tmp_path / "through/fine_tune/final_model.pt"),
                 _weights(tmp_path / "given/fine_tune/final_model.pt"))
    train(load_run_config(tmp_path / "given"), resume=True, progress=False)         # resumed: nothing to redo
    assert _same(_weights(tmp_path / "through/fine_tune/final_model.pt"),
                 _weights(tmp_path / "given/fine_tune/final_model.pt"))


def test_a_leg_cannot_end_the_first_stage_early_by_step_count(tmp_path, capsys):
    """`--total-timesteps` would end the first stage early and start the second from that unfinished model."""
    from nefertiti_cli import main

    config = tmp_path / "run.yaml"
    config.write_text(yaml.safe_dump(_config(tmp_path / "run").to_dict()))
    assert main(["train", "--config", str(config), "--total-timesteps", "128", "--quiet"]) == 2
    assert "--total-timesteps ends the first stage early" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_the_section_is_checked():
    with pytest.raises(ConfigError, match="give expert_iteration or fine_tune, not both"):
        config_from_dict({"fine_tune": {"total_timesteps": 10}, "expert_iteration": {"rounds": 1}})
    with pytest.raises(ConfigError, match="fine_tune.opponents.weights: .*cannot train against 'champion:search=4'"):
        config_from_dict({"fine_tune": {"total_timesteps": 10, "opponents": {"weights": {"champion:search=4": 1}}}})
    with pytest.raises(ConfigError, match=re.escape("fine_tune.tables[0].num_players")):
        config_from_dict({"fine_tune": {"total_timesteps": 10, "tables": [{"num_players": 7}]}})
    with pytest.raises(ConfigError, match="fine_tune.tables: .*cannot set up this table"):     # before any step
        config_from_dict({"fine_tune": {"total_timesteps": 10, "tables": [{"num_players": 2, "characters": "nope"}]}})
    with pytest.raises(ConfigError, match="fine_tune: n_steps x n_envs: 8388608 observations"):
        config_from_dict({"fine_tune": {"total_timesteps": 10, "n_envs": 4096, "n_steps": 2048}})
    with pytest.raises(ConfigError, match="fine_tune.start: no model at 'nowhere.pt'"):
        config_from_dict({"fine_tune": {"total_timesteps": 10, "start": "nowhere.pt"}})
    with pytest.raises(ConfigError, match="fine_tune.start: the stage has no steps"):
        config_from_dict({"fine_tune": {"start": str(CHAMPION_FILE)}})


def test_which_stages_a_run_has():
    """A later stage given its start (a file, or `champion` for the shipped agent) replaces the PPO stage; without
    one it follows that stage, which must then run to its end."""
    after = config_from_dict({"fine_tune": {"total_timesteps": 10}})
    assert after.stage_follows and not after.skips_ppo_stage
    given = config_from_dict({"fine_tune": {"total_timesteps": 10, "start": "champion"}})
    assert given.fine_tune.start == str(CHAMPION_FILE) and given.skips_ppo_stage and not given.stage_follows
    rounds = config_from_dict({"expert_iteration": {"rounds": 1, "start": "champion"}})
    assert rounds.skips_ppo_stage and not rounds.stage_follows
    assert not config_from_dict({}).stage_follows and not config_from_dict({}).skips_ppo_stage
