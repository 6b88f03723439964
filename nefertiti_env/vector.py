"""N games stepped in one call (pgx / EnvPool style): `NefertitiVectorEnv`.

Every game of the batch is a row of one int64 array (the compiled engine's `S`, see
`core/engine/layout.py`) under one rules array `R`. `step(actions)` applies one decision per
game, restarts the games that ended, and fills the deciding seat's observation and legal
action mask of every game, all in one numba kernel spread over the cores (`prange`, one chunk
of rows per thread). It is the same game as `NefertitiGame`: the same seed and actions give
the same observations, masks and returns (tests/test_vector.py).

Seeds: game k (k = 0, 1, ... counted since `reset`) of env i is `NefertitiGame(seed=game_seed(seed,
i, k))`, a splitmix64 hash of the three numbers, so a run depends on `seed` only, never on the
number of threads or on which game ends first.
"""
from __future__ import annotations

import numpy as np
import numba
from numba import njit, prange

from .core import actions as A
from .core.engine import layout as L
from .core.engine import setup as engine_setup
from .core.engine import step
from .core.game import DEFAULT_MAX_DECISIONS, IllegalActionError, NefertitiGame
from .encoding import observation_version
from .encoding.observation import observe_batch

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _mix(z):
    """splitmix64's finaliser: a uint64 hash with every input bit reaching every output bit."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def game_seed(seed, env, game):
    """The seed (0 <= s < 2**63) of game `game` of env `env` in a batch seeded `seed`."""
    z = _mix(np.uint64(seed) + _GOLDEN)
    z = _mix(z ^ (np.uint64(env) + _GOLDEN))
    z = _mix(z ^ (np.uint64(game) + _GOLDEN))
    return np.int64(z >> np.uint64(1))


@njit(cache=True)
def _settle(R, rows, i, seed, games, rewards, terminated, truncated, scores):
    """After a decision of game i: its returns and final scores if it ended, then a new game in its row."""
    S = rows[i]
    n = R[L.R_NUM_PLAYERS]
    rewards[i, :] = 0
    terminated[i] = step.is_terminated(R, S)
    truncated[i] = step.is_truncated(R, S)
    if terminated[i] or truncated[i]:
        step.returns(R, S, rewards[i])
        final = step.final_scores(R, S)
        scores[i, :] = final[:n]
        games[i] += 1
        engine_setup.new_game(R, S, game_seed(seed, i, games[i]))


@njit(cache=True, parallel=True)
def _advance(R, rows, actions, restart, seed, games, seats, masks, rewards, terminated, truncated, scores,
             src, a, b, ind_src, ind_n, ind_offset, lit, lit_value, face_down, obs, chunks):
    """Apply actions[i] to every game (or, with `restart`, deal game games[i] afresh), settle the
    ended games, then fill seats, masks and observations; `chunks` runs of rows, one per thread
    (numba's get_num_threads inside a kernel would keep it from being cached)."""
    n = rows.shape[0]
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        lo, hi = c * size, min(n, (c + 1) * size)
        for i in range(lo, hi):
            if restart:
                engine_setup.new_game(R, rows[i], game_seed(seed, i, games[i]))
                rewards[i, :] = 0
                terminated[i] = truncated[i] = False
            else:
                step.apply(R, rows[i], actions[i])
                _settle(R, rows, i, seed, games, rewards, terminated, truncated, scores)
            seats[i] = rows[i, L.ACTOR]
            masks[i, :] = 0
            step.legal_mask(R, rows[i], masks[i])
        if hi > lo:
            observe_batch(R, rows[lo:hi], seats[lo:hi], src, a, b, ind_src, ind_n, ind_offset, lit, lit_value,
                          face_down, obs[lo:hi])


@njit(cache=True)
def _draw(state):
    """The next uint64 of a splitmix64 stream kept in state[0]."""
    state[0] += _GOLDEN
    return _mix(state[0])


@njit(cache=True, parallel=True)
def random_play(R, rows, seed, games, decisions, chunks) -> np.ndarray:
    """Play `decisions` uniformly random legal decisions in every game of `rows` (no observation:
    the benchmark of the engine alone); an ended game restarts as in `NefertitiVectorEnv`.
    Returns the games ended per row. The choices come from a splitmix64 stream per row seeded
    from `seed`, so a run is reproducible; `chunks`: runs of rows, one per thread (`threads(n)`)."""
    n = rows.shape[0]
    ended = np.zeros(n, np.int64)
    size = (n + chunks - 1) // chunks
    for c in prange(chunks):
        mask = np.zeros(A.NUM_ACTIONS, np.int8)
        state = np.zeros(1, np.uint64)
        for i in range(c * size, min(n, (c + 1) * size)):
            S = rows[i]
            state[0] = _mix(np.uint64(game_seed(seed, i, -1)))
            for _ in range(decisions):
                mask[:] = 0
                step.legal_mask(R, S, mask)
                count = 0
                for j in range(A.NUM_ACTIONS):
                    count += mask[j]
                pick = np.int64(_draw(state) % np.uint64(count))
                for j in range(A.NUM_ACTIONS):
                    if mask[j]:
                        if pick == 0:
                            step.apply(R, S, j)
                            break
                        pick -= 1
                if step.is_over(R, S):
                    ended[i] += 1
                    games[i] += 1
                    engine_setup.new_game(R, S, game_seed(seed, i, games[i]))
    return ended


def threads(n: int) -> int:
    """Runs of rows for a batch of n games: one per numba thread (NUMBA_NUM_THREADS, or
    numba.set_num_threads)."""
    return max(1, min(n, numba.get_num_threads()))


class NefertitiVectorEnv:
    """`num_envs` games of the same options, stepped together.

    `reset()` and `step(actions)` return `(obs, masks, seats, rewards, terminated, truncated, info)`:
    obs float32 [N, size] (each game's deciding seat's observation, encoder `observation`: "v0"
    or the compact "v1"), masks int8 [N, 147], seats int64 [N] (the deciding seat), rewards
    float32 [N, num_players] (the ended game's returns: +1 winners, -1 the others, 0 when
    truncated at `max_decisions`; 0 for games going on), terminated and truncated bool [N].
    An ended game is replaced at once by the next game of its env (so obs, masks and seats are
    the new game's); info["final_scores"] int64 [N, num_players] holds the ended games' scores
    (0 elsewhere) and info["games"] the games each env has started since `reset`.
    Game options (ruleset, setup, memphis, characters, max_decisions) are NefertitiGame's.
    """

    def __init__(self, num_envs: int, num_players: int = 4, seed: int = 0, observation: str = "v0",
                 ruleset="default", setup: str = "beginner", memphis: bool | None = None, characters="base",
                 max_decisions: int = DEFAULT_MAX_DECISIONS):
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        self.seed = _check_seed(seed)
        # a game of these options: checks them, and gives R and the observation tables
        self.template = NefertitiGame(num_players, ruleset=ruleset, seed=0, setup=setup, memphis=memphis,
                                      characters=characters, max_decisions=max_decisions)
        self.num_envs, self.num_players = num_envs, num_players
        self.encoder = observation_version(observation)
        self.plan = self.encoder.batch_plan(self.template)
        self.R = self.template.R
        self.rows = np.zeros((num_envs, L.STATE_SIZE), dtype=np.int64)
        self.games = np.zeros(num_envs, dtype=np.int64)
        self.obs = np.zeros((num_envs, self.encoder.size), dtype=np.float32)
        self.masks = np.zeros((num_envs, A.NUM_ACTIONS), dtype=np.int8)
        self.seats = np.zeros(num_envs, dtype=np.int64)
        self.rewards = np.zeros((num_envs, num_players), dtype=np.float32)
        self.terminated = np.zeros(num_envs, dtype=np.bool_)
        self.truncated = np.zeros(num_envs, dtype=np.bool_)
        self.final_scores = np.zeros((num_envs, num_players), dtype=np.int64)
        self._ready = False

    def _run(self, actions: np.ndarray, restart: bool):
        p = self.plan
        self.final_scores[:] = 0
        _advance(self.R, self.rows, actions, restart, self.seed, self.games, self.seats, self.masks, self.rewards,
                 self.terminated, self.truncated, self.final_scores, p.src, p.a, p.b, p.ind_src, p.ind_n,
                 p.ind_offset, p.lit, p.lit_value, p.face_down, self.obs, threads(self.num_envs))
        self._ready = True
        info = {"final_scores": self.final_scores, "games": self.games + 1}
        return self.obs, self.masks, self.seats, self.rewards, self.terminated, self.truncated, info

    def reset(self, seed: int | None = None):
        """Deal game 0 of every env (from `seed` if given, else the constructor's)."""
        if seed is not None:
            self.seed = _check_seed(seed)
        self.games[:] = 0
        return self._run(np.zeros(self.num_envs, dtype=np.int64), restart=True)

    def step(self, actions):
        """Apply actions[i] (an action id legal in game i) in every game. The arrays returned are
        reused by the next call: copy what you keep."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integer action ids, got {actions.dtype} "
                             f"array of shape {actions.shape}")
        actions = actions.astype(np.int64, copy=False)
        inside = (actions >= 0) & (actions < A.NUM_ACTIONS)
        legal = inside & (self.masks[np.arange(self.num_envs), np.where(inside, actions, 0)] != 0)
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(
                f"env {i}: action {int(actions[i])} is not legal for seat {int(self.seats[i])}; legal: "
                f"{np.flatnonzero(self.masks[i]).tolist()} ({int((~legal).sum())} env(s) with an illegal action; "
                "no game was changed)")
        return self._run(actions, restart=False)

    def game(self, i: int) -> NefertitiGame:
        """A NefertitiGame holding a copy of env i's position (no history), e.g. to render it."""
        g = self.template.clone()
        g.S[:] = self.rows[i]
        g.board_changed()
        return g


def _check_seed(seed) -> int:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer 0 <= seed < 2**63, got {seed!r}")
    return int(seed)
