"""Searching opponents at the batched env's tables: one search bot (`mcts` or a spec of it) per table,
deciding from the table's own state row.

The compiled MCTS reads a game through its rules and state arrays, its legal actions and its phase
(`MCTSBot.act`), so a table is handed to it as a `RowGame` over the batched env's arrays, with no
NefertitiGame copied. Each table's bot is made when its game draws the kind, seeded from the env's
generator, so the same seed gives the same games. A search costs milliseconds a decision where a
heuristic bot costs microseconds: the share of search tables sets how much slower training runs.
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.agents import BOTS, parse_spec
from nefertiti_env.agents.mcts import MCTSBot
from nefertiti_env.core.engine import layout as L


def searches(spec: str) -> bool:
    """Whether `spec` is a search bot the batched env seats at search tables (`mcts` and its specs)."""
    return issubclass(BOTS[parse_spec(spec)[0]], MCTSBot)


class RowGame:
    """One table of the batched env as a search bot reads a game: the rules array R, the table's state
    row S (the env's own memory: the search copies it before it plays anything), its legal actions and
    its phase."""

    __slots__ = ("R", "S", "_mask")

    def __init__(self, R: np.ndarray, S: np.ndarray, mask: np.ndarray):
        self.R, self.S, self._mask = R, S, mask

    def legal_actions(self) -> list[int]:
        return np.flatnonzero(self._mask).tolist()

    @property
    def phase(self) -> int:
        return int(L.state_view(self.S).phase)
