"""Decisions per CPU second of the compiled heuristic bots (issue #21 §1), and a tournament figure.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bots.py --games 20

For greedy, collector and banker: seeded 4-player games where every seat is that bot, played
with `play_game` on one core, after one untimed game (a new process loads the compiled code
on its first call: compile and load excluded). Two figures per bot, both per CPU second of
the bot's thinking (`Agent.act`): every decision it made, and the decisions where it chose
among two or more legal actions (a single legal action costs nothing). Then a tournament
(`--bots greedy,collector,banker,random`, 4 players, seat-rotated, one worker) reports what its
`speed.csv` holds (decisions per CPU second of each bot) and its wall-clock time; `--tournament-games
0` skips it. The machine's other load still slows CPU time somewhat: compare runs made alike.
"""
from __future__ import annotations

import argparse
import time

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot, play_game
from nefertiti_env.agents.tournament import run, speed_rows

BOTS = ("greedy", "collector", "banker")


def bot_rates(spec: str, games: int, seed: int = 0) -> tuple[int, float, float]:
    """(decisions, all decisions per CPU second, decisions with a choice per CPU second of those)."""
    play_game(NefertitiGame(4, seed=seed), [make_bot(spec, seed=s) for s in range(4)])   # loads the code
    count, seconds = [0, 0], [0.0, 0.0]            # [every decision, those with a choice]
    for g in range(games):
        game = NefertitiGame(4, seed=seed + 1 + g)
        bots = [make_bot(spec, seed=[seed, g, s]) for s in range(4)]
        while not game.is_over():
            seat, choice = game.current_player, len(game.legal_actions()) > 1
            start = time.process_time()
            action = bots[seat].act(game, seat)
            elapsed = time.process_time() - start
            game.apply(action)
            for i in (0, 1) if choice else (0,):
                count[i] += 1
                seconds[i] += elapsed
    return count[0], count[0] / seconds[0], count[1] / seconds[1]


def tournament_figures(games: int, seed: int) -> tuple[float, dict[str, float]]:
    """Wall-clock seconds of a one-worker tournament and each bot's decisions per CPU second."""
    start = time.perf_counter()
    results = run(["greedy", "collector", "banker", "random"], games, seed, workers=1, progress=False)
    seconds = time.perf_counter() - start
    return seconds, {row["bot"]: row["decisions_per_second"] for row in speed_rows(results)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20, help="timed games per bot (default 20)")
    parser.add_argument("--tournament-games", type=int, default=200, help="tournament games (0: none; default 200)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"heuristic bots, 4 players, {args.games} games each, one core (CPU time in Agent.act)")
    print(f"  {'bot':<10} {'decisions':>9} {'decisions/s':>12} {'with a choice/s':>16}")
    for spec in BOTS:
        decisions, every, chosen = bot_rates(spec, args.games, args.seed)
        print(f"  {spec:<10} {decisions:>9,} {every:>12,.0f} {chosen:>16,.0f}")
    if args.tournament_games:
        seconds, speed = tournament_figures(args.tournament_games, args.seed)
        print(f"tournament greedy,collector,banker,random: {args.tournament_games} games, 1 worker, "
              f"{seconds:.1f} s wall clock")
        for bot, rate in speed.items():
            print(f"  {bot:<10} {rate:>12,.0f} decisions per CPU second")


if __name__ == "__main__":
    main()
