"""Character powers (docs/rules.md §6): each power in one place.

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
from .phases import NEUTRAL, PH_CHARACTER
from .limits import MEMPHIS
from .market import gifts, take_card
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
    """Places of the face-up lower-row gifts above market m that a character may take."""
    return [k for k in gifts(g, m) if k > 0]


def current_value(g, p: int, kind: int) -> int:
    """Points a card of `kind` is worth to owner p now (owner count and foreign bonuses)."""
    t = g.rules.kind_type[kind]
    per_item = type_values(g)[t] + type_bonus(g)[p, t]
    return int(per_item * g.rules.kind_items[kind])


def take_from_board(g, p: int, m: int, k: int, replacement: int) -> int:
    """p takes the gift in place k of market m, leaving `replacement` there (a seal stays on
    its place); a papyrus brings a seal from the supply. Returns the kind taken."""
    kind = int(g.slots[m, k])
    g.slots[m, k] = replacement
    g.owned[p, kind] += 1
    if g.rules.kind_seal[kind] and g.seal_supply > 0:
        g.seal_supply -= 1
        g.seals[p] += 1
    return kind


def discard(g, p: int, kind: int) -> None:
    g.owned[p, kind] -= 1
    g.discarded[kind] += 1


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

    def private(self, g, char) -> bool:
        """Is the choice to make now seen only by the seat making it (`NefertitiGame.history_for`)?"""
        return False


class OwnGiftChoice(Power):
    """A power whose choices are among the player's own gifts: playable when they own one."""

    def playable(self, g, p, char):
        return np.count_nonzero(g.owned[p]) > 0

    def start(self, g, char):
        pass


class Scribe(OwnGiftChoice):
    """Score every item of one owned gift type at its current value + bonus; discard them."""

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


class DiscardForPoints(OwnGiftChoice):
    """Choose own cards one by one (then `done`); each scores and leaves play."""

    def legal(self, g, char):
        return [A.KIND + k for k in g.owned[g.actor].nonzero()[0].tolist()] + [A.DONE]

    def apply(self, g, char, action):
        if action == A.DONE:
            g.character_done()
            return
        p, kind = g.actor, action - A.KIND
        g.points[p] += self.points(g, char, p, kind)
        discard(g, p, kind)
        if not np.count_nonzero(g.owned[p]):
            g.character_done()

    def points(self, g, char, p, kind) -> int:
        raise NotImplementedError


class MerchantOfAmon(DiscardForPoints):
    """Discard any gifts for a fixed number of points per item (a double senet is two)."""

    def points(self, g, char, p, kind):
        return char.params["points"] * int(g.rules.kind_items[kind])


class RoyalScribe(DiscardForPoints):
    """Score any chosen gifts at their current value + bonus per item; they leave play."""

    def points(self, g, char, p, kind):
        return current_value(g, p, kind) + char.params["bonus"] * int(g.rules.kind_items[kind])


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
        return any(lower_cards(g, m) for m in range(MEMPHIS))

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


class Oracle(Power):
    """See the bottom cards of the deck, swap own gifts for them (taking a card of equal or
    lower maximum value than the one given), then choose their order. From then on the
    player knows those cards (`game.known_cards`).

    Each of the bottom places is exchanged at most once (a gift given there is never taken
    back), so at most `cards` exchanges: `char_sel` lists the places already exchanged
    (after the gift to give, during a take)."""

    SWAP, TAKE, ORDER = range(3)

    def playable(self, g, p, char):
        return g.deck_pos < len(g.deck)

    def start(self, g, char):
        g.oracle_seat = g.actor
        g.oracle_from = max(g.deck_pos, len(g.deck) - char.params["cards"])

    def _takeable(self, g, give: int, exchanged: list[int]) -> list[int]:
        """Relative places, not exchanged yet, of the bottom gifts worth at most the given card."""
        cap = g.rules.kind_max_value[give]
        return [i for i, c in enumerate(g.deck[g.oracle_from:].tolist())
                if c < g.rules.num_kinds and g.rules.kind_max_value[c] <= cap and i not in exchanged]

    def legal(self, g, char):
        p = g.actor
        if g.char_step == self.SWAP:
            return [A.KIND + k for k in g.owned[p].nonzero()[0].tolist()
                    if self._takeable(g, k, g.char_sel)] + [A.DONE]
        if g.char_step == self.TAKE:
            return [A.CARD + i for i in self._takeable(g, g.char_sel[0], g.char_sel[1:])]
        n = len(g.deck) - g.oracle_from
        return [A.CARD + i for i in range(n) if i not in g.char_sel]

    def private(self, g, char):
        """Which bottom place a gift was taken from, and the new order, name hidden deck places:
        only the Oracle player sees them (the gift given, a `kind` action, is public)."""
        return g.char_step != self.SWAP

    def apply(self, g, char, action):
        p, step = g.actor, g.char_step
        if step == self.SWAP and action == A.DONE:
            g.char_step, g.char_sel = self.ORDER, []
            if len(g.deck) - g.oracle_from <= 1:
                g.character_done()
        elif step == self.SWAP:
            g.char_step, g.char_sel = self.TAKE, [action - A.KIND] + g.char_sel
        elif step == self.TAKE:
            give, pos = g.char_sel[0], g.oracle_from + action - A.CARD
            g.owned[p, give] -= 1
            g.owned[p, int(g.deck[pos])] += 1
            g.deck[pos] = give
            g.oracle_given.append(give)        # everyone sees which gift went to the bottom
            g.char_step, g.char_sel = self.SWAP, g.char_sel[1:] + [action - A.CARD]
        else:
            g.char_sel.append(action - A.CARD)
            n = len(g.deck) - g.oracle_from
            if len(g.char_sel) == n - 1:
                order = g.char_sel + [i for i in range(n) if i not in g.char_sel]
                g.deck[g.oracle_from:] = g.deck[g.oracle_from:][order]
                g.character_done()


