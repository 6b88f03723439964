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
i mod n of game i is the restricted one (the game's `forbidden` option: the engine
keeps the restriction, so it holds for every bot).

Each finished game is appended to `rows.jsonl` (its rows of every table, one line, in
schedule order), so a killed or stopped study keeps its games and `--resume` plays the
rest; the CSV tables are written from that file at the end, the same bytes as an
uninterrupted run's. `study.yaml` is written at the start: a resume must match it.
"""
from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import yaml

from nefertiti_env.agents import make_bot, weights
from nefertiti_env.agents.run_folder import RunFolderError, complete_lines, prepare, write_text
from nefertiti_env.agents.tournament import derive_seed
from nefertiti_env.agents.workers import ordered_map
from nefertiti_env import NefertitiGame, load_ruleset

from . import tables
from .config import ConfigError, StudyConfig, parse
from .record import play_recorded
from .restrict import Restriction

CONTROL = "control"
KIND = "balance"
JOURNAL = "rows.jsonl"
STUDY = "study.yaml"


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
    memphis: bool | None = None
    characters: str | tuple[str, ...] = "base"
    restricted_seat: int = -1
    restriction: Restriction | None = None


def _arms(cfg: StudyConfig):
    """(arm, ruleset name, players, games, line-up, restriction) of every block of games, in the order of
    the output tables: the one place that says which games a study plays."""
    for name in cfg.rulesets:
        for n in cfg.player_counts:
            yield "main", name, n, cfg.games, cfg.lineup(name, n), None
    r = cfg.restricted
    if r is not None:
        for n in r.player_counts:
            for restriction in [None, *r.forbid]:
                yield restriction.label if restriction else CONTROL, cfg.baseline, n, r.games, [r.bot] * n, restriction


def schedule(cfg: StudyConfig) -> list[Job]:
    """Every game of the study, in the order of the output tables."""
    characters = cfg.characters if isinstance(cfg.characters, str) else tuple(cfg.characters)   # a Job is hashable
    return [Job(arm, name, cfg.rulesets[name], n, i, derive_seed(cfg.seed, n, i),
                tuple(lineup[(s + i) % n] for s in range(n)),
                tuple(derive_seed(cfg.seed, n, i, s, 1) for s in range(n)), cfg.setup, cfg.memphis,
                characters, i % n if restriction else -1, restriction)
            for arm, name, n, count, lineup, restriction in _arms(cfg) for i in range(count)]


def game_count(cfg: StudyConfig) -> int:
    """len(schedule(cfg)) without making the jobs: an atlas counts a million games when it starts a
    sub-study, resumes or stops, where making them took minutes."""
    return sum(count for _, _, _, count, _, _ in _arms(cfg))


_BOTS: dict[tuple, object] = {}     # per worker process: built once (a model file loads once)


def _bot(spec: str, seat: int):
    if (spec, seat) not in _BOTS:
        _BOTS[spec, seat] = make_bot(spec, seed=0)
    return _BOTS[spec, seat]


def play_job(job: Job) -> dict[str, list[tuple]]:
    """Play one scheduled game and return its table rows; the restricted seat's restriction is the
    game's `forbidden` option, so the engine keeps it whatever the bot."""
    r = job.restriction
    forbidden = r.forbidden(load_ruleset(job.ruleset_file), job.restricted_seat, job.players) if r else None
    characters = job.characters if isinstance(job.characters, str) else list(job.characters)
    game = NefertitiGame(job.players, ruleset=job.ruleset_file, seed=job.seed, setup=job.setup, memphis=job.memphis,
                         characters=characters, forbidden=forbidden)
    bots, labels = [], []
    for seat, (spec, seed) in enumerate(zip(job.bots, job.bot_seeds)):
        bot = _bot(spec, seat)
        bot.reset(seed)
        bots.append(bot)
        labels.append(f"{spec} ({r.label})" if seat == job.restricted_seat else spec)
    return play_recorded(game, bots, labels, (job.arm, job.ruleset, job.players, job.index))


def _play(job: Job) -> dict[str, list[tuple]]:
    try:
        return play_job(job)
    except Exception as err:              # name the game, so it can be replayed alone
        raise RuntimeError(f"game failed: {job}: {type(err).__name__}: {err}") from err


def run(cfg: StudyConfig, workers: int | None = None, progress: bool = True, resume: bool = False,
        force: bool = False, ray: str | None = None) -> dict:
    """Play the study's games into `cfg.out`, each saved as it ends, and write the tables;
    returns figures of this session (games, decisions, seconds) that vary with the machine,
    so they stay out of the report.

    resume: continue the study in `cfg.out` (same config) from its last finished game.
    force: start the study in `cfg.out` over. ray: play on the Ray cluster at this address (or
    "auto"). Raises RunFolderError for a folder that cannot be used (before any game) or a write
    that fails (naming what is saved), `agents.cluster.ClusterError` for a cluster that cannot play."""
    from nefertiti_env.agents.progress import progress_bar

    workers = workers or cfg.workers
    folder = prepare(cfg.out, KIND, resume=resume, force=force)
    done = _continue(folder, cfg) if resume else 0
    jobs = schedule(cfg)
    specs = {b for job in jobs for b in job.bots}
    if resume:
        weights.check(folder, specs)
    else:
        write_text(folder / STUDY, yaml.safe_dump(cfg.to_dict(), sort_keys=False))
        weights.record(folder, specs)
    played = decisions = 0
    start = time.perf_counter()
    try:
        try:
            with open(folder / JOURNAL, "a" if done else "w", encoding="utf-8") as journal, \
                    progress_bar(total=len(jobs), initial=done, desc="balance games", unit="game",
                                 disable=not progress) as bar, \
                    ordered_map(workers, 16, ray, specs) as map_:
                for rows in map_(_play, jobs[done:]):
                    journal.write(json.dumps(rows, separators=(",", ":")) + "\n")
                    journal.flush()
                    played += 1
                    decisions += rows["games"][0][tables.COLUMNS["games"].index("decisions")]
                    bar.update()
        except KeyboardInterrupt:        # a stop (Ctrl-C, SIGTERM): its session's time counts in the study's
            session = _session(played, decisions, workers, ray, time.perf_counter() - start)
            write_text(folder / "run.json", json.dumps(run_figures(folder, session, resume, done + played),
                                                       indent=2) + "\n")
            raise
        figures = _session(played, decisions, workers, ray, time.perf_counter() - start)
        all_decisions = write_tables(folder)
        write_text(folder / "run.json", json.dumps(run_figures(folder, figures, resume, len(jobs), all_decisions),
                                                   indent=2) + "\n")
    except OSError as err:
        raise RunFolderError(f"cannot write into {folder}: {err.strerror or err}; {finished_games(folder)} "
                             "finished games are saved there: fix the folder (space, permissions) and rerun "
                             "with --resume") from None
    return figures


