"""The opponent pool: who plays the learner's opponents, drawn per episode and seat.

A kind is a bot spec (`agents.make_bot`: "random", "greedy:samples=1", ...) or
"snapshot": a frozen past version of the learner, saved as a policy file and
played by `PPOAgent`. The Gymnasium single-agent env draws its opponents from
one; the trainer keeps one as the record of its snapshots (`state()` in its
checkpoints).
Draws come from the generator passed in (the environment's, seeded), so the same
seed gives the same opponents.
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.agents import Agent, make_bot, parse_spec
from nefertiti_env.agents.ppo import PPOAgent

SNAPSHOT = "snapshot"      # opponent kind: a frozen copy of the learner
RANDOM = "random"          # opponent kind: uniformly random legal moves


class OpponentPool:
    """Opponent kinds with sampling weights, plus the list of learner snapshots (newest last).

    weights: kind -> weight (normalised here).
    snapshots: policy files of past learners; only the newest `max_snapshots` are kept.
    snapshot_deterministic: snapshots play their most likely action instead of sampling.
    per_table: one draw per episode for all opponent seats (n-1 copies of one kind, as in
        evaluation) instead of one draw per seat.
    """

    def __init__(self, weights: dict[str, float], snapshots=(), max_snapshots: int = 20,
                 snapshot_deterministic: bool = False, per_table: bool = False):
        self.kinds = list(weights)
        for kind in self.kinds:              # a bad spec fails here, not at the first episode's draw
            if kind != SNAPSHOT:
                parse_spec(kind)
        total = float(sum(weights.values()))
        self.probs = np.array([weights[k] / total for k in self.kinds])
        self.max_snapshots = max_snapshots
        self.snapshot_deterministic = snapshot_deterministic
        self.per_table = per_table
        self.snapshots: list[str] = []
        for path in snapshots:
            self.add_snapshot(path)

    def add_snapshot(self, path: str) -> None:
        """Add a learner snapshot (policy file); the oldest leaves once there are more than max_snapshots."""
        self.snapshots = (self.snapshots + [str(path)])[-self.max_snapshots:]

    def sample_kind(self, rng: np.random.Generator) -> str:
        return self.kinds[int(rng.choice(len(self.kinds), p=self.probs))]

    def table(self, rng: np.random.Generator, seats) -> dict[int, Agent]:
        """Seeded opponents for the given seats of one episode."""
        if not self.per_table:
            return {seat: self._make(self.sample_kind(rng), rng) for seat in seats}
        kind = self.sample_kind(rng)
        snapshot = self._pick_snapshot(rng) if kind == SNAPSHOT else None
        return {seat: self._make(kind, rng, snapshot) for seat in seats}

    def _pick_snapshot(self, rng: np.random.Generator) -> str:
        if not self.snapshots:
            raise RuntimeError("the opponent pool drew 'snapshot' but holds no learner snapshot yet")
        return self.snapshots[int(rng.integers(len(self.snapshots)))]

    def _make(self, kind: str, rng: np.random.Generator, snapshot: str | None = None) -> Agent:
        seed = int(rng.integers(2**63))
        if kind != SNAPSHOT:
            return make_bot(kind, seed=seed)
        bot = PPOAgent(snapshot or self._pick_snapshot(rng), self.snapshot_deterministic, seed=seed)
        bot.name = SNAPSHOT
        return bot

    def state(self) -> dict:
        """What a checkpoint needs to rebuild this pool (`OpponentPool(**state)`)."""
        return {"weights": dict(zip(self.kinds, self.probs.tolist())), "snapshots": list(self.snapshots),
                "max_snapshots": self.max_snapshots, "snapshot_deterministic": self.snapshot_deterministic,
                "per_table": self.per_table}
