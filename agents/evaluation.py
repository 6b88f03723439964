"""Cheap evaluation of a position, shared by the heuristic bots and the search bot.

Scores only count at the end, but most of a seat's future is already on the table:
the servants on bid squares will buy cards or take half a Reserve when their
market closes. `Position` is a light copy of the scoring state (items per gift
type, Deben, seals, points) on which every open market is resolved *provisionally*,
as if it closed now, each owner choosing by `Position.margin_gain`; a share
(`Weights.projection`) of that outcome is added to the current score. This makes
placements, purchases and characters comparable by one number.

`quick_action` is the same reasoning as a fast policy for the resolution decisions
(choose cards, buy or take half, shame discard); lookahead uses it to play a
market resolution to its end (`settle`) before evaluating.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.limits import EXTRA, MEMPHIS, SINGLE
from nefertiti_env.core.phases import NEUTRAL, PH_HIGH, PH_OTHER, PH_PLACE, PH_SECOND, PH_SHAME, PH_TURN, TUTOR
from nefertiti_env.core.scoring import scores_of

TURN_PHASES = (PH_TURN, PH_PLACE, PH_SECOND)
MEMPHIS_HIGH = -1             # the highest bidder at Memphis takes two cards of choice


@dataclass(frozen=True)
class Weights:
    """How a bot values a position for its own seat (points are the unit).

    money: points per Deben held (the final score counts 0.5; more = keeps money to buy later).
    seal: points per unspent Royal Seal (the score counts 3; more = hoards seals for characters).
    projection: share of the provisional resolution of the open markets that is counted.
    opponent: weight of the best other seat's worth, subtracted from the seat's own.
    monopoly: extra points per item of a gift type the seat alone owns.
    rarity: extra points per item times the type's 1-owner value / the highest 1-owner value.
    character: extra points per character card the seat has played.
    """

    money: float = 0.5
    seal: float = 3.0
    projection: float = 0.6
    opponent: float = 1.0
    monopoly: float = 0.0
    rarity: float = 0.0
    character: float = 0.0


class Tables:
    """Per-ruleset lists for the pure-Python hot loops."""

    def __init__(self, rules):
        self.kind_type = rules.kind_type.tolist()
        self.kind_items = rules.kind_items.tolist()
        self.kind_bonus = rules.kind_bonus.tolist()
        self.kind_seal = rules.kind_seal.tolist()
        self.values = rules.type_values.tolist()
        top = max(v[0] for v in self.values)
        self.rarity = [v[0] / top for v in self.values]
        self.num_types = rules.num_types
        self.num_kinds = rules.num_kinds


_TABLES: dict[int, tuple[object, Tables]] = {}


def tables(rules) -> Tables:
    cached = _TABLES.get(id(rules))
    if cached is None or cached[0] is not rules:
        cached = _TABLES[id(rules)] = (rules, Tables(rules))
    return cached[1]


def owner_rows(game) -> list[int]:
    """Owner indices that count for scoring: the seats, plus the neutral player in 2p games."""
    return list(range(game.num_players)) + ([NEUTRAL] if game.num_players == 2 else [])


class Position:
    """The scoring state of one game as plain lists; row i is owner `owner_rows(game)[i]`."""

    __slots__ = ("tab", "n", "items", "bonus", "counts", "money", "seals", "points", "score", "seal_supply")

    def __init__(self, game=None):
        if game is None:
            return
        rows, rules = owner_rows(game), game.rules
        self.tab = tab = tables(rules)
        self.n = game.num_players
        owned, money, seals, points = game.owned[rows], game.money[rows], game.seals[rows], game.points[rows]
        items, bonus = owned @ rules.kind_type_items, owned @ rules.kind_type_bonus
        self.items, self.bonus = items.tolist(), bonus.tolist()
        self.counts = [sum(1 for row in self.items if row[t] > 0) for t in range(tab.num_types)]
        self.money, self.seals, self.points = money.tolist(), seals.tolist(), points.tolist()
        self.seal_supply = int(game.seal_supply)
        # the core's score, with every Deben worth half a point (an odd one too)
        self.score = (scores_of(rules, items, bonus, money, seals, points) + money % 2 / 2).tolist()

    def copy(self) -> "Position":
        new = Position()
        new.tab, new.n, new.seal_supply = self.tab, self.n, self.seal_supply
        new.items = [list(r) for r in self.items]
        new.bonus = [list(r) for r in self.bonus]
        new.counts = list(self.counts)
        new.money, new.seals = list(self.money), list(self.seals)
        new.points, new.score = list(self.points), list(self.score)
        return new

    def type_value(self, t: int, owners: int | None = None) -> int:
        """Points per item of type t with `owners` owners (default: the current count)."""
        owners = self.counts[t] if owners is None else owners
        return self.tab.values[t][min(owners, 3) - 1] if owners else 0

    # ------------------------------------------------------------- card gains
    def card_deltas(self, p: int, kind: int, sign: int = 1) -> list[float]:
        """Change of every owner's points if owner row p gains (sign=-1: loses) one card."""
        tab, t = self.tab, self.tab.kind_type[kind]
        count = self.counts[t]
        have = self.items[p][t]
        after = have + sign * tab.kind_items[kind]
        old_value = self.type_value(t)
        new_value = self.type_value(t, count + (have == 0 and after > 0) - (have > 0 and after <= 0))
        deltas = [0.0] * len(self.items)
        if new_value != old_value:
            for o, row in enumerate(self.items):
                if row[t]:
                    deltas[o] = row[t] * (new_value - old_value)
        deltas[p] = (after * (new_value + self.bonus[p][t] + sign * tab.kind_bonus[kind])
                     - have * (old_value + self.bonus[p][t]))
        return deltas

    def margin_gain(self, p: int, deltas: list[float]) -> float:
        """How much owner row p's lead over the best other seat grows with these score changes."""
        best_before = best_after = -1e9
        for o in range(self.n):
            if o != p:
                best_before = max(best_before, self.score[o])
                best_after = max(best_after, self.score[o] + deltas[o])
        return deltas[p] - (best_after - best_before)

    def card_gain(self, p: int, kind: int, seal: bool = False) -> float:
        """`margin_gain` of owner row p taking one card (with a seal if `seal`): the hot path."""
        tab = self.tab
        t = tab.kind_type[kind]
        items, count = self.items, self.counts[t]
        have = items[p][t]
        values = tab.values[t]
        old_value = values[min(count, 3) - 1] if count else 0
        new_value = values[min(count + (have == 0), 3) - 1]
        bonus = self.bonus[p][t]
        own = ((have + tab.kind_items[kind]) * (new_value + bonus + tab.kind_bonus[kind])
               - have * (old_value + bonus))
        if seal or (tab.kind_seal[kind] and self.seal_supply > 0):
            own += 3
        if new_value == old_value:
            return own
        drop = new_value - old_value
        score = self.score
        best_before = best_after = -1e9
        for o in range(self.n):
            if o != p:
                x = score[o]
                if x > best_before:
                    best_before = x
                x += items[o][t] * drop
                if x > best_after:
                    best_after = x
        return own - (best_after - best_before)

    def give(self, p: int, kind: int, seal: bool = False) -> None:
        deltas = self.card_deltas(p, kind)
        tab, t = self.tab, self.tab.kind_type[kind]
        self.counts[t] += self.items[p][t] == 0
        self.items[p][t] += tab.kind_items[kind]
        self.bonus[p][t] += tab.kind_bonus[kind]
        if tab.kind_seal[kind] and self.seal_supply > 0:
            self.seal_supply -= 1
            seal = True
        if seal:
            self.seals[p] += 1
            deltas[p] += 3
        for o, d in enumerate(deltas):
            self.score[o] += d

    def pay(self, p: int, amount: int) -> None:
        self.money[p] -= amount
        self.score[p] -= amount / 2

    # -------------------------------------------------- provisional closing
    def resolve(self, game, m: int) -> None:
        """Resolve market m as if it closed now, every owner choosing by margin gain."""
        order = [v for v in range(game.occ.shape[1] - 1, -1, -1) if 0 <= game.occ[m, v] < TUTOR]
        if not order:
            return
        cards = face_up_gifts(game, m)
        seal_on = bool(game.seal_on[m]) and m != MEMPHIS
        reserve = int(game.reserve[m])
        for i, v in enumerate(order):
            p = int(game.occ[m, v])
            if self.money[p] < v:
                continue
            if i == 0:
                self.pay(p, v)
                reserve += v
                symbol = int(game.square_symbol[m, game.side[m], v]) if m != MEMPHIS else MEMPHIS_HIGH
                for k in self.high_choice(p, cards, seal_on, symbol):
                    self.give(p, cards.pop(k), seal=k == 0 and seal_on)
                continue
            half = (reserve + 1) // 2
            best, best_gain = None, half / 2
            for k, kind in cards.items():
                gain = self.card_gain(p, kind, seal=k == 0 and seal_on) - v / 2
                if gain > best_gain:
                    best, best_gain = k, gain
            if best is None:
                reserve -= half
                self.pay(p, -half)
            else:
                self.pay(p, v)
                reserve += v
                self.give(p, cards.pop(best), seal=best == 0 and seal_on)

    def high_choice(self, p: int, cards: dict[int, int], seal_on: bool, symbol: int) -> list[int]:
        """Places the highest bidder takes: the upper card, or two lower cards (+1 on extra)."""
        gains = sorted(((self.card_gain(p, kind, seal=k == 0 and seal_on), k) for k, kind in cards.items()),
                       reverse=True)
        if symbol == SINGLE:
            return [gains[0][1]] if gains else []
        if symbol == MEMPHIS_HIGH:
            return [k for _, k in gains[:2]]
        lower = [(g, k) for g, k in gains if k != 0]
        upper = [(g, k) for g, k in gains if k == 0]
        two = lower[:2]
        if upper and (not two or upper[0][0] >= sum(g for g, _ in two)):
            take = [0]
            rest = lower[:1]
        else:
            take = [k for _, k in two]
            rest = lower[2:3]
        if symbol == EXTRA:
            take += [k for _, k in rest]
        return take


