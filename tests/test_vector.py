"""The batched env plays the same games as NefertitiGame (docs/rules.md §1-§8 through the engine)."""
import multiprocessing

import numba
import numpy as np
import pytest

from nefertiti_env import IllegalActionError, NefertitiGame
from nefertiti_env.core.actions import NUM_ACTIONS
from nefertiti_env.core.engine import layout as L, step as engine_step
from nefertiti_env.encoding import observation_version
from nefertiti_env.vector import MAX_NUM_ENVS, MIN_ROWS_PER_THREAD, NefertitiVectorEnv, game_seed, random_play, threads

OPTION_SETS = [
    dict(num_players=4, observation="v0"),
    dict(num_players=2, observation="v1", max_decisions=90),          # truncation, and the neutral player
    dict(num_players=5, setup="advanced", characters="expansion"),    # Memphis (mandatory), roster draw
    dict(num_players=3, memphis=True, characters="expansion", max_decisions=150),
]


def _reference(options, seed, env, game):
    game_options = {k: v for k, v in options.items() if k != "observation"}
    return NefertitiGame(seed=game_seed(seed, env, game), **game_options)


@pytest.mark.parametrize("options", OPTION_SETS)
def test_same_games_as_nefertiti_game(options):
    """Every step: each env's observation, mask and seat equal those of a NefertitiGame dealt from
    game_seed(seed, env, game) and given the same actions; an ended game's rewards are its
    returns() and its final scores its scores(), and the env goes on with the next seed."""
    n, seed, steps = 3, 11, 260
    venv = NefertitiVectorEnv(n, seed=seed, **options)
    encoder = observation_version(options.get("observation", "v1"))
    games = [_reference(options, seed, i, 0) for i in range(n)]
    started = [0] * n
    obs, masks, seats, rewards, terminated, truncated, info = venv.reset()
    rng = np.random.default_rng(5)
    ended = {"terminated": 0, "truncated": 0}
    for _ in range(steps):
        for i, g in enumerate(games):
            assert seats[i] == g.current_player
            assert np.array_equal(masks[i], g.legal_action_mask())
            assert np.array_equal(obs[i], encoder.observe(g, g.current_player))
        actions = np.array([rng.choice(g.legal_actions()) for g in games])
        for g, a in zip(games, actions):
            g.apply(int(a))
        obs, masks, seats, rewards, terminated, truncated, info = venv.step(actions)
        for i, g in enumerate(games):
            assert terminated[i] == g.is_terminated() and truncated[i] == g.is_truncated()
            assert np.array_equal(rewards[i], g.returns())
            if g.is_over():
                ended["terminated" if g.is_terminated() else "truncated"] += 1
                assert np.array_equal(info["final_scores"][i], g.scores())
                started[i] += 1
                games[i] = _reference(options, seed, i, started[i])
            else:
                assert not info["final_scores"][i].any()
        assert list(info["games"]) == [k + 1 for k in started]
    assert ended["terminated"] + ended["truncated"] > 0
    if options.get("max_decisions", 2000) < 100:
        assert ended["truncated"] > 0


def test_illegal_action_names_env_and_action_and_changes_nothing():
    venv = NefertitiVectorEnv(3, seed=2)
    _, masks, seats, *_ = venv.reset()
    before = venv.rows.copy()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    actions[1] = np.flatnonzero(masks[1] == 0)[0]
    with pytest.raises(IllegalActionError, match=f"env 1: action {actions[1]} is not legal for seat {seats[1]}"):
        venv.step(actions)
    actions[1] = 147
    with pytest.raises(IllegalActionError, match="env 1: action 147"):
        venv.step(actions)
    with pytest.raises(ValueError, match="3 integer action ids"):
        venv.step(actions[:2])
    assert np.array_equal(venv.rows, before)


def test_same_run_whatever_the_threads():
    """The seeds depend on (seed, env, game) only: one thread and two give the same batch."""
    runs, n = [], 2 * MIN_ROWS_PER_THREAD
    for t in (1, 2):
        numba.set_num_threads(t)
        try:
            venv = NefertitiVectorEnv(n, seed=3, num_players=3, learner=True)
            assert threads(n) == t
            obs, masks, *_ = venv.reset()
            rng = np.random.default_rng(0)
            for _ in range(40):
                picks = (rng.random(n) * masks.sum(axis=1)).astype(np.int64)
                obs, masks, *_ = venv.step((masks.cumsum(axis=1) <= picks[:, None]).sum(axis=1))
            runs.append((obs.copy(), venv.rows.copy(), venv.games.copy()))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert all(np.array_equal(x, y) for x, y in zip(*runs))


