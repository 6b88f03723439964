"""The baseline: uniform over the legal actions, from the bot's own seeded generator."""
from __future__ import annotations

from .base import Agent


class RandomBot(Agent):
    name = "random"

    def act(self, game, seat: int) -> int:
        legal = game.legal_actions()
        return legal[int(self.rng.integers(len(legal)))]