def face_up_gifts(game, m: int) -> dict[int, int]:
    """{card place: gift kind} of the face-up gifts above market m (not the Roaming Thief card)."""
    n = tables(game.rules).num_kinds
    return {k: c for k, c in enumerate(game.slots[m].tolist()) if 0 <= c < n and not game.face_down[m, k]}


def provisional(game) -> tuple[Position, Position]:
    """(position now, position after every open market with servants resolves now)."""
    now = Position(game)
    after = now.copy()
    for m in np.flatnonzero(game.is_open & (game.occ >= 0).any(axis=1)).tolist():
        if m != game.res_market:
            after.resolve(game, m)
    return now, after


def seat_values(game, w: Weights) -> list[float]:
    """Every seat's value of `game` under weights `w`: its worth minus the best other seat's.

    A seat's worth is its score with Deben and seals re-weighted, plus the monopoly,
    rarity and character terms; it mixes the position now and after the provisional
    resolutions by `w.projection`.
    """
    now, after = provisional(game)
    worth = [(1 - w.projection) * a + w.projection * b for a, b in zip(_worth(now, w), _worth(after, w))]
    if w.character:
        played = game.char_played[: game.num_players].sum(axis=1).tolist()
        worth = [x + w.character * c for x, c in zip(worth, played)]
    values = []
    for p in range(game.num_players):
        best = max(x for o, x in enumerate(worth) if o != p)
        values.append(worth[p] - w.opponent * best)
    return values


