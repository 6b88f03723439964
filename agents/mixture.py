"""Several trained policies played as one mixed strategy: each game, the bot draws one of them.

A policy that a learnt best response beats can still be hard to exploit as part of a mixture: the best
response must then do well against every member at once, which is what population methods (fictitious play,
PSRO, AlphaStar's league) return as their answer. `mixture:paths=A.pt+B.pt+C.pt` plays such a mixture
wherever a bot is named: each game (`reset`) it draws one member with equal weights from its own seeded
generator, so the same seed plays the same member, and that member decides the whole game. Each seat's bot
draws on its own: two seats of one game may play different members. docs/champion.md ("Exploitability")
measures how exploitable the league's agents are as a mixture.
"""
from __future__ import annotations

from pathlib import Path

from .base import Agent
from .mcts import ROOT_WIDTH, UCB_C
from .ppo import PUCT, PPOAgent

SEPARATOR = "+"         # between the members' model files in the `paths` parameter


class MixtureBot(Agent):
    """Plays one of several trained policies per game, drawn with equal weights.

    paths: the members' model files (or run folders), joined by '+'; at least two, each once.
    deterministic, search, width, puct, leaf_value, c, widen: as `PPOAgent`'s, for every member.
    """

    name = "mixture"
    bounds = PPOAgent.bounds

    def __init__(self, paths: str, deterministic: bool = True, seed: int | None = None, search: int = 0,
                 width: int = ROOT_WIDTH, puct: float = PUCT, leaf_value: float = 0.0, c: float = UCB_C,
                 widen: float = 0.0):
        members = paths.split(SEPARATOR)
        if len(members) < 2 or len(set(members)) < len(members):
            raise ValueError(f"mixture: paths must name at least two different model files joined by "
                             f"{SEPARATOR!r}, got {paths!r}")
        self.members = checked([PPOAgent(path, deterministic, seed, search, width, puct, leaf_value, c, widen)
                                for path in members])
        super().__init__(seed)

    @classmethod
    def of(cls, members: list[PPOAgent], seed: int | None = None) -> "MixtureBot":
        """The mixture of agents already made (the shipped champion's league: `ChampionBot`)."""
        bot = cls.__new__(cls)
        bot.members = checked(members)
        Agent.__init__(bot, seed)
        return bot

    @property
    def weights_files(self) -> list[Path]:
        """The members' weights files, in order (a resumed run checks they have not changed: agents/weights.py)."""
        return [file for member in self.members for file in member.weights_files]

    def members_at(self, num_players: int) -> list[PPOAgent]:
        """The members, one drawn per game (`PPOAgent.members_at`)."""
        return self.members

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.member = self.members[int(self.rng.integers(len(self.members)))]
        self.member.reset(seed)

    def act(self, game, seat: int) -> int:
        return self.member.act(game, seat)


def checked(members: list[PPOAgent]) -> list[PPOAgent]:
    """`members`, if they all read one observation version (else a ValueError naming their sizes)."""
    sizes = {m.path: m.policy.observation_space.shape[0] for m in members}
    if len(set(sizes.values())) > 1:
        raise ValueError(f"mixture: the members read observations of different sizes {sizes}")
    return members