def write_tables(folder: Path) -> int:
    """The CSV tables from the journal of finished games, in schedule order; returns their decisions."""
    out = {name: [] for name in tables.COLUMNS}
    with open(folder / JOURNAL, encoding="utf-8") as journal:
        for line in journal:
            for name, rows in json.loads(line).items():
                out[name] += rows
    for name, rows in out.items():
        tables.write(folder, name, rows)
    return sum(row[tables.COLUMNS["games"].index("decisions")] for row in out["games"])


def _session(games: int, decisions: int, workers: int, ray: str | None, seconds: float) -> dict:
    """One session's figures: what it played and how fast."""
    return {"games": games, "decisions": decisions, "workers": workers, **({"ray": ray} if ray else {}),
            "seconds": round(seconds, 3), "games_per_second": round(games / seconds, 1) if seconds else 0.0,
            "decisions_per_second": round(decisions / seconds) if seconds else 0}


def run_figures(folder: Path, session: dict, resume: bool, games: int, decisions: int | None = None) -> dict:
    """run.json: the whole study's games and decisions (from its tables, every session; a stopped study's
    tables are not written, so it has no decisions and says `stopped`); the games and seconds of the sessions
    that were timed, those that ended or were stopped (a killed session's are lost with it), whose ratio is the
    study's rate; and each of those sessions' figures."""
    before = {}
    if resume:
        with contextlib.suppress(OSError, ValueError):
            before = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    sessions = (before.get("sessions") if isinstance(before, dict) and isinstance(before.get("sessions"), list)
                else []) + [session]
    timed = [s for s in sessions if isinstance(s, dict)]
    whole = {"games": games, "stopped": True} if decisions is None else {"games": games, "decisions": decisions}
    return {**whole, "seconds": round(sum(s.get("seconds", 0) for s in timed), 3),
            "timed_games": sum(s.get("games", 0) for s in timed), "sessions": sessions}


def tables_written(folder: str | Path) -> bool:
    """Whether the study's last session ended and wrote its tables: a stopped one's run.json says `stopped`,
    even when its journal holds every game (a stop just after the last), and its tables are not written yet."""
    try:
        figures = json.loads((Path(folder) / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(figures, dict) and not figures.get("stopped", False)


def check_finished(folder: str | Path, cfg: StudyConfig, games: int) -> None:
    """Refuse (RunFolderError) tables that hold fewer games than the study's schedule: a study stopped
    once a resume had extended it still has the tables of its first, smaller schedule."""
    total = game_count(cfg)
    if games != total:
        raise RunFolderError(f"{folder}: its tables hold {games} of the study's {total} games; finish it with "
                             "`nefertiti balance --resume` (the same --config and --out) before a report")


def finished_games(folder: str | Path) -> int:
    """How many whole games a study folder holds (lines of its journal)."""
    try:
        with open(Path(folder) / JOURNAL, "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return 0


def _continue(folder: Path, cfg: StudyConfig) -> int:
    """Check that `cfg` is the saved study's (but for workers and out), or extends it, and cut a killed
    run's journal back to its whole games; returns how many games are finished.

    A study extends the saved one when the saved schedule is the start of its own (restricted arms added
    to a study that had none, or arms appended to its `forbid` list): its games are kept, the new ones
    played, and `study.yaml` becomes the new config. So a larger atlas reuses a finished one's games."""
    def study(d):
        return {k: v for k, v in yaml.safe_load(yaml.safe_dump(d)).items() if k not in ("workers", "out")}

    try:
        raw = yaml.safe_load((folder / STUDY).read_text(encoding="utf-8"))
        saved = study(raw)
    except (OSError, yaml.YAMLError, AttributeError):
        raise RunFolderError(f"{folder} has no readable {STUDY}: it cannot be resumed; "
                             "start it over with --force") from None
    changed = [k for k, v in study(cfg.to_dict()).items() if saved.get(k) != v]
    if changed and not _extends(raw, cfg):
        raise RunFolderError(f"{folder} holds a study with another {', '.join(changed)} (see its {STUDY}): "
                             "resume it with the same config and options (or one that only adds games after "
                             "its own), or choose another --out")
    if changed:
        write_text(folder / STUDY, yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    return complete_lines(folder / JOURNAL)


def _extends(saved_raw: dict, cfg: StudyConfig) -> bool:
    """Whether the saved study's games are the first games of `cfg`'s schedule, deal for deal."""
    try:
        saved = parse({**saved_raw, "out": cfg.out}, STUDY)
    except (ConfigError, TypeError):
        return False
    before = schedule(saved)
    return before == schedule(cfg)[:len(before)]