def seat_value(game, seat: int, w: Weights) -> float:
    """The value of `game` for `seat` under weights `w` (higher is better)."""
    return seat_values(game, w)[seat]


def _worth(pos: Position, w: Weights) -> list[float]:
    tab, out = pos.tab, []
    for p in range(pos.n):
        x = pos.score[p] + (w.money - 0.5) * pos.money[p] + (w.seal - 3) * pos.seals[p]
        if w.monopoly or w.rarity:
            for t, have in enumerate(pos.items[p]):
                if have:
                    x += have * (w.monopoly * (pos.counts[t] == 1) + w.rarity * tab.rarity[t])
        out.append(x)
    return out


# ------------------------------------------------------------- fast policy
def quick_action(game, rng: np.random.Generator) -> int:
    """A fast, sensible choice for resolution decisions; uniform random for the others."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0]
    ph = game.phase
    if ph == PH_HIGH or ph == PH_OTHER:
        choice = _resolution_choice(game, legal)
        if choice in legal:
            return choice
    kinds = [a for a in legal if A.KIND <= a < A.KIND + tables(game.rules).num_kinds]
    if ph == PH_SHAME and kinds:
        pos, p = Position(game), game.actor
        return max(kinds, key=lambda a: pos.margin_gain(p, pos.card_deltas(p, a - A.KIND, sign=-1)))
    return legal[int(rng.integers(len(legal)))]


def _resolution_choice(game, legal: list[int]) -> int:
    pos, p, m = Position(game), game.actor, game.res_market
    seal_on = bool(game.seal_on[m]) and m != MEMPHIS
    gifts = face_up_gifts(game, m)
    gains = {a: pos.card_gain(p, gifts[a - A.CARD], seal=a == A.CARD and seal_on) if a - A.CARD in gifts else 0.0
             for a in legal if A.CARD <= a < A.CARD + game.slots.shape[1]}
    if game.phase == PH_OTHER:
        bid = game.res_order[game.res_pos]
        best = max(gains, key=gains.get, default=A.TAKE_HALF)
        if A.TAKE_HALF not in legal:
            return best
        half = (int(game.reserve[m]) + 1) // 2
        return best if best != A.TAKE_HALF and gains[best] - bid / 2 > half / 2 else A.TAKE_HALF
    cards = {a - A.CARD: gifts[a - A.CARD] for a in gains if a - A.CARD in gifts}
    symbol = int(game.square_symbol[m, game.side[m], game.res_order[game.res_pos]])
    if game.res_stage == 0 and m != MEMPHIS and cards:
        return A.CARD + pos.high_choice(p, cards, seal_on, symbol)[0]
    return max(gains, key=gains.get, default=-1)


def settle(game, rng: np.random.Generator) -> None:
    """Play the decisions after a turn action (market resolutions) with `quick_action`."""
    while not game.is_over() and game.phase not in TURN_PHASES:
        game.apply(quick_action(game, rng))
