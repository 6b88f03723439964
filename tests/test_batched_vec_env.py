"""The SB3 VecEnv over the batched engine: the learner's seat only, opponents inside (docs/training.md)."""
import subprocess
import sys

import numpy as np
import pytest

from nefertiti_env.vector import learner_seat
from nefertiti_env.training.batched_vec_env import BatchedVecEnv


def _play(env, steps, rng):
    """Random legal learner moves; per step the learner's seat decides in every env. Returns the
    episodes' rewards and infos."""
    ended = []
    env.reset()
    for _ in range(steps):
        games = env.venv.games
        assert np.array_equal(env.venv.seats, [learner_seat(i, games[i], env.venv.num_players)
                                              for i in range(env.num_envs)])
        masks = np.stack(env.env_method("action_masks"))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        env.step_async(actions)
        obs, reward, done, infos = env.step_wait()
        assert obs.shape == (env.num_envs, env.observation_space.shape[0])
        assert not reward[~done].any()
        ended += [(reward[i], infos[i]) for i in np.flatnonzero(done)]
    return ended


def _check_episodes(ended):
    assert ended
    for reward, info in ended:
        assert reward in (-1.0, 1.0) and info["win"] == (reward > 0) and info["score"] > 0


def _recorded_play(env, steps, rng, members=None):
    """Random legal learner moves for `steps` steps from a reset: the learner's actions per (env, game) and
    the ended games as (env, game, info); into `members`, if given, each game's seats' members of a mixture."""
    actions, ended = {}, []
    env.reset()
    for _ in range(steps):
        if members is not None:
            for i in range(env.num_envs):
                members[i, int(env.venv.games[i])] = env.member[i].copy()
        chosen = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        for i, a in enumerate(chosen):
            actions.setdefault((i, int(env.venv.games[i])), []).append(int(a))
        env.step_async(chosen)
        _, _, done, infos = env.step_wait()
        ended += [(i, int(env.venv.games[i]) - 1, infos[i]) for i in np.flatnonzero(done)]
    return actions, ended


def _replayed_score(env, i, k, info, actions, bot) -> int:
    """The learner's final score in game k of env i replayed through NefertitiGame: its own actions at its
    seat, `bot`'s at the others."""
    from nefertiti_env import NefertitiGame
    from nefertiti_env.vector import game_seed

    game = NefertitiGame(num_players=env.venv.num_players, seed=int(game_seed(env.venv.seed, i, k)))
    learner = iter(actions[i, k])
    while not game.is_over():
        p = game.current_player
        game.apply(next(learner) if p == info["seat"] else bot.act(game, p))
    return int(game.scores()[info["seat"]])


def test_random_opponents_are_played_inside_and_reproducible():
    """The learner's seat rotates by game; its terminal reward is +1/-1 (docs/rules.md §8 winners)."""
    runs = [_play(BatchedVecEnv(3, num_players=3, seed=4, observation="v1"), 150, np.random.default_rng(1))
            for _ in range(2)]
    _check_episodes(runs[0])
    assert [(r, i["seat"], i["score"]) for r, i in runs[0]] == [(r, i["seat"], i["score"]) for r, i in runs[1]]
    assert len({i["seat"] for _, i in runs[0]}) > 1


def test_snapshot_opponents_play_sampled_moves_of_their_policies():
    from sb3_contrib import MaskablePPO

    env = BatchedVecEnv(3, num_players=2, seed=1, observation="v1")
    policies = [MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [16]}, seed=s).policy for s in (0, 1)]
    snap = BatchedVecEnv(3, num_players=2, seed=1, observation="v1", opponents="snapshot", snapshots=policies)
    ended = _play(snap, 120, np.random.default_rng(2))
    _check_episodes(ended)
    assert {i["opponents"] for _, i in ended} == {"snapshot"}
    with pytest.raises(ValueError, match="reads 657 floats"):
        BatchedVecEnv(2, observation="v0", opponents="snapshot", snapshots=policies)
    with pytest.raises(RuntimeError, match="no snapshot yet"):
        BatchedVecEnv(2, observation="v1", opponents="snapshot").reset()


