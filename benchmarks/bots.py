"""Decisions per CPU second of the compiled bots, and tournament figures.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bots.py --games 20
    OPENBLAS_NUM_THREADS=1 python benchmarks/bots.py --games 0 --tournament-games 0 --budgets 50,200,800

For greedy, collector and banker: seeded 4-player games where every seat is that bot, played
with `play_game` on one core, after one untimed game (a new process loads the compiled code
on its first call: compile and load excluded). Two figures per bot, both per CPU second of
the bot's thinking (`Agent.act`): every decision it made, and the decisions where it chose
among two or more legal actions (a single legal action costs nothing); `--by-kind` adds, per kind
of decision with a choice (its phase; a turn with a playable character apart), the CPU µs each,
the legal actions each and the share of the time. Then a tournament
(`--bots greedy,collector,banker,random`, 4 players, seat-rotated, one worker) reports what its
`speed.csv` holds (decisions per CPU second of each bot) and its wall-clock time; `--tournament-games
0` skips it.

For MCTS at its default budget (`--mcts`, default "mcts"): seeded 4-player games where every seat
is MCTS, reporting its iterations per CPU second of searching (the root's heuristic included)
and its decisions per CPU second; then, for each budget of `--budgets` (iterations), a
seat-rotated tournament of `mcts:iterations=N` against three bankers (`--budget-games` games):
its win rate with the 95% Wilson interval and its CPU seconds per decision, i.e. strength per
second of thinking. The machine's other load still slows CPU time somewhat: compare runs made alike.
"""
from __future__ import annotations

import argparse
import time

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot, play_game
from nefertiti_env.agents.tournament import run, speed_rows, summarize
from nefertiti_env.core import actions as A
from nefertiti_env.core.phases import PH_CHARACTER, PH_TURN, PHASE_NAMES

BOTS = ("greedy", "collector", "banker")


def bot_rates(spec: str, games: int, seed: int = 0) -> tuple[int, float, float, dict[str, list]]:
    """(decisions, all decisions per CPU second, decisions with a choice per CPU second of those,
    {kind of decision with a choice: [decisions, CPU seconds, legal actions]})."""
    play_game(NefertitiGame(4, seed=seed), [make_bot(spec, seed=s) for s in range(4)])   # loads the code
    count, seconds = [0, 0], [0.0, 0.0]            # [every decision, those with a choice]
    kinds = {}
    for g in range(games):
        game = NefertitiGame(4, seed=seed + 1 + g)
        bots = [make_bot(spec, seed=[seed, g, s]) for s in range(4)]
        while not game.is_over():
            seat, legal = game.current_player, game.legal_actions()
            kind = decision_kind(game.phase, legal)
            start = time.process_time()
            action = bots[seat].act(game, seat)
            elapsed = time.process_time() - start
            game.apply(action)
            for i in (0, 1) if len(legal) > 1 else (0,):
                count[i] += 1
                seconds[i] += elapsed
            if len(legal) > 1:
                tally = kinds.setdefault(kind, [0, 0.0, 0])
                tally[0], tally[1], tally[2] = tally[0] + 1, tally[1] + elapsed, tally[2] + len(legal)
    return count[0], count[0] / seconds[0], count[1] / seconds[1], kinds


def decision_kind(phase: int, legal: list[int]) -> str:
    """The phase's name; a turn where a character is playable is a kind of its own (its powers are searched)."""
    if phase == PH_TURN and any(A.CHARACTER <= a < A.MARKET for a in legal):
        return "turn, character playable"
    return PHASE_NAMES[phase]


def mcts_rates(spec: str, games: int, seed: int = 0) -> tuple[int, float, float]:
    """(searches, iterations per CPU second of searching, decisions per CPU second) of MCTS in
    every seat of 4-player games (a search: a decision with a choice outside a character's power)."""
    play_game(NefertitiGame(4, seed=seed), [make_bot(spec, seed=s) for s in range(4)])   # loads the code
    searches, search_seconds, decisions, seconds = 0, 0.0, 0, 0.0
    for g in range(games):
        game = NefertitiGame(4, seed=seed + 1 + g)
        bots = [make_bot(spec, seed=[seed, g, s]) for s in range(4)]
        while not game.is_over():
            seat = game.current_player
            search = len(game.legal_actions()) > 1 and game.phase != PH_CHARACTER
            start = time.process_time()
            action = bots[seat].act(game, seat)
            elapsed = time.process_time() - start
            game.apply(action)
            decisions, seconds = decisions + 1, seconds + elapsed
            if search:
                searches, search_seconds = searches + 1, search_seconds + elapsed
    return searches, searches * bots[0].iterations / search_seconds, decisions / seconds


