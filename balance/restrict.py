"""Restricted play: a bot that may not use one character or one market.

The wrapped bot decides on a view of the game whose legal actions leave out the
forbidden ones; everything else (state arrays, `clone`, lookahead) is the real
game, so any bot works unchanged. When the restriction cannot be kept, the bot
chooses among all legal actions and `forced` counts the decision: when only
forbidden actions are legal, or when only (optional) characters are left, since
the placement that must follow would be forbidden anyway (say the forbidden
market holds the only empty squares near the end of the game).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.limits import NUM_BIDS


@dataclass(frozen=True)
class Restriction:
    """What a restricted bot may not use: kind 'character' or 'market', by its ruleset name."""

    kind: str
    name: str

    @property
    def label(self) -> str:
        return f"no {self.name}" if self.kind == "character" else f"no market {self.name}"

    def actions(self, rules) -> frozenset[int]:
        """Forbidden action ids: playing the character, or placing a servant on the market."""
        if self.kind == "character":
            return frozenset(A.CHARACTER + i for i, c in enumerate(rules.characters)
                             if c.name.lower() == self.name.lower())
        m = next(i for i, market in enumerate(rules.markets) if market.name.lower() == self.name.lower())
        return frozenset(A.place(m, v) for v in range(NUM_BIDS))

    def problem(self, rules) -> str | None:
        """Why this restriction does not fit the ruleset (None when it does)."""
        names = [c.name for c in rules.characters] if self.kind == "character" else [m.name for m in rules.markets]
        if self.name.lower() not in (n.lower() for n in names):
            return f"unknown {self.kind} {self.name!r} (known: {', '.join(dict.fromkeys(names))})"
        return None


class _Masked:
    """A game seen through a restriction: the legal actions without the forbidden ones."""

    __slots__ = ("_game", "_legal")

    def __init__(self, game, legal: list[int]):
        self._game, self._legal = game, legal

    def __getattr__(self, name):
        return getattr(self._game, name)

    def legal_actions(self) -> list[int]:
        return list(self._legal)

    def legal_action_mask(self) -> np.ndarray:
        return A.action_mask(self._legal)


class RestrictedBot:
    """Wraps a bot (anything with `act(game, seat)` and `reset(seed)`) and forbids some actions."""

    def __init__(self, bot, restriction: Restriction):
        self.bot, self.restriction = bot, restriction
        self.name = f"{getattr(bot, 'name', bot)} ({restriction.label})"
        self.forced = 0
        self._rules, self._forbidden = None, frozenset()

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, game, seat: int) -> int:
        if game.rules is not self._rules:
            self._rules, self._forbidden = game.rules, self.restriction.actions(game.rules)
        forbidden = self._forbidden
        legal = game.legal_actions()
        allowed = [a for a in legal if a not in forbidden]
        if len(allowed) == len(legal):
            return self.bot.act(game, seat)
        if all(A.CHARACTER <= a < A.MARKET for a in allowed):
            self.forced += 1
            return self.bot.act(game, seat)
        return self.bot.act(_Masked(game, allowed), seat)
