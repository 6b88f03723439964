"""Evaluation: the learner against n-1 copies of one baseline bot, seats rotated.

Game i puts the learner at seat i % n with game seed `seed + i`, so every
evaluation round (and every baseline) plays the same deals: curves compare like
with like. A win is being among the winners (the game's tie-break first, shared
wins count). The interval is Wilson's 95% score interval; the parity line of an
n-player table is 1/n.
"""
from __future__ import annotations

import multiprocessing
import signal
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from nefertiti_env.agents import Agent, make_bot
from nefertiti_env.agents.base import compile_here
from nefertiti_env.agents.ppo import PPOAgent
from nefertiti_env.agents.progress import progress_bar
from nefertiti_env.agents.stats import wilson
from nefertiti_env import NefertitiGame


@dataclass
class MatchResult:
    """The learner's record against one baseline."""

    baseline: str
    games: int
    wins: int
    score_sum: float
    num_players: int
    records: list[dict] = field(default_factory=list)   # {"index", "bots", "record"} per game, for replays
    seconds: float = 0.0        # the learner's CPU time of thinking over these games
    decisions: int = 0          # and its decisions

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def ci(self) -> tuple[float, float]:
        return wilson(self.wins, self.games, z=1.96)      # z = 1.96 as in the published curves

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.games if self.games else 0.0

    @property
    def parity(self) -> float:
        return 1.0 / self.num_players

    def row(self, timesteps: int) -> dict:
        low, high = self.ci
        return {"timesteps": timesteps, "baseline": self.baseline, "games": self.games, "wins": self.wins,
                "win_rate": round(self.win_rate, 4), "ci_low": round(low, 4), "ci_high": round(high, 4),
                "mean_score": round(self.mean_score, 2), "parity": round(self.parity, 4)}


def play_games(learner, baseline: str, indices, game_args: dict, seed: int) -> list[tuple[bool, int, dict]]:
    """(learner won, learner's score, game record entry) for each game index; the learner is an Agent."""
    n = game_args["num_players"]
    out = []
    for i in indices:
        seat = i % n
        game = NefertitiGame(seed=seed + i, **game_args)
        learner.reset(seed + i)
        bots = [learner if s == seat else make_bot(baseline, seed=(seed + i) * 8 + s) for s in range(n)]
        while not game.is_over():
            p = game.current_player
            game.apply(bots[p].act(game, p))
        entry = {"index": i, "bots": ["learner" if s == seat else baseline for s in range(n)], "record": game.record()}
        out.append((seat in game.winners(), int(game.scores()[seat]), entry))
    return out


class Timed(Agent):
    """The learner, its thinking timed: CPU seconds and decisions, summed."""

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


def _learner(policy_path: str | None, deterministic: bool, bot: str | None) -> Timed:
    """The bot spec `bot` if given, else the policy stored at `policy_path`, timed."""
    return Timed(make_bot(bot) if bot else PPOAgent(policy_path, deterministic=deterministic))


def _timed_games(learner: Timed, baseline, indices, game_args, seed):
    """`play_games` with the learner's thinking over them: (outcomes, CPU seconds, decisions)."""
    seconds, decisions = learner.seconds, learner.decisions
    outcomes = play_games(learner, baseline, indices, game_args, seed)
    return outcomes, learner.seconds - seconds, learner.decisions - decisions


_WORKER_LEARNER: Timed | None = None


def _init_worker(policy_path: str | None, deterministic: bool, bot: str | None) -> None:
    import torch
    torch.set_num_threads(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C is the main process's: it stops the workers
    global _WORKER_LEARNER
    _WORKER_LEARNER = _learner(policy_path, deterministic, bot)


def _worker_games(baseline, indices, game_args, seed):
    return baseline, *_timed_games(_WORKER_LEARNER, baseline, indices, game_args, seed)


_CLUSTER_LEARNERS: dict[tuple, Timed] = {}      # per Ray worker process: the learner built once


def _cluster_games(task):
    """A task on a Ray cluster: `_worker_games` with the learner built on first use in this process
    (its model is the copy the head shipped, `ppo.SHIPPED`)."""
    from nefertiti_env.agents.ppo import SHIPPED

    policy_path, deterministic, bot, baseline, indices, game_args, seed = task
    key = (policy_path, SHIPPED.get(str(policy_path)), deterministic, bot)
    if key not in _CLUSTER_LEARNERS:
        _CLUSTER_LEARNERS[key] = _learner(policy_path, deterministic, bot)
    return baseline, *_timed_games(_CLUSTER_LEARNERS[key], baseline, indices, game_args, seed)


def evaluate(policy_path: str | None, baselines: list[str], games: int, game_args: dict, seed: int,
             deterministic: bool = True, workers: int = 1, progress: bool = True,
             bot: str | None = None, ray: str | None = None) -> list[MatchResult]:
    """The learner stored at `policy_path` (or the bot spec `bot` in its seat) against each baseline,
    `games` games each, over `workers` processes, or on the Ray cluster at `ray` (`agents.cluster`:
    the learner's model is sent by value; raises its ClusterError)."""
    n = game_args["num_players"]
    results = {b: MatchResult(b, 0, 0, 0.0, n) for b in baselines}
    chunk = max(1, min(10, games // (2 * workers)))
    tasks = [(b, range(start, min(start + chunk, games))) for b in baselines for start in range(0, games, chunk)]
    bar = progress_bar(total=games * len(baselines), desc="evaluation", unit="game", leave=False,
                       disable=not progress)

    def record(baseline, outcomes, seconds, decisions):
        r = results[baseline]
        r.games += len(outcomes)
        r.wins += sum(win for win, _, _ in outcomes)
        r.score_sum += sum(score for _, score, _ in outcomes)
        r.records += [entry for _, _, entry in outcomes]
        r.seconds += seconds
        r.decisions += decisions
        bar.update(len(outcomes))

    if ray:
        from nefertiti_env.agents.workers import ordered_map

        specs = [bot or f"ppo:path={policy_path}", *baselines]
        with ordered_map(1, ray=ray, bots=specs) as map_:
            for out in map_(_cluster_games, [(policy_path, deterministic, bot, b, list(idx), game_args, seed)
                                             for b, idx in tasks]):
                record(*out)
    elif workers <= 1:
        learner = _learner(policy_path, deterministic, bot)
        for baseline, indices in tasks:
            record(baseline, *_timed_games(learner, baseline, indices, game_args, seed))
    else:
        # compiled once here, with one notice, not in each worker across the progress bar; a bad spec
        # or model file fails here too, by name, not as a broken pool
        compile_here([_learner(policy_path, deterministic, bot), *(make_bot(b, seed=0) for b in baselines)],
                     **game_args)
        context = multiprocessing.get_context("forkserver")
        pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_init_worker,
                                   initargs=(policy_path, deterministic, bot))
        try:
            futures = [pool.submit(_worker_games, b, list(idx), game_args, seed) for b, idx in tasks]
            for future in as_completed(futures):
                record(*future.result())
        except BaseException:       # Ctrl-C, SIGTERM, a failed game: the workers stop now, not after their queue
            for process in list(pool._processes.values()):     # Python 3.14: pool.terminate_workers()
                process.terminate()
            raise
        finally:
            # waits for the pool's manager thread too, so it ends here, not at exit, where (CPython 3.11) it can
            # close its wake-up pipe while the interpreter writes to it: an OSError traceback after the stop message
            pool.shutdown(cancel_futures=True)
    bar.close()
    return [results[b] for b in baselines]
