"""One-step lookahead bots: greedy and the archetypes (collector, banker).

Each legal action is applied to a determinised clone (hidden deck order and dice
re-sampled: `hidden.determinize`), the market resolution it may trigger is played
out with `evaluation.quick_action`, and the resulting position is scored by
`evaluation.seat_value` under the bot's `Weights`. An action that draws cards or
rolls dice is averaged over `samples` determinisations. A character is valued by
the position after its choices (each looking `power_depth` choices ahead) plus the
gain of the best placement, since a character is always followed by a placement; a
character that grants more placements this turn (the Head Priest) is also credited
with the best of each further placement, played one after the other.
The archetypes differ only in their weights, i.e. in what they think a position is
worth, which makes their plans differ.
"""
from __future__ import annotations

from nefertiti_env.core import actions as A
from nefertiti_env.core.phases import PH_CHARACTER, PH_SECOND

from .base import Agent
from .evaluation import Weights, seat_value, settle
from .hidden import determinize, rolls_dice


class HeuristicBot(Agent):
    """Picks the action whose resulting position `seat_value` rates highest.

    weights: the evaluation weights (see `evaluation.Weights`).
    samples: determinisations averaged for an action that draws cards or rolls dice.
    power_depth: choices of a character's power searched ahead before valuing.
    """

    name = "heuristic"
    weights = Weights()
    bounds = {"samples": ">= 1", "power_depth": ">= 0"}

    def __init__(self, seed: int | None = None, samples: int = 2, power_depth: int = 3, **weights):
        super().__init__(seed)
        self.samples, self.power_depth = samples, power_depth
        if weights:
            self.weights = Weights(**{**self.weights.__dict__, **weights})

    def act(self, game, seat: int) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        values = self.action_values(game, seat)
        return max(values, key=values.get)

    def action_values(self, game, seat: int) -> dict[int, float]:
        """The one-step value of every legal action for `seat` (in random order, for tie-breaks)."""
        legal = game.legal_actions()
        legal = [legal[i] for i in self.rng.permutation(len(legal))]
        base = determinize(game, seat, self.rng)
        if game.phase == PH_CHARACTER:
            return self._character_choices(base, legal, seat)
        values = {a: self._value(base, a, seat) for a in legal if not A.CHARACTER <= a < A.MARKET}
        if len(values) < len(legal):
            # a character is followed by the placement: credit it with the best placement's gain
            best = max(values, key=values.get)
            best_move = values[best] - seat_value(base, seat, self.weights)
            for a in legal:
                if a not in values:
                    values[a] = self._character_value(base, a, seat, best) + best_move
        return values

    def _value(self, base, action: int, seat: int) -> float:
        g = base.clone()
        g.apply(action)
        settle(g, self.rng)
        value = seat_value(g, seat, self.weights)
        if g.deck_pos == base.deck_pos and not rolls_dice(base, action):
            return value
        for _ in range(self.samples - 1):                  # chance happened: average over other draws
            g = determinize(base, seat, self.rng)
            g.apply(action)
            settle(g, self.rng)
            value += seat_value(g, seat, self.weights)
        return value / self.samples

    def _character_choices(self, base, legal: list[int], seat: int, depth: int | None = None) -> dict[int, float]:
        """Values of a power's next choices, each the best outcome of the power's next few
        choices (`power_depth`; a Merchant's give, target and take are three). `done` wins
        ties, so repeatable choices (Oracle swaps, Trader exchanges) stop when they no longer
        strictly help."""
        depth = self.power_depth if depth is None else depth
        values = {}
        for a in legal:
            g = base.clone()
            g.apply(a)
            values[a] = self._power_value(g, seat, depth - 1) + 1e-6 * (a == A.DONE)
        return values

    def _power_value(self, g, seat: int, depth: int) -> float:
        if depth > 0 and g.phase == PH_CHARACTER and g.current_player == seat:
            return max(self._character_choices(g, g.legal_actions(), seat, depth).values())
        return seat_value(g, seat, self.weights)

    def _character_value(self, base, action: int, seat: int, best: int) -> float:
        """Value after playing the character with its choices made as in `_character_choices`,
        plus the gain of the extra placements it grants, if any, after the `best` placement."""
        g = base.clone()
        g.apply(action)
        while g.phase == PH_CHARACTER and g.current_player == seat:
            values = self._character_choices(g, g.legal_actions(), seat)
            g.apply(max(values, key=values.get))
        settle(g, self.rng)
        value = seat_value(g, seat, self.weights)
        if g.extra_placements and best in g.legal_actions():
            value += self._extra_placements_gain(g, best, seat)
        return value

    def _extra_placements_gain(self, g, first: int, seat: int) -> float:
        """Gain of the placements a character grants beyond the usual one (as many as its
        power's parameter gives): after the `first` placement, the best of each further one."""
        g.apply(first)
        settle(g, self.rng)
        gain = 0.0
        while g.phase == PH_SECOND and g.current_player == seat:
            before = seat_value(g, seat, self.weights)
            values = {a: self._value(g, a, seat) for a in g.legal_actions()}
            a = max(values, key=values.get)
            gain += values[a] - before
            g.apply(a)
            settle(g, self.rng)
        return gain


class GreedyBot(HeuristicBot):
    """Plain points and money: the score as the game counts it (Deben 0.5, seal 3)."""

    name = "greedy"


class CollectorBot(HeuristicBot):
    """Chases monopolies and rare types and pays for them: money is only a means.

    Defaults: money 0.35 (spends freely), monopoly +3 per item of a type it alone owns,
    rarity +2 per item at the highest 1-owner value (necklace, gold), scaled down for
    cheaper types, projection 0.7 (trusts its bids).
    """

    name = "collector"
    weights = Weights(money=0.35, monopoly=3.0, rarity=2.0, projection=0.7)


class BankerBot(HeuristicBot):
    """Money and seals: takes half-Reserves, bids low, collects seals and plays characters.

    Defaults: money 0.9 (so a bid must buy a lot more than it costs), seal 4
    (upper cards are worth chasing), character +3 per character played (a seal
    spent on a character costs it 1 point, not 3), projection 0.5.
    """

    name = "banker"
    weights = Weights(money=0.9, seal=4.0, character=3.0, projection=0.5)