def test_random_play_is_reproducible_and_ends_games():
    """The same seed gives the same games, on one run of rows or on two; the env can be stepped on after."""
    runs = []
    for chunks in (1, 2):
        venv = NefertitiVectorEnv(4, seed=9)
        venv.reset()
        ended = random_play(venv, 400, chunks)
        runs.append((venv.rows.copy(), ended, venv.masks.copy(), venv.seats.copy()))
        for i in range(4):                                             # seats and masks are the games' own
            mask = np.zeros(NUM_ACTIONS, np.int8)
            engine_step.legal_mask(venv.R, venv.rows[i], mask)
            assert venv.seats[i] == L.state_view(venv.rows[i]).actor and np.array_equal(venv.masks[i], mask)
        venv.step(venv.masks.argmax(axis=1))
    assert all(np.array_equal(x, y) for x, y in zip(*runs))
    assert runs[0][1].sum() >= 4          # a 4-player game takes about 170 decisions


def _play_rows_of(chunks):
    venv = NefertitiVectorEnv(8, seed=9)
    venv.reset()
    ended = random_play(venv, 60, chunks)
    return venv.rows, ended


def test_a_forked_child_runs_its_rows_in_threads_of_its_own():
    """The row kernels' thread pool is per process: a child forked after the parent used it (as
    worker processes are) must not queue its chunks on the parent's threads, which it lacks."""
    parent = _play_rows_of(2)                                     # the parent's pool now exists
    with multiprocessing.get_context("fork").Pool(1) as pool:
        child = pool.apply_async(_play_rows_of, (2,)).get(timeout=120)
    assert np.array_equal(child[0], parent[0]) and np.array_equal(child[1], parent[1])


def test_bad_options_are_clear_errors():
    for size in (0, True, 2.0, MAX_NUM_ENVS + 1):         # the last: refused before 1.4 GB is allocated
        with pytest.raises(ValueError, match="num_envs must be an integer from 1 to 65,536"):
            NefertitiVectorEnv(size)
    with pytest.raises(ValueError, match="seed"):
        NefertitiVectorEnv(2, seed=-1)
    with pytest.raises(ValueError, match="observation"):
        NefertitiVectorEnv(2, observation="v9")
    with pytest.raises(RuntimeError, match="reset"):
        NefertitiVectorEnv(2).step(np.zeros(2, np.int64))


@pytest.mark.parametrize("active", [np.array([False]), np.ones(9, np.bool_), np.ones(8, np.int64),
                                    np.ones((8, 1), np.bool_), [1, 0, 1, 0, 1, 0, 1, 0]])
def test_step_and_resume_refuse_an_active_mask_of_another_shape_or_dtype(active):
    """The kernel reads active[i] for every game unchecked: a short mask was read past its end (action -1
    applied in 37 of 64 games)."""
    env = NefertitiVectorEnv(8, seed=1)
    env.reset()
    rows = env.rows.copy()
    with pytest.raises(ValueError, match=r"active must be a bool array of shape \(8,\)"):
        env.step(np.full(8, -1), active=active)
    with pytest.raises(ValueError, match="active must be"):
        env.resume(active)
    assert np.array_equal(env.rows, rows)


def test_inactive_games_ignore_their_actions():
    env = NefertitiVectorEnv(8, seed=1)
    env.reset()
    rows = env.rows.copy()
    active = np.zeros(8, np.bool_)
    active[0] = True
    actions = np.full(8, 10**9)
    actions[0] = np.flatnonzero(env.masks[0])[0]
    env.step(actions, active=active)
    assert np.array_equal(env.rows[1:], rows[1:]) and not np.array_equal(env.rows[0], rows[0])
    with pytest.raises(IllegalActionError, match="env 0: action 1000000000"):
        env.step(np.full(8, 10**9, np.uint64), active=active)


def test_map_in_threads_keeps_the_items_order_and_raises_their_errors():
    """Items of unequal cost shared by the threads come back in their order; an item's error reaches the
    caller."""
    import time

    from nefertiti_env.vector import map_in_threads

    assert map_in_threads(lambda x: (time.sleep(0.01 * (x % 3)), x * x)[1], list(range(9))) == [x * x for x in range(9)]
    assert map_in_threads(abs, []) == []
    with pytest.raises(ZeroDivisionError):
        map_in_threads(lambda x: 1 // x, [3, 2, 1, 0, 5])
