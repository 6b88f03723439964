"""Training: the single-agent wrapper, the opponent pool, evaluation, configs, a tiny run with resume."""
from __future__ import annotations

import base64
import csv
import json
import re
import shutil
import sys
import zipfile
from pathlib import Path

import cloudpickle

import numpy as np
import pytest
import torch
import yaml

from conftest import run_with_a_cold_cache
from nefertiti_env.agents import Agent, RandomBot, make_bot, policy_file
from nefertiti_env.agents.policy_file import ModelFileError
from nefertiti_env.agents.ppo import load_policy
from nefertiti_env.agents.run_folder import RunFolderError
from nefertiti_env.agents.stats import wilson
from nefertiti_env import IllegalActionError, NefertitiGame
from nefertiti_env.env.aec import final_rewards
from nefertiti_env.training.config import ConfigError, config_from_dict, load_config
from nefertiti_env.training.evaluation import play_games
from nefertiti_env.training.opponents import OpponentPool
from nefertiti_env.training.single_agent import SingleAgentEnv


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
    game.state.points[[s for s in range(4) if s != learner]] += 500
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
    game.state.points[1] += 500
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
    low, high = wilson(8, 10, z=1.96)           # p = 0.8, z = 1.96: 0.490 .. 0.943
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson(0, 0, z=1.96) == (0.0, 1.0)


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
    assert len(outcomes) == 6 and all(isinstance(w, bool) for w, _, _ in outcomes)
    for i, (_, score, entry) in enumerate(outcomes):        # each game's record replays it, for `nefertiti replay`
        game = NefertitiGame.replay(entry["record"])
        assert entry["index"] == i and entry["bots"][i % 3] == "learner" and entry["bots"].count("random") == 2
        assert game.is_over() and int(game.scores()[i % 3]) == score


def test_evaluation_takes_a_bot_spec_in_the_learners_seat_and_times_its_thinking():
    """`evaluate(bot=...)` plays the spec where the policy would sit (benchmarks/champion_bar.py --bot), the
    same games in one process or two, and sums the learner's decisions and CPU time."""
    from nefertiti_env.training.evaluation import evaluate

    args = dict(game_args={"num_players": 3}, seed=5, progress=False, bot="greedy")
    one, = evaluate(None, ["random"], 4, workers=1, **args)
    two, = evaluate(None, ["random"], 4, workers=2, **args)
    assert one.games == two.games == 4 and one.wins == two.wins >= 3      # greedy beats random bots
    assert one.decisions == two.decisions > 4 * 10 and one.seconds > 0
    assert [e["bots"] for e in sorted(one.records, key=lambda e: e["index"])][0] == ["learner", "random", "random"]



def test_an_evaluation_on_workers_compiles_before_they_start_and_they_compile_nothing(tmp_path):
    """On a fresh install the main process compiles what the games need, up to the results kernels they
    end with, before the workers start, and the workers load it from the cache: each would otherwise
    compile the same code at once, each with its notice across the progress bar."""
    code = ("from nefertiti_env.training.evaluation import evaluate\n"
            "[result] = evaluate(None, ['random'], 4, {'num_players': 2}, seed=0, workers=2, progress=False, "
            "bot='random')\n"
            "print('games', result.games)\n")
    result, twice = run_with_a_cold_cache([sys.executable, "-c", code], tmp_path)
    assert result.returncode == 0, result.stderr
    assert "games 4" in result.stdout.splitlines() and "[cache] data loaded from" in result.stdout
    assert twice == []

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


def test_saved_configs_from_before_the_one_training_path_load_and_the_worker_envs_choices_are_refused():
    """Saved runs hold `env.vector`, `env.workers` and `opponents.per_table`: they load, as no-ops (every run
    trains on the batched engine, one opponent kind per game); what only the removed worker envs did
    (`vector: false`, the rank reward, trained agents searching at play time) is refused, naming it and what to
    use."""
    for saved in ("docs/results/training/quickstart/config.yaml", "docs/results/champion/whole_game/config.yaml"):
        data = yaml.safe_load(open(saved))
        assert data["env"]["vector"] is True and "workers" in data["env"] and "per_table" in data["opponents"]
        config = config_from_dict({**data, "init_from": ""}, source=saved)
        assert config.env.n_envs == data["env"]["n_envs"] and config.opponents.weights == data["opponents"]["weights"]
        assert not {"vector", "workers"} & set(config.to_dict()["env"]) and "per_table" not in config.to_dict()["opponents"]
    for edit, words in (
            ({"env": {"vector": False}}, "env: vector: false asked for the worker envs, which were removed"),
            ({"env": {"reward": "rank"}}, "env.reward: 'rank' was given only by the removed worker envs: use win_loss "
                                          "or score_diff"),
            ({"opponents": {"weights": {"champion:search=32": 1.0}}},
             "opponents.weights: cannot train against 'champion:search=32'")):
        with pytest.raises(ConfigError, match=re.escape(words)):
            config_from_dict(edit)


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


