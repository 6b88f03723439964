"""Training: the single-agent wrapper, the opponent pool, evaluation, configs, a tiny run with resume."""
from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest
import torch
import yaml
from sb3_contrib import MaskablePPO

from agents import Agent, RandomBot
from nefertiti_env import IllegalActionError, NefertitiGame
from nefertiti_env.env.aec import final_rewards
from training.config import ConfigError, config_from_dict, load_config
from training.evaluation import play_games, wilson_interval
from training.opponents import OpponentPool
from training.single_agent import SingleAgentEnv


def play_episode(env, rng, **reset_kwargs):
    """Random legal learner actions to the end; (rewards, infos), checking masks against the core on the way."""
    env.reset(**reset_kwargs)
    rewards, infos, terminated = [], [], False
    while not terminated:
        game = env.game
        assert game.current_player == env.seat
        mask = env.action_masks()
        assert np.flatnonzero(mask).tolist() == game.legal_actions()
        _, reward, terminated, truncated, info = env.step(rng.choice(np.flatnonzero(mask)))
        assert not truncated
        rewards.append(reward)
        infos.append(info)
    return rewards, infos


class LastMover(Agent):
    """A random bot that remembers whether it made the game's last move."""

    def act(self, game, seat):
        legal = game.legal_actions()
        action = legal[int(self.rng.integers(len(legal)))]
        trial = game.clone()
        trial.apply(action)
        if trial.is_over():
            LastMover.ended = True
        return action


@pytest.mark.parametrize("seed", range(6))
def test_learner_that_loses_gets_minus_one_on_its_own_last_step(seed):
    """A hand-built table where the three opponents start 500 points ahead: the learner must lose, and
    its -1 arrives on its own last transition (all earlier rewards 0), whoever made the game's last move."""
    game = NefertitiGame(num_players=4, seed=seed)
    learner = seed % 4
    game.points[[s for s in range(4) if s != learner]] += 500
    env = SingleAgentEnv(num_players=4)
    rewards, infos = play_episode(env, np.random.default_rng(seed), options={"game": game, "seat": learner})
    assert game.is_over() and learner not in game.winners()
    assert rewards[-1] == -1.0
    assert rewards[:-1] == [0.0] * (len(rewards) - 1) and len(rewards) > 5
    assert infos[-1]["win"] is False and infos[-1]["opponents"] == "random"


def test_reward_reaches_learner_when_an_opponent_ends_the_game():
    """Seeds where an opponent makes the final move: the learner's own last step still carries its reward."""
    seen = 0
    for seed in range(40):
        LastMover.ended = False
        pool = OpponentPool({"random": 1.0})
        pool.table = lambda rng, seats: {s: LastMover(int(rng.integers(1000))) for s in seats}
        env = SingleAgentEnv(num_players=3, opponents=pool, reward="score_diff")
        rewards, _ = play_episode(env, np.random.default_rng(seed), seed=seed)
        if LastMover.ended:
            seen += 1
            assert rewards[-1] == final_rewards(env.game, "score_diff")[env.seat] != 0
            assert all(r == 0 for r in rewards[:-1])
    assert seen >= 3


def test_winning_learner_gets_plus_one():
    game = NefertitiGame(num_players=3, seed=11)
    game.points[1] += 500
    rewards, infos = play_episode(SingleAgentEnv(num_players=3), np.random.default_rng(0),
                                  options={"game": game, "seat": 1})
    assert rewards[-1] == 1.0 and infos[-1]["win"] is True


def test_seat_randomisation_covers_all_seats_and_is_seeded():
    def seats(seed):
        env = SingleAgentEnv(num_players=4)
        out = [env.reset(seed=seed)[1]["seat"]]
        return out + [env.reset()[1]["seat"] for _ in range(39)]
    assert set(seats(3)) == {0, 1, 2, 3}
    assert seats(3) == seats(3)
    assert seats(3) != seats(4)


