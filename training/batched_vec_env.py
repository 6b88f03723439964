"""An SB3 VecEnv over the batched compiled engine (`nefertiti_env.vector`): the learner's side of
N tables in one process, with no per-env Python.

The learner holds one seat per game, rotating by game (`vector.learner_seat`); the other seats
are played inside: by uniformly random legal moves in the compiled kernel (opponents="random"),
by snapshots of the learner (policy files or policy objects): every snapshot table draws one of
the newest `max_snapshots`, and all waiting snapshot tables are decided by one compiled call
(`snapshot_tables.py`); by a fixed trained agent (`champion`, `ppo:path=...`) or a mixture of them
(`mixture:paths=...`, `champion:league=1`: each seat draws its member per game, as the bot does), decided the
same way; by a heuristic bot in compiled code (`bot_tables.py`); or by a search bot (`mcts`), one per
table, deciding from the table's state row (`search_tables.py`). A mix of kinds is drawn per game. As in
`single_agent.SingleAgentEnv`, each transition is the learner's own and its terminal reward
(win_loss: `NefertitiGame.returns`) arrives on its own last transition even when an opponent
ended the game. Masks come through `env_method("action_masks")`. `nefertiti train` steps every
run on it (a mixture of tables: one per table, `table_mix.py`).

A game truncated at `max_decisions` (rare: see docs/actions.md) ends the episode with reward 0
and no bootstrap (the ended game is replaced inside the kernel, so there is no terminal
observation to bootstrap from: info["terminal_observation"] is the next game's first one).
"""
from __future__ import annotations

import time

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from nefertiti_env import NUM_ACTIONS
from nefertiti_env.agents import make_bot
from nefertiti_env.agents.evaluation import Weights
from nefertiti_env.core.engine import layout as L
from nefertiti_env.vector import NefertitiVectorEnv, map_in_threads

from .bot_tables import bot_parameters, generator_words, play_bots
from .opponents import RANDOM, SNAPSHOT
from .search_tables import RowGame, searches
from .snapshot_tables import SnapshotStack, fixed_policies, plays_at_snapshot_tables

MASKS = "action_masks"        # what MaskablePPO asks every env for (`env_method`)
ADD_SNAPSHOT = "add_snapshot"
VECTOR_REWARDS = ("win_loss", "score_diff")      # the AEC env's rewards this env gives (`env.aec.final_rewards`)
OPPONENT_PARTS = ("heuristic bots", "policies", "search")    # how the opponents' thinking time is split (`timing`)


