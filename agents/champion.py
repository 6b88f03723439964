"""The shipped champion: the whole-game PPO policy `configs/whole_game.yaml` trains, packaged with the project.

It is trained in two stages: PPO over twelve tables of the game, then PPO against search bots at the tables
where the first stage stayed below the bar. The first stage's policy ships as `champion_stage1.pt`
(`ppo:path=<CHAMPION_STAGE1_FILE>`): what the fine-tuning changed stays measurable, and the balance atlas
published so far was played by it.

Its weights are a nefertiti model file (`agents/policy_file.py`: tensors and JSON only, loaded
with `torch.load(weights_only=True)`, no unpickling), `champion.pt` next to this module, so
`champion` is a bot name like any other: `nefertiti play --bots human,champion,banker,banker`,
tournaments, the ladder, the balance lab, and training opponents. docs/champion.md tells how it
was trained and how it fares at each table against the bankers and MCTS.

A second agent, trained by the same config (both stages) with another seed, ships as `champion_run2.pt` and plays
as `champion:run=2`: two independently trained agents let the balance atlas tell a property of the game
from a convention of one policy (docs/balance_atlas.md).

For the search's leaves the champion ships a value fitted to game outcomes at every table of its training
(`training/value_fit.py`): `champion_value.pt` holds the champion's actor, bit for bit, and that critic, and
`champion:search=800:leaf_value=1` plays with it. PPO's own critic, fitted to the learner's discounted returns
at its own turns, valued the leaves worse than the heuristic (docs/champion.md).

The previous champion, trained at one table only (4 players, beginner setup, base characters, no
Memphis; observation v1), ships beside it as `champion_4p.pt` so that comparisons stay possible:
`ppo:path=<CHAMPION_4P_FILE>`.
"""
from __future__ import annotations

from pathlib import Path

from .mcts import ROOT_WIDTH, UCB_C
from .ppo import CHAMPION, PUCT, SHIPPED, PPOAgent

CHAMPION_FILE = Path(__file__).with_name("champion.pt")
CHAMPION_STAGE1_FILE = Path(__file__).with_name("champion_stage1.pt")
# training run -> its weights: `configs/whole_game.yaml` as written (run 1, the champion), and its first stage
# with `seed: 4051`
CHAMPION_FILES = {1: CHAMPION_FILE, 2: Path(__file__).with_name("champion_run2.pt")}
CHAMPION_4P_FILE = Path(__file__).with_name("champion_4p.pt")
# the champion's actor with the critic fitted for the search's leaves (`python -m nefertiti_env.training.value_fit
# --tables whole_game`)
CHAMPION_VALUE_FILE = Path(__file__).with_name("champion_value.pt")


class ChampionBot(PPOAgent):
    """The shipped agent: one policy for every table of the game (2-5 players, both setups, base and
    expansion characters and the scenarios, Memphis on and off), reading observation v2, which tells it
    the table it sits at.

    deterministic: 1 (default) plays the most likely action, 0 samples.
    run: 1 (default) the champion, 2 the second agent (the same training config, another seed).
    search, width, puct, leaf_value, c, widen: search at play time with the policy as the prior (`PPOAgent`), and
        a critic at the leaves: e.g. `champion:search=800` or `champion:search=800:leaf_value=1`
        (docs/champion.md, "With search at play time"); run 1's leaves are valued by the critic fitted to
        game outcomes (`CHAMPION_VALUE_FILE`), run 2's by its PPO critic.
    """

    name = "champion"

    def __init__(self, deterministic: bool = True, seed: int | None = None, search: int = 0,
                 width: int = ROOT_WIDTH, puct: float = PUCT, leaf_value: float = 0.0, run: int = 1, c: float = UCB_C,
                 widen: float = 0.0):
        if run not in CHAMPION_FILES:
            raise ValueError(f"champion: run must be one of {sorted(CHAMPION_FILES)} (the shipped training runs), "
                             f"got {run}")
        name, path = weights(run, leaf_value)
        path = SHIPPED.get(name, path)                                  # a cluster's worker: the head's copy
        if not path.is_file():
            raise FileNotFoundError(f"the champion's weights (run {run}) are missing from this install ({path})")
        super().__init__(path, deterministic, seed, search, width, puct, leaf_value, c, widen)


def weights(run: int, leaf_value: float = 0.0) -> tuple[str, Path]:
    """(the name a cluster ships them by, `ppo.SHIPPED`; the file) of the weights a champion spec plays: run 1
    searching with a critic at its leaves plays the file of the fitted critic, the same actor bit for bit."""
    if run == 1 and leaf_value:
        return f"{CHAMPION}:value", CHAMPION_VALUE_FILE
    return (CHAMPION if run == 1 else f"{CHAMPION}:run={run}"), CHAMPION_FILES[run]
