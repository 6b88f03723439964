"""What a seat cannot know: the order of the undrawn deck and the dice to come.

The multiset of undrawn cards is public (deck composition minus every card seen),
but their order is not (except the cards a seat saw with the Oracle), and the
Akhenaton card is known only to lie among the last `rules.setup["akhenaton_among_last"]`
places. Lookahead bots search on `determinize(game, seat, rng)`: a clone whose unseen
deck cards are first sorted (so the true order cannot leak, not even through the
shuffle) and then dealt again, and whose generator (dice) is reseeded from the bot's own
generator (the core's kernel `engine.hidden.determinize`, which the compiled bots call
directly), and whose history is the seat's own view (`game.history_for`: another seat's
private Oracle choices hidden).
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.core.engine import hidden


def determinize(game, seat: int, rng: np.random.Generator):
    """A clone of `game` with what `seat` cannot know (deck order, future dice) re-sampled from `rng`."""
    g = game.clone()
    G = hidden.generator_array(rng)
    hidden.determinize(g.R, g.S, seat, G, hidden.work())
    rng.bit_generator.state = hidden.generator_state(G)
    g.history[:] = g.history_for(seat)          # other seats' private choices are not the seat's to know
    g.board_changed()
    return g
