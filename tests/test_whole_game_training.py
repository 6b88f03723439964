"""Training at any table (docs/training.md): table options and a weighted mixture of tables in the config,
one batch per table on the batched engine, evaluation per table, and a tiny mixture run that resumes."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import policy_file
from nefertiti_env.encoding.table import V2_SIZE, V2_SLICES
from nefertiti_env.training.config import ConfigError, config_from_dict, load_config, split_envs
from nefertiti_env.training.table_mix import TableMixVecEnv

TWO_TABLES = [{"num_players": 2, "characters": "base"},
              {"num_players": 5, "setup": "advanced", "characters": "expansion", "weight": 2.0}]


def test_whole_game_config_covers_the_game():
    config = load_config("configs/whole_game.yaml")
    tables = config.env.table_list()
    assert config.env.observation == "v2"
    assert {t.num_players for t in tables} == {2, 3, 4, 5} and {t.setup for t in tables} == {"beginner", "advanced"}
    assert {t.characters for t in tables} == {"base", "expansion", "curse_of_amon", "intrigue_at_court",
                                              "race_for_the_nile"}
    assert {bool(t.memphis) for t in tables if t.num_players < 5} == {False, True}
    assert sum(split_envs(config.env.n_envs, [t.weight for t in tables])) == config.env.n_envs




def test_whole_game_ends_with_the_league_that_shipped():
    """Its third stage is `python benchmarks/exploiter_league.py --seed 5150`'s rounds from the stage-2 agent,
    the command that made champion_league1-3.pt (docs/champion.md): the same configs, seeds and best responses'
    schedule (the script's defaults)."""
    import argparse

    from test_exploitability import exploitability
    from nefertiti_env.training.league import stage_configs, table_options

    config = load_config("configs/whole_game.yaml")
    base, _ = stage_configs(config)
    league = config.league
    assert (league.rounds, league.config, league.best_response) == (3, "exploiter_league", "exploitability")
    assert league.seed is None and base.seed == 5150
    assert table_options(base) == exploitability.TABLES["3p-base"]
    parser = argparse.ArgumentParser()
    exploitability.add_schedule_options(parser)
    defaults = vars(parser.parse_args([]))
    assert (league.steps, league.eval_every, league.eval_games, league.final_games) == (
        defaults["steps"], defaults["eval_every"], defaults["eval_games"], defaults["final_games"])

def test_table_options_are_checked_by_the_game_with_the_table_named():
    single = config_from_dict({"env": {"num_players": 3, "memphis": True, "characters": "curse_of_amon"}})
    assert single.env.table_list()[0].game_options() == {"num_players": 3, "setup": "beginner", "memphis": True,
                                                         "characters": "curse_of_amon"}
    for env, message in [({"tables": [{"num_players": 4}, {"num_players": 5, "memphis": False}]},
                          r"env: tables\[1\]: cannot set up this table: the Port of Memphis is mandatory with 5 "
                          "players"),
                         ({"characters": "nile"}, "characters must be one of base, expansion, curse_of_amon"),
                         ({"num_players": 3, "tables": [{"num_players": 2}]},
                          "give either tables or the single table's num_players, not both"),
                         ({"tables": [{"num_players": 2, "wieght": 1}]},
                          r"env.tables\[0\].wieght: unknown key \(known here: characters, memphis, num_players"),
                         ({"n_envs": 1, "tables": [{}, {"setup": "advanced"}]},
                          r"n_envs \(1\) must be at least the number of tables \(2\)")]:
        with pytest.raises(ConfigError, match=message):
            config_from_dict({"env": env})


def test_split_envs_follows_the_weights_with_one_env_at_least():
    assert split_envs(16, [1, 1, 1]) == [6, 5, 5]
    assert split_envs(8, [1] * 8) == [1] * 8
    assert split_envs(10, [1, 100]) == [1, 9]
    assert split_envs(7, [2, 1]) == [5, 2]


def test_a_mixture_batch_holds_each_table_in_its_rows_and_replays_from_its_seed():
    tables = [("2p", 2, {"num_players": 2}), ("5p", 3, {"num_players": 5, "characters": "expansion"})]

    def run(seed):
        env = TableMixVecEnv(tables, seed=seed, opponents={"banker": 1.0, "random": 1.0}, observation="v2")
        obs, rng, seen = [env.reset()], np.random.default_rng(0), set()
        for _ in range(60):
            masks = env.action_masks()
            env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            o, _, dones, infos = env.step_wait()
            obs.append(o)
            seen |= {(info["table"], info["opponents"]) for info, done in zip(infos, dones) if done}
        return np.stack(obs), seen

    obs, seen = run(4)
    assert obs.shape == (61, 5, V2_SIZE)
    players = obs[:, :, V2_SLICES["table_players"]]
    assert (players[:, :2] == [1, 0, 0, 0]).all() and (players[:, 2:] == [0, 0, 0, 1]).all()
    assert {table for table, _ in seen} == {"2p", "5p"}                 # games ended at both tables
    again, _ = run(4)
    assert np.array_equal(obs, again) and not np.array_equal(obs, run(5)[0])


def test_a_table_may_name_its_own_opponents(tmp_path):
    """docs/training.md, `env.tables`: a table's `opponents` replace the run's there and only there (an exploiter
    trained at one table seated at that table alone); its specs are checked as the run's are."""
    from nefertiti_env.training.trainer import table_args

    config = config_from_dict({"env": {"observation": "v2", "n_envs": 5, "tables": [
        TWO_TABLES[0], {**TWO_TABLES[1], "opponents": {"greedy": 1.0}}]},
        "opponents": {"weights": {"banker": 1.0, "random": 1.0}}})
    tables = config.env.table_list()
    assert "opponents" not in table_args(config, tables[0])
    assert table_args(config, tables[1])["opponents"] == {"greedy": 1.0}
    env = TableMixVecEnv([(t.label(), n, table_args(config, t)) for t, n in zip(tables, (2, 3))], seed=1,
                         opponents=config.opponents.weights, observation="v2")
    env.reset()
    rng, seen = np.random.default_rng(0), set()
    for _ in range(400):
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
        _, _, dones, infos = env.step_wait()
        seen |= {(info["table"], info["opponents"]) for info, done in zip(infos, dones) if done}
    assert {kind for table, kind in seen if table.startswith("5p")} == {"greedy"}
    assert {kind for table, kind in seen if table.startswith("2p")} == {"banker", "random"}
    with pytest.raises(ConfigError, match=r"env.tables\[0\].opponents: cannot train against 'champion:search=4'"):
        config_from_dict({"env": {"tables": [{"opponents": {"champion:search=4": 1.0}}]}})
    with pytest.raises(ConfigError, match=r"fine_tune.tables\[0\].opponents: weights must have a positive total"):
        config_from_dict({"fine_tune": {"total_timesteps": 10, "tables": [{"opponents": {"banker": 0.0}}]}})


def tiny_mixture(out, total):
    return config_from_dict({
        "total_timesteps": total, "seed": 3, "out": str(out), "checkpoint_every": 128,
        "env": {"observation": "v2", "n_envs": 4, "tables": TWO_TABLES},
        "opponents": {"weights": {"banker": 1.0, "snapshot": 1.0, "random": 1.0}, "snapshot_every": 128},
        "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "evaluation": {"every_steps": 128, "games": 2, "final_games": 2, "baselines": ["random"], "workers": 1},
    })


def test_a_tiny_mixture_run_trains_resumes_and_evaluates_at_both_tables(tmp_path):
    from nefertiti_env.agents.ppo import PPOAgent
    from nefertiti_env.training.trainer import RunPaths, load_run_config, train

    out = tmp_path / "run"
    results = train(tiny_mixture(out, 256), progress=False)
    assert [(r.baseline, r.num_players, r.games) for r in results] == [
        ("2p beginner base random", 2, 2), ("5p advanced expansion Memphis random", 5, 2)]
    shutil.copytree(out, tmp_path / "copy")
    results = train(load_run_config(out, total_timesteps=384), resume=True, progress=False)
    train(load_run_config(tmp_path / "copy", total_timesteps=384), resume=True, progress=False)
    paths = RunPaths(out)
    weights = [policy_file.read(RunPaths(run).final_model)[1]["policy"] for run in (out, tmp_path / "copy")]
    assert len(weights[0]) > 4 and all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])   # reproducible
    state = json.loads((paths.latest_checkpoint() / "state.json").read_text())
    assert state["num_timesteps"] == 384 and len(state["session_seeds"]) == 2 and len(results) == 2
    assert "rollout/win_rate_at/2p_beginner_base" in paths.progress.read_text()
    bot = PPOAgent(out, seed=1)
    for players, options in ((3, {"memphis": True}), (4, {"characters": "race_for_the_nile"})):   # any table
        game = NefertitiGame(num_players=players, seed=2, **options)
        while not game.is_over():
            game.apply(bot.act(game, game.current_player))          # an illegal action would raise
        assert game.is_terminated() and game.winners()
