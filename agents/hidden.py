"""What a seat cannot know: the order of the undrawn deck and the dice to come.

The multiset of undrawn cards is public (deck composition minus every card seen),
but their order is not (except the cards a seat saw with the Oracle), and the
Akhenaton card is known only to lie among the last `rules.setup["akhenaton_among_last"]`
places. Lookahead bots search on `determinize(game, seat, rng)`: a clone whose unseen
deck cards are first sorted (so the true order cannot leak, not even through the
shuffle) and then dealt again by `game.resample_hidden`, and whose generator (dice)
is reseeded from the bot's own generator, and whose history is the seat's own view
(`game.history_for`: another seat's private Oracle choices hidden).
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.limits import NUM_BIDS


def determinize(game, seat: int, rng: np.random.Generator):
    """A clone of `game` with what `seat` cannot know (deck order, future dice) re-sampled from `rng`."""
    g = game.clone()
    known = g.known_cards(seat)
    unseen = [pos for pos in range(g.deck_pos, len(g.deck)) if pos not in known]
    g.deck[unseen] = np.sort(g.deck[unseen])
    g.resample_hidden(seat, rng)
    g.rng_state = np.random.PCG64(int(rng.integers(2**63))).state
    g.history[:] = g.history_for(seat)          # other seats' private choices are not the seat's to know
    return g


def rolls_dice(game, action: int) -> bool:
    """True if `action` places a piece on a stall whose closing check rolls dice."""
    if not A.PLACE <= action < A.CLOSE:
        return False
    market = (action - A.PLACE) // NUM_BIDS
    return game.stall(market).closing.kind == "dice_match"