def test_reset_leaves_the_learner_deciding_and_same_seed_same_game():
    a, b = SingleAgentEnv(num_players=4), SingleAgentEnv(num_players=4)
    obs_a, _ = a.reset(seed=5)
    obs_b, _ = b.reset(seed=5)
    assert a.game.current_player == a.seat
    assert np.array_equal(obs_a, obs_b) and a.game.history == b.game.history


def test_illegal_learner_action_raises_a_clear_error():
    env = SingleAgentEnv(num_players=4)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    with pytest.raises(IllegalActionError, match=f"learner at seat {env.seat}.*not legal"):
        env.step(illegal)


def test_opponent_pool_sampling_follows_the_weights_and_the_seed():
    pool = OpponentPool({"random": 3.0, "greedy": 1.0})
    draws = [pool.sample_kind(np.random.default_rng(7)) for _ in range(1)]
    rng = np.random.default_rng(7)
    kinds = [pool.sample_kind(rng) for _ in range(4000)]
    share = kinds.count("random") / len(kinds)
    assert abs(share - 0.75) < 0.03
    assert kinds[0] == draws[0]
    rng = np.random.default_rng(7)
    assert [pool.sample_kind(rng) for _ in range(50)] == kinds[:50]
    tables = [OpponentPool({"random": 1.0, "greedy": 1.0}, per_table=per_table).table(np.random.default_rng(s),
                                                                                      [0, 2, 3])
              for per_table in (False, True) for s in range(20)]
    mixed = [len({bot.name for bot in t.values()}) for t in tables]
    assert max(mixed[:20]) == 2 and max(mixed[20:]) == 1      # per seat mixes kinds; per table never does


def test_opponent_pool_keeps_the_newest_snapshots():
    pool = OpponentPool({"snapshot": 1.0}, snapshots=["a.pt", "b.pt"], max_snapshots=2)
    pool.add_snapshot("c.pt")
    assert pool.snapshots == ["b.pt", "c.pt"]
    assert OpponentPool(**pool.state()).snapshots == ["b.pt", "c.pt"]
    with pytest.raises(RuntimeError, match="no learner snapshot"):
        OpponentPool({"snapshot": 1.0}).table(np.random.default_rng(0), [1])


def test_wilson_interval_matches_the_hand_computed_case():
    low, high = wilson_interval(8, 10)          # p = 0.8, z = 1.96: 0.490 .. 0.943
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_evaluation_rotates_the_learner_seat():
    class Recorder(RandomBot):
        seats = []

        def act(self, game, seat):
            if not Recorder.seats or Recorder.seats[-1][0] != game.seed:
                Recorder.seats.append((game.seed, seat))
            return super().act(game, seat)

    outcomes = play_games(Recorder(0), "random", range(6), {"num_players": 3}, seed=100)
    assert [s for _, s in Recorder.seats] == [0, 1, 2, 0, 1, 2]
    assert [g for g, _ in Recorder.seats] == list(range(100, 106))
    assert len(outcomes) == 6 and all(isinstance(w, bool) for w, _ in outcomes)


# ---------------------------------------------------------------- configs

