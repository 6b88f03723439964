"""N games stepped in one call (pgx / EnvPool style): `NefertitiVectorEnv`.

Every game of the batch is a row of one uint8 array (the compiled engine's `S`, see
`core/engine/layout.py`) under one rules array `R`. `step(actions)` applies one decision per
game, restarts the games that ended, and fills the deciding seat's observation and legal
action mask of every game, all in one numba kernel run on one chunk of rows per thread
(`in_threads`). It is the same game as `NefertitiGame`: the same seed and actions give
the same observations, masks and returns (tests/test_vector.py).

Seeds: game k (k = 0, 1, ... counted since `reset`) of env i is `NefertitiGame(seed=game_seed(seed,
i, k))`, a splitmix64 hash of the three numbers, and the random moves of env i (learner mode,
`random_play`) come from its own splitmix64 stream started at `game_seed(seed, i, -1)`, so a run
depends on `seed` only, never on the number of threads or on which game ends first.
"""
from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import numba

from .core import actions as A
from .core.engine import layout as L
from .core.engine import setup as engine_setup
from .core.engine import step
from .core.engine.entry import borrow, first_call_notice, kernel, njit, prefetch
from .core.game import DEFAULT_MAX_DECISIONS, IllegalActionError, NefertitiGame
from .encoding import observation_version
from .encoding.observation import observe_batch

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@kernel
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
def learner_seat(env, game, num_players):
    """The learner's seat in game `game` of env `env` (learner mode): it rotates by game."""
    return (env + game) % num_players


@njit(cache=True)
def random_table(seed, env, game, share):
    """True if the other seats of game `game` of env `env` play random moves inside the kernel (learner
    mode): a draw below `share` from the game's own hash, so it is known before the game starts."""
    u = _mix(np.uint64(game_seed(seed, env, game)) ^ _GOLDEN) >> np.uint64(11)
    return np.float64(u) * 2.0 ** -53 < share


@njit(cache=True, inline="always")
def _settle(R, S, i, seed, batch):
    """After a decision of game i: if it ended, its returns and final scores, then a new game in its row."""
    ended = step.is_over(R, S)
    if ended:
        n = L.rules(R).r_num_players
        batch.terminated[i] = step.is_terminated(R, S)
        batch.truncated[i] = not batch.terminated[i]
        final = step.final_scores(R, S)
        step.returns(R, S, final, batch.rewards[i])
        for p in range(n):
            batch.scores[i, p] = final[p]
        _next_game(R, S, i, seed, batch.games)
    return ended


@njit(cache=True, inline="always")
def _next_game(R, S, i, seed, games):
    """Deal the next game of env i in its row S."""
    games[i] += 1
    engine_setup.new_game(R, S, game_seed(seed, i, games[i]))


