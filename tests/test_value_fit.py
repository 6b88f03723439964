"""The leaves' value fit (training/value_fit.py): every seat's observations labelled with its outcome, the
same rows on any number of workers, the start's actor kept bit for bit and a critic that learns."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import import_extra

torch = import_extra("torch", "train")

from nefertiti_env import NefertitiGame  # noqa: E402
from nefertiti_env.agents import make_bot, policy_file  # noqa: E402
from nefertiti_env.agents.champion import CHAMPION_FILE  # noqa: E402
from nefertiti_env.encoding.table import V2_SIZE, observe_v2  # noqa: E402
from nefertiti_env.training.value_fit import ValueJob, fit_value, main, play_value_game, value_games  # noqa: E402

BASE = (("characters", "base"), ("setup", "beginner"))


def test_a_game_gives_every_seats_observation_labelled_with_its_outcome():
    job = ValueJob(("random", "greedy", "random"), BASE, seed=11, share=0.5, observation="v2")
    obs, value = play_value_game(job)
    game = NefertitiGame(3, seed=11, characters="base", setup="beginner")
    bots = [make_bot(spec, seed=11 * 8 + s) for s, spec in enumerate(job.lineup)]
    rng, want = np.random.default_rng(11), []
    while not game.is_over():
        seat = game.current_player
        if rng.random() < 0.5:
            want += [observe_v2(game, s) for s in range(3)]
        game.apply(bots[seat].act(game, seat))
    assert obs.shape == (len(want), V2_SIZE) and len(want) > 0
    np.testing.assert_array_equal(obs, np.array(want))
    np.testing.assert_array_equal(value, np.tile(game.returns(), len(want) // 3))
    assert set(np.unique(value)) <= {-1.0, 1.0} and 1.0 in value


def test_the_rows_are_the_same_on_one_and_two_workers():
    one = value_games(["random"] * 4, dict(BASE), 6, seed=3, workers=1, progress=False)
    two = value_games(["random"] * 4, dict(BASE), 6, seed=3, workers=2, progress=False)
    assert len(one) == 6
    for (o1, v1), (o2, v2) in zip(one, two):
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(v1, v2)


def test_the_fit_keeps_the_actor_and_learns_the_outcome():
    """Outcomes that are a function of one observation feature: the fitted critic predicts them far better
    than their mean, while every actor weight is the start's."""
    rng = np.random.default_rng(0)
    games = []
    for _ in range(40):
        obs = np.zeros((50, V2_SIZE), np.float32)
        obs[:, :10] = rng.random((50, 10))
        games.append((obs, np.where(obs[:, 7] > 0.5, 1.0, -1.0).astype(np.float32)))
    policy, meta, log = fit_value(str(CHAMPION_FILE), [games], [16], epochs=10, learning_rate=3e-3,
                                  batch_size=32, seed=1)
    assert meta["net_arch"] == {"pi": [256, 256], "vf": [16]}
    assert min(log["held_out_error"]) < 0.3 * log["constant_error"]
    assert log["held_out_rows"] == 4 * 50 and log["rows"] == 36 * 50
    start = policy_file.load_policy(CHAMPION_FILE).state_dict()
    mine = policy.state_dict()
    for name, weights in start.items():
        if name.startswith(("mlp_extractor.policy_net", "action_net")):
            assert torch.equal(mine[name], weights), name
    assert mine["mlp_extractor.value_net.0.weight"].shape == (16, V2_SIZE)


def test_the_fit_stops_after_patience_epochs_without_a_lower_held_out_error():
    """Outcomes that are noise: the critic soon fits the training rows' noise, the held-out error stops
    falling, and the fit ends `patience` epochs after its lowest, keeping that epoch."""
    rng = np.random.default_rng(0)
    games = [(rng.random((20, V2_SIZE), dtype=np.float32), rng.choice([-1.0, 1.0], 20).astype(np.float32))
             for _ in range(20)]
    _, _, log = fit_value(str(CHAMPION_FILE), [games], [64], epochs=40, learning_rate=3e-2, batch_size=8, seed=0,
                          patience=2)
    errors = log["held_out_error"]
    assert len(errors) < 40
    assert log["kept_epoch"] == len(errors) - 2
    assert min(errors[-2:]) >= min(errors[:-2])