def write(tmp_path, data, name="c.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_shipped_configs_are_valid():
    for name in ("quickstart", "selfplay_4p"):
        config = load_config(f"configs/{name}.yaml")
        assert config.env.num_players == 4
    assert load_config("configs/tiny.yaml").total_timesteps == 512
    stage2 = yaml.safe_load(open("configs/selfplay_4p_banker.yaml"))       # its init_from is stage 1's output
    assert stage2["init_from"] == load_config("configs/selfplay_4p.yaml").out
    assert config_from_dict({**stage2, "init_from": ""}).env.num_players == 4


def test_config_errors_name_every_problem_and_the_file(tmp_path):
    path = write(tmp_path, {"ppo": {"learning_rat": 0.1, "gamma": 1.5, "n_steps": "many"},
                            "env": {"num_players": 9, "reward": "points"},
                            "opponents": {"weights": {"randm": 1.0}}, "extra": 1})
    with pytest.raises(ConfigError) as err:
        load_config(path)
    text = str(err.value)
    assert str(path) in text and "7 problem(s)" in text
    for needle in ("ppo.learning_rat: unknown key (known here: batch_size", "extra: unknown key",
                   "ppo.n_steps: Input should be a valid integer, got 'many'",
                   "ppo.gamma: Input should be less than or equal to 1, got 1.5", "env.reward: Input should be",
                   "env.num_players", "opponents.weights: unknown bot 'randm'"):
        assert needle in text, needle


def test_config_accepts_yaml_exponent_floats_and_rejects_bools_as_ints():
    assert config_from_dict({"ppo": {"learning_rate": "3e-4"}}).ppo.learning_rate == 3e-4
    with pytest.raises(ConfigError, match="total_timesteps: Input should be a valid integer, got True"):
        config_from_dict({"total_timesteps": True})
    with pytest.raises(ConfigError, match="evaluation.baselines: Input should be a valid list"):
        config_from_dict({"evaluation": {"baselines": "random"}})


def test_cli_errors_exit_2_without_traceback(tmp_path, capsys):
    from nefertiti_cli import main
    assert main(["train", "--config", str(tmp_path / "missing.yaml")]) == 2
    assert "config file not found" in capsys.readouterr().err
    bad = write(tmp_path, {"ppo": {"n_epochs": 0}})
    assert main(["train", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "ppo.n_epochs: Input should be greater than or equal to 1, got 0" in err and "Traceback" not in err
    assert main(["train", "--resume", "--out", str(tmp_path / "nothing")]) == 2
    assert "no run to resume" in capsys.readouterr().err


# ---------------------------------------------------------------- a tiny run

def tiny_config(out, total):
    return config_from_dict({
        "total_timesteps": total, "seed": 3, "out": str(out), "checkpoint_every": 256,
        "env": {"num_players": 3, "n_envs": 2, "workers": 1},
        "opponents": {"weights": {"random": 1.0, "snapshot": 1.0}, "snapshot_every": 256, "max_snapshots": 3},
        "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "evaluation": {"every_steps": 256, "games": 3, "final_games": 3, "baselines": ["random"], "workers": 1},
    })


def test_tiny_training_run_checkpoints_resumes_and_evaluates(tmp_path):
    from agents.ppo import PPOAgent
    from training.trainer import RunPaths, load_run_config, train

    out = tmp_path / "run"
    results = first = train(tiny_config(out, 512), progress=False)
    paths = RunPaths(out)
    state = json.loads((paths.latest_checkpoint() / "state.json").read_text())
    assert state["num_timesteps"] == 512 and results[0].games == 3
    assert len(state["pool"]["snapshots"]) == 2 and all((out / p).is_file() for p in state["pool"]["snapshots"])
    with pytest.raises(ConfigError, match="already holds a run"):
        train(tiny_config(out, 512), progress=False)

    results = train(load_run_config(out, total_timesteps=1024), resume=True, progress=False)
    state2 = json.loads((paths.latest_checkpoint() / "state.json").read_text())
    assert state2["num_timesteps"] == 1024
    assert state2["pool"]["snapshots"][0] == state["pool"]["snapshots"][-1]     # the pool carried over
    assert len(state2["session_seeds"]) == 2
    steps = [int(r["timesteps"]) for r in csv.DictReader(open(paths.evaluations))]
    assert steps == sorted(steps) and steps[0] == 0 and steps[-1] == 768          # appended, not overwritten
    logged = [int(r["time/total_timesteps"]) for r in csv.DictReader(open(paths.progress))]
    assert logged == list(range(256, 1025, 256))
    # TensorBoard: each evaluation at the step it was taken, the final ones (512, 1024) included
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    events = EventAccumulator(str(paths.logs)).Reload()
    rows = list(csv.DictReader(open(paths.evaluations)))
    for name, final in (("win_rate", lambda r: r.win_rate), ("ci_low", lambda r: r.ci[0]),
                        ("ci_high", lambda r: r.ci[1]), ("mean_score", lambda r: r.mean_score)):
        logged = sorted((e.step, round(e.value, 2)) for e in events.Scalars(f"eval/random/{name}"))
        expected = [(int(r["timesteps"]), round(float(r[name]), 2)) for r in rows]
        expected += [(512, round(final(first[0]), 2)), (1024, round(final(results[0]), 2))]
        assert logged == sorted(expected), name
    for f in (paths.results_csv, paths.results_md, paths.curve, paths.final_model):
        assert f.is_file()
    assert "| random | 3 |" in paths.results_md.read_text()
    summary = json.loads(paths.summary.read_text())
    assert summary["timesteps"] == 1024
    assert (summary["torch"], summary["torch_cpu_capability"]) == (torch.__version__,
                                                                   torch.backends.cpu.get_cpu_capability())

    bot = PPOAgent(paths.final_model, deterministic=False, seed=1)
    game = NefertitiGame(num_players=3, seed=2)
    probs = bot.probabilities(game, game.current_player)
    assert probs.sum() == pytest.approx(1) and set(np.flatnonzero(probs)) <= set(game.legal_actions())
    again = PPOAgent(out, deterministic=False, seed=1)                           # a run folder loads its final model
    assert [bot.act(game, game.current_player) for _ in range(5)] == [again.act(game, game.current_player)
                                                                       for _ in range(5)]


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    """A run folder with a final model (256 steps of a tiny run)."""
    from training.trainer import train

    out = tmp_path_factory.mktemp("trained") / "run"
    train(tiny_config(out, 256), progress=False)
    return out


def test_init_from_starts_a_new_run_from_another_runs_weights(tmp_path, trained_run):
    """Fine-tuning (`init_from`): the new run's first policy is the given model's, a network of
    another shape is refused by name, and a missing model is a config problem."""
    from training.trainer import Trainer, load_run_config

    first = trained_run
    trained = MaskablePPO.load(first / "final_model.zip", device="cpu").policy.state_dict()

    def setup(net_arch):
        data = {**tiny_config(tmp_path / "second", 256).to_dict(), "init_from": str(first)}
        data["ppo"]["net_arch"] = net_arch
        trainer = Trainer(config_from_dict(data))
        trainer._setup()
        return trainer

    trainer = setup([16])
    loaded = trainer.model.policy.state_dict()
    trainer.venv.close()
    assert loaded.keys() == trained.keys() and all(torch.equal(loaded[k], trained[k]) for k in trained)
    with pytest.raises(ConfigError, match=r"init_from: .*final_model.zip does not fit .*net_arch \[32\]"):
        setup([32])
    with pytest.raises(ConfigError, match="init_from: no model at"):
        config_from_dict({"init_from": str(tmp_path / "nowhere")})

    moved = tmp_path / "moved"                    # a copied run folder resumes in the copy
    shutil.copytree(first, moved)
    saved = yaml.safe_load((moved / "config.yaml").read_text())
    (moved / "config.yaml").write_text(yaml.safe_dump({**saved, "init_from": str(tmp_path / "gone")}))
    assert load_run_config(moved).out == str(moved)   # and a fine-tuned run resumes without its init model


def test_a_trained_agent_enters_the_tournament_harness(tmp_path, trained_run):
    """`ppo:path=RUN` is a bot spec like any other: tournaments, seat rotation, clear errors."""
    from agents import make_bot
    from agents.tournament import run as tournament

    spec = f"ppo:path={trained_run}"
    results = tournament([spec, "random", "random"], games=3, seed=0, progress=False)
    seats = [r.job.bots.index(spec) for r in results]
    assert sorted(seats) == [0, 1, 2] and all(r.decisions[seat] > 0 for r, seat in zip(results, seats))
    bot, game = make_bot(spec, seed=0), NefertitiGame(num_players=3, seed=5)
    assert bot.act(game, game.current_player) in game.legal_actions()
    with pytest.raises(ValueError, match="no PPO model at"):
        make_bot(f"ppo:path={tmp_path / 'missing'}")
    with pytest.raises(ValueError, match="bad parameters for bot 'ppo'"):
        make_bot("ppo")
