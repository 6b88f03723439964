"""The search bot: determinised UCT (single-observer information-set MCTS).

Each iteration searches a fresh determinisation of the root (`hidden.determinize`:
undrawn deck order and dice re-sampled from what the seat knows), so the tree's
statistics average over the hidden information instead of exploiting one guess.
Nodes are keyed by the actions taken from the root; an action is scored by UCB
with its availability count (how often it was legal when its parent was visited),
which handles actions that are legal in some determinisations only.

Every seat maximises its own reward, backed up to the nodes where it chose:
sigmoid(value / temperature), the value being `evaluation.seat_values` (the seat's
worth minus the best other seat's, with the open markets resolved provisionally).
A leaf is reached by expanding one node, then playing `rollout_turns` turn
decisions at random and every market resolution with `evaluation.quick_action`.

The root is guided by the one-step heuristic with the same weights: only its
`width` best actions are searched, each starting with `prior_visits` virtual
visits at its heuristic value (progressive bias), so the search spends its budget
checking the plausible moves against the replies of the other seats. The choices
inside a character's power are left to the heuristic.
"""
from __future__ import annotations

import math
import time

from nefertiti_env.core.phases import PH_CHARACTER

from .base import Agent
from .evaluation import TURN_PHASES, Weights, quick_action, seat_values
from .heuristic import BankerBot, HeuristicBot
from .hidden import determinize


class Node:
    __slots__ = ("player", "visits", "total", "avail", "children")

    def __init__(self, player: int, visits: int = 0, total: float = 0.0):
        self.player = player          # the seat whose choice led here
        self.visits = visits
        self.total = total            # sum of that seat's rewards
        self.avail = visits
        self.children: dict[int, Node] = {}


class MCTSBot(Agent):
    """Determinised UCT over `game.clone()`, guided at the root by the one-step heuristic.

    iterations: searches per decision (the default budget; reproducible).
    seconds: if set, search for this long per decision instead (not reproducible).
    c: UCB exploration constant (rewards are in 0..1).
    width: root actions searched (the heuristic's best); 0 = all.
    prior_visits: virtual visits giving each root action its heuristic value.
    rollout_turns: random turn decisions played after the tree before evaluating.
    temperature: value points that move a reward from 0.5 to 0.73.
    Other keywords are `evaluation.Weights` for the evaluation (default: the banker's).
    """

    name = "mcts"
    weights = BankerBot.weights
    bounds = {"iterations": ">= 1", "seconds": "> 0", "c": ">= 0", "width": ">= 0", "prior_visits": ">= 0",
              "rollout_turns": ">= 0", "temperature": "> 0"}

    def __init__(self, seed: int | None = None, iterations: int = 200, seconds: float | None = None,
                 c: float = 0.7, width: int = 8, prior_visits: int = 3, rollout_turns: int = 0,
                 temperature: float = 10.0, **weights):
        if iterations < 1 or (seconds is not None and seconds <= 0):
            raise ValueError("mcts needs iterations >= 1 and seconds > 0")
        self.weights = Weights(**{**self.weights.__dict__, **weights})
        self.guide = HeuristicBot(samples=1, **self.weights.__dict__)
        super().__init__(seed)
        self.iterations, self.seconds = iterations, seconds
        self.c, self.width, self.prior_visits = c, width, prior_visits
        self.rollout_turns, self.temperature = rollout_turns, temperature

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
        ranked = sorted(values, key=values.get, reverse=True)[: self.width or None]
        root = Node(-1)
        for a in ranked:
            root.children[a] = Node(seat, self.prior_visits, self.prior_visits * self._reward(values[a]))
        if len(ranked) > 1 and self.seconds is None:
            for _ in range(self.iterations):
                self._iterate(root, ranked, determinize(game, seat, self.rng))
        elif len(ranked) > 1:
            deadline = time.perf_counter() + self.seconds
            while time.perf_counter() < deadline:
                self._iterate(root, ranked, determinize(game, seat, self.rng))
        return {a: (n.visits, n.total / n.visits) for a, n in root.children.items()}

    def _iterate(self, node: Node, legal: list[int], g) -> None:
        path = []
        while True:
            children = node.children
            untried = [a for a in legal if a not in children]
            for a in legal:
                if a in children:
                    children[a].avail += 1
            if untried:
                a = untried[int(self.rng.integers(len(untried)))]
                node = children[a] = Node(g.current_player)
                node.avail = 1
                g.apply(a)
                path.append(node)
                break
            a = max(legal, key=lambda b: self._ucb(children[b]))
            node = children[a]
            g.apply(a)
            path.append(node)
            if g.is_over():
                break
            legal = g.legal_actions()
        rewards = self._rollout(g)
        for n in path:
            n.visits += 1
            n.total += rewards[n.player]

    def _ucb(self, n: Node) -> float:
        return n.total / n.visits + self.c * math.sqrt(math.log(n.avail) / n.visits)

    def _reward(self, value: float) -> float:
        return 1 / (1 + math.exp(-value / self.temperature))

    def _rollout(self, g) -> list[float]:
        turns = self.rollout_turns
        while not g.is_over():
            if g.phase in TURN_PHASES:
                if turns <= 0:
                    break
                turns -= 1
            g.apply(quick_action(g, self.rng))
        return [self._reward(v) for v in seat_values(g, self.weights)]