class Beggar(Power):
    """At each classic market in turn: take Deben from its Reserve, or turn one of its gifts
    face down until the market next opens, or do nothing (`done`)."""

    def start(self, g, char):
        pass

    def legal(self, g, char):
        m = g.char_step
        deben = [A.TAKE_DEBEN] if g.reserve[m] > 0 else []
        return [A.CARD + k for k in gifts(g, m)] + deben + [A.DONE]

    def apply(self, g, char, action):
        m = g.char_step
        if action == A.TAKE_DEBEN:
            take = min(char.params["deben"], int(g.reserve[m]))
            g.reserve[m] -= take
            g.money[g.actor] += take
        elif action != A.DONE:
            g.face_down[m, action - A.CARD] = True
        g.char_step += 1
        if g.char_step == MEMPHIS:
            g.character_done()


def roam_markets(g, exclude: int) -> list[int]:
    """Classic markets where the Roaming Thief may go: not `exclude`, not closed for good
    (the market where Akhenaton was drawn), with a face-up gift."""
    return [m for m in range(MEMPHIS) if m != exclude and not g.dead[m] and gifts(g, m)]


def lowest_gifts(g, m: int) -> list[int]:
    """Places of market m's face-up gifts with the lowest maximum value."""
    places = gifts(g, m)
    values = [g.rules.kind_max_value[g.slots[m, k]] for k in places]
    return [k for k, v in zip(places, values) if v == min(values)]


class RoamingThief(Power):
    """Take the lowest-maximum-value gift of a market and leave the Roaming Thief card in
    its place (a seal there stays). Whoever later takes that card from a market must use it
    at once on one of the other markets (`start_roaming_thief`)."""

    def playable(self, g, p, char):
        return bool(roam_markets(g, exclude=-1))

    def start(self, g, char):
        g.char_sel = [-1]                  # no market excluded when played as a character

    def legal(self, g, char):
        if g.char_step == 0:
            return [A.MARKET + m for m in roam_markets(g, exclude=g.char_sel[0])]
        return [A.CARD + k for k in lowest_gifts(g, g.char_sel[1])]

    def apply(self, g, char, action):
        if g.char_step == 0:
            g.char_sel.append(action - A.MARKET)
            g.char_step = 1
            return
        take_from_board(g, g.actor, g.char_sel[1], action - A.CARD, g.kind_roaming)
        g.character_done()


def start_roaming_thief(g, p: int, exclude: int) -> None:
    """p took the Roaming Thief card from market `exclude` and must use it now.

    With no market to use it on, the card leaves the game [R].
    """
    g.char_index = next(i for i, c in enumerate(g.rules.characters) if c.power == "roaming_thief")
    g.char_step, g.char_sel = 0, [exclude]
    g.phase, g.actor = PH_CHARACTER, p
    if not roam_markets(g, exclude):
        g.character_done()


class Trader(Power):
    """Exchange up to `exchanges` own gifts with face-up gifts of the classic markets, paying
    the difference of maximum values (if the gift taken is worth more) to that Reserve."""

    def _affordable(self, g, p, give, m) -> list[int]:
        cap = g.rules.kind_max_value[give] + g.money[p]
        return [k for k in gifts(g, m) if g.rules.kind_max_value[g.slots[m, k]] <= cap]

    def playable(self, g, p, char):
        owned = g.owned[p].nonzero()[0].tolist()
        if not owned:
            return False
        best = max(owned, key=g.rules.kind_max_value.__getitem__)   # affords the most
        return any(self._affordable(g, p, best, m) for m in range(MEMPHIS))

    def start(self, g, char):
        g.char_sel = [0]                   # exchanges made

    def legal(self, g, char):
        p, sel = g.actor, g.char_sel
        if g.char_step == 0:
            gives = [k for k in g.owned[p].nonzero()[0].tolist()
                     if any(self._affordable(g, p, k, m) for m in range(MEMPHIS))]
            return [A.KIND + k for k in gives] + [A.DONE]
        if g.char_step == 1:
            return [A.MARKET + m for m in range(MEMPHIS) if self._affordable(g, p, sel[1], m)]
        return [A.CARD + k for k in self._affordable(g, p, sel[1], sel[2])]

    def apply(self, g, char, action):
        p, sel = g.actor, g.char_sel
        if action == A.DONE:
            g.character_done()
        elif g.char_step < 2:
            sel.append(action - (A.KIND if g.char_step == 0 else A.MARKET))
            g.char_step += 1
        else:
            give, m = sel[1], sel[2]
            g.owned[p, give] -= 1
            taken = take_from_board(g, p, m, action - A.CARD, give)
            pay = max(0, int(g.rules.kind_max_value[taken] - g.rules.kind_max_value[give]))
            g.money[p] -= pay
            g.reserve[m] += pay
            g.char_sel, g.char_step = [sel[0] + 1], 0
            if g.char_sel[0] >= char.params["exchanges"] or not self.playable(g, p, char):
                g.character_done()


POWERS: dict[str, Power] = {
    "scribe": Scribe(),
    "merchant": Merchant(),
    "royal_servant": RoyalServant(),
    "treasurer": Treasurer(),
    "vizier": Vizier(),
    "head_priest": HeadPriest(),
    "thief": Thief(),
    "oracle": Oracle(),
    "beggar": Beggar(),
    "merchant_of_amon": MerchantOfAmon(),
    "priest_of_amon": Power(),             # scored at the end: see scoring.final_scores
    "royal_scribe": RoyalScribe(),
    "roaming_thief": RoamingThief(),
    "trader": Trader(),
}