def test_snapshot_tables_decide_with_the_policies_logits():
    """The compiled actor (snapshot_tables.py) gives each row its own snapshot's torch logits, for
    Tanh and ReLU networks; a pool mixing architectures is refused."""
    import torch
    from sb3_contrib import MaskablePPO
    from nefertiti_env.training.snapshot_tables import SnapshotStack

    env = BatchedVecEnv(6, num_players=3, seed=2, observation="v1")
    obs = env.reset()
    for kwargs in ({"net_arch": [32, 16]}, {"net_arch": [24], "activation_fn": torch.nn.ReLU}):
        policies = [MaskablePPO("MlpPolicy", env, policy_kwargs=kwargs, seed=s).policy for s in range(3)]
        stack = SnapshotStack()
        assert [stack.add(p) for p in policies] == [0, 1, 2]
        which = np.array([2, 0, 1, 1, 0, 2])
        with torch.no_grad():
            expected = np.stack([policies[w].action_net(policies[w].mlp_extractor.forward_actor(
                torch.as_tensor(obs[i:i + 1])))[0].numpy() for i, w in enumerate(which)])
        got = stack.logits(which, obs)
        tol = {"rtol": 1e-4, "atol": 1e-8}          # the logits of a new policy are about 1e-3
        assert np.allclose(got, expected, **tol) and not np.allclose(got, stack.logits(np.roll(which, 1), obs), **tol)
    with pytest.raises(ValueError, match="layers"):
        stack.add(MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [16]}).policy)


def test_only_the_newest_snapshots_are_drawn():
    """As opponents.OpponentPool: new games draw one of the newest max_snapshots; an older one
    leaves the stack once no game plays it, and the tables playing it keep it until then."""
    from sb3_contrib import MaskablePPO
    from nefertiti_env.agents.network import mlp_layers

    env = BatchedVecEnv(8, num_players=2, seed=3, observation="v1", opponents="snapshot", max_snapshots=2)
    policies = [MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, seed=s).policy for s in range(4)]
    env.env_method("add_snapshot", policies[0])
    env.reset()
    rng = np.random.default_rng(0)
    for policy in policies[1:]:
        playing = env.stack.params[env.snapshot].copy()
        env.env_method("add_snapshot", policy)
        assert np.array_equal(env.stack.params[env.snapshot], playing)     # the games in play keep their snapshot
        assert len(env.live) <= 2 and len(env.stack) <= 2 + len(np.unique(env.snapshot))
        for _ in range(60):
            env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
            env.step_wait()
    newest = [MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}, seed=s).policy for s in (2, 3)]
    drawn = {tuple(env.stack.params[r][:5]) for r in env.live}
    assert drawn == {tuple(np.concatenate(mlp_layers(p)[0])[:5].astype(np.float32)) for p in newest}


def test_a_mix_of_random_and_snapshot_tables_drawn_per_game():
    """opponents as weights: each game's kind is drawn from its seed, both kinds come up, and the
    random tables never wait on Python while the snapshot tables do."""
    from sb3_contrib import MaskablePPO

    env = BatchedVecEnv(8, num_players=3, seed=5, observation="v1")
    policy = MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [16]}, seed=0).policy
    mixed = BatchedVecEnv(8, num_players=3, seed=5, observation="v1", opponents={"random": 1, "snapshot": 1})
    mixed.env_method("add_snapshot", policy)
    ended = _play(mixed, 200, np.random.default_rng(3))
    _check_episodes(ended)
    kinds = [i["opponents"] for _, i in ended]
    assert 0.25 < kinds.count("random") / len(kinds) < 0.75
    with pytest.raises(ValueError, match="non-negative weights"):
        BatchedVecEnv(2, opponents={"random": 1, "banker": -1})
    with pytest.raises(ValueError, match="not a heuristic bot"):         # a trained agent searching at play time
        BatchedVecEnv(2, opponents={"champion:search=8": 1})


def test_bot_tables_play_the_heuristic_bots_moves():
    """At a bot table the compiled bots move every opponent seat, as HeuristicBot.act would: the
    games replay move for move through NefertitiGame with banker bots seeded like the tables."""
    from nefertiti_env.agents import make_bot

    env = BatchedVecEnv(4, num_players=3, seed=9, observation="v1", opponents="banker")
    seeds = {}
    draw = env._draw_tables

    def remember(started):          # the generator words each new game's bots start from
        draw(started)
        for i in np.flatnonzero(started):
            seeds[(int(i), int(env.venv.games[i]))] = env.G[i].copy()
    env._draw_tables = remember
    actions, ended = _recorded_play(env, 120, np.random.default_rng(0))
    assert ended and {info["opponents"] for _, _, info in ended} == {"banker"}
    i, k, info = ended[0]
    bot = make_bot("banker", seed=0)
    bot._G[:] = seeds[(i, k)]
    bot._G_ahead = True
    assert _replayed_score(env, i, k, info, actions, bot) == info["score"]


