"""The champion's bar (issue #21 §4): its win rate against three bankers and against three MCTS bots.

    python benchmarks/champion_bar.py                        # the shipped champion, 400 games each
    python benchmarks/champion_bar.py --model runs/champion  # a run folder or model file instead
    python benchmarks/champion_bar.py --bot champion:search=800   # any bot spec in the learner's seat

4-player games (beginner setup, base characters, no Memphis: the table it was trained for), the
learner at seat i % 4 of game i, the same deals for both baselines (game seed = --seed + i, fixed in
advance), seats rotated (`training.evaluation`, the trainer's own evaluation and game loop). A win is
being among the winners. The bar: >= 50% against banker with the 95% Wilson interval's lower bound
above 45%, and >= 35% against mcts (its default budget) with the lower bound above 25%. With --bot,
the learner's CPU time per decision is reported too.
"""
from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from nefertiti_env.agents import Agent, make_bot
from nefertiti_env.agents.champion import CHAMPION_FILE
from nefertiti_env.agents.ppo import model_file
from nefertiti_env.agents.progress import progress_bar
from nefertiti_env.training.evaluation import MatchResult, evaluate, play_games

BAR = {"banker": (0.50, 0.45), "mcts": (0.35, 0.25)}      # baseline: (win rate, interval lower bound)
TABLE = dict(num_players=4, setup="beginner", memphis=False, characters="base")


class Timed(Agent):
    """A bot whose decisions are timed (CPU seconds and count), for the thinking time per decision."""

    def __init__(self, bot: Agent):
        self.bot, self.seconds, self.decisions = bot, 0.0, 0

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, game, seat: int) -> int:
        start = time.process_time()
        action = self.bot.act(game, seat)
        self.seconds += time.process_time() - start
        self.decisions += 1
        return action


_LEARNER: Timed | None = None


def _init_worker(spec: str) -> None:
    import torch
    torch.set_num_threads(1)
    global _LEARNER
    _LEARNER = Timed(make_bot(spec))


def _games(baseline: str, indices: list[int], seed: int):
    seconds, decisions = _LEARNER.seconds, _LEARNER.decisions
    outcomes = play_games(_LEARNER, baseline, indices, TABLE, seed)
    return baseline, outcomes, _LEARNER.seconds - seconds, _LEARNER.decisions - decisions


def evaluate_bot(spec: str, baselines: list[str], games: int, seed: int, workers: int):
    """([MatchResult per baseline], the learner's CPU seconds per decision): the bot `spec` in the
    learner's seat of `training.evaluation.play_games`, the same games as `evaluate` plays."""
    make_bot(spec)                                   # a bad spec fails here, by name
    results = {b: MatchResult(b, 0, 0, 0.0, TABLE["num_players"]) for b in baselines}
    chunk = max(1, min(10, games // (2 * workers)))
    tasks = [(b, list(range(s, min(s + chunk, games)))) for b in baselines for s in range(0, games, chunk)]
    seconds = decisions = 0
    bar = progress_bar(total=games * len(baselines), desc="evaluation", unit="game", leave=False)
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"),
                             initializer=_init_worker, initargs=(spec,)) as pool:
        for future in as_completed([pool.submit(_games, b, idx, seed) for b, idx in tasks]):
            baseline, outcomes, s, d = future.result()
            r = results[baseline]
            r.games += len(outcomes)
            r.wins += sum(win for win, _, _ in outcomes)
            seconds, decisions = seconds + s, decisions + d
            bar.update(len(outcomes))
    bar.close()
    return [results[b] for b in baselines], seconds / max(decisions, 1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=str(CHAMPION_FILE), help="model .pt or run folder (default: the shipped champion)")
    parser.add_argument("--bot", help="a bot spec in the learner's seat instead of --model, e.g. champion:search=800 "
                                      "or ppo:path=runs/champion:search=800")
    parser.add_argument("--games", type=int, default=400, help="games per baseline (default 400)")
    parser.add_argument("--baselines", default="banker,mcts", help="comma-separated bot specs (default banker,mcts)")
    parser.add_argument("--seed", type=int, default=20_261_124, help="seed of game 0 (default 20261124)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    baselines = args.baselines.split(",")
    if args.bot:
        results, per_decision = evaluate_bot(args.bot, baselines, args.games, args.seed, args.workers)
    else:
        results = evaluate(str(model_file(args.model)), baselines, args.games, TABLE, seed=args.seed,
                           workers=args.workers)
    print(f"learner: {args.bot or args.model}")
    print("| against 3x | games | wins | win rate | 95% Wilson interval | bar | met |")
    print("|---|---|---|---|---|---|---|")
    met = True
    for r in results:
        low, high = r.ci
        rate, floor = BAR.get(r.baseline.split(":")[0], (None, None))
        ok = rate is None or (r.win_rate >= rate and low > floor)
        met &= ok
        bar = f">= {rate:.0%}, low > {floor:.0%}" if rate is not None else "-"
        print(f"| {r.baseline} | {r.games} | {r.wins} | {r.win_rate:.1%} | [{low:.1%}, {high:.1%}] | {bar} | "
              f"{'yes' if ok else 'no'} |")
    if args.bot:
        print(f"learner's thinking: {per_decision * 1000:.2f} CPU ms per decision (every decision)")
    print(f"{time.perf_counter() - start:,.0f} s on {args.workers} workers")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
