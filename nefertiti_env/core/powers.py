"""Character powers (RULES.md section 6): each power in one place.

A power is a parameterised kind named by the ruleset file (`power = "scribe"`,
`bonus = 2`). Its choices are a sequence of masked decisions by the player who
spent the seal: `start` runs when the card is played, `legal` lists the legal
actions of the current step, `apply` takes one, and `game.character_done()`
hands back to the placement when the power is over. A power is `playable` only
when it can be carried out to the end, so no character leads to a dead end.
"""
from __future__ import annotations

import numpy as np

from . import actions as A
from .phases import NEUTRAL
from .resolution import cards, take_card
from .limits import MEMPHIS
from .scoring import type_bonus, type_items, type_values

# power -> {parameter: type}; every parameter is required (checked by the ruleset loader)
POWER_PARAMS: dict[str, dict[str, type]] = {
    "scribe": {"bonus": int},
    "merchant": {},
    "royal_servant": {},
    "treasurer": {},
    "vizier": {"points_per_type": int},
    "head_priest": {"servants": int},
    "thief": {},
    "oracle": {"cards": int},
    "beggar": {"deben": int},
    "merchant_of_amon": {"points": int},
    "priest_of_amon": {"rank_bonus": list},
    "royal_scribe": {"bonus": int},
    "roaming_thief": {},
    "trader": {"exchanges": int},
}


def other_owners(g, p: int) -> list[tuple[int, int]]:
    """(relative target index, owner) of every other owner: seats to the left, then the neutral player."""
    owners = [(r - 1, (p + r) % g.num_players) for r in range(1, g.num_players)]
    if g.num_players == 2:
        owners.append((A.NEUTRAL_TARGET, NEUTRAL))
    return owners


def target_owner(g, p: int, action: int) -> int:
    return dict(other_owners(g, p))[action - A.TARGET]


def lower_cards(g, m: int) -> list[int]:
    """Places of the face-up lower-row cards above market m that a character may take."""
    return [k for k in cards(g, m) if k > 0]


class Power:
    """Default: no choice, nothing happens. Subclasses override what they need."""

    def playable(self, g, p, char) -> bool:
        return True

    def start(self, g, char) -> None:
        g.character_done()

    def legal(self, g, char) -> list[int]:
        raise AssertionError(f"{char.power} has no choice to make")

    def apply(self, g, char, action) -> None:
        raise AssertionError(f"{char.power} has no choice to make")


class Scribe(Power):
    """Score every item of one owned gift type at its current value + bonus; discard them."""

    def playable(self, g, p, char):
        return np.count_nonzero(g.owned[p]) > 0

    def start(self, g, char):
        pass

    def legal(self, g, char):
        items = g.owned[g.actor] @ g.rules.kind_type_items
        return [A.TYPE + t for t in items.nonzero()[0].tolist()]

    def apply(self, g, char, action):
        p, t = g.actor, action - A.TYPE
        items = type_items(g)
        per_item = type_values(g, items)[t] + type_bonus(g)[p, t] + char.params["bonus"]
        g.points[p] += int(items[p, t] * per_item)
        kinds = g.rules.kind_type == t
        g.discarded[kinds] += g.owned[p, kinds]
        g.owned[p, kinds] = 0
        g.character_done()


class Merchant(Power):
    """Swap one of your gifts for one gift of another owner: give, target, take."""

    def playable(self, g, p, char):
        mine = np.count_nonzero(g.owned[p])      # unused owner rows are all zero
        return mine > 0 and np.count_nonzero(g.owned) > mine

    def start(self, g, char):
        pass

    def legal(self, g, char):
        p = g.actor
        if g.char_step == 1:
            return sorted(A.TARGET + r for r, o in other_owners(g, p) if np.count_nonzero(g.owned[o]))
        owner = p if g.char_step == 0 else g.char_sel[1]
        return [A.KIND + k for k in g.owned[owner].nonzero()[0].tolist()]

    def apply(self, g, char, action):
        p = g.actor
        if g.char_step == 0:
            g.char_sel.append(action - A.KIND)
        elif g.char_step == 1:
            g.char_sel.append(target_owner(g, p, action))
        else:
            give, other, take = g.char_sel[0], g.char_sel[1], action - A.KIND
            g.owned[p, give] -= 1
            g.owned[other, give] += 1
            g.owned[other, take] -= 1
            g.owned[p, take] += 1
            g.character_done()
            return
        g.char_step += 1


class RoyalServant(Power):
    """Name a gift type: every other owner of it discards their least valuable card of it."""

    def start(self, g, char):
        pass

    def legal(self, g, char):
        return list(range(A.TYPE, A.TYPE + g.rules.num_types))

    def apply(self, g, char, action):
        t = action - A.TYPE
        order = [k for k in g.rules.kind_discard_order if g.rules.kind_type[k] == t]
        for _, o in other_owners(g, g.actor):
            for k in order:
                if g.owned[o, k] > 0:
                    g.owned[o, k] -= 1
                    g.discarded[k] += 1
                    break
        g.character_done()


class Treasurer(Power):
    """Take half (rounded up) of one classic market's Reserve."""

    def start(self, g, char):
        pass

    def legal(self, g, char):
        return list(range(A.MARKET, A.MARKET + MEMPHIS))

    def apply(self, g, char, action):
        m = action - A.MARKET
        half = (int(g.reserve[m]) + 1) // 2
        g.reserve[m] -= half
        g.money[g.actor] += half
        g.character_done()


class Vizier(Power):
    """Score points for each different gift type you own."""

    def start(self, g, char):
        p = g.actor
        types = int(((g.owned[p] @ g.rules.kind_type_items) > 0).sum())
        g.points[p] += char.params["points_per_type"] * types
        g.character_done()


class HeadPriest(Power):
    """Place more servants this turn (a market may close between the placements)."""

    def playable(self, g, p, char):
        return g.servants[p] >= char.params["servants"]

    def start(self, g, char):
        g.extra_placements = char.params["servants"] - 1
        g.character_done()


class Thief(Power):
    """Take one face-up lower-row gift from any classic market, open or closed, for free."""

    def playable(self, g, p, char):
        return np.count_nonzero((g.slots[:MEMPHIS, 1:] >= 0) & ~g.face_down[:MEMPHIS, 1:]) > 0

    def start(self, g, char):
        pass

    def legal(self, g, char):
        if g.char_step == 0:
            return [A.MARKET + m for m in range(MEMPHIS) if lower_cards(g, m)]
        return [A.CARD + k for k in lower_cards(g, g.char_sel[0])]

    def apply(self, g, char, action):
        if g.char_step == 0:
            g.char_sel.append(action - A.MARKET)
            g.char_step = 1
            return
        take_card(g, g.actor, g.char_sel[0], action - A.CARD)
        g.character_done()


POWERS: dict[str, Power] = {
    "scribe": Scribe(),
    "merchant": Merchant(),
    "royal_servant": RoyalServant(),
    "treasurer": Treasurer(),
    "vizier": Vizier(),
    "head_priest": HeadPriest(),
    "thief": Thief(),
}
