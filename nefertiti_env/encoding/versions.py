"""The observation versions by name: "v0" (the full layout, 3,225 floats), "v1" (compact, 657) and "v2"
(v1 and the table: player count, setup, Memphis, character roster; 680)."""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from .compact import V1_SIZE, observation_v1_high, observe_v1, plan_v1
from .table import V2_SIZE, observation_v2_high, observe_v2, plan_v2
from .observation import OBS_SIZE, BatchPlan, Plan, observation_high, observe, seat_plan, stack_plans


class ObservationVersion(NamedTuple):
    size: int                                       # floats in the vector
    observe: Callable[..., np.ndarray]              # observe(game, seat) -> float32[size]
    high: Callable[..., np.ndarray]                 # high(rules) -> float32[size]: finite upper bounds
    plan: Callable[..., Plan]                       # plan(game, seat) -> its tables: observe = encode(game, seat, plan)

    def batch_plan(self, game) -> BatchPlan:
        """The tables of every seat of `game`'s (ruleset, player count) stacked, for `observation.observe_rows`."""
        return stack_plans([self.plan(game, seat) for seat in range(game.num_players)])


OBSERVATIONS = {"v0": ObservationVersion(OBS_SIZE, observe, observation_high, seat_plan),
                "v1": ObservationVersion(V1_SIZE, observe_v1, observation_v1_high, plan_v1),
                "v2": ObservationVersion(V2_SIZE, observe_v2, observation_v2_high, plan_v2)}


def observation_version(name: str) -> ObservationVersion:
    """The encoder called `name`; an unknown name is a ValueError listing the known ones."""
    if name not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}; got {name!r}")
    return OBSERVATIONS[name]


def version_of_size(size: int) -> str:
    """The version whose vectors have `size` floats (a trained policy's input size names its encoder)."""
    names = [name for name, version in OBSERVATIONS.items() if version.size == size]
    if not names:
        raise ValueError(f"no observation version has {size} floats (known: "
                         + ", ".join(f"{n} {v.size}" for n, v in OBSERVATIONS.items()) + ")")
    return names[0]
