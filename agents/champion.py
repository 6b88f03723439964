"""The shipped champion: the PPO policy `configs/champion.yaml` trains, packaged with the project.

Its weights are a nefertiti model file (`agents/policy_file.py`: tensors and JSON only, loaded
with `torch.load(weights_only=True)`, no unpickling), `champion.pt` next to this module, so
`champion` is a bot name like any other: `nefertiti play --bots human,champion,banker,banker`,
tournaments, the ladder, the balance lab, and training opponents. docs/champion.md tells how it
was trained, for which tables, and how it fares against the bankers and MCTS.
"""
from __future__ import annotations

from pathlib import Path

from .ppo import CHAMPION, SHIPPED, PPOAgent

CHAMPION_FILE = Path(__file__).with_name("champion.pt")


class ChampionBot(PPOAgent):
    """The shipped agent, trained for 4 players, beginner setup, base characters, no Memphis
    (it plays any table whose observation it reads, but was not trained there).

    deterministic: 1 (default) plays the most likely action, 0 samples.
    search, width, puct, leaf_value: search at play time with the policy as the prior (`PPOAgent`), and
        its critic at the leaves: e.g. `champion:search=800` or `champion:search=800,leaf_value=1`
        (docs/champion.md, "With search at play time").
    """

    name = "champion"

    def __init__(self, deterministic: bool = True, seed: int | None = None, search: int = 0, width: int = 8,
                 puct: float = 1.0, leaf_value: float = 0.0):
        path = SHIPPED.get(CHAMPION, CHAMPION_FILE)      # a cluster's worker: the head's copy
        if not path.is_file():
            raise FileNotFoundError(f"the champion's weights are missing from this install ({path})")
        super().__init__(path, deterministic, seed, search, width, puct, leaf_value)
