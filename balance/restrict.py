"""Restricted play: one seat may not use one character or one market.

The restriction is a rule of the game, not a bot's view of it: the seat's forbidden
action ids go into the game's `forbidden` option, and the engine leaves them out of
that seat's legal actions (`engine/step.restrict`), so every bot, compiled kernels and
search inside its tree included, only sees what the seat may do. When the restriction
cannot be kept the engine lifts it for that decision (`NefertitiGame.is_forced`): when
only forbidden actions are legal, or only (optional) characters would be left, since the
placement that must follow would be forbidden anyway (say the forbidden market holds the
only empty squares near the end of the game). The recorder counts those decisions.
"""
from __future__ import annotations

from dataclasses import dataclass

from nefertiti_env.core import actions as A
from nefertiti_env.core.limits import NUM_BIDS


@dataclass(frozen=True)
class Restriction:
    """What a restricted seat may not use: kind 'character' or 'market', by its ruleset name."""

    kind: str
    name: str

    @classmethod
    def of(cls, arm: dict) -> Restriction:
        """From a study's `forbid` form, {character: <name>} or {market: <name>}."""
        ((kind, name),) = arm.items()
        return cls(kind, str(name))

    @property
    def label(self) -> str:
        return f"no {self.name}" if self.kind == "character" else f"no market {self.name}"

    def actions(self, rules) -> list[int]:
        """Forbidden action ids: playing the character, or placing a servant on the market."""
        if self.kind == "character":
            return [A.CHARACTER + i for i, c in enumerate(rules.characters) if c.name.lower() == self.name.lower()]
        m = next(i for i, market in enumerate(rules.markets) if market.name.lower() == self.name.lower())
        return [A.place(m, v) for v in range(NUM_BIDS)]

    def in_game(self, rules, players: int) -> bool:
        """Whether a game of this many players has the option: forbidding a character it never deals changes
        nothing, so that arm plays the control game for game and measures nothing."""
        return self.kind != "character" or self.name.lower() in (n.lower() for n in rules.dealt(players))

    def forbidden(self, rules, seat: int, players: int) -> list[list[int]]:
        """The game's `forbidden` option that restricts `seat` alone."""
        return [self.actions(rules) if s == seat else [] for s in range(players)]

    def problem(self, rules) -> str | None:
        """Why this restriction does not fit the ruleset (None when it does)."""
        names = [c.name for c in rules.characters] if self.kind == "character" else [m.name for m in rules.markets]
        if self.name.lower() not in (n.lower() for n in names):
            return f"unknown {self.kind} {self.name!r} (known: {', '.join(dict.fromkeys(names))})"
        return None