# `_random_move`'s scratch: the mask as uint64 words of eight 0/1 bytes, so that it counts and walks the
# legal actions a word at a time (a branch per action byte mispredicts, in the hottest loop of `random_play`)
MASK_WORDS = -(-A.NUM_ACTIONS // 8)
_BYTE_SUM = np.uint64(0x0101010101010101)     # w * _BYTE_SUM >> 56: the sum of w's eight bytes (each 0 or 1)


@njit(cache=True, inline="always")
def _random_move(R, S, words, streams, i):
    """A uniformly random legal action of game S, drawn from row i's splitmix64 stream streams[i];
    `words`: MASK_WORDS uint64 of scratch."""
    words[:] = 0
    mask = words.view(np.int8)
    step.legal_mask(R, S, mask)
    count = np.uint64(0)
    for w in range(MASK_WORDS):
        count += (words[w] * _BYTE_SUM) >> np.uint64(56)
    streams[i] += _GOLDEN
    pick = np.int64(_mix(streams[i]) % count)          # the pick-th legal action, ascending
    for w in range(MASK_WORDS):
        in_word = np.int64((words[w] * _BYTE_SUM) >> np.uint64(56))
        if pick < in_word:
            j = w * 8
            while True:
                pick -= mask[j]
                if pick < 0:
                    return j
                j += 1
        pick -= in_word
    return -1


@njit(cache=True)
def seed_streams(seed, streams):
    """streams[i] = the start of row i's random-play stream in a batch seeded `seed`."""
    for i in range(streams.size):
        streams[i] = _mix(np.uint64(game_seed(seed, i, -1)))


class Batch(NamedTuple):
    """The arrays of N games that a step reads and fills, row i for game i (`NefertitiVectorEnv` holds them;
    described there). A NamedTuple: numba compiles it as a tuple, the kernels read it by name."""
    rows: np.ndarray          # [N, STATE_BYTES] uint8: each game's state S
    games: np.ndarray         # [N] games each env has started since reset, minus one
    streams: np.ndarray       # [N] uint64: each env's random-move stream
    seats: np.ndarray         # [N] the deciding seat
    masks: np.ndarray         # [N, NUM_ACTIONS] int8
    rewards: np.ndarray       # [N, players] float32: an ended game's returns
    terminated: np.ndarray    # [N] bool
    truncated: np.ndarray     # [N] bool
    scores: np.ndarray        # [N, players] int64: an ended game's final scores
    obs: np.ndarray           # [N, size] float32: the deciding seat's observation


def new_batch(num_envs: int, num_players: int, obs_size: int) -> Batch:
    """A Batch of `num_envs` games, zeroed."""
    return Batch(np.zeros((num_envs, L.STATE_BYTES), np.uint8), np.zeros(num_envs, np.int64),
                 np.zeros(num_envs, np.uint64), np.zeros(num_envs, np.int64),
                 np.zeros((num_envs, A.NUM_ACTIONS), np.int8), np.zeros((num_envs, num_players), np.float32),
                 np.zeros(num_envs, np.bool_), np.zeros(num_envs, np.bool_), np.zeros((num_envs, num_players), np.int64),
                 np.zeros((num_envs, obs_size), np.float32))


@njit(cache=True, inline="always")
def _borrowed(batch) -> Batch:
    """`batch` with every array borrowed (`borrow`): a field read from a tuple of counted arrays counts
    a reference in and out, which the PLAY loop would pay at every decision."""
    return Batch(borrow(batch.rows), borrow(batch.games), borrow(batch.streams), borrow(batch.seats),
                 borrow(batch.masks), borrow(batch.rewards), borrow(batch.terminated), borrow(batch.truncated),
                 borrow(batch.scores), borrow(batch.obs))


APPLY, DEAL, CONTINUE, PLAY = 0, 1, 2, 3        # what `_advance_rows` does in each active game


class Advance(NamedTuple):
    """How `_advance_rows` moves the games on: one of the modes above, and the batch's seating (learner
    mode, the share of its random tables) and seed, which deal and restart every game."""
    mode: int
    learner: bool
    share: float
    seed: int


@njit(cache=True, inline="always")
def _prefetch_row(S):
    """Ask for every cache line of the state S: the next row, while this one decides."""
    for at in range(0, S.shape[0], 64):
        prefetch(S, at)


@njit(cache=True, nogil=True)
def _advance_rows(R, batch, plan, actions, active, how, lo, hi):
    """In every game i (lo <= i < hi) of the Batch with active[i]: apply actions[i] (mode APPLY; DEAL: deal
    game games[i]; CONTINUE: nothing, its state was moved on in place by the caller), restart it if it
    ended, and in learner mode play random moves for the other seats until `learner_seat` decides (in
    the games `random_table` draws with the share; in the others, every seat's decision returns to the
    caller); then fill its seat, mask and observation (laid out by the BatchPlan `plan`). Rows not
    active keep their seat, mask and observation; their rewards and flags are cleared. Mode PLAY
    (`random_play`) only plays actions[i] random decisions in game i, restarting it when it ends: one
    kernel for both, since each kernel called from Python links the whole engine into its compiled code
    again (docs/engine.md). `how`: an Advance. R and the batch are borrowed (`borrow`)."""
    R, batch = borrow(R), _borrowed(batch)
    mode, learner, share, seed = how
    rows = batch.rows
    players = L.rules(R).r_num_players
    words = np.empty(MASK_WORDS, np.uint64)
    for i in range(lo, hi):
        batch.rewards[i, :] = 0
        batch.terminated[i] = batch.truncated[i] = False
        if not active[i]:
            continue
        S = rows[i]
        if i + 1 < hi:
            _prefetch_row(rows[i + 1])
        if mode == PLAY:
            for _ in range(actions[i]):
                step.apply(R, S, _random_move(R, S, words, batch.streams, i))
                if step.is_over(R, S):
                    _next_game(R, S, i, seed, batch.games)
            continue
        if mode == DEAL:
            engine_setup.new_game(R, S, game_seed(seed, i, batch.games[i]))
        else:
            if mode == APPLY:
                step.apply(R, S, actions[i])
            _settle(R, S, i, seed, batch)
        s = L.state(S)
        while (learner and s.actor != learner_seat(i, batch.games[i], players)
               and random_table(seed, i, batch.games[i], share)):
            step.apply(R, S, _random_move(R, S, words, batch.streams, i))
            _settle(R, S, i, seed, batch)
        batch.seats[i] = s.actor
        batch.masks[i, :] = 0
        step.legal_mask(R, S, batch.masks[i])
    j = lo if mode != PLAY else hi
    while j < hi:                      # the observations of each run of active rows
        if not active[j]:
            j += 1
            continue
        k = j
        while k < hi and active[k]:
            k += 1
        observe_batch(R, rows[j:k], batch.seats[j:k], plan, batch.obs[j:k])
        j = k


def random_play(venv: "NefertitiVectorEnv", decisions: int, chunks: int) -> np.ndarray:
    """Play `decisions` uniformly random legal decisions in every game of `venv` (after its `reset`),
    with no observation between them: the benchmark of the engine alone. An ended game restarts as in
    `step`; at the end the seats, masks and observations are filled, so the env can be stepped on.
    Returns the games ended per env. The choices come from each env's random-move stream, seeded by
    `reset`, so a run is reproducible; `chunks`: runs of rows, one per thread (`threads(n)`)."""
    if not venv._ready:
        raise RuntimeError("call reset() before random_play()")
    n, started = venv.num_envs, venv.games.copy()
    in_threads(_advance_rows, n, chunks, venv.R, venv.batch, venv.plan, np.full(n, decisions, np.int64),
               venv._all, Advance(PLAY, False, 1.0, venv.seed))
    venv.resume(venv._all)
    return venv.games - started


def in_threads(kernel, n: int, chunks: int, *args, what: str = "the batched engine") -> None:
    """kernel(*args, lo, hi) on `chunks` runs of the rows 0..n-1 at once: the first in this thread,
    the others in a pool's. The kernels release the GIL (numba's nogil), so the runs use the cores;
    numba's own parallel kernels (prange) did the same but multiply the first run's compile time. `what` names the kernel in `compile_notice`'s message if its first call compiles."""
    size = -(-n // chunks)
    runs = [(c * size, min(n, (c + 1) * size)) for c in range(chunks)]
    with first_call_notice(kernel, what):
        others = [_pool().submit(kernel, *args, lo, hi) for lo, hi in runs[1:]]
        kernel(*args, *runs[0])
        for run in others:
            run.result()


def map_in_threads(fn, items: list) -> list:
    """[fn(item) for item in items], each thread (this one and the pool's) taking the next item when it is
    done with one, so that items of unequal cost share the threads. For calls that spend most of their time
    in a kernel that releases the GIL (the training env's search tables: `MCTSBot.act`); each call must touch
    only its own objects."""
    out, order = [None] * len(items), itertools.count()

    def work() -> None:
        while (k := next(order)) < len(items):
            out[k] = fn(items[k])
    others = [_pool().submit(work) for _ in range(min(len(items), numba.config.NUMBA_NUM_THREADS) - 1)]
    work()
    for run in others:
        run.result()
    return out


_POOL: dict[int, ThreadPoolExecutor] = {}


def _pool() -> ThreadPoolExecutor:
    """This process's thread pool (a forked child makes its own: the parent's threads are not in it)."""
    pid = os.getpid()
    if pid not in _POOL:
        _POOL.clear()
        _POOL[pid] = ThreadPoolExecutor(max_workers=max(1, numba.config.NUMBA_NUM_THREADS - 1),
                                        thread_name_prefix="nefertiti-vector")
    return _POOL[pid]


# Below this many games per thread, waking a thread costs more than its games take (docs/vector.md,
# "Threads").
MIN_ROWS_PER_THREAD = 256


def threads(n: int) -> int:
    """Runs of rows for a batch of n games: one per numba thread (NUMBA_NUM_THREADS, or
    numba.set_num_threads), each of at least MIN_ROWS_PER_THREAD rows."""
    return max(1, min(n // MIN_ROWS_PER_THREAD, numba_threads()))


def numba_threads() -> int:
    """numba.get_num_threads(), without starting numba's threading layer only to read it.

    The kernels run in `in_threads`' own pool, never in numba's; but numba.get_num_threads() starts
    numba's OpenMP layer, and that start sets the process's OpenMP team size, which is torch's
    thread count, to NUMBA_NUM_THREADS: a trainer's torch.set_num_threads(1) was undone by the
    batched env's first reset. numba.set_num_threads starts the layer itself, so a count set
    there is still read."""
    from numba.np.ufunc import parallel
    started = getattr(parallel, "_is_initialized", True)      # an unknown numba: read it the usual way
    return numba.get_num_threads() if started else numba.config.NUMBA_NUM_THREADS


# About 14 KB a game (its state row, 976 bytes, and a v0 observation): the cap keeps a mistyped size to
# about 0.9 GB, refused before anything is allocated, rather than a machine swapping (docs/reliability.md).
MAX_NUM_ENVS = 65_536


class NefertitiVectorEnv:
    """`num_envs` games of the same options, stepped together.

    `reset()` and `step(actions)` return `(obs, masks, seats, rewards, terminated, truncated, info)`:
    obs float32 [N, size] (each game's deciding seat's observation, encoder `observation`: the
    compact "v1" by default, "v0" or "v2"), masks int8 [N, 147], seats int64 [N] (the deciding seat), rewards
    float32 [N, num_players] (the ended game's returns: +1 winners, -1 the others, 0 when
    truncated at `max_decisions`; 0 for games going on), terminated and truncated bool [N].
    An ended game is replaced at once by the next game of its env (so obs, masks and seats are
    the new game's); info["final_scores"] int64 [N, num_players] holds the ended games' scores
    (0 elsewhere) and info["games"] the games each env has started since `reset`.
    Game options (ruleset, setup, memphis, characters, max_decisions, forbidden) are NefertitiGame's:
    restricted play (`forbidden`) holds in every game, kept by the engine through the shared rules array.

    learner=True: seat `learner_seat(i, k)` = (i + k) % num_players of game k of env i is the
    only one played from Python; the other seats play uniformly random legal moves inside the
    kernel (a seeded stream per env), so every returned observation is the learner's. With
    `random_share` below 1, only that share of the games (`random_tables()`, drawn per game from
    the seed) is played so; in the others every seat's decision is returned, for the caller to
    play the opponents (training/batched_vec_env.py: snapshots of the learner, compiled bots).
    """

    def __init__(self, num_envs: int, num_players: int = 4, seed: int = 0, observation: str = "v1",
                 ruleset="default", setup: str = "beginner", memphis: bool | None = None, characters="base",
                 max_decisions: int = DEFAULT_MAX_DECISIONS, learner: bool = False,
                 random_share: float = 1.0, forbidden: list[list[int]] | None = None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or not 1 <= num_envs <= MAX_NUM_ENVS:
            raise ValueError(f"num_envs must be an integer from 1 to {MAX_NUM_ENVS:,}, got {num_envs!r}")
        num_envs = int(num_envs)
        self.seed = _check_seed(seed)
        if not 0.0 <= random_share <= 1.0:
            raise ValueError(f"random_share must be between 0 and 1, got {random_share!r}")
        self.random_share = float(random_share)
        # a game of these options: checks them, and gives R and the observation tables
        self.template = NefertitiGame(num_players, ruleset=ruleset, seed=0, setup=setup, memphis=memphis,
                                      characters=characters, max_decisions=max_decisions, forbidden=forbidden)
        self.num_envs, self.num_players, self.learner = num_envs, num_players, bool(learner)
        self.encoder = observation_version(observation)
        self.plan = self.encoder.batch_plan(self.template)
        self.R = self.template.R
        self.batch = new_batch(num_envs, num_players, self.encoder.size)
        b = self.batch         # the same arrays by name, for callers
        self.rows, self.games, self.streams, self.obs, self.masks = b.rows, b.games, b.streams, b.obs, b.masks
        self.seats, self.rewards, self.terminated, self.truncated = b.seats, b.rewards, b.terminated, b.truncated
        self.final_scores = b.scores
        self._all = np.ones(num_envs, dtype=np.bool_)
        self._ready = False

    def _run(self, actions: np.ndarray, active: np.ndarray, mode: int):
        self.final_scores[:] = 0
        in_threads(_advance_rows, self.num_envs, threads(self.num_envs), self.R, self.batch, self.plan, actions,
                   active, Advance(mode, self.learner, self.random_share, self.seed))
        self._ready = True
        info = {"final_scores": self.final_scores, "games": self.games + 1}
        return self.obs, self.masks, self.seats, self.rewards, self.terminated, self.truncated, info

    def random_tables(self) -> np.ndarray:
        """bool [N]: which envs' current games have their other seats played inside (learner mode)."""
        return np.array([self.learner and random_table(self.seed, i, k, self.random_share)
                         for i, k in enumerate(self.games.tolist())], dtype=np.bool_)

    def reset(self, seed: int | None = None):
        """Deal game 0 of every env (from `seed` if given, else the constructor's)."""
        if seed is not None:
            self.seed = _check_seed(seed)
        self.games[:] = 0
        seed_streams(self.seed, self.streams)
        return self._run(np.zeros(self.num_envs, dtype=np.int64), self._all, DEAL)

    def step(self, actions, active=None):
        """Apply actions[i] (an action id legal in game i) in every game, or only where active[i]
        (bool [N]: the other games and their observations stay as they are). The arrays returned
        are reused by the next call: copy what you keep."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integer action ids, got {actions.dtype} "
                             f"array of shape {actions.shape}")
        active = self._all if active is None else self._check_active(active)
        inside = (actions >= 0) & (actions < A.NUM_ACTIONS)
        actions = np.ascontiguousarray(actions, dtype=np.int64)
        legal = ~active | inside & (self.masks[np.arange(self.num_envs), np.where(inside, actions, 0)] != 0)
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(
                f"env {i}: action {int(actions[i])} is not legal for seat {int(self.seats[i])}; legal: "
                f"{np.flatnonzero(self.masks[i]).tolist()} ({int((~legal).sum())} env(s) with an illegal action; "
                "no game was changed)")
        return self._run(actions, active, APPLY)

    def resume(self, active):
        """Take up the games of `active` (bool [N]) after the caller moved their states on in place
        (`rows[i]`, e.g. compiled opponents' moves): restart those that ended, play the random tables'
        opponents, and fill seats, masks and observations as `step` does."""
        if not self._ready:
            raise RuntimeError("call reset() before resume()")
        return self._run(np.zeros(self.num_envs, dtype=np.int64), self._check_active(active), CONTINUE)

    def _check_active(self, active) -> np.ndarray:
        """`active` as the kernel reads it, one bool per game: it indexes every row by it, unchecked (a
        short mask would be read past its end)."""
        active = np.asarray(active)
        if active.shape != (self.num_envs,) or active.dtype != np.bool_:
            raise ValueError(f"active must be a bool array of shape ({self.num_envs},), got {active.dtype} "
                             f"array of shape {active.shape}")
        return np.ascontiguousarray(active)


def _check_seed(seed) -> int:
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer 0 <= seed < 2**63, got {seed!r}")
    return int(seed)
