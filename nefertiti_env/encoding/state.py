"""The global state vector for centralised critics: the whole game, hidden deck order included.

A critic trained centrally (MAPPO, QMIX, ...) may see what no player sees. The
vector is seat 0's observation (`observe(game, 0)`: seat rows in absolute order,
row r = seat r) followed by the undrawn deck in draw order, one row per card
place (top first), each a one-hot over the gift kinds with the Akhenaton card in
the last column; places past the end of the deck are zero. So it holds every
public fact, the order of the deck (what the `unseen` block only counts) and the
cards an Oracle player knows. It never goes to a player's policy.
"""
from __future__ import annotations

import numpy as np

from ..core.limits import MAX_KINDS
from ..core.ruleset import Ruleset
from .observation import OBS_SIZE, deck_configurations, observation_high, observe

DECK_COLUMNS = MAX_KINDS + 1       # the gift kinds, then the Akhenaton card


def deck_capacity(rules: Ruleset) -> int:
    """Card places of the largest deck the ruleset can build (its gifts and the Akhenaton card)."""
    return int(deck_configurations(rules).sum(axis=1).max()) + 1


def state_size(rules: Ruleset) -> int:
    return OBS_SIZE + deck_capacity(rules) * DECK_COLUMNS


def state_high(rules: Ruleset) -> np.ndarray:
    """Upper bounds of the state vector's entries (the lower bounds are 0)."""
    return np.concatenate([observation_high(rules), np.ones(state_size(rules) - OBS_SIZE, dtype=np.float32)])


def global_state(game) -> np.ndarray:
    """float32[state_size(game.rules)]: seat 0's observation, then the undrawn deck in draw order."""
    undrawn = game.deck[game.state.deck_pos:]
    deck = np.zeros((deck_capacity(game.rules), DECK_COLUMNS), dtype=np.float32)
    kinds = np.where(undrawn == game.kind_akhenaton, MAX_KINDS, undrawn)
    deck[np.arange(len(undrawn)), kinds] = 1
    return np.concatenate([observe(game, 0), deck.ravel()])
