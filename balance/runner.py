"""Run a study: schedule its games, play them in worker processes, write the raw tables.

Every seed derives from the study seed, the player count and the game index alone
(`agents.tournament.derive_seed`), never from the ruleset, the arm or the worker:
the same config gives the same tables whatever `workers` is, and each ruleset and
each restricted-play arm replays the same deals (common random numbers, which
sharpens the comparisons).

Arms: "main" plays each ruleset's line-ups; the line-up turns one seat per game
(game i: seat s gets line-up entry (s + i) mod n), and the first player is drawn
by the game. Restricted play runs on the baseline ruleset with one bot in every
seat: "control" unrestricted, then one arm per restriction, where the seat
i mod n of game i is the restricted one.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import yaml

from agents import make_bot
from agents.tournament import derive_seed
from nefertiti_env import NefertitiGame

from . import tables
from .config import StudyConfig
from .record import play_recorded
from .restrict import Restriction, RestrictedBot

CONTROL = "control"


@dataclass(frozen=True)
class Job:
    arm: str
    ruleset: str                  # the study's name for it
    ruleset_file: str
    players: int
    index: int
    seed: int
    bots: tuple[str, ...]         # spec per seat
    bot_seeds: tuple[int, ...]
    setup: str = "beginner"
    restricted_seat: int = -1
    restriction: Restriction | None = None


def schedule(cfg: StudyConfig) -> list[Job]:
    """Every game of the study, in the order of the output tables."""
    jobs = []

    def games(arm, name, n, count, lineup, restriction=None):
        for i in range(count):
            bots = tuple(lineup[(s + i) % n] for s in range(n))
            jobs.append(Job(arm, name, cfg.rulesets[name], n, i, derive_seed(cfg.seed, n, i), bots,
                            tuple(derive_seed(cfg.seed, n, i, s, 1) for s in range(n)), cfg.setup,
                            i % n if restriction else -1, restriction))

    for name in cfg.rulesets:
        for n in cfg.player_counts:
            games("main", name, n, cfg.games, cfg.lineups[n])
    r = cfg.restricted
    if r is not None:
        for n in r.player_counts:
            for restriction in [None, *r.forbid]:
                games(restriction.label if restriction else CONTROL, cfg.baseline, n, r.games, [r.bot] * n,
                      restriction)
    return jobs


_BOTS: dict[tuple, object] = {}     # per worker process: built once (a model file loads once)


def _bot(spec: str, seat: int, restriction: Restriction | None):
    key = (spec, seat, restriction)
    if key not in _BOTS:
        bot = make_bot(spec, seed=0)
        _BOTS[key] = RestrictedBot(bot, restriction) if restriction else bot
    return _BOTS[key]


def play_job(job: Job) -> dict[str, list[tuple]]:
    """Play one scheduled game and return its table rows."""
    game = NefertitiGame(job.players, ruleset=job.ruleset_file, seed=job.seed, setup=job.setup)
    bots, labels = [], []
    for seat, (spec, seed) in enumerate(zip(job.bots, job.bot_seeds)):
        restriction = job.restriction if seat == job.restricted_seat else None
        bot = _bot(spec, seat, restriction)
        bot.reset(seed)
        bots.append(bot)
        labels.append(f"{spec} ({restriction.label})" if restriction else spec)
    return play_recorded(game, bots, labels, (job.arm, job.ruleset, job.players, job.index))


def _play_chunk(chunk: list[tuple[int, Job]]) -> list[tuple[int, dict]]:
    out = []
    for i, job in chunk:
        try:
            out.append((i, play_job(job)))
        except Exception as err:              # name the game, so it can be replayed alone
            raise RuntimeError(f"game failed: {job}: {type(err).__name__}: {err}") from err
    return out


def run(cfg: StudyConfig, workers: int | None = None, progress: bool = True) -> dict:
    """Play every game of the study and write the tables into `cfg.out`; returns run figures
    (games, decisions, seconds) that vary with the machine, so they stay out of the report."""
    from agents.progress import progress_bar

    workers = workers or cfg.workers
    jobs = schedule(cfg)
    chunks = [list(enumerate(jobs))[i:i + 16] for i in range(0, len(jobs), 16)]
    results: list[dict | None] = [None] * len(jobs)
    start = time.perf_counter()
    with progress_bar(total=len(jobs), desc="balance games", unit="game", disable=not progress) as bar:
        if workers <= 1:
            outputs = map(_play_chunk, chunks)
        else:
            pool = Pool(workers)
            outputs = pool.imap_unordered(_play_chunk, chunks)
        try:
            for out in outputs:
                for i, rows in out:
                    results[i] = rows
                bar.update(len(out))
        finally:
            if workers > 1:
                pool.terminate()
    seconds = time.perf_counter() - start

    folder = Path(cfg.out)
    folder.mkdir(parents=True, exist_ok=True)
    for name in tables.COLUMNS:
        tables.write(folder, name, [row for rows in results for row in rows[name]])
    (folder / "study.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False), encoding="utf-8")
    decisions = sum(rows["games"][0][tables.COLUMNS["games"].index("decisions")] for rows in results)
    figures = {"games": len(jobs), "decisions": decisions, "workers": workers, "seconds": round(seconds, 2),
               "games_per_second": round(len(jobs) / seconds, 1),
               "decisions_per_second": round(decisions / seconds)}
    (folder / "run.json").write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return figures