def test_search_tables_play_the_search_bots_moves_and_reproduce():
    """At an mcts table one search bot, seeded per game, moves every opponent seat from the table's state row,
    as MCTSBot.act does on a NefertitiGame: the game replays move for move with a bot started from the same
    generator; and the same seed gives the same games."""
    import copy

    from nefertiti_env.agents import make_bot

    spec = "mcts:iterations=12"

    def run():
        env = BatchedVecEnv(2, num_players=3, seed=11, observation="v1", opponents={spec: 1.0, "random": 1.0})
        starts, draw = {}, env._draw_tables

        def remember(started):          # each new search table's generator, before its first search
            draw(started)
            for i in np.flatnonzero(started).tolist():
                if i in env.searchers:
                    starts[i, int(env.venv.games[i])] = copy.deepcopy(env.searchers[i].rng.bit_generator.state)
        env._draw_tables = remember
        return (env, starts, *_recorded_play(env, 160, np.random.default_rng(2)))

    def outcomes(ended):
        return [(i, k, info["seat"], info["opponents"], info["score"]) for i, k, info in ended]

    env, starts, actions, ended = run()
    assert outcomes(run()[3]) == outcomes(ended)                                 # the same seed, the same games
    searched = [(i, k, info) for i, k, info in ended if info["opponents"] == spec]
    assert searched and any(info["opponents"] == "random" for _, _, info in ended)
    i, k, info = searched[0]
    bot = make_bot(spec, seed=0)
    bot.rng.bit_generator.state = starts[i, k]
    assert _replayed_score(env, i, k, info, actions, bot) == info["score"]


def test_fixed_agent_tables_play_the_agents_moves(tmp_path):
    """A fixed trained agent ("ppo:path=FILE", "champion") sits at every opponent seat and moves as
    `PPOAgent.act` would: the games replay move for move through NefertitiGame with that bot; an
    agent with search, or reading another observation, is refused."""
    from sb3_contrib import MaskablePPO
    from nefertiti_env.agents import make_bot, policy_file

    model = tmp_path / "frozen.pt"
    policy = MaskablePPO("MlpPolicy", BatchedVecEnv(1, num_players=3, observation="v1"),
                         policy_kwargs={"net_arch": [32]}, seed=7).policy
    policy_file.save(model, policy)
    spec = f"ppo:path={model}"
    env = BatchedVecEnv(3, num_players=3, seed=11, observation="v1", opponents=spec)
    env.env_method("add_snapshot", MaskablePPO("MlpPolicy", env, policy_kwargs={"net_arch": [8]}).policy)
    actions, ended = _recorded_play(env, 150, np.random.default_rng(0))
    firsts = [(i, k, info) for i, k, info in ended if k == 0]
    assert len(firsts) == 3 and {info["opponents"] for _, _, info in firsts} == {spec}
    bot = make_bot(spec, seed=0)
    for i, k, info in firsts:
        assert _replayed_score(env, i, k, info, actions, bot) == info["score"]
    with pytest.raises(ValueError, match="not a heuristic bot"):
        BatchedVecEnv(2, opponents=f"{spec}:search=10")
    with pytest.raises(ValueError, match="reads 657 floats"):
        BatchedVecEnv(2, observation="v2", opponents=spec)


def test_a_fixed_mixtures_seats_each_draw_their_member_per_game(tmp_path):
    """A mixture (`mixture:paths=A+B`) at the opponent seats: each seat draws its member per game, as each seat's
    `MixtureBot` does in play, so two seats of one game may play different members; every game replays move for
    move with each seat's member, also where a game of one fixed policy follows it at the same table."""
    from sb3_contrib import MaskablePPO
    from nefertiti_env.agents import make_bot, policy_file
    from nefertiti_env.training.snapshot_tables import fixed_policies

    models = [tmp_path / f"member{s}.pt" for s in (0, 1)]
    for seed, model in enumerate(models):
        policy_file.save(model, MaskablePPO("MlpPolicy", BatchedVecEnv(1, num_players=3, observation="v1"),
                                            policy_kwargs={"net_arch": [32]}, seed=seed).policy)
    mixture, single = f"mixture:paths={models[0]}+{models[1]}", f"ppo:path={models[0]}"
    assert [len(fixed_policies(mixture, n)[0]) for n in (3, 4)] == [2, 2]
    env = BatchedVecEnv(4, num_players=3, seed=5, observation="v1", opponents={mixture: 2.0, single: 1.0})
    members = {}
    actions, ended = _recorded_play(env, 400, np.random.default_rng(3), members)
    bots = [make_bot(f"ppo:path={model}", seed=0) for model in models]

    class Seats:
        """Each seat's member of game (i, k)."""

        def __init__(self, drawn):
            self.drawn = drawn

        def act(self, game, seat):
            return bots[self.drawn[seat]].act(game, seat)
    mixed = [(i, k, info) for i, k, info in ended if info["opponents"] == mixture]
    assert len(mixed) >= 4 and any(info["opponents"] == single for _, _, info in ended)
    drawn = [members[i, k][[s for s in range(3) if s != info["seat"]]] for i, k, info in mixed]
    assert any(d[0] != d[1] for d in drawn) and {m for d in drawn for m in d} == {0, 1}   # per seat, both members
    for i, k, info in ended:
        seats = Seats(members[i, k] if info["opponents"] == mixture else [0, 0, 0])
        assert _replayed_score(env, i, k, info, actions, seats) == info["score"]


