"""The league as a training run's third stage (training/config.py `league`, training/league.py): the same
rounds as benchmarks/exploiter_league.py, bit for bit; after the run's last stage, from its final model; a run
stopped inside the league and resumed ends with the same agents; the section is checked before any step."""
from __future__ import annotations

import pytest
import yaml

from test_exploitability import _frozen_agent
from test_exploiter_league import _configs, league as exploiter_league
from test_fine_tune_stage import _same, _weights

from nefertiti_env.training import league as league_stage
from nefertiti_env.training.config import ConfigError, config_from_dict
from nefertiti_env.training.trainer import RunPaths, load_run_config, train

ROUNDS = 2
SCHEDULE = {"steps": 512, "eval_every": 512, "eval_games": 3, "final_games": 6}


def _run_config(tmp_path, out, **league) -> dict:
    """A tiny v2 run at 3 players whose league is the tiny league config's two rounds."""
    rounds_config, responses_config = _configs(tmp_path)
    return {"total_timesteps": 256, "seed": 7, "out": str(out), "checkpoint_every": 256,
            "env": {"num_players": 3, "n_envs": 2, "observation": "v2"},
            "opponents": {"weights": {"random": 1.0}},
            "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
            "evaluation": {"every_steps": 10_000, "games": 2, "final_games": 2, "baselines": ["random"], "workers": 1},
            "league": {"rounds": ROUNDS, "config": str(rounds_config), "best_response": str(responses_config),
                       **SCHEDULE, **league}}


def _agents(folder) -> list:
    return [_weights(RunPaths(folder / "league" / f"agent_{k}").final_model) for k in range(1, ROUNDS + 1)]


def test_the_stage_trains_the_rounds_of_exploiter_league_bit_for_bit(tmp_path):
    agent = _frozen_agent(tmp_path / "agent.pt", "v2")
    train(config_from_dict(_run_config(tmp_path, tmp_path / "run", start=str(agent))), progress=False)
    assert not RunPaths(tmp_path / "run").final_model.exists()                         # no PPO stage
    rounds_config, responses_config = _configs(tmp_path)
    measured = tmp_path / "measured"
    exploiter_league.main(["--agent", str(agent), "--rounds", str(ROUNDS), "--every-round", "--config",
                           str(rounds_config), "--br-config", str(responses_config), "--br-steps", "512",
                           "--br-eval-every", "512", "--br-eval-games", "3", "--br-final-games", "6", "--out",
                           str(measured), "--quiet"])
    for k, weights in enumerate(_agents(tmp_path / "run"), start=1):
        assert _same(weights, _weights(measured / f"agent_{k}" / "final_model.pt"))
    assert not (tmp_path / "run" / "league" / f"best_response_{ROUNDS}").exists()   # the last one only measures


def test_after_the_ppo_stage_the_league_starts_from_its_final_model_against_its_best_responses(tmp_path):
    run = tmp_path / "run"
    train(config_from_dict(_run_config(tmp_path, run)), progress=False)
    stage = run / "league"

    def saved(folder: str) -> dict:
        return yaml.safe_load((stage / folder / "config.yaml").read_text())

    final = str(RunPaths(run).final_model)
    first, second = saved("agent_1"), saved("agent_2")
    assert (first["init_from"], first["seed"]) == (final, 2) and second["seed"] == 3    # the rounds config's seed 1
    assert second["init_from"] == str(RunPaths(stage / "agent_1").final_model)
    responses = [f"ppo:path={RunPaths(stage / f'best_response_{k}').final_model}" for k in range(ROUNDS)]
    assert second["env"]["tables"][1]["opponents"] == {responses[0]: 0.5, responses[1]: 0.5, "random": 1.0}
    for k, against in enumerate([final, second["init_from"]]):
        response = saved(f"best_response_{k}")
        assert response["opponents"]["weights"] == {f"ppo:path={against}": 1.0} and response["seed"] == 1
        assert (response["env"]["num_players"], response["total_timesteps"]) == (3, 512)
    assert not _same(_weights(final), _agents(run)[0])                                 # agent 1 trained on


def test_a_run_stopped_inside_the_league_resumes_to_the_same_agents(tmp_path, monkeypatch):
    agent = _frozen_agent(tmp_path / "agent.pt", "v2")
    train(config_from_dict(_run_config(tmp_path, tmp_path / "through", start=str(agent))), progress=False)
    real = league_stage.round_config

    def stop_at_round_2(base, k, *args):
        if k == 2:
            raise KeyboardInterrupt
        return real(base, k, *args)
    monkeypatch.setattr(league_stage, "round_config", stop_at_round_2)
    with pytest.raises(KeyboardInterrupt):
        train(config_from_dict(_run_config(tmp_path, tmp_path / "legs", start=str(agent))), progress=False)
    monkeypatch.setattr(league_stage, "round_config", real)
    assert RunPaths(tmp_path / "legs" / "league" / "best_response_1").summary.is_file()
    done = RunPaths(tmp_path / "legs" / "league" / "agent_1").final_model
    before = done.stat().st_mtime_ns
    train(load_run_config(tmp_path / "legs"), resume=True, progress=False)
    assert done.stat().st_mtime_ns == before                                            # a finished round is kept
    for ran, resumed in zip(_agents(tmp_path / "through"), _agents(tmp_path / "legs")):
        assert _same(ran, resumed)


def test_the_section_is_checked_before_any_step(tmp_path):
    with pytest.raises(ConfigError, match="league.start: the league has no rounds"):
        config_from_dict({"league": {"start": "champion"}})
    with pytest.raises(ConfigError, match="give expert_iteration or league, not both"):
        config_from_dict({"league": {"rounds": 1}, "expert_iteration": {"rounds": 1}})
    with pytest.raises(ConfigError, match="league.start skips the earlier stages"):
        config_from_dict({"league": {"rounds": 1, "start": "champion"},
                          "fine_tune": {"total_timesteps": 10, "start": "champion"}})
    with pytest.raises(ConfigError, match="league: .*nowhere"):
        config_from_dict({"league": {"rounds": 1, "config": "nowhere"}})
    data = _run_config(tmp_path, tmp_path / "run")
    data["league"]["config"] = data["league"]["best_response"]                  # no table with opponents of its own
    with pytest.raises(ConfigError, match="exactly one table with opponents of its own"):
        config_from_dict(data)
    assert not (tmp_path / "run").exists()
