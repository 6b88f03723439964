"""Thinking time per decision: an agent's policy alone, the policy with search, and the search bot, side by side.

    python benchmarks/thinking_time.py                                # the shipped champion at 4p-base, 20 games each
    python benchmarks/thinking_time.py --model runs/whole_game --tables 2p-base,5p-base

For each table, three bots take seat i % n of game i (game seed SEED + i, the other seats n-1 bankers, as
in benchmarks/agent_bar.py) for --games games: the policy alone (`ppo:path=...`, or `champion`), the
policy with --search iterations of MCTS at play time (`...:search=N`, the policy as the root's prior) and
`mcts:iterations=N`. Reported: the bot's CPU seconds of thinking (`time.process_time`, so a busy machine
changes the figures little) over its decisions, in milliseconds per decision, every decision counted
(a single legal action too), after one untimed game of each bot (compiled code loaded, torch warm). One
process, torch on one thread.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_bar import SEARCH, SEED, TABLES  # noqa: E402  (the bar's tables and seeds)

from nefertiti_env.agents.ppo import model_file  # noqa: E402
from nefertiti_env.training.evaluation import evaluate  # noqa: E402


def bots(agent: str, search: int) -> list[tuple[str, str]]:
    """(label, bot spec) of the three thinkers."""
    return [("policy alone", agent), (f"policy with search ({search})", f"{agent}:search={search}"),
            (f"mcts ({search})", f"mcts:iterations={search}")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1] + "\ntables: " + ", ".join(TABLES))
    parser.add_argument("--model", help="model .pt or run folder (default: the shipped champion)")
    parser.add_argument("--tables", default="4p-base", help="comma-separated table names (default 4p-base)")
    parser.add_argument("--games", type=int, default=20, help="games per bot and table (default 20)")
    parser.add_argument("--search", type=int, default=SEARCH, help=f"MCTS iterations (default {SEARCH})")
    args = parser.parse_args(argv)
    tables = args.tables.split(",")
    unknown = [t for t in tables if t not in TABLES]
    if unknown or args.games < 1 or args.search < 1:
        parser.error(f"unknown tables {unknown} (known: {', '.join(TABLES)})" if unknown
                     else "--games and --search must be at least 1")
    import torch
    torch.set_num_threads(1)
    agent = f"ppo:path={model_file(args.model)}" if args.model else "champion"
    lines = [f"agent: {args.model or 'the shipped champion'}; {args.games} games per bot, against n-1 bankers, "
             f"game seeds {SEED} + i", "", "| table | bot | decisions | CPU ms per decision |", "|---|---|---|---|"]
    start = time.perf_counter()
    for table in tables:
        for label, spec in bots(agent, args.search):
            evaluate(None, ["banker"], 1, TABLES[table], seed=SEED - 1, workers=1, bot=spec, progress=False)
            r, = evaluate(None, ["banker"], args.games, TABLES[table], seed=SEED, workers=1, bot=spec,
                          progress=False)
            lines.append(f"| {table} | {label} | {r.decisions:,} | {1000 * r.seconds / max(r.decisions, 1):.2f} |")
            print(lines[-1], flush=True)
    lines.append(f"\n{time.perf_counter() - start:,.0f} s in all")
    print("\n" + "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
