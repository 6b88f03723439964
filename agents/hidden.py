"""What a seat cannot know: the order of the undrawn deck and the dice to come.

The multiset of undrawn cards is public (deck composition minus every card seen),
but their order is not, and the Akhenaton card is known only to lie among the last
`rules.setup["akhenaton_among_last"]` places. Lookahead bots search on
`determinize(game, rng)`: a clone whose undrawn deck is rebuilt from the sorted
multiset (so the true order cannot leak, even through the seed of the shuffle) and
whose generator (dice) is reseeded from the bot's own generator.
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.limits import NUM_BIDS


def determinize(game, rng: np.random.Generator):
    """A clone of `game` with the hidden deck order and future dice re-sampled from `rng`."""
    g = game.clone()
    resample_deck(g, rng)
    g.rng.bit_generator.state = np.random.PCG64(int(rng.integers(2**63))).state
    return g


def resample_deck(g, rng: np.random.Generator) -> None:
    """Shuffle `g.deck[g.deck_pos:]` in place, Akhenaton among the last places still undrawn."""
    rest = np.sort(g.deck[g.deck_pos:])
    if rest.size < 2:
        return
    akhenaton = rest == g.kind_akhenaton
    gifts = rest[~akhenaton]
    rng.shuffle(gifts)
    if not akhenaton.any():
        g.deck[g.deck_pos:] = gifts
        return
    size = len(g.deck)
    first = max(g.deck_pos, size - g.rules.setup["akhenaton_among_last"])
    at = int(rng.integers(first, size)) - g.deck_pos
    g.deck[g.deck_pos:] = np.insert(gifts, at, g.kind_akhenaton)


def rolls_dice(game, action: int) -> bool:
    """True if `action` places a piece on a stall whose closing check rolls dice."""
    if not A.PLACE <= action < A.CLOSE:
        return False
    market = (action - A.PLACE) // NUM_BIDS
    return game.stall(market).closing.kind == "dice_match"