def test_the_command_writes_a_model_the_search_uses_at_its_leaves(tmp_path):
    out = tmp_path / "fit"
    assert main(["--lineup", "random", "--players", "3", "--games", "4", "--epochs", "2", "--workers", "1",
                 "--out", str(out), "--quiet"]) == 0
    log = json.loads((out / "value_fit.json").read_text())
    assert len(log["held_out_error"]) == 2 and log["settings"]["lineups"] == [["random"] * 3]
    bot = make_bot(f"ppo:path={out / 'value.pt'}:search=20:leaf_value=1", seed=0)
    game = NefertitiGame(3, seed=5)
    assert bot.act(game, game.current_player) in game.legal_actions()


def test_evaluate_replays_the_fits_held_out_games_and_scores_each_critic_on_them(tmp_path, capsys):
    """`--evaluate` plays only the games a fit of the same settings held out: the fitted critic's error there is
    the fit's own kept held-out error, and another critic is scored on the same rows."""
    fit, score = tmp_path / "fit", tmp_path / "score"
    settings = ["--lineup", "random", "--players", "3", "--games", "20", "--epochs", "2", "--workers", "1", "--quiet"]
    assert main([*settings, "--out", str(fit)]) == 0
    log = json.loads((fit / "value_fit.json").read_text())
    assert main([*settings, "--out", str(score), "--evaluate", str(fit / "value.pt"), str(CHAMPION_FILE)]) == 0
    errors = json.loads((score / "held_out_errors.json").read_text())
    assert errors["rows"]["all"] == errors["rows"]["3p beginner base"] == log["held_out_rows"]
    assert errors[str(fit / "value.pt")]["all"] == pytest.approx(min(log["held_out_error"]), abs=1e-5)
    assert errors[str(CHAMPION_FILE)]["all"] != pytest.approx(errors[str(fit / "value.pt")]["all"], abs=1e-4)
    assert "| 3p beginner base |" in capsys.readouterr().out
    again = tmp_path / "again"                                  # the settings read back from the fit's log
    assert main(["--from", str(fit), "--evaluate", str(fit / "value.pt"), "--workers", "1", "--quiet",
                 "--out", str(again)]) == 0
    fitted = str(fit / "value.pt")
    assert json.loads((again / "held_out_errors.json").read_text())[fitted] == errors[fitted]


def test_from_needs_evaluate_and_a_fits_log(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--from", str(tmp_path)])
    assert "--from goes with --evaluate" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--from", str(tmp_path), "--evaluate", str(CHAMPION_FILE)])
    assert "is not a fit's value_fit.json (FileNotFoundError" in capsys.readouterr().err


def test_a_wrong_lineup_is_refused(capsys):
    with pytest.raises(SystemExit):
        main(["--lineup", "random,random", "--players", "4", "--games", "4"])
    assert "one bot or one per seat" in capsys.readouterr().err


def test_each_tables_last_tenth_is_held_out():
    """Two tables of different game counts: the last tenth of each table's games is held out, not the last
    tenth of all (which would be one table's)."""
    def table(games, rows):
        return [(np.zeros((rows, V2_SIZE), np.float32), np.ones(rows, np.float32)) for _ in range(games)]
    _, _, log = fit_value(str(CHAMPION_FILE), [table(20, 10), table(10, 30)], [4], epochs=1, seed=0)
    assert log["held_out_rows"] == 2 * 10 + 1 * 30 and log["rows"] == 18 * 10 + 9 * 30


def test_the_command_fits_one_critic_over_a_training_configs_tables(tmp_path):
    out = tmp_path / "fit"
    assert main(["--tables", "whole_game", "--lineup", "random", "--games", "2", "--epochs", "1", "--workers", "1",
                 "--out", str(out), "--quiet"]) == 0
    log = json.loads((out / "value_fit.json").read_text())
    assert [t["num_players"] for t in log["settings"]["tables"]] == [2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5]
    assert not {"players", "setup", "memphis", "characters"} & set(log["settings"])     # the one table's options
    assert log["held_out_rows"] > 0


def test_a_missing_tables_config_is_named(capsys):
    with pytest.raises(SystemExit):
        main(["--tables", "no_such_config", "--quiet"])
    assert "no_such_config" in capsys.readouterr().err
