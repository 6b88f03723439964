"""The search bot: determinised UCT (single-observer information-set MCTS), compiled.

Each iteration searches a fresh determinisation of the root (`engine.hidden.determinize`:
undrawn deck order and dice re-sampled from what the seat knows), so the tree's
statistics average over the hidden information instead of exploiting one guess.
Nodes are reached by the actions taken from the root; an action is scored by UCB
with its availability count (how often it was legal when its parent was visited),
which handles actions that are legal in some determinisations only.

Every seat maximises its own reward, backed up to the nodes where it chose:
sigmoid(value / temperature), the value being `evaluation.seat_value_in` (the seat's
worth minus the best other seat's, with the open markets resolved provisionally).
A leaf is reached by expanding one node, then playing `rollout_turns` turn
decisions at random and every market resolution with `evaluation.quick_action`.

The root is guided by the one-step heuristic with the same weights: only its
`width` best actions are searched, each starting with `prior_visits` virtual
visits at its heuristic value (progressive bias), so the search spends its budget
checking the plausible moves against the replies of the other seats. The choices
inside a character's power are left to the heuristic.

A trained policy can guide the root instead (`prior`: AlphaZero-style, one forward pass per
decision, docs/champion.md): its `width` most likely actions are searched, and each root action's
UCB gains the PUCT term puct * P(action) * sqrt(N) / (1 + n), so the search spends its visits where
the policy expects the good moves unless the rewards say otherwise.

A trained critic can evaluate the leaves instead of (or mixed with) the heuristic (`value`, weighted
`leaf_value`): after the rollout, each seat's observation of the leaf goes through the policy's value
network (`agents.network`, compiled, in the kernel) and its value V becomes that seat's reward (1 + V) / 2,
clipped to 0..1; at a game's end the outcome itself is used (winners 1, others 0). The critic was trained
on the learner's win_loss returns (+1 win, -1 otherwise, discounted), so (1 + V) / 2 is about its chance of
winning from there, as every seat sees it from its own seat; the discount pulls early values towards 0.5,
but the siblings compared in the tree are at about the same depth.

The search is numba kernels over the engine's arrays (docs/bots.md, "Compiled MCTS"): the tree
is preallocated arrays (`Tree`), a determinisation is copied into one scratch state, and the
random numbers come from the guide's generator array, drawn as the Python search drew them.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.engine import hidden, layout as L, step
from nefertiti_env.core.engine.entry import borrow, first_call_notice, njit
from nefertiti_env.core.engine.rng import rng_integers
from nefertiti_env.core.phases import PH_CHARACTER, SERVANT_PHASES

from nefertiti_env.encoding.observation import VECTOR_SIZE, BatchPlan, _fill, observer_tables, state_vector
from nefertiti_env.encoding.versions import OBSERVATIONS, version_of_size

from .base import Agent
from .evaluation import Scratch, Weights, borrowed, clone_into, seat_value_of, quick_action, scratch, worth_into
from .heuristic import BankerBot, HeuristicBot
from .network import Network, forward

VISITS, AVAIL, PLAYER, ACTION, CHILD, SIBLING = range(6)   # Tree.nodes columns
CHUNK = 64                # iterations per kernel call under a time budget (the clock is read between)
FIRST_CHUNKS = 64         # a time budget's tree starts with room for this many chunks, then doubles


class Tree:
    """A search tree as arrays: `nodes` [node, VISITS..SIBLING] (visits, availability count, the seat
    whose choice led there, that action, first child, next sibling; -1: none) and `total` [node]
    (the sum of that seat's rewards). Node 0 is the root, 1..k its searched actions in rank order;
    a node's children are a list through CHILD and SIBLING. Grown between kernel calls only."""

    def __init__(self, capacity: int):
        self.nodes = np.empty((capacity, 6), dtype=np.int64)
        self.total = np.empty(capacity)
        self.used = 0

    def reserve(self, more: int) -> None:
        """Room for `more` nodes past the used ones (doubling, keeping the tree)."""
        if self.used + more > len(self.total):
            size = max(2 * len(self.total), self.used + more)
            nodes, total = np.empty((size, 6), dtype=np.int64), np.empty(size)
            nodes[:self.used], total[:self.used] = self.nodes[:self.used], self.total[:self.used]
            self.nodes, self.total = nodes, total


UCB_C = 0.7         # the UCB exploration constant (rewards in 0..1), shared by every searching bot's spec
ROOT_WIDTH = 8      # root actions searched, shared likewise


class MCTSBot(Agent):
    """Determinised UCT over the engine's state, guided at the root by the one-step heuristic.

    iterations: searches per decision (the default budget, chosen by strength per second of thinking
        against the bankers: docs/bots.md, "Compiled MCTS"; reproducible).
    seconds: if set, search for this long per decision instead (not reproducible).
    c: UCB exploration constant (rewards are in 0..1).
    width: root actions searched (the heuristic's best); 0 = all.
    prior_visits: virtual visits giving each root action its heuristic value.
    rollout_turns: random turn decisions played after the tree before evaluating.
    temperature: value points that move a reward from 0.5 to 0.73.
    widen: progressive widening below the root (0 = off): a node visited N times has at most
        ceil((N + 1) ** widen) children (legal in the determinisation at hand), so a larger budget deepens
        the tree instead of trying every reply of every seat once; 0.5 gives 10 children at 99 visits.
    prior: (game, seat) -> each action's probability (a trained policy's; not a spec parameter): if
        given, it ranks the root's actions instead of the heuristic, and adds the PUCT term.
    puct: weight of the PUCT term puct * P(action) * sqrt(N) / (1 + n) at the root (with a prior).
    value: a trained policy's critic (`network.Network(policy, "critic")`; not a spec parameter) to
        evaluate the leaves with, weighted `leaf_value` (0: the heuristic alone, 1: the critic alone).
    Other keywords are `evaluation.Weights` for the evaluation (default: the banker's).
    """

    name = "mcts"
    weights = BankerBot.weights
    bounds = {"iterations": ">= 1", "seconds": "> 0", "c": ">= 0", "width": ">= 0", "prior_visits": ">= 0",
              "rollout_turns": ">= 0", "temperature": "> 0", "leaf_value": ">= 0", "widen": ">= 0"}

    def __init__(self, seed: int | None = None, iterations: int = 800, seconds: float | None = None,
                 c: float = UCB_C, width: int = ROOT_WIDTH, prior_visits: int = 3, rollout_turns: int = 0,
                 temperature: float = 10.0, prior: Callable[[object, int], np.ndarray] | None = None,
                 puct: float = 0.0, value: Network | None = None, leaf_value: float = 0.0, widen: float = 0.0,
                 **weights):
        if iterations < 1 or (seconds is not None and seconds <= 0):
            raise ValueError("mcts needs iterations >= 1 and seconds > 0")
        if not 0 <= widen < 1:
            raise ValueError(f"widen must be in [0, 1) (0: off); got {widen}")
        if not 0 <= leaf_value <= 1 or (leaf_value and value is None):
            raise ValueError(f"leaf_value must be in 0..1, and above 0 only with a trained policy's critic (a ppo or "
                             f"champion bot with search); got {leaf_value}")
        self.weights = Weights(**{**self.weights.__dict__, **weights})
        self.guide = HeuristicBot(samples=1, **self.weights.__dict__)
        super().__init__(seed)
        self.iterations, self.seconds = iterations, seconds
        self.c, self.width, self.prior_visits = c, width, prior_visits
        self.rollout_turns, self.temperature = rollout_turns, temperature
        self.prior, self.puct = prior, puct
        self.value, self.leaf_value, self.widen = value, float(leaf_value), float(widen)
        self._settings = Settings(float(c), float(temperature), int(rollout_turns), self.leaf_value, self.widen,
                                  self.weights.array())
        self._critic, self._critic_R = _NO_CRITIC, None   # the critic's arrays for the table of rules _critic_R
        self._tree = Tree(1 + A.NUM_ACTIONS + (iterations if seconds is None else FIRST_CHUNKS * CHUNK))
        self._scratch = np.empty(L.STATE_BYTES, dtype=np.uint8)         # the determinisation searched
        self._buffers = np.full((3, A.NUM_ACTIONS), -1, dtype=np.int64)  # legal, untried, child by action
        self._bonus = np.zeros(A.NUM_ACTIONS)       # the PUCT weight of each root action (0: plain UCB)
        self._X = scratch(0)                        # the rollouts' work space (resolutions, valuation)

    @property
    def rng(self):
        """One generator for the search and its guide (the guide keeps it current: `HeuristicBot.rng`)."""
        return self.guide.rng

    @rng.setter
    def rng(self, value) -> None:
        self.guide.rng = value

    def act(self, game, seat: int) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if game.phase == PH_CHARACTER:
            return self.guide.act(game, seat)
        stats = self.search(game, seat)
        return max(stats, key=stats.get)

    def search(self, game, seat: int) -> dict[int, tuple[int, float]]:
        """{root action: (visits, mean reward)} after the search from `seat`'s information."""
        values = self.guide.action_values(game, seat)
        if self.prior is None:
            ranked = sorted(values, key=values.get, reverse=True)[: self.width or None]
        else:
            p = self.prior(game, seat)
            ranked = sorted(values, key=lambda a: (p[a], values[a]), reverse=True)[: self.width or None]
            self._bonus[:] = self.puct * p
        tree = self._tree
        plant(tree.nodes, tree.total, np.array(ranked, dtype=np.int64), np.array([values[a] for a in ranked]), seat,
              self.prior_visits, self.temperature)
        tree.used = 1 + len(ranked)
        if len(ranked) > 1 and self.seconds is None:
            self._run(game, seat, self.iterations)
        elif len(ranked) > 1:
            deadline = time.perf_counter() + self.seconds
            while time.perf_counter() < deadline:
                self._run(game, seat, CHUNK)
        visits, total = tree.nodes[1:1 + len(ranked), VISITS].tolist(), tree.total[1:1 + len(ranked)].tolist()
        return {a: (n, t / n if n else 0.0) for a, n, t in zip(ranked, visits, total)}

    def _run(self, game, seat: int, iterations: int) -> None:
        tree = self._tree
        tree.reserve(iterations)
        leaf = self._leaf_arrays(game) if self.leaf_value else _NO_CRITIC
        with first_call_notice(iterate, "the MCTS bot"):
            tree.used = iterate(game.R, game.S, seat, self.guide.generator(), tree.nodes, tree.total,
                                tree.used, iterations, self._settings, Work(self._scratch, self._buffers, self._bonus,
                                                                            self._X, leaf))

    def _leaf_arrays(self, game) -> Critic:
        """The critic and every seat's observation tables for `game`'s table (kept while the table is)."""
        if self._critic_R is not game.R:
            net = self.value
            plan = OBSERVATIONS[version_of_size(int(net.sizes[0]))].batch_plan(game)
            width = int(net.sizes.max())
            self._critic_R, self._critic = game.R, Critic(
                net.params, net.sizes, np.array([net.relu], dtype=np.int64), plan,
                np.empty(VECTOR_SIZE, np.int64), np.empty(width, np.float32), np.empty(width, np.float32))
        return self._critic


class Critic(NamedTuple):
    """What `leaf_values` needs to evaluate a leaf with a trained critic, for one table: the network
    (`network.Network`), every seat's observation tables (`observation.BatchPlan`, seat by seat) and
    the work arrays of one evaluation. A NamedTuple: numba compiles it as a tuple, kernels read it by name."""
    params: np.ndarray       # the network's weights (float32, flat)
    sizes: np.ndarray        # its layer sizes, the input first
    relu: np.ndarray         # [0] 1: ReLU activations, 0: tanh
    plan: BatchPlan          # every seat's observation tables
    vec: np.ndarray          # a seat's state vector (`observation.state_vector`)
    x: np.ndarray            # a layer's input, then the network's output at x[0]
    y: np.ndarray            # a layer's output


class Settings(NamedTuple):
    """The search's settings `iterate` reads (`MCTSBot`'s parameters of the same names, and the weights of
    its valuation, `Weights.array()`)."""
    c: float
    temperature: float
    rollout_turns: int
    leaf_value: float
    widen: float
    w: np.ndarray


class Work(NamedTuple):
    """`iterate`'s work space, made once per bot: the determinisation searched, the legal / untried /
    child-by-action rows, the root's PUCT weights, the rollouts' `evaluation.Scratch` and the `Critic`."""
    g: np.ndarray
    buffers: np.ndarray
    bonus: np.ndarray
    X: Scratch
    V: Critic


def _no_critic() -> Critic:
    """A Critic of the right types, empty: `iterate`'s argument when the heuristic alone evaluates (one
    compiled signature either way)."""
    i1, i2, f1, f2 = (np.zeros(1, np.int64), np.zeros((1, 1), np.int64), np.zeros(1, np.float32),
                      np.zeros((1, 1), np.float32))
    return Critic(f1, i1, i1, BatchPlan(i2, f2, f2, i2, i1, i2, i2, f2, i1, 0), i1, f1, f1)


_NO_CRITIC = _no_critic()


# ---------------------------------------------------------------- kernels
@njit(cache=True)
def _node(nodes, total, x, visits, avail, player, action, sibling, reward_sum) -> None:
    """Write node x, childless."""
    nodes[x, VISITS], nodes[x, AVAIL], nodes[x, PLAYER] = visits, avail, player
    nodes[x, ACTION], nodes[x, CHILD], nodes[x, SIBLING] = action, -1, sibling
    total[x] = reward_sum


@njit(cache=True)
def plant(nodes, total, ranked, values, seat, prior_visits, temperature) -> None:
    """The root (node 0) and its searched actions (nodes 1..k, in rank order), each with
    `prior_visits` virtual visits at the reward of its heuristic value."""
    k = ranked.shape[0]
    _node(nodes, total, 0, 0, 0, -1, -1, -1, 0.0)
    nodes[0, CHILD] = 1 if k else -1
    for i in range(k):
        _node(nodes, total, 1 + i, prior_visits, prior_visits, seat, ranked[i], 2 + i if i + 1 < k else -1,
              prior_visits * _reward(values[i], temperature))


@njit(cache=True)
def _ucb(nodes, total, x, c, bonus) -> float:
    """UCB with the availability count, plus the PUCT term bonus * sqrt(N) / (1 + n) (bonus 0 but at a
    policy-guided root); an action never visited comes first."""
    n = nodes[x, VISITS]
    if n == 0:
        return np.inf
    return total[x] / n + c * math.sqrt(math.log(nodes[x, AVAIL]) / n) + bonus * math.sqrt(nodes[x, AVAIL]) / (1 + n)


@njit(cache=True)
def _reward(value, temperature) -> float:
    """A seat's reward for a value: sigmoid(value / temperature)."""
    return 1 / (1 + math.exp(-value / temperature))


@njit(cache=True)
def _map_children(nodes, node, child, clear) -> None:
    """child[action] = each child of `node` for its action, or -1 again when `clear`."""
    x = nodes[node, CHILD]
    while x >= 0:
        child[nodes[x, ACTION]] = -1 if clear else x
        x = nodes[x, SIBLING]


@njit(cache=True)
def rollout(R, g, G, w, rollout_turns, temperature, X, rewards) -> None:
    """Every seat's reward into `rewards` after playing `rollout_turns` turn decisions at random and
    the market resolutions with `quick_action` (g is played on; X is its work space, `scratch(0)`).
    Two kernels, the play and the valuation: compiled into one, the valuation's inlined code slowed
    the play's loop (docs/results.md, "Named bot regions")."""
    play_out(R, g, G, rollout_turns, X)
    rewards_into(R, g, w, temperature, X.position[0], rewards)


@njit(cache=True)
def play_out(R, g, G, rollout_turns, X) -> None:
    """Play `rollout_turns` turn decisions of g at random and the market resolutions with `quick_action`."""
    s = L.state(g)
    turns = rollout_turns
    while not step.is_over(R, g):
        if s.phase in SERVANT_PHASES:
            if turns <= 0:
                break
            turns -= 1
        step.apply(R, g, quick_action(R, g, G, X))


@njit(cache=True)
def rewards_into(R, g, w, temperature, pos, rewards) -> None:
    """Every seat's reward for g into `rewards`, valued on the position `pos` (the work space)."""
    worth_into(R, g, w, pos)
    n = L.state(g).num_players
    for p in range(n):
        rewards[p] = _reward(seat_value_of(pos, n, p, w), temperature)


@njit(cache=True)
def leaf_values(R, g, V, rewards) -> None:
    """rewards[p] = (1 + the critic's value of seat p's observation of g) / 2, clipped to 0..1, for every
    seat; at a game's end (1 + its return) / 2. V: the `Critic` (`MCTSBot._leaf_arrays`)."""
    s = L.state(g)
    n = s.num_players
    if step.is_over(R, g):
        out = np.empty(n, dtype=np.float32)
        step.returns(R, g, step.final_scores(R, g), out)
        for p in range(n):
            rewards[p] = (1.0 + out[p]) / 2
        return
    size, vec, x = V.sizes[0], V.vec, V.x
    for p in range(n):
        state_vector(R, g, p, vec)
        _fill(vec, observer_tables(V.plan, p), s.face_down, x[:size])
        forward(V.params, V.sizes, V.relu[0] != 0, x, V.y)
        rewards[p] = min(max((1.0 + x[0]) / 2, 0.0), 1.0)


@njit(cache=True, nogil=True)        # releases the GIL: the training env searches its tables in threads
def iterate(R, S, seat, G, nodes, total, used, iterations, settings, work) -> int:
    """Run `iterations` searches from the root of a planted tree of `used` nodes (room for as many
    more), each on a fresh determinisation of S for `seat` copied into the `Work`'s g; return the nodes
    used. bonus[action]: the root's PUCT weights (zeros: plain UCB); X: the rollouts' work space;
    `settings.leaf_value`: the weight of the critic V (`leaf_values`) in a leaf's rewards, beside the rollout's.
    One iteration: select by UCB down the tree (counting availability), expand one untried action
    drawn at random (below the root only while the node has fewer children than `settings.widen` allows),
    roll out, back the rewards up to the nodes on the path. The arrays are borrowed (`borrow`)."""
    R, S, G, nodes, total = borrow(R), borrow(S), borrow(G), borrow(nodes), borrow(total)
    g, buffers, bonus, X, V = borrow(work.g), borrow(work.buffers), borrow(work.bonus), borrowed(work.X), work.V
    c, temperature, rollout_turns = settings.c, settings.temperature, settings.rollout_turns
    leaf_value, widen, w = settings.leaf_value, settings.widen, borrow(settings.w)
    legal, untried, child = buffers[0], buffers[1], buffers[2]
    # the nodes of a descent: each is a node made and a decision, so there are no more than either
    root, s = L.state(S), L.state(g)
    path = np.empty(min(nodes.shape[0], L.rules(R).r_max_decisions - root.decisions + 1), dtype=np.int64)
    rewards = np.empty(root.num_players)
    learnt = np.empty(root.num_players)
    k = 0                                       # the root's searched actions
    x = nodes[0, CHILD]
    while x >= 0:
        k += 1
        x = nodes[x, SIBLING]
    for _ in range(iterations):
        clone_into(g, S)
        hidden.determinize(R, g, seat, G, X.hidden_work)
        node, depth, n = 0, 0, k
        x = nodes[0, CHILD]
        for i in range(k):
            legal[i] = nodes[x, ACTION]
            x = nodes[x, SIBLING]
        while True:
            _map_children(nodes, node, child, False)
            m = 0
            for i in range(n):
                x = child[legal[i]]
                if x >= 0:
                    nodes[x, AVAIL] += 1
                else:
                    untried[m] = legal[i]
                    m += 1
            if m and (widen == 0 or m == n or n - m < math.ceil((nodes[node, VISITS] + 1) ** widen)):
                _map_children(nodes, node, child, True)
                a = untried[rng_integers(G, 0, m)]
                _node(nodes, total, used, 0, 1, s.actor, a, nodes[node, CHILD], 0.0)
                nodes[node, CHILD] = used
                path[depth] = used
                depth += 1
                used += 1
                step.apply(R, g, a)
                break
            best, best_u = -1, -np.inf
            for i in range(n):
                x = child[legal[i]]
                if x < 0:                       # untried, and left so by the widening
                    continue
                u = _ucb(nodes, total, x, c, bonus[legal[i]] if node == 0 else 0.0)
                if best < 0 or u > best_u:
                    best, best_u = x, u
            _map_children(nodes, node, child, True)
            node = best
            path[depth] = node
            depth += 1
            step.apply(R, g, nodes[node, ACTION])
            if step.is_over(R, g):
                break
            n = step.legal_list_into(R, g, legal, X.mask)
        rollout(R, g, G, w, rollout_turns, temperature, X, rewards)
        if leaf_value > 0:
            leaf_values(R, g, V, learnt)
            for p in range(rewards.shape[0]):
                rewards[p] = (1 - leaf_value) * rewards[p] + leaf_value * learnt[p]
        for i in range(depth):
            x = path[i]
            nodes[x, VISITS] += 1
            total[x] += rewards[nodes[x, PLAYER]]
    return used
