"""Bot tournaments: seat rotations, parallel games, fixed seeds, ratings with confidence.

Game i plays deal i // n (the game seed) with the line-up rotated i % n seats, so
blocks of n games replay one deal with every bot in every seat. Every seed (deal,
bots) derives from the tournament seed and the game index alone, so the same
command gives the same results whatever the number of workers.

Output folder:
    games.csv       one row per game: index, seed, rotation, first player, decisions, and per
                    seat the bot, score, Deben and rank (1 = best; Deben break ties)
    records.jsonl   one game record per line (`NefertitiGame.replay` reproduces the game)
    summary.csv     per bot: seat-games, wins, win rate + Wilson 95% CI, mean rank + t 95% CI,
                    openskill Plackett-Luce mu, sigma, ordinal
    speed.csv       per bot: decisions, CPU seconds of thinking, decisions per CPU second (varies by run)
    speed.jsonl     per game: the bots, their decisions and CPU seconds (what speed.csv sums)
    winrates.png    win rates with their 95% intervals
    tournament.json the run's parameters (line-up, games, seed, game options)

games.csv and records.jsonl grow by one game as each game ends, in game order, so a
killed run keeps every finished game and `--resume` plays the rest: game i's seeds
derive from the tournament seed and i alone, so the files come out byte for byte as
an uninterrupted run's. speed.csv covers every session's games (from speed.jsonl, kept beside them).
A records line found damaged (not a game record) is reported on stderr, never dropped.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nefertiti_env import NefertitiGame

from . import make_bot, parse_spec, play_game, weights
from .run_folder import RunFolderError, complete_lines, line_numbers, prepare, write_text
from .stats import mean_ci, plackett_luce, ranks_of, wilson
from .workers import ordered_map

KIND = "tournament"          # the folder marker; the parameters go to KIND.json
MAX_GAMES, MAX_WORKERS = 1_000_000, 256  # beyond, a typo: its schedule alone would fill the memory
SPEED = "speed.jsonl"         # per game: bots, decisions and CPU seconds (speed.csv sums it)


@dataclass(frozen=True)
class Job:
    index: int
    seed: int                 # game seed (the deal)
    rotation: int
    bots: tuple[str, ...]     # bot spec per seat
    bot_seeds: tuple[int, ...]
    options: tuple            # NefertitiGame options: ((name, value), ...)


@dataclass
class Result:
    job: Job
    first_player: int
    scores: list[int]
    money: list[int]
    ranks: list[int]
    decisions: list[int]      # per seat
    seconds: list[float]      # per seat, CPU seconds of thinking
    record: dict


def derive_seed(*keys: int) -> int:
    """A 63-bit seed from integer keys (stable across runs and machines)."""
    return int(np.random.SeedSequence(list(keys)).generate_state(1, np.uint64)[0] >> np.uint64(1))


def schedule(lineup: list[str], games: int, seed: int, **options) -> list[Job]:
    """The games of a tournament: deal i // n with the line-up rotated by i % n seats, and with its bots in
    reversed order every other deal when that order is no rotation of the line-up (`orders`).

    `options` go to every NefertitiGame (ruleset, setup, memphis, characters)."""
    return rotations(orders(lineup), games, seed, **options)


def orders(lineup: list[str]) -> list[list[str]]:
    """The line-up's orders around the table that a tournament alternates between deals. Rotations keep the bots'
    order, so a bot listed before another would always sit on the same side of it, which biases a line-up of
    different bots (in the ladder, two copies of one policy split their games 57/43 at 5 players); its reversal
    puts each on either side as often. One bot against copies of another, or two players, need none: there the
    reversal is one of the rotations, and the games stay those of rotations alone."""
    reverse = list(lineup[::-1])
    if any(reverse == list(lineup[i:]) + list(lineup[:i]) for i in range(len(lineup))):
        return [list(lineup)]
    return [list(lineup), reverse]


def rotations(lineups: list[list[str]], games: int, seed: int, **options) -> list[Job]:
    """Games of several line-ups of n bots: game i plays deal i // n with line-up
    lineups[(i // n) % len(lineups)] rotated by i % n seats (one line-up: a tournament)."""
    n = len(lineups[0])
    jobs = []
    for i in range(games):
        block, rotation = divmod(i, n)
        lineup = lineups[block % len(lineups)]
        bots = tuple(lineup[(seat + rotation) % n] for seat in range(n))
        jobs.append(Job(i, derive_seed(seed, block), rotation, bots,
                        tuple(derive_seed(seed, i, seat, 1) for seat in range(n)), tuple(sorted(options.items()))))
    return jobs


def play_job(job: Job) -> Result:
    game = NefertitiGame(len(job.bots), seed=job.seed, **dict(job.options))
    bots = [make_bot(spec, seed) for spec, seed in zip(job.bots, job.bot_seeds)]
    decisions = [0] * len(bots)
    seconds = [0.0] * len(bots)

    def count(seat, action, elapsed):
        decisions[seat] += 1
        seconds[seat] += elapsed

    play_game(game, bots, count)
    scores = game.scores().tolist()
    money = game.state.money[: game.num_players].tolist()
    return Result(job, int(game.state.first_player), scores, money, ranks_of(scores, money), decisions, seconds,
                  game.record())


def check_lineup(lineup: list[str], players: int, **options) -> None:
    """Raise ValueError naming the problem with a line-up (bot names, count, players, game options)."""
    for spec in lineup:
        parse_spec(spec)
    if len(lineup) != players:
        raise ValueError(f"{len(lineup)} bots for {players} players: give exactly one bot per seat")
    try:
        NefertitiGame(players, seed=0, **options)
    except (ValueError, NotImplementedError) as err:
        raise ValueError(f"cannot set up a {players}-player game: {err}") from None
    for spec in dict.fromkeys(lineup):
        make_bot(spec, 0)


def play(jobs: list[Job], workers: int = 1, progress: bool = True, done: int = 0, ray: str | None = None):
    """Yield the results of `jobs` in order, played in `workers` processes (or on the Ray cluster at
    `ray`); `done` games (already played by an earlier session) start the progress bar."""
    from .progress import progress_bar

    with progress_bar(total=done + len(jobs), initial=done, desc="games", unit="game",
                      disable=not progress) as bar, \
            ordered_map(workers, ray=ray, bots={b for job in jobs for b in job.bots}) as map_:
        for result in map_(play_job, jobs):
            bar.update()
            yield result


def run(lineup: list[str], games: int, seed: int = 0, workers: int = 1, progress: bool = True,
        **options) -> list[Result]:
    """Play the tournament's games (in `workers` processes) and return them in game order.

    `options` go to every NefertitiGame (ruleset, setup, memphis, characters)."""
    return list(play(schedule(lineup, games, seed, **options), workers, progress))


def run_in_folder(out: str | os.PathLike, lineup: list[str], games: int, seed: int = 0, workers: int = 1,
                  progress: bool = True, resume: bool = False, force: bool = False, ray: str | None = None,
                  **options) -> tuple[list[dict], list[Result]]:
    """Play the tournament into the folder `out`, each game saved as it ends, then write the
    summary, speed table and plot; returns (summary rows, the results of this session).

    resume: continue the run in `out` (same parameters) from its last finished game.
    force: start the run in `out` over. ray: play on the Ray cluster at this address (or "auto").
    Raises RunFolderError for a folder that cannot be used (before any game) or a write that fails
    (naming what is saved), `cluster.ClusterError` for a cluster that cannot play the games."""
    params = {"bots": list(lineup), "games": games, "seed": seed, "options": dict(sorted(options.items()))}
    if len(orders(lineup)) > 1:     # a folder played before the reversal, resumed, would mix two schedules
        params["seating"] = "reversed every other deal"
    return play_in_folder(out, KIND, params, schedule(lineup, games, seed, **options),
                          lambda folder, played: write_summary(folder, len(lineup), played),
                          workers, progress, resume, force, ray)


def play_in_folder(out: str | os.PathLike, kind: str, params: dict, jobs: list[Job], finish, workers: int = 1,
                   progress: bool = True, resume: bool = False, force: bool = False, ray: str | None = None):
    """Play `jobs` into the folder `out` (a run of `kind` with `params`, saved as KIND.json):
    games.csv and records.jsonl grow by each game as it ends, then `finish(folder, played)`
    writes the run's tables from them. Returns (what `finish` returns, the results of this session).

    resume, force, ray and errors: as `run_in_folder`."""
    folder = prepare(out, kind, resume=resume, force=force)
    done = _continue(folder, kind, params) if resume else 0
    specs = {b for job in jobs for b in job.bots}
    if resume:
        weights.check(folder, specs)
    else:
        write_text(folder / f"{kind}.json", json.dumps(params, indent=2) + "\n")
        weights.record(folder, specs)
    fields = _game_fields(len(jobs[0].bots))
    played = []
    try:
        with open(folder / "records.jsonl", "a" if done else "w", encoding="utf-8") as records, \
                open(folder / SPEED, "a" if done else "w", encoding="utf-8") as speed, \
                open(folder / "games.csv", "a" if done else "w", newline="") as table, \
                contextlib.closing(play(jobs[done:], workers, progress, done, ray)) as results:
            # closing: any stop here stops the workers
            writer = csv.DictWriter(table, fieldnames=fields)
            if not done:
                writer.writeheader()
            for result in results:
                save_game(result, records, speed, table, writer)
                played.append(result)
        finished = finish(folder, played)
        damaged = damaged_lines(folder / "records.jsonl")
        if damaged:
            print(f"nefertiti: {folder / 'records.jsonl'}: line(s) {line_numbers(damaged)} are damaged (not a game "
                  "record), kept as they are: `nefertiti replay` cannot show those games", file=sys.stderr)
    except OSError as err:
        raise RunFolderError(f"cannot write into {folder}: {err.strerror or err}; "
                             f"{finished_games(folder)} finished games are saved there: "
                             "fix the folder (space, permissions) and rerun with --resume") from None
    return finished, played


def save_game(result: Result, records, speed, table, writer: csv.DictWriter) -> None:
    """Append a finished game to records.jsonl and speed.jsonl, then games.csv (a row there is a whole game),
    flushed."""
    records.write(json.dumps({"game": result.job.index, "bots": list(result.job.bots), "record": result.record})
                  + "\n")
    records.flush()
    speed.write(json.dumps({"game": result.job.index, "bots": list(result.job.bots),
                            "decisions": result.decisions, "seconds": result.seconds}) + "\n")
    speed.flush()
    writer.writerows(game_rows([result]))
    table.flush()


def finished_games(folder: str | os.PathLike) -> int:
    """How many whole games a tournament folder holds (rows of its games.csv)."""
    try:
        with open(Path(folder) / "games.csv", "rb") as f:
            return max(0, f.read().count(b"\n") - 1)
    except OSError:
        return 0


def _continue(folder: Path, kind: str, params: dict) -> int:
    """Check that `params` are the saved run's and cut a killed run's files back to its whole
    games; returns how many games are finished."""
    try:
        saved = json.loads((folder / f"{kind}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise RunFolderError(f"{folder} has no readable {kind}.json: it cannot be resumed; "
                             "start it over with --force") from None
    older = [key for key in params if key not in saved]
    if older:
        raise RunFolderError(f"{folder} holds a {kind} played before its {', '.join(older)} "
                             f"({', '.join(f'{k}: {params[k]}' for k in older)}): its games cannot go on with "
                             "today's; start it over with --force, or choose another --out")
    changed = [key for key in params if saved.get(key) != params[key]]
    if changed:
        raise RunFolderError(f"{folder} holds a {kind} with other {', '.join(changed)} "
                             f"({', '.join(f'{k}={saved.get(k)}' for k in changed)}): "
                             "resume it with the same options, or choose another --out")
    games = max(0, complete_lines(folder / "games.csv") - 1)
    kept = complete_lines(folder / "records.jsonl", keep=games)
    if kept < games:                                        # records are written first: not after a kill
        complete_lines(folder / "games.csv", keep=kept + 1)
    complete_lines(folder / SPEED, keep=kept)
    return kept


def folder_speed(folder: str | os.PathLike):
    """(bots, decisions, seconds) of every game in a folder's speed.jsonl (all sessions of a resumed run;
    a damaged line is skipped), for `speed_rows`."""
    with contextlib.suppress(FileNotFoundError), open(Path(folder) / SPEED, "rb") as f:
        for line in f:
            try:
                game = json.loads(line)
                entry = (list(game["bots"]), list(game["decisions"]), list(game["seconds"]))
            except (ValueError, KeyError, TypeError):
                continue
            yield entry


def damaged_lines(path: Path) -> list[int]:
    """Line numbers (from 1) of a records.jsonl whose line is not a game's entry (a disk fault, an edit)."""
    bad = []
    with open(path, "rb") as f:
        for number, line in enumerate(f, 1):
            try:
                entry = json.loads(line)
                ok = isinstance(entry, dict) and isinstance(entry.get("record"), dict)
            except ValueError:
                ok = False
            if not ok:
                bad.append(number)
    return bad


# ------------------------------------------------------------------ output
def _game_fields(players: int) -> list[str]:
    return ["game", "seed", "rotation", "first_player", "decisions",
            *(f"{what}_{seat}" for seat in range(players) for what in ("bot", "score", "money", "rank"))]


def game_rows(results: list[Result]) -> list[dict]:
    rows = []
    for r in results:
        row = {"game": r.job.index, "seed": r.job.seed, "rotation": r.job.rotation,
               "first_player": r.first_player, "decisions": sum(r.decisions)}
        for seat, bot in enumerate(r.job.bots):
            row.update({f"bot_{seat}": bot, f"score_{seat}": r.scores[seat], f"money_{seat}": r.money[seat],
                        f"rank_{seat}": r.ranks[seat]})
        rows.append(row)
    return rows


def read_games(path: str | os.PathLike) -> list[tuple[list[str], list[int]]]:
    """(bots per seat, ranks per seat) of every game in a games.csv, in game order."""
    with open(path, newline="") as f:
        rows = sorted(csv.DictReader(f), key=lambda row: int(row["game"]))
    games = []
    for row in rows:
        seats = range(sum(1 for key in row if key.startswith("bot_")))
        games.append(([row[f"bot_{s}"] for s in seats], [int(row[f"rank_{s}"]) for s in seats]))
    return games


def ratings_from_csv(path: str | os.PathLike) -> dict[str, tuple[float, float, float]]:
    """{bot: (mu, sigma, ordinal)} recomputed from a tournament's games.csv alone."""
    return plackett_luce(read_games(path))


def summarize(games: list[tuple[list[str], list[int]]]) -> list[dict]:
    """Per bot: seat-games, wins, win rate (Wilson CI), mean rank (t CI), ratings; best first."""
    ranks = defaultdict(list)
    for bots, game_ranks in games:
        for bot, rank in zip(bots, game_ranks):
            ranks[bot].append(rank)
    ratings = plackett_luce(games)
    rows = []
    for bot, rs in ranks.items():
        wins = sum(r == 1 for r in rs)
        low, high = wilson(wins, len(rs))
        mean, rlow, rhigh = mean_ci(rs)
        mu, sigma, ordinal = ratings[bot]
        rows.append({"bot": bot, "seat_games": len(rs), "wins": wins, "win_rate": wins / len(rs),
                     "win_low": low, "win_high": high, "mean_rank": mean, "rank_low": rlow,
                     "rank_high": rhigh, "mu": mu, "sigma": sigma, "ordinal": ordinal})
    return sorted(rows, key=lambda row: -row["ordinal"])


def write_speed(folder: Path) -> None:
    """speed.csv from the folder's speed.jsonl (every session), when it has any game."""
    speed = speed_rows(folder_speed(folder))
    if speed:
        write_csv(folder / "speed.csv", speed)


def speed_rows(games) -> list[dict]:
    """Per bot: decisions and CPU seconds over `games`, (bots, decisions, seconds) per game and seat."""
    decisions, seconds = defaultdict(int), defaultdict(float)
    for bots, game_decisions, game_seconds in games:
        for bot, d, s in zip(bots, game_decisions, game_seconds):
            decisions[bot] += d
            seconds[bot] += s
    return [{"bot": b, "decisions": decisions[b], "cpu_seconds": round(seconds[b], 3),
             "decisions_per_second": round(decisions[b] / max(seconds[b], 1e-9), 1)} for b in decisions]


def format_table(rows: list[dict]) -> str:
    w = max(len("bot"), *(len(r["bot"]) for r in rows))
    lines = [f"{'bot':<{w}} {'games':>6} {'win rate [95% CI]':>22} {'mean rank [95% CI]':>22} "
             f"{'mu':>6} {'sigma':>6} {'ordinal':>8}"]
    for r in rows:
        lines.append(f"{r['bot']:<{w}} {r['seat_games']:>6} "
                     f"{r['win_rate']:>7.3f} [{r['win_low']:.3f}, {r['win_high']:.3f}] "
                     f"{r['mean_rank']:>7.2f} [{r['rank_low']:.2f}, {r['rank_high']:.2f}] "
                     f"{r['mu']:>6.2f} {r['sigma']:>6.2f} {r['ordinal']:>8.2f}")
    return "\n".join(lines)


def write_csv(path: Path, rows: list[dict]) -> None:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    write_text(path, text.getvalue())


def plot_win_rates(path: Path, summary: list[dict], players: int, games: int) -> None:
    """Win rate per bot with its 95% Wilson interval and seat-game count; the legend sits below the axes."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(summary, key=lambda r: r["win_rate"])
    fig, ax = plt.subplots(figsize=(7.5, 2.2 + 0.5 * len(rows)), layout="constrained")
    rates = [r["win_rate"] for r in rows]
    errors = [[max(0.0, r["win_rate"] - r["win_low"]) for r in rows], [max(0.0, r["win_high"] - r["win_rate"])
                                                                     for r in rows]]
    labels = [f"{r['bot']}\n({r['seat_games']} seat-games)" for r in rows]
    ax.barh(labels, rates, xerr=errors, capsize=4, color="#c9a227", label="win rate, 95% Wilson interval")
    for y, r in enumerate(rows):
        ax.text(min(r["win_high"] + 0.02, 0.9), y, f"{r['win_rate']:.1%}", va="center", fontsize=9)
    ax.axvline(1 / players, color="grey", linestyle="--", label=f"chance (1/{players})")
    ax.set_title(f"Tournament win rates: {games} games, {players} players")
    ax.set_xlabel("win rate (share of seat-games won)")
    ax.set_ylabel("bot")
    ax.set_xlim(0, 1)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25 if len(rows) < 4 else -0.12), ncol=2, fontsize=9,
              frameon=False)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_summary(folder: Path, players: int, played: list[Result]) -> list[dict]:
    """summary.csv and winrates.png from the folder's games.csv, speed.csv from its speed.jsonl (every
    session). Returns the summary rows."""
    games = read_games(folder / "games.csv")
    summary = summarize(games)
    write_csv(folder / "summary.csv", summary)
    write_speed(folder)
    plot_win_rates(folder / "winrates.png", summary, players, len(games))
    return summary