def score_diff(finals: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The "score_diff" reward of each row's seat: its final score less the others' mean, over 100
    (as `env.aec.final_rewards`); a denser signal than win_loss where wins are rare."""
    own = finals[np.arange(len(seats)), seats].astype(np.float64)
    return (own - (finals.sum(axis=1) - own) / (finals.shape[1] - 1)) / 100


class CompiledVecEnv(VecEnv):
    """What the trainer asks of a VecEnv besides stepping, for envs that run every game in one process:
    `env_method("action_masks")`, `env_method("add_snapshot", path)` (`_add_snapshot`), no attributes."""

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """`action_masks`, and `add_snapshot(path)` (what the trainer calls after each snapshot): a
        new opponent for the games to come at snapshot tables."""
        rows = list(self._get_indices(indices))
        if method_name == ADD_SNAPSHOT and len(method_args) == 1 and not method_kwargs:
            self._add_snapshot(method_args[0])
            return [None] * len(rows)
        if method_name != MASKS or method_args or method_kwargs:
            raise AttributeError(f"{type(self).__name__} has no per-env method {method_name!r} "
                                 f"(only {MASKS}, {ADD_SNAPSHOT})")
        return list(self.action_masks()[rows])

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == MASKS

    def get_attr(self, attr_name: str, indices=None) -> list:
        if attr_name == "render_mode":                     # asked by VecEnv.__init__
            return [None] * len(list(self._get_indices(indices)))
        raise AttributeError(f"{type(self).__name__} has no per-env attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        raise AttributeError(f"{type(self).__name__} has no per-env attribute {attr_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def close(self) -> None:
        pass

    def get_images(self):
        raise NotImplementedError(f"{type(self).__name__} does not render")


class BatchedVecEnv(CompiledVecEnv):
    """`num_envs` tables of `num_players`. opponents: one kind or weights of kinds, drawn per game:
    "random" (moves chosen inside the engine's kernel; `NefertitiVectorEnv.random_tables`),
    "snapshot" (one of `snapshots`, model files or MaskableActorCriticPolicy objects, plays all the
    opponent seats; more come with `env_method("add_snapshot", path)`; a new game draws one of the
    newest `max_snapshots`, as `opponents.OpponentPool` does; `deterministic`: their most likely
    action instead of a sample), a fixed trained agent ("champion", "ppo:path=FILE", played like a
    snapshot, deterministic unless its spec says `deterministic=0`; its observation must be this env's) or a
    mixture of them ("mixture:paths=A+B", "champion:league=1": each opponent seat draws a member per game),
    a heuristic bot spec ("banker", "greedy:samples=1", ...: `bot_tables.play_bots`), or a search bot
    spec ("mcts:iterations=200", ...: one bot per table, seeded per game). reward:
    "win_loss" (+1/-1) or "score_diff" (the learner's final score less the others' mean, over 100).
    Other keywords: NefertitiVectorEnv's (seed, observation, ruleset, setup, memphis, characters,
    max_decisions).

    info per env, with `single_agent.SingleAgentEnv`'s keys: seat (the learner's seat in the game
    it just played), opponents (that game's kind), win (bool) and score (int: the learner's final
    score; False and 0 until its episode ends), illegal (False: illegal actions raise).
    """

    def __init__(self, num_envs: int, num_players: int = 4, opponents=RANDOM, snapshots=(), max_snapshots: int = 20,
                 deterministic: bool = False, seed: int = 0, reward: str = "win_loss", **options):
        weights = {opponents: 1.0} if isinstance(opponents, str) else dict(opponents)
        if not weights or min(weights.values()) < 0 or sum(weights.values()) <= 0:
            raise ValueError(f"opponents must be a kind or non-negative weights of kinds with a positive total, "
                             f"got {opponents!r}")
        if reward not in VECTOR_REWARDS:
            raise ValueError(f"reward must be one of {', '.join(VECTOR_REWARDS)}; got {reward!r}")
        self.reward = reward
        total = sum(weights.values())
        self.venv = NefertitiVectorEnv(num_envs, num_players, seed=seed, learner=True,
                                       random_share=weights.get(RANDOM, 0.0) / total, **options)
        # the kinds drawn by this class, at the tables the kernel does not play
        self.kinds = [k for k, w in weights.items() if k != RANDOM and w > 0]
        rest = sum(weights[k] for k in self.kinds)
        self.kind_probs = np.array([weights[k] / rest for k in self.kinds])
        fixed = {k: fixed_policies(k, num_players) for k in self.kinds
                 if k != SNAPSHOT and plays_at_snapshot_tables(k)}
        self.searching = [i for i, k in enumerate(self.kinds) if k != SNAPSHOT and searches(k)]
        self.searchers = {}                                      # a search table's bot, by its row
        self.bots = {k: bot_parameters(k) for i, k in enumerate(self.kinds)
                     if k != SNAPSHOT and k not in fixed and i not in self.searching}
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.kind = np.full(num_envs, -1, dtype=np.int64)        # of each env's current game; -1: random
        self.snapshot = np.zeros(num_envs, dtype=np.int64)       # its snapshot's row in `stack`, at a snapshot table
        self.member = np.zeros((num_envs, num_players), dtype=np.int64)  # each seat's row in a fixed mixture's stack
        self.stack = SnapshotStack()                             # the snapshots drawn or still playing
        self.live: list[int] = []                                # the rows new games draw from, newest last
        self.max_snapshots = max_snapshots
        self.is_bot = np.zeros(num_envs, dtype=np.bool_)
        self.G = np.zeros((num_envs, L.RNG_WORDS), dtype=np.int64)   # a bot table's generator
        self.W = np.zeros((num_envs, len(Weights().array())), dtype=np.float64)
        self.samples = np.ones(num_envs, dtype=np.int64)
        self.depth = np.zeros(num_envs, dtype=np.int64)
        self.rows = np.arange(num_envs)
        self.seconds = dict.fromkeys(OPPONENT_PARTS, 0.0)
        self.searched_decisions = 0
        for snapshot in snapshots:
            self._add_snapshot(snapshot)
        self.fixed_stacks = {}                         # a fixed agent's actors (a mixture's members), by its index in kinds
        for k, (policies, fixed_deterministic) in fixed.items():
            stack = SnapshotStack()
            for policy in policies:
                stack.add(_policy(policy, self.venv.encoder.size))
            self.fixed_stacks[self.kinds.index(k)] = stack, fixed_deterministic
        high = self.venv.encoder.high(self.venv.template.rules)
        super().__init__(num_envs, spaces.Box(low=0.0, high=high, shape=high.shape, dtype=np.float32),
                         spaces.Discrete(NUM_ACTIONS))
        self._actions = None

    def _learner(self) -> np.ndarray:
        return (self.rows + self.venv.games) % self.venv.num_players

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self.venv.reset(seed)
        self._reset_seeds()
        self._play_opponents(np.zeros(self.num_envs, np.float32), np.ones(self.num_envs, np.bool_), None)
        return self.venv.obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        seats = self._learner()
        kinds = [RANDOM if k < 0 else self.kinds[k] for k in self.kind.tolist()]
        obs, masks, _, rewards, terminated, truncated, info = self.venv.step(self._actions)
        reward = rewards[self.rows, seats].astype(np.float32)
        done = terminated | truncated
        finals = info["final_scores"].copy()
        self._play_opponents(reward, done, finals)
        scores = finals[self.rows, seats]
        win = reward > 0
        if self.reward == "score_diff" and done.any():
            reward = np.where(reward != 0, score_diff(finals, seats), 0.0).astype(np.float32)
        infos = []
        for i in range(self.num_envs):
            entry = {"seat": int(seats[i]), "opponents": kinds[i], "win": bool(win[i]),
                     "score": int(scores[i]), "illegal": False, "TimeLimit.truncated": False}
            if done[i]:
                entry["terminal_observation"] = self.venv.obs[i].copy()
            infos.append(entry)
        return self.venv.obs.copy(), reward, done.copy(), infos

    def _play_opponents(self, reward, done, finals) -> None:
        """Move the envs not at the learner's turn on until every env waits on the learner: the bot
        tables in one compiled call, the snapshot tables in another. An ended
        game's learner win_loss reward and final scores go to reward, done and finals (in place), and
        its next game draws its table. (The random tables never wait: the kernel plays their opponents.)"""
        venv = self.venv
        started = done.copy()
        while True:
            if started.any():
                self._draw_tables(started)
            seats = self._learner()
            waiting = venv.seats != seats
            if not waiting.any():
                return
            bots = waiting & self.is_bot
            if bots.any():
                start = time.perf_counter()
                play_bots(venv.R, venv.rows, bots, seats, self.G, self.W, self.samples, self.depth)
                self.seconds["heuristic bots"] += time.perf_counter() - start
                _, _, _, rewards, terminated, truncated, info = venv.resume(bots)
            else:
                actions = np.zeros(self.num_envs, dtype=np.int64)
                actions[waiting] = self._decide(np.flatnonzero(waiting))
                _, _, _, rewards, terminated, truncated, info = venv.step(actions, active=waiting)
            started = terminated | truncated
            reward[started] = rewards[started, seats[started]]
            done |= started
            if finals is not None:
                finals[started] = info["final_scores"][started]

    def _draw_tables(self, started: np.ndarray) -> None:
        """The opponents of each game just started: random (drawn by the env from the game's seed),
        else a kind drawn with the weights, then a snapshot uniformly, a bot with its own generator or a
        search bot with its own seed, or each seat's member of a fixed mixture (one fixed agent needs no draw)."""
        rows = np.flatnonzero(started & ~self.venv.random_tables())
        self.kind[started] = -1
        self.is_bot[started] = False
        for i in np.flatnonzero(started).tolist():
            self.searchers.pop(i, None)
        if not len(rows):
            return
        self.kind[rows] = kinds = self.rng.choice(len(self.kinds), size=len(rows), p=self.kind_probs)
        for i, k in zip(rows.tolist(), kinds.tolist()):
            name = self.kinds[k]
            if k in self.fixed_stacks:
                members = len(self.fixed_stacks[k][0])
                self.member[i] = self.rng.integers(members, size=self.venv.num_players) if members > 1 else 0
                continue
            if k in self.searching:
                self.searchers[i] = make_bot(name, seed=int(self.rng.integers(2**63)))
            elif name == SNAPSHOT:
                if not self.live:
                    raise RuntimeError("a game drew snapshot opponents but the env holds no snapshot yet "
                                       "(pass snapshots= or env_method('add_snapshot', path) first)")
                self.snapshot[i] = self.live[self.rng.integers(len(self.live))]
            else:
                self.W[i], self.samples[i], self.depth[i] = self.bots[name]
                self.G[i] = generator_words(int(self.rng.integers(2**63)))
                self.is_bot[i] = True

    def _decide(self, rows: np.ndarray) -> np.ndarray:
        """The actions of these snapshot and fixed-agent tables' policies: the most likely legal one, or
        one sampled from its probabilities (Gumbel-max with this env's generator); one compiled call
        for the snapshot tables and one per fixed agent; and each search table's bot's, the tables spread
        over the threads (the search releases the GIL)."""
        actions = np.zeros(len(rows), dtype=np.int64)
        kinds = self.kind[rows]
        searched = np.isin(kinds, self.searching)
        venv = self.venv

        def search(i):
            return self.searchers[i].act(RowGame(venv.R, venv.rows[i], venv.masks[i]), int(venv.seats[i]))
        if searched.any():
            start = time.perf_counter()
            actions[searched] = map_in_threads(search, rows[searched].tolist())
            self.seconds["search"] += time.perf_counter() - start
            self.searched_decisions += int(searched.sum())
        start = time.perf_counter()
        groups = [(~np.isin(kinds, list(self.fixed_stacks)) & ~searched, self.stack, self.deterministic,
                   self.snapshot[rows])]
        members = self.member[rows, self.venv.seats[rows]]       # the deciding seat's member, at a fixed mixture
        groups += [(kinds == k, stack, deterministic, members) for k, (stack, deterministic) in self.fixed_stacks.items()]
        for at, stack, deterministic, which in groups:
            if not at.any():
                continue
            group = rows[at]
            logits = stack.logits(which[at], self.venv.obs[group]).astype(np.float64)
            if not deterministic:
                logits += self.rng.gumbel(size=logits.shape)
            logits[self.venv.masks[group] == 0] = -np.inf
            actions[at] = logits.argmax(axis=1)
        self.seconds["policies"] += time.perf_counter() - start
        return actions

    def timing(self) -> dict:
        """Seconds the opponents took to decide, by OPPONENT_PARTS, and the search bots' decisions, since
        this env was made: where a rollout's time goes besides the learner's own steps."""
        return {"opponent_seconds": dict(self.seconds), "searched_decisions": self.searched_decisions}

    def _add_snapshot(self, snapshot) -> None:
        """A new snapshot for the games to come; the oldest of more than `max_snapshots` is no longer
        drawn, and leaves the stack once no game plays it."""
        self.live = (self.live + [self.stack.add(_policy(snapshot, self.venv.encoder.size))])[-self.max_snapshots:]
        playing = np.isin(self.kind, [self.kinds.index(SNAPSHOT)] if SNAPSHOT in self.kinds else [])
        rows = np.union1d(self.live, self.snapshot[playing])
        if len(rows) < len(self.stack):
            self.stack.keep(rows)
            self.snapshot[playing] = np.searchsorted(rows, self.snapshot[playing])
            self.live = np.searchsorted(rows, self.live).tolist()

    def action_masks(self) -> np.ndarray:
        return self.venv.masks.astype(bool)


def _policy(snapshot, size: int):
    """A snapshot's policy: loaded from a model file (no unpickling) or given; its input must be `size` floats."""
    if not hasattr(snapshot, "action_net"):
        from nefertiti_env.agents.ppo import load_policy
        snapshot = load_policy(snapshot)
    got = snapshot.observation_space.shape[0]
    if got != size:
        raise ValueError(f"a snapshot policy reads {got} floats but this env's observations have {size}")
    return snapshot
