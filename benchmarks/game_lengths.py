"""Natural game lengths (decisions until the Akhenaton card ends the game) under simple policies,
over every option set: the figures behind the default decision limit `DEFAULT_MAX_DECISIONS`.

    python benchmarks/game_lengths.py --games 300 --cap 20000

Policies: `first` (the lowest legal id), `last` (the highest legal id other than `done`, which can
bid above what anyone pays and play on forever: games reaching `--cap` are counted apart), `random`
(uniform over legal ids, a numpy Generator seeded per game). Option sets: 2-5 players x Memphis
x characters (base, expansion, three scenarios) x beginner/advanced setup, `--games` seeds each.
Prints, per policy, the games played, those not ended within `--cap`, and percentiles of the lengths.
"""
from __future__ import annotations

import argparse
import itertools

import numpy as np

from nefertiti_env.agents.progress import progress_bar
from nefertiti_env import NefertitiGame
from nefertiti_env.core.actions import DONE

PLAYERS_MEMPHIS = [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True), (5, True)]
CHARACTERS = ["base", "expansion", "curse_of_amon", "intrigue_at_court", "race_for_the_nile"]
SETUPS = ["beginner", "advanced"]
OPTION_SETS = [dict(num_players=p, memphis=m, characters=c, setup=s)
               for (p, m), c, s in itertools.product(PLAYERS_MEMPHIS, CHARACTERS, SETUPS)]


def choose(policy: str, legal: list[int], rng: np.random.Generator) -> int:
    if policy == "first":
        return legal[0]
    if policy == "last":
        return legal[-1] if legal[-1] != DONE or len(legal) == 1 else legal[-2]
    return legal[int(rng.integers(len(legal)))]


def length(policy: str, options: dict, seed: int, cap: int) -> int | None:
    """Decisions until the game ends, or None when it has not ended after `cap` decisions."""
    g = NefertitiGame(seed=seed, max_decisions=cap, **options)
    rng = np.random.default_rng(seed)
    while not g.is_over():
        g.apply(choose(policy, g.legal_actions(), rng))
    return None if g.is_truncated() else len(g.history)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300, help="seeds per option set and policy (default 300)")
    parser.add_argument("--cap", type=int, default=20000, help="decisions after which a game counts as not "
                                                               "ending (default 20000)")
    parser.add_argument("--policies", default="first,last,random", help="comma-separated (default all three)")
    args = parser.parse_args(argv)
    for policy in args.policies.split(","):
        lengths, endless = [], 0
        with progress_bar(total=len(OPTION_SETS) * args.games, desc=policy, unit="game") as bar:
            for options in OPTION_SETS:
                for seed in range(args.games):
                    n = length(policy, options, seed, args.cap)
                    endless += n is None
                    lengths += [] if n is None else [n]
                    bar.update()
        q = np.percentile(lengths, [50, 99, 99.9, 99.99]) if lengths else [np.nan] * 4
        print(f"{policy:>6}: {len(lengths) + endless} games, {endless} not ended within {args.cap}; ended games: "
              f"median {q[0]:.0f}, p99 {q[1]:.0f}, p99.9 {q[2]:.0f}, p99.99 {q[3]:.0f}, "
              f"max {max(lengths, default=0)}")


if __name__ == "__main__":
    main()
