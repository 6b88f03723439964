"""The shipped champion: the whole-game PPO policy `configs/whole_game.yaml` trains, packaged with the project.

It is trained in two stages: PPO over twelve tables of the game, then PPO against search bots at the tables
where the first stage stayed below the bar; the config's third stage, a league of exploiters, makes the policies
`champion:league=1` plays beside it (below). The first stage's policy ships as `champion_stage1.pt`
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

The champion is exploitable: a best response trained against copies of it wins 61-68% at 3 players. The
league of exploiters (the config's third stage, the rounds of `benchmarks/exploiter_league.py --seed 5150`)
trained it on, three rounds, against every best response found so far; the three policies it made ship as
`champion_league1.pt` .. `champion_league3.pt`
(their actors alone in float16, `policy_file.save_actor`: the shipped weights stay within 10 MB), and
`champion:league=1` plays the mixture of the four at tables of 2 and 3 players: each game one of them, drawn
with equal weights, plays the whole game. A best response must then beat four policies at once: at 3 players the
ones trained against it win 37-44% (docs/champion.md, "Exploitability"). At 4 and 5 players it plays the
champion alone: the league was trained at 3 players, and at 4 the mixture was the easier of the two to
exploit.

The previous champion, trained at one table only (4 players, beginner setup, base characters, no
Memphis; observation v1), ships beside it as `champion_4p.pt` so that comparisons stay possible:
`ppo:path=<CHAMPION_4P_FILE>`.
"""
from __future__ import annotations

from pathlib import Path

from .mcts import ROOT_WIDTH, UCB_C
from .mixture import MixtureBot
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
# the league's agents 1..3 (configs/whole_game.yaml's league/agent_K/final_model.pt), actors only
CHAMPION_LEAGUE_FILES = [Path(__file__).with_name(f"champion_league{k}.pt") for k in (1, 2, 3)]
# the player counts where `champion:league=1` plays the league's mixture; at the others, the champion alone
LEAGUE_PLAYERS = frozenset({2, 3})


class ChampionBot(PPOAgent):
    """The shipped agent: one policy for every table of the game (2-5 players, both setups, base and
    expansion characters and the scenarios, Memphis on and off), reading observation v2, which tells it
    the table it sits at.

    deterministic: 1 (default) plays the most likely action, 0 samples.
    run: 1 (default) the champion, 2 the second agent (the same training config, another seed).
    league: 1 plays, at tables of `LEAGUE_PLAYERS`, the mixture of the champion and the league's three policies,
        one drawn per game with equal weights (`MixtureBot`), and the champion alone at the others; 0 (default)
        the champion alone everywhere. Run 1 only, without a critic at the leaves (the league's files hold actors
        only).
    search, width, puct, leaf_value, c, widen: search at play time with the policy as the prior (`PPOAgent`), and
        a critic at the leaves: e.g. `champion:search=800` or `champion:search=800:leaf_value=1`
        (docs/champion.md, "With search at play time"); run 1's leaves are valued by the critic fitted to
        game outcomes (`CHAMPION_VALUE_FILE`), run 2's by its PPO critic.
    """

    name = "champion"

    def __init__(self, deterministic: bool = True, seed: int | None = None, search: int = 0,
                 width: int = ROOT_WIDTH, puct: float = PUCT, leaf_value: float = 0.0, run: int = 1, c: float = UCB_C,
                 widen: float = 0.0, league: bool = False):
        if run not in CHAMPION_FILES:
            raise ValueError(f"champion: run must be one of {sorted(CHAMPION_FILES)} (the shipped training runs), "
                             f"got {run}")
        if league and (run != 1 or leaf_value):
            raise ValueError("champion: league=1 plays run 1's league, whose policies have no critic: leave run at "
                             f"1 and leaf_value at 0 (got run={run}, leaf_value={leaf_value:g})")
        files = weights(run, leaf_value, league)
        missing = [str(path) for path in files.values() if not path.is_file()]
        if missing:
            raise FileNotFoundError(f"the champion's weights are missing from this install: {', '.join(missing)}")
        # with the league, four members play (the champion's policy one of them); this PPOAgent is then its first
        # member's twin, kept for what is read of the champion's policy (`policy`, `logits`)
        self.mixture = MixtureBot.of([PPOAgent(path, deterministic, seed, search, width, puct, leaf_value, c, widen)
                                      for path in files.values()], seed) if league else None
        super().__init__(next(iter(files.values())), deterministic, seed, search, width, puct, leaf_value, c, widen)

    @property
    def weights_files(self) -> list[Path]:
        return super().weights_files if self.mixture is None else self.mixture.weights_files

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.mixture is not None:
            self.mixture.reset(seed)

    def plays_league_at(self, num_players: int) -> bool:
        """Whether the league's mixture plays at a table of `num_players` (`LEAGUE_PLAYERS`, with league=1)."""
        return self.mixture is not None and num_players in LEAGUE_PLAYERS

    def members_at(self, num_players: int) -> list[PPOAgent]:
        """The league's four policies where it plays them, else the champion alone."""
        return self.mixture.members if self.plays_league_at(num_players) else [self]

    def act(self, game, seat: int) -> int:
        if self.plays_league_at(game.num_players):
            return self.mixture.act(game, seat)
        return super().act(game, seat)


def weights(run: int, leaf_value: float = 0.0, league: bool = False) -> dict[str, Path]:
    """{the name a cluster ships them by (`ppo.SHIPPED`): the file} of the weights a champion spec plays, its own
    policy's first, each file a cluster's worker received in place of the package's: run 1 searching with a critic
    at its leaves plays the file of the fitted critic, the same actor bit for bit; with the league, its three
    policies follow."""
    if run == 1 and leaf_value:
        files = {f"{CHAMPION}:value": CHAMPION_VALUE_FILE}
    else:
        files = {CHAMPION if run == 1 else f"{CHAMPION}:run={run}": CHAMPION_FILES[run]}
    if league:
        files.update({f"{CHAMPION}:league{k}": path for k, path in enumerate(CHAMPION_LEAGUE_FILES, 1)})
    return {name: SHIPPED.get(name, path) for name, path in files.items()}