def tournament_figures(lineup: list[str], games: int, seed: int) -> tuple[float, list[dict], dict[str, float]]:
    """Wall-clock seconds of a one-worker tournament, its summary rows and each bot's decisions per
    CPU second."""
    start = time.perf_counter()
    results = run(lineup, games, seed, workers=1, progress=False)
    seconds = time.perf_counter() - start
    summary = summarize([(list(r.job.bots), r.ranks) for r in results])
    return seconds, summary, {row["bot"]: row["decisions_per_second"] for row in speed_rows(
        (r.job.bots, r.decisions, r.seconds) for r in results)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=20, help="timed games per bot (default 20)")
    parser.add_argument("--tournament-games", type=int, default=200, help="tournament games (0: none; default 200)")
    parser.add_argument("--mcts", default="mcts", help="the MCTS spec timed (default mcts: its default budget)")
    parser.add_argument("--mcts-games", type=int, default=5, help="timed MCTS games (0: none; default 5)")
    parser.add_argument("--budgets", default="", help="MCTS iterations to play against three bankers, e.g. "
                        "50,200,800 (default: none)")
    parser.add_argument("--budget-games", type=int, default=100, help="games per budget (default 100)")
    parser.add_argument("--by-kind", action="store_true", help="also time each kind of decision with a choice")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.games:
        print(f"heuristic bots, 4 players, {args.games} games each, one core (CPU time in Agent.act)")
        print(f"  {'bot':<10} {'decisions':>9} {'decisions/s':>12} {'with a choice/s':>16}")
        for spec in BOTS:
            decisions, every, chosen, kinds = bot_rates(spec, args.games, args.seed)
            print(f"  {spec:<10} {decisions:>9,} {every:>12,.0f} {chosen:>16,.0f}")
            total = sum(tally[1] for tally in kinds.values())
            for kind, (n, spent, legal) in sorted(kinds.items(), key=lambda item: -item[1][1]) if args.by_kind else ():
                print(f"    {kind:<26} {n:>6,} decisions {1e6 * spent / n:>7.1f} us each {legal / n:>5.1f} legal "
                      f"{100 * spent / total:>5.1f}% of the time")
    if args.tournament_games:
        lineup = ["greedy", "collector", "banker", "random"]
        seconds, _, speed = tournament_figures(lineup, args.tournament_games, args.seed)
        print(f"tournament {','.join(lineup)}: {args.tournament_games} games, 1 worker, {seconds:.1f} s wall clock")
        for bot, rate in speed.items():
            print(f"  {bot:<10} {rate:>12,.0f} decisions per CPU second")
    if args.mcts_games:
        searches, iterations, decisions = mcts_rates(args.mcts, args.mcts_games, args.seed)
        print(f"{args.mcts} in every seat, 4 players, {args.mcts_games} games, one core: {searches:,} searches, "
              f"{iterations:,.0f} iterations/s, {decisions:,.0f} decisions/s")
    if args.budgets:
        print(f"mcts:iterations=N against three bankers, 4 players, {args.budget_games} seat-rotated games each")
        print(f"  {'iterations':>10} {'win rate [95% CI]':>24} {'CPU ms/decision':>16} {'wall s':>7}")
        for n in (int(b) for b in args.budgets.split(",")):
            spec = f"mcts:iterations={n}"
            seconds, summary, speed = tournament_figures([spec, "banker", "banker", "banker"], args.budget_games,
                                                         args.seed)
            row = next(r for r in summary if r["bot"] == spec)
            print(f"  {n:>10} {row['win_rate']:>9.3f} [{row['win_low']:.3f}, {row['win_high']:.3f}] "
                  f"{1000 / speed[spec]:>16.2f} {seconds:>7.1f}")


if __name__ == "__main__":
    main()
