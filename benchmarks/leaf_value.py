"""Does the search gain from its budget with a learnt value at its leaves? Four lines on the same deals:
the agent's search at two budgets, with the heuristic at its leaves and with the model's critic
(`leaf_value=1`), each against n-1 `mcts` (800 iterations), then the paired differences.

    python benchmarks/leaf_value.py --model runs/value_fit/value.pt            # 4p-base, 400 games a line
    python benchmarks/leaf_value.py --model runs/value_fit/value.pt --games 8  # a quick look

The model is best made by `python -m nefertiti_env.training.value_fit` (the shipped actor, a critic
fitted to every seat's outcomes); its actor is the root prior of every line. Each line is a tournament
(the folder `nefertiti tournament` writes) with the seed SEED, fixed before any run and used by no choice
of settings, so game i is the same deal in every line (seats rotated). A difference is reported in points
with the t 95% interval of the game-by-game differences and the exact McNemar p on the games only one
line won (benchmarks/paired_wins.py)."""
from __future__ import annotations

import argparse
from pathlib import Path

from agent_bar import TABLES
from nefertiti_env.agents.tournament import run_in_folder
from paired_wins import paired_difference, wins

SEED = 26_111_929             # the tournaments' seed: chosen before any run of this script, used nowhere else
OPPONENT = "mcts:iterations=800"


def line(model: str, budget: int, learnt: bool, options: str = "") -> str:
    spec = f"ppo:path={model}:search={budget}" + (":leaf_value=1" if learnt else "")
    return f"{spec}:{options}" if options else spec


def difference(a: dict[int, bool], b: dict[int, bool]) -> str:
    points, low, high, p = paired_difference(a, b)
    return f"{points:+.1f} [{low:+.1f}, {high:+.1f}] | {p:.3f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="a model .pt whose critic evaluates the leaves")
    parser.add_argument("--table", default="4p-base", choices=list(TABLES), help="(default 4p-base)")
    parser.add_argument("--budgets", default="800,3200", help="the two search budgets (default 800,3200)")
    parser.add_argument("--games", type=int, default=400, help="games per line (default 400)")
    parser.add_argument("--options", default="", help="more search settings for every line, as in a bot spec "
                        "(e.g. c=0.3:width=16)")
    parser.add_argument("--leaves", default="both", choices=["both", "critic"], help="the lines to play: both "
                        "leaves, or the critic's alone (default both)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"the deals (default {SEED}, the reported one; "
                        "choose settings on another)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--ray", metavar="ADDRESS", help="play on the Ray cluster at ADDRESS (or auto) instead of "
                                                        "--workers processes (docs/cluster.md)")
    parser.add_argument("--out", default="results/leaf_value", help="folder of the four tournaments and "
                        "leaf_value.md (default results/leaf_value)")
    args = parser.parse_args(argv)
    low, high = (int(b) for b in args.budgets.split(","))
    options = dict(TABLES[args.table])
    n = options.pop("num_players")
    won, rows = {}, []
    kinds = (True,) if args.leaves == "critic" else (False, True)
    for learnt in kinds:
        for budget in (low, high):
            spec = line(args.model, budget, learnt, args.options)
            folder = Path(args.out) / f"{'learnt' if learnt else 'heuristic'}-{budget}"
            resume = (folder / "games.csv").is_file()
            run_in_folder(folder, [spec] + [OPPONENT] * (n - 1), args.games, args.seed, args.workers, resume=resume,
                          force=not resume, ray=args.ray, **options)
            won[learnt, budget] = wins(folder, "ppo")
            w = won[learnt, budget]
            rows.append(f"| {'critic' if learnt else 'heuristic'} | {budget} | {sum(w.values()) / len(w):.1%} |")
    differences = [f"| critic: {high} - {low} | {difference(won[True, low], won[True, high])} |"]
    if not args.leaves == "critic":
        differences += [f"| heuristic: {high} - {low} | {difference(won[False, low], won[False, high])} |",
                        f"| at {low}: critic - heuristic | {difference(won[False, low], won[True, low])} |",
                        f"| at {high}: critic - heuristic | {difference(won[False, high], won[True, high])} |"]
    settings = f", search settings `{args.options}`" if args.options else ""
    text = "\n".join([
        f"Table {args.table}, the search vs {n - 1} x `{OPPONENT}`, {args.games} games a line, seed {args.seed}"
        f"{settings}; model {args.model}", "", "| leaves | iterations | win rate |", "|---|---|---|", *rows, "",
        "| paired difference | points [95% CI] | McNemar p |", "|---|---|---|", *differences, ""])
    print(text)
    (Path(args.out) / "leaf_value.md").write_text(text)


if __name__ == "__main__":
    main()