def test_score_diff_reward_is_the_final_score_less_the_others_mean():
    """reward="score_diff" as the AEC env's (docs/rules.md §8 scoring): (own - mean of the others) / 100
    on the last transition; the same games, wins and scores as under win_loss."""
    envs = [BatchedVecEnv(3, num_players=3, seed=6, observation="v1", reward=r) for r in ("win_loss", "score_diff")]
    finals = {}
    step = envs[1].venv.step

    def remember(*args, **kwargs):
        out = step(*args, **kwargs)
        for i in np.flatnonzero(out[4] | out[5]):
            finals[int(i)] = out[6]["final_scores"][i].copy()
        return out
    envs[1].venv.step = remember
    for env in envs:
        env.reset()
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(150):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in envs[0].action_masks()])
        (_, r0, d0, i0), (_, r1, d1, i1) = [(env.step_async(actions), env.step_wait())[1] for env in envs]
        assert np.array_equal(d0, d1) and [(a["win"], a["score"]) for a in i0] == [(b["win"], b["score"]) for b in i1]
        for i in np.flatnonzero(d1):
            s, seat = finals[int(i)], i1[i]["seat"]
            assert s[seat] == i1[i]["score"]
            assert r1[i] == np.float32((s[seat] - (s.sum() - s[seat]) / 2) / 100) and r0[i] in (-1, 1)
            checked += 1
        assert not r1[~d1].any()
    assert checked >= 3
    with pytest.raises(ValueError, match="reward must be one of"):
        BatchedVecEnv(2, reward="rank")


def test_maskable_ppo_learns_on_it():
    """A few hundred learner steps of MaskablePPO, masks through env_method("action_masks")."""
    from sb3_contrib import MaskablePPO

    env = BatchedVecEnv(4, num_players=4, seed=0, observation="v1")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [32]},
                        seed=0)
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    env.close()


def test_a_training_run_steps_its_games_on_it(tmp_path):
    """The trainer steps its games on BatchedVecEnv against random and snapshot tables (snapshots taken on
    schedule join the pool, evaluation runs as usual); a trained agent searching at play time is a config
    error naming it."""
    from nefertiti_env.training.config import ConfigError, config_from_dict
    from nefertiti_env.training.trainer import RunPaths, Trainer

    data = {"total_timesteps": 256, "seed": 3, "out": str(tmp_path / "run"), "checkpoint_every": 256,
            "env": {"num_players": 3, "n_envs": 4, "observation": "v1"},
            "opponents": {"weights": {"random": 1.0, "snapshot": 1.0}, "snapshot_every": 128},
            "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
            "evaluation": {"every_steps": 256, "games": 2, "final_games": 2, "baselines": ["random"], "workers": 1}}
    trainer = Trainer(config_from_dict(data), progress=False)
    results = trainer.run()
    assert isinstance(trainer.venv.venv, BatchedVecEnv)
    assert results[0].games == 2 and RunPaths(tmp_path / "run").final_model.is_file()
    with pytest.raises(ConfigError, match="cannot train against 'champion:search=8'"):
        config_from_dict({**data, "opponents": {"weights": {"random": 1.0, "champion:search=8": 1.0}}})
    assert config_from_dict({**data, "opponents": {"weights": {"random": 1.0, "mcts": 1.0}}})


def test_torch_keeps_its_thread_count_after_the_first_reset_and_an_evaluation():
    """numba's threading layer, started to read its thread count, set torch's back to the core count
    once torch's OpenMP had started (a parallel op or get_num_threads; in the trainer, the model's).
    A fresh process: in this one numba's layer may already be running."""
    code = """
import torch
torch.set_num_threads(1)
assert torch.get_num_threads() == 1
from nefertiti_env.training.batched_vec_env import BatchedVecEnv
from nefertiti_env.training.evaluation import evaluate
env = BatchedVecEnv(4, num_players=3, opponents={"random": 1.0, "greedy": 1.0}, seed=0)
env.reset()
env.step_async(np.array([np.flatnonzero(m)[0] for m in env.env_method("action_masks")]))
env.step_wait()
after_reset = torch.get_num_threads()
evaluate(None, ["random"], 2, {"num_players": 2}, seed=0, workers=1, progress=False, bot="greedy")
evaluate(None, ["random"], 2, {"num_players": 2}, seed=0, workers=2, progress=False, bot="greedy")
print(after_reset, torch.get_num_threads())
"""
    result = subprocess.run([sys.executable, "-c", "import numpy as np" + code], capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "1"]