def test_set_changes_dotted_keys_of_the_config_and_names_what_is_wrong(tmp_path, capsys):
    """--set KEY=VALUE: YAML values at dotted paths, applied before the config's own check; the run folder keeps
    the result."""
    from nefertiti_cli import main
    from nefertiti_cli.train import set_keys

    data = tiny_config(tmp_path / "run", 256).to_dict()
    changed = set_keys(data, ["seed=7", "env.ruleset=cheap_gold", "ppo.net_arch=[8, 8]", "ppo.learning_rate=1e-4"])
    config = config_from_dict(changed)
    assert (config.seed, config.env.ruleset, config.ppo.net_arch, config.ppo.learning_rate) == (
        7, "cheap_gold", [8, 8], 1e-4)
    assert data["seed"] == 3 and data["env"]["ruleset"] == "default"                 # the input is left as it was
    config_file = write(tmp_path, data)
    for setting, named in (("ppo.nope=1", "ppo.nope"), ("seed", "give KEY=VALUE"), ("seed.x=1", "seed is a value"),
                           ("ppo.n_epochs=0", "ppo.n_epochs: Input should be greater than or equal to 1"),
                           ("env.n_envs=[1", "the value is no YAML")):
        assert main(["train", "--config", str(config_file), "--set", setting, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert named in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()                                          # nothing was started
    assert main(["train", "--resume", "--out", str(tmp_path / "run"), "--set", "seed=1"]) == 2
    assert "--set starts a new run" in capsys.readouterr().err
    out = tmp_path / "other"
    assert main(["train", "--config", str(config_file), "--set", "seed=11", "--set", f"out={out}",
                 "--set", "evaluation.every_steps=10000", "--total-timesteps", "128", "--quiet"]) == 0
    assert yaml.safe_load((out / "config.yaml").read_text())["seed"] == 11


# ---------------------------------------------------------------- a tiny run

def tiny_config(out, total, observation="v0"):
    return config_from_dict({
        "total_timesteps": total, "seed": 3, "out": str(out), "checkpoint_every": 256,
        "env": {"num_players": 3, "n_envs": 2, "observation": observation},
        "opponents": {"weights": {"random": 1.0, "snapshot": 1.0}, "snapshot_every": 256, "max_snapshots": 3},
        "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "evaluation": {"every_steps": 256, "games": 3, "final_games": 3, "baselines": ["random"], "workers": 1},
    })


def test_tiny_training_run_checkpoints_resumes_and_evaluates(tmp_path):
    from nefertiti_env.agents.ppo import PPOAgent
    from nefertiti_env.training.trainer import RunPaths, load_run_config, train

    out = tmp_path / "run"
    results = first = train(tiny_config(out, 512), progress=False)
    paths = RunPaths(out)
    state = json.loads((paths.latest_checkpoint() / "state.json").read_text())
    assert state["num_timesteps"] == 512 and results[0].games == 3
    assert len(state["pool"]["snapshots"]) == 2 and all((out / p).is_file() for p in state["pool"]["snapshots"])
    with pytest.raises(RunFolderError, match="already holds a training run"):
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
    games = [json.loads(line) for line in paths.eval_games.read_text().splitlines()]
    assert [g["game"] for g in games] == [0, 1, 2] and all(g["baseline"] == "random" for g in games)
    assert all(NefertitiGame.replay(g["record"]).is_over() for g in games)
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


def test_a_leg_ends_at_the_checkpoint_stop_at_names_and_the_same_legs_give_the_same_weights(tmp_path, capsys):
    """`--stop-at`: the session ends at its first checkpoint at or past the step, exit 0, and says how to
    continue; a run in the same legs (through the CLI or `train`) ends with the same weights bit for bit."""
    from nefertiti_cli import main
    from nefertiti_env.training.trainer import LegEnded, RunPaths, load_run_config, train

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny_config(tmp_path / "cli", 1024).to_dict()))
    assert main(["train", "--config", str(config), "--stop-at", "300", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "the leg ended (--stop-at 300): the checkpoint at step 512 is saved" in err
    assert f"nefertiti train --resume --out {tmp_path / 'cli'}" in err
    cli = RunPaths(tmp_path / "cli")
    assert cli.latest_checkpoint().name == "step_0000000512" and not cli.final_model.exists()
    assert main(["train", "--resume", "--out", str(tmp_path / "cli"), "--quiet"]) == 0
    assert json.loads(cli.summary.read_text())["timesteps"] == 1024

    with pytest.raises(LegEnded) as leg:
        train(tiny_config(tmp_path / "api", 1024), progress=False, stop_at=512)
    assert leg.value.step == 512
    train(load_run_config(tmp_path / "api"), resume=True, progress=False)
    ours, theirs = load_policy(cli.final_model).state_dict(), load_policy(RunPaths(tmp_path / "api").final_model).state_dict()
    assert ours.keys() == theirs.keys() and all(torch.equal(ours[k], theirs[k]) for k in ours)
    assert main(["train", "--config", str(config), "--stop-at", "0", "--force", "--quiet"]) == 2
    assert "--stop-at must be >= 1" in capsys.readouterr().err


def test_a_v1_run_trains_on_the_compact_observation_and_its_bot_reads_v1(tmp_path):
    """`env.observation: v1`: the learner's network takes the 657 floats, and the saved model, loaded as a
    bot, observes with the v1 encoder (its input size names the version)."""
    from nefertiti_env.agents.ppo import PPOAgent
    from nefertiti_env.encoding import V1_SIZE, observe_v1
    from nefertiti_env.training.trainer import RunPaths, train

    out = tmp_path / "run"
    results = train(tiny_config(out, 256, observation="v1"), progress=False)
    assert results[0].games == 3
    meta, _ = policy_file.read(RunPaths(out).final_model)
    assert meta["obs_size"] == V1_SIZE
    bot = PPOAgent(out, deterministic=False, seed=1)
    assert bot.observe is observe_v1
    game = NefertitiGame(num_players=3, seed=2)
    probs = bot.probabilities(game, game.current_player)
    assert probs.sum() == pytest.approx(1) and set(np.flatnonzero(probs)) <= set(game.legal_actions())
    with pytest.raises(ConfigError, match="env.observation: Input should be 'v0', 'v1' or 'v2', got 'v9'"):
        config_from_dict({"env": {"observation": "v9"}})


@pytest.fixture(scope="module")
def trained_run(tmp_path_factory):
    """A run folder with a final model (256 steps of a tiny run)."""
    from nefertiti_env.training.trainer import train

    out = tmp_path_factory.mktemp("trained") / "run"
    train(tiny_config(out, 256), progress=False)
    return out


def test_init_from_starts_a_new_run_from_another_runs_weights(tmp_path, trained_run):
    """Fine-tuning (`init_from`): the new run's first policy is the given model's, a network of
    another shape is refused by name, and a missing model is a config problem."""
    from nefertiti_env.training.trainer import Trainer, load_run_config

    first = trained_run
    trained = load_policy(first).state_dict()

    def setup(net_arch):
        data = {**tiny_config(tmp_path / f"second_{net_arch[0]}", 256).to_dict(), "init_from": str(first)}
        data["ppo"]["net_arch"] = net_arch
        trainer = Trainer(config_from_dict(data))
        trainer._setup()
        return trainer

    trainer = setup([16])
    loaded = trainer.model.policy.state_dict()
    trainer.venv.close()
    assert loaded.keys() == trained.keys() and all(torch.equal(loaded[k], trained[k]) for k in trained)
    with pytest.raises(ConfigError, match=r"init_from: .*final_model.pt does not fit .*net_arch is \[32\]"):
        setup([32])
    with pytest.raises(ConfigError, match="init_from: no model at"):
        config_from_dict({"init_from": str(tmp_path / "nowhere")})
    from nefertiti_env.agents.champion import CHAMPION_FILE       # the shipped agent by its name
    assert config_from_dict({"init_from": "champion"}).init_from == str(CHAMPION_FILE)

    moved = tmp_path / "moved"                    # a copied run folder resumes in the copy
    shutil.copytree(first, moved)
    saved = yaml.safe_load((moved / "config.yaml").read_text())
    (moved / "config.yaml").write_text(yaml.safe_dump({**saved, "init_from": str(tmp_path / "gone")}))
    assert load_run_config(moved).out == str(moved)   # and a fine-tuned run resumes without its init model


def test_a_trained_agent_enters_the_tournament_harness(tmp_path, trained_run):
    """`ppo:path=RUN` is a bot spec like any other: tournaments, seat rotation, clear errors."""
    from nefertiti_env.agents import make_bot
    from nefertiti_env.agents.tournament import run as tournament

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


# ---------------------------------------------------------------- safe loading

class Payload:
    """Pickles into a call that creates `marker`: what a malicious model file would carry."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def planted_sb3_zip(path, marker):
    """An SB3 `MaskablePPO.save` archive whose `data` member carries a cloudpickle payload."""
    serialized = base64.b64encode(cloudpickle.dumps(Payload(marker))).decode()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"policy_class": {":type:": "<class 'type'>", ":serialized:": serialized}}))
        archive.writestr("_stable_baselines3_version", "2.9.2")
    return path


def planted_policy_pt(path, marker, trained_run):
    """A policy file in SB3's `policy.save` layout (and in ours) with an extra pickled object."""
    state = load_policy(trained_run).state_dict()
    torch.save({"format": "nefertiti-ppo", "version": 1, "meta": "{}", "state_dict": state, "policy": state,
                "data": {"net_arch": [16]}, "extra": Payload(marker)}, path)
    return path


def test_model_files_with_pickled_code_are_refused_by_name(tmp_path, trained_run):
    """Every way the project loads a model (bot spec, PPO bot, opponent snapshot, evaluation,
    init_from, resume) refuses a planted payload without running it, naming the file."""
    from nefertiti_env.training.evaluation import evaluate
    from nefertiti_env.training.trainer import RunPaths, Trainer, load_run_config, train

    marker = tmp_path / "pwned"
    files = [planted_sb3_zip(tmp_path / "model.zip", marker), planted_policy_pt(tmp_path / "policy.pt", marker,
                                                                               trained_run)]
    legacy_run = tmp_path / "old_run"
    legacy_run.mkdir()
    planted_sb3_zip(legacy_run / "final_model.zip", marker)
    for path in files + [legacy_run]:
        named = str(path if path.is_file() else path / "final_model.zip")
        with pytest.raises(ValueError, match=f"{re.escape(named)} holds pickled objects .* not loaded"):
            make_bot(f"ppo:path={path}")
        with pytest.raises(ModelFileError, match=re.escape(named)):
            OpponentPool({"snapshot": 1.0}, snapshots=[str(path)]).table(np.random.default_rng(0), [1])
        with pytest.raises(ModelFileError, match=re.escape(named)):
            evaluate(str(path), ["random"], 2, {"num_players": 3}, seed=0, workers=2, progress=False)
        data = {**tiny_config(tmp_path / f"init_{path.name}", 256).to_dict(), "init_from": str(path)}
        with pytest.raises(ConfigError, match=f"init_from: {re.escape(named)} holds pickled objects"):
            Trainer(config_from_dict(data))._setup()
    run = tmp_path / "resume"
    shutil.copytree(trained_run, run)
    checkpoint = RunPaths(run).latest_checkpoint() / "model.pt"
    planted_policy_pt(checkpoint, marker, trained_run)
    with pytest.raises(ModelFileError, match=f"{re.escape(str(checkpoint))} holds pickled objects"):
        train(load_run_config(run), resume=True, progress=False)
    assert not marker.exists()


def test_model_file_holds_plain_weights_and_json(trained_run):
    """The final model is a dict of tensors and text (loadable with weights_only=True), with the
    network described in JSON and the optimiser state for fine-tuning."""
    data = torch.load(trained_run / "final_model.pt", weights_only=True)
    meta = json.loads(data["meta"])
    assert (meta["net_arch"], meta["num_timesteps"]) == ([16], 256)
    assert set(data) == {"format", "version", "meta", "policy", "optimizer"}
    assert all(isinstance(t, torch.Tensor) for t in data["policy"].values())


# ---------------------------------------------------------------- the run folder

def test_train_refuses_a_user_folder_and_touches_nothing(tmp_path, capsys):
    from nefertiti_cli import main

    config = write(tmp_path, tiny_config(tmp_path / "unused", 256).to_dict())
    user = tmp_path / "mine"
    (user / "logs").mkdir(parents=True)
    (user / "logs" / "notes.txt").write_text("keep")
    (user / "evaluations.csv").write_text("keep")
    (user / "config.yaml").write_text("keep")
    for extra in ([], ["--force"]):
        assert main(["train", "--config", str(config), "--out", str(user), "--quiet", *extra]) == 2
        err = capsys.readouterr().err
        assert f"{user} is not empty and holds no nefertiti training run" in err and "Traceback" not in err
    assert sorted(p.name for p in user.iterdir()) == ["config.yaml", "evaluations.csv", "logs"]
    assert [(user / n).read_text() for n in ("logs/notes.txt", "evaluations.csv", "config.yaml")] == ["keep"] * 3
    a_file = tmp_path / "a_file"
    a_file.write_text("keep")
    assert main(["train", "--config", str(config), "--out", str(a_file), "--quiet"]) == 2
    assert "exists and is not a folder" in capsys.readouterr().err and a_file.read_text() == "keep"


def test_force_starts_a_run_over_replacing_only_its_own_files(tmp_path, trained_run):
    from nefertiti_env.training.trainer import RunPaths, train

    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    (run / "logs" / "notes.txt").write_text("keep")
    (run / "snapshots" / "favourite.pt").write_text("keep")
    (run / "checkpoints" / "step_0000009999").mkdir()            # not a checkpoint of this run: left alone
    (run / "checkpoints" / "step_0000009999" / "mine.txt").write_text("keep")
    old_events = sorted((run / "logs").glob("events.out.tfevents.*"))
    with pytest.raises(RunFolderError, match="already holds a training run: pass --resume"):
        train(tiny_config(run, 128), progress=False)
    train(tiny_config(run, 128), progress=False, force=True)
    for kept in ("logs/notes.txt", "snapshots/favourite.pt", "checkpoints/step_0000009999/mine.txt"):
        assert (run / kept).read_text() == "keep"
    assert not any(p.exists() for p in old_events)
    assert [int(r["timesteps"]) for r in csv.DictReader(open(RunPaths(run).evaluations))] == [0]
    assert yaml.safe_load(RunPaths(run).config.read_text())["total_timesteps"] == 128     # the new run's
    state = json.loads((RunPaths(run).latest_checkpoint() / "state.json").read_text())
    assert (state["num_timesteps"], state["session_seeds"]) == (256, [3])                  # one session


def test_a_full_disk_mid_run_is_one_line_saying_what_was_saved(tmp_path, monkeypatch, capsys):
    from nefertiti_env.agents import policy_file
    from nefertiti_cli import main

    real_save = policy_file.save

    def full_disk(path, *args, **kwargs):
        if Path(path).name == "final_model.pt":
            raise OSError(28, "No space left on device", str(path))
        real_save(path, *args, **kwargs)

    monkeypatch.setattr(policy_file, "save", full_disk)
    config = write(tmp_path, tiny_config(tmp_path / "run", 256).to_dict())
    assert main(["train", "--config", str(config), "--quiet"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"nefertiti train: cannot write: No space left on device ({tmp_path / 'run' / 'final_model.pt'}); "
                   f"the checkpoint at step 256 is saved; continue with `nefertiti train --resume --out "
                   f"{tmp_path / 'run'}`")


def test_resume_restores_policy_optimiser_and_counters_from_the_checkpoint(tmp_path, trained_run):
    """What SB3's pickled zip carried for resuming is in the safe checkpoint: weights, Adam moments,
    the step and update counters; a run whose config still names the worker envs' keys resumes too."""
    from nefertiti_env.training.trainer import RunPaths, Trainer, load_run_config

    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    config = yaml.safe_load((run / "config.yaml").read_text())     # as saved before the one training path
    config["env"].update(vector=True, workers=2)
    config["opponents"]["per_table"] = False
    (run / "config.yaml").write_text(yaml.safe_dump(config))
    state_file = RunPaths(run).latest_checkpoint() / "state.json"
    state = json.loads(state_file.read_text())
    assert state.pop("timing")["rollout_seconds"] > 0
    state_file.write_text(json.dumps(state))                 # as saved before the training time was split
    saved = torch.load(RunPaths(run).latest_checkpoint() / "model.pt", weights_only=True)
    trainer = Trainer(load_run_config(run), resume=True)
    trainer._setup()
    trainer.venv.close()
    model = trainer.model
    assert (model.num_timesteps, model._n_updates) == (256, 1)
    assert trainer.state["timing"]["from_step"] == 256 and trainer.state["timing"]["rollout_seconds"] == 0
    assert all(torch.equal(v, saved["policy"][k]) for k, v in model.policy.state_dict().items())
    moments = model.policy.optimizer.state_dict()["state"]
    assert moments and all(torch.equal(moments[i]["exp_avg"], saved["optimizer"]["state"][i]["exp_avg"])
                           for i in moments)


def test_the_result_table_does_not_wrap_when_piped(capsys):
    """In a log (not a terminal) each result is one line, however long the baseline's spec."""
    from nefertiti_env.training.evaluation import MatchResult
    from nefertiti_env.training.report import print_table

    print_table([MatchResult("random", 60, 60, 8418.0, 4), MatchResult("greedy:samples=1", 60, 12, 4098.0, 4)],
                "quickstart: learner vs 3 copies of each baseline (81,920 steps, 4 players)")
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if "100.0%" in line or "20.0%" in line]
    assert len(rows) == 2 and "94.0% - 100.0%" in rows[0] and "not separated" in rows[1] and "greedy:samples=1" in rows[1]


def test_a_yaml_alias_bomb_is_refused_in_one_line(tmp_path, capsys):
    """A few hundred bytes of nested aliases expand to gigabytes: anchors and aliases are refused."""
    from nefertiti_cli import main

    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n" for p, c in zip("abcdefgh", "bcdefghi"))
    path = tmp_path / "bomb.yaml"
    path.write_text(bomb + "? *i\n: 1\n")
    assert len(bomb) < 500
    with pytest.raises(ConfigError, match="anchors and aliases .* are not allowed in a config .line 1, column 4"):
        load_config(path)
    assert main(["train", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "anchors and aliases" in err and len(err.strip().splitlines()) == 1
    path.write_text("a: " + "[" * 100_000)
    with pytest.raises(ConfigError, match="not valid YAML: nested too deeply"):
        load_config(path)


@pytest.mark.parametrize("edit, words", [
    ({"env": {"n_envs": 10**9}}, "env.n_envs: Input should be less than or equal to 4096"),
    ({"ppo": {"net_arch": [8000, 8000]}}, "ppo.net_arch[0]: Input should be less than or equal to 4096"),
    ({"ppo": {"n_steps": 10**6}, "env": {"n_envs": 64}}, "ppo.n_steps x env.n_envs: 64000000 observations"),
    ({"evaluation": {"games": 10**12}}, "evaluation.games: Input should be less than or equal to 1000000"),
])
def test_extreme_config_sizes_are_refused_before_any_work(tmp_path, edit, words):
    with pytest.raises(ConfigError, match=re.escape(words)):
        load_config(write(tmp_path, edit))


def test_damaged_run_files_are_one_line_and_never_hide_a_checkpoint(tmp_path, trained_run, capsys):
    """A broken `latest` pointer or a damaged newest checkpoint falls back to the newest whole checkpoint
    (never advising --force while one exists); a damaged config.yaml or checkpoint model is one line, exit 2."""
    from nefertiti_cli import main
    from nefertiti_env.training.trainer import RunPaths, resume_hint

    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    paths = RunPaths(run)
    whole = paths.latest_checkpoint()
    assert whole is not None
    for damage in ("step_9999999999", "../../etc", "\x00\x00", ""):
        paths.latest.write_text(damage)
        assert paths.latest_checkpoint() == whole and "--resume" in resume_hint(run)
    newer = paths.checkpoint(10**9)
    newer.mkdir()
    (newer / "state.json").write_text('{"num_timesteps": ')
    (newer / "model.pt").write_bytes(b"")
    paths.latest.write_text(newer.name)
    assert paths.latest_checkpoint() == whole
    (whole / "model.pt").write_bytes(b"truncated")
    assert main(["train", "--resume", "--out", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"{whole / 'model.pt'} is not a readable model file" in err
    (whole / "state.json").write_text("[]")
    assert "--force" in resume_hint(run)              # no whole checkpoint left: only then
    paths.config.write_text("a: [\n")
    assert main(["train", "--resume", "--out", str(run), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"{paths.config}: damaged" in err
