"""The whole-game bar: an agent at eight tables of the game against n-1 bankers and n-1 MCTS bots,
the policy alone and with search at play time.

    python benchmarks/agent_bar.py                                    # the shipped champion, 400 games each
    python benchmarks/agent_bar.py --model runs/whole_game            # a run folder or model file
    python benchmarks/agent_bar.py --model A.pt,B.pt,C.pt             # their mixture, one drawn per game
    python benchmarks/agent_bar.py --league                           # the champion with its league
    python benchmarks/agent_bar.py --games 8 --tables 2p-base,4p-base # a quick look (not a measurement)
    python benchmarks/agent_bar.py --out results/agent_bar.md         # also write the table to a file
    python benchmarks/agent_bar.py --matches banker --games 400       # only the matches against bankers
    python benchmarks/agent_bar.py --sample --matches banker,mcts     # the policy sampling its actions
    python benchmarks/agent_bar.py --matches search --leaf-value 1    # the search's leaves valued by a critic

Per table three matches, each of --games games: the policy alone against n-1 bankers, the policy
alone against n-1 `mcts:iterations=800`, and the policy with search at play time (the compiled
MCTS with the policy as its root prior, `ppo:path=...:search=800`) against the same MCTS bots.
Game i puts the agent at seat i % n with game seed SEED + i (`training.evaluation`, the trainer's
own game loop), so every match at a table plays the same deals with the seats rotated. SEED is
fixed here, before any run, and is used by no training config, evaluation or tuning: figures from
it were never used to choose settings. A win is being among the winners; the interval is Wilson's
95% score interval (`agents.stats.wilson`). A target is met when the win rate reaches it (the
project's targets, by player count). The agent's CPU time per decision is reported beside each match.
Exit status 0 when every target of the tables played is met.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from nefertiti_env.agents.mixture import SEPARATOR
from nefertiti_env.agents.ppo import model_file
from nefertiti_env.training.evaluation import evaluate

SEED = 38_000_000_017         # game 0's seed: chosen before any run, used nowhere else
SEARCH = 800                  # MCTS iterations, of the baseline and of the agent's search
TABLES = {                    # name: NefertitiGame options
    "2p-base": dict(num_players=2, setup="beginner", memphis=False, characters="base"),
    "3p-base": dict(num_players=3, setup="beginner", memphis=False, characters="base"),
    "3p-expansion-memphis": dict(num_players=3, setup="beginner", memphis=True, characters="expansion"),
    "4p-base": dict(num_players=4, setup="beginner", memphis=False, characters="base"),
    "4p-advanced": dict(num_players=4, setup="advanced", memphis=False, characters="base"),
    "4p-expansion-memphis": dict(num_players=4, setup="beginner", memphis=True, characters="expansion"),
    "5p-base": dict(num_players=5, setup="beginner", memphis=True, characters="base"),
    "5p-expansion-advanced": dict(num_players=5, setup="advanced", memphis=True, characters="expansion"),
}
# players: win rate to reach (policy alone vs bankers, policy alone vs mcts, with search vs mcts)
TARGETS = {2: (0.80, 0.60, 0.70), 3: (0.60, 0.42, 0.50), 4: (0.55, 0.35, 0.45), 5: (0.45, 0.28, 0.36)}


def agent_spec(model: str | None, sample: bool = False, league: bool = False) -> str:
    """The bot spec of the agent: the shipped champion (with `league`, the mixture of it and its league's three
    policies), `ppo:path=` a model file or run folder, or for several (comma-separated) their mixture, one drawn
    per game (`agents/mixture.py`); with `sample`, drawing its actions from its probabilities instead of playing
    the most likely one."""
    models = [str(model_file(m)) for m in model.split(",")] if model else []
    spec = ("champion:league=1" if league else "champion" if not models else f"ppo:path={models[0]}"
            if len(models) == 1 else f"mixture:paths={SEPARATOR.join(models)}")
    return f"{spec}:deterministic=0" if sample else spec


MATCHES = ("banker", "mcts", "search")   # the policy alone vs bankers, vs mcts; the policy with search vs mcts


def matches(agent: str, search: int, chosen=MATCHES, leaf_value: float = 0.0) -> list[tuple[str, str, int]]:
    """(agent spec, baseline spec, index into TARGETS' triples) of the chosen matches at a table; the agent's
    search values its leaves with its critic at weight `leaf_value` (0: the heuristic alone)."""
    mcts = f"mcts:iterations={search}"
    searching = f"{agent}:search={search}" + (f":leaf_value={leaf_value:g}" if leaf_value else "")
    every = [(agent, "banker", 0), (agent, mcts, 1), (searching, mcts, 2)]
    return [m for name, m in zip(MATCHES, every) if name in chosen]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="tables: " + ", ".join(TABLES))
    parser.add_argument("--model", help="model .pt or run folder (default: the shipped champion); several, "
                        "comma-separated: their mixture, one drawn per game")
    parser.add_argument("--league", action="store_true", help="the shipped champion with its league "
                        "(champion:league=1: it and the league's three policies, one drawn per game, at 2 and 3 "
                        "players; the champion alone at 4 and 5)")
    parser.add_argument("--games", type=int, default=400, help="games per match (default 400)")
    parser.add_argument("--tables", default=",".join(TABLES), help="comma-separated table names (default: all eight)")
    parser.add_argument("--matches", default=",".join(MATCHES),
                        help="comma-separated matches to play: banker, mcts, search (default: all three)")
    parser.add_argument("--sample", action="store_true", help="the policy alone draws its actions from its "
                        "probabilities (deterministic=0) instead of playing its most likely one")
    parser.add_argument("--search", type=int, default=SEARCH, help=f"MCTS iterations (default {SEARCH})")
    parser.add_argument("--leaf-value", type=float, default=0.0, help="in the search match, the weight of the "
                        "agent's critic in the leaves' value, 0..1 (default 0: the heuristic; the champion's critic "
                        "is the one fitted to game outcomes, docs/champion.md)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--ray", metavar="ADDRESS", help="play on the Ray cluster at ADDRESS (or auto) instead of "
                                                         "--workers processes (docs/cluster.md)")
    parser.add_argument("--out", help="also write the markdown table to this file")
    args = parser.parse_args(argv)
    unknown = [t for t in args.tables.split(",") if t not in TABLES]
    chosen = args.matches.split(",")
    strange = [m for m in chosen if m not in MATCHES]
    if unknown or strange or args.games < 1 or args.search < 1 or not 0 <= args.leaf_value <= 1:
        parser.error(f"unknown tables {unknown} (known: {', '.join(TABLES)})" if unknown
                     else f"unknown matches {strange}: --matches takes {', '.join(MATCHES)}" if strange
                     else "--games and --search must be at least 1, --leaf-value in 0..1")
    if args.league and (args.model or args.leaf_value):
        parser.error("--league plays the shipped champion's league, without a critic at the leaves: not with "
                     "--model or --leaf-value")
    agent = agent_spec(args.model, args.sample, args.league)
    start = time.perf_counter()
    leaves = f"; its search's leaves valued by its critic at weight {args.leaf_value:g}" if args.leaf_value else ""
    who = args.model or ("the shipped champion with its league (champion:league=1)" if args.league
                         else "the shipped champion (agents/champion.pt)")
    lines = [f"agent: {who}{', sampling its actions' if args.sample else ''}{leaves}; "
             f"{args.games} games per match, game seeds {SEED} + i",
             "", "| table | agent | against n-1 | games | wins | win rate | 95% Wilson interval | target | met | "
                 "agent's ms per decision |", "|---|---|---|---|---|---|---|---|---|---|"]
    met = True
    for name in args.tables.split(","):
        table = TABLES[name]
        for learner, baseline, target in matches(agent, args.search, chosen, args.leaf_value):
            r, = evaluate(None, [baseline], args.games, table, seed=SEED, workers=args.workers, bot=learner,
                             ray=args.ray)
            goal = TARGETS[table["num_players"]][target]
            ok = r.win_rate >= goal
            met &= ok
            low, high = r.ci
            mode = ("with search" + (", critic at the leaves" if ":leaf_value=" in learner else "")
                    if ":search=" in learner else "policy alone")
            lines.append(f"| {name} | {mode} | {baseline} | {r.games} | {r.wins:g} | {r.win_rate:.1%} | "
                         f"[{low:.1%}, {high:.1%}] | >= {goal:.0%} | {'yes' if ok else 'no'} | "
                         f"{1000 * r.seconds / max(r.decisions, 1):.1f} |")
            print(lines[-1], flush=True)
    where = f"the Ray cluster at {args.ray}" if args.ray else f"{args.workers} workers"
    lines.append(f"\n{time.perf_counter() - start:,.0f} s on {where}")
    text = "\n".join(lines)
    print("\n" + text)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text + "\n")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
