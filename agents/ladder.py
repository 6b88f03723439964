"""The ladder: every shipped bot (by default `agents.LADDER_BOTS`) rated on one openskill scale
from seat-rotated games.

A tournament plays one line-up; the ladder plays every line-up of `players` different bots
(all the combinations, so every pair of bots shares a table equally often), each on
games_per_lineup / players deals and every deal in all the seat rotations. Game i plays
deal i // players with line-up (i // players) % line-ups, so each round of deals covers every
line-up once, its bots reversed in every other round (`schedule`); seeds derive from the ladder
seed and the game index alone (`tournament.rotations`), so the same command gives the same files
whatever the workers, and `--resume` continues a stopped run to the same bytes. The ratings are
openskill Plackett-Luce over the games in order.

Output folder: games.csv and records.jsonl (as a tournament's), ladder.json (the parameters),
ladder.csv (per bot, best first: openskill mu, sigma, ordinal = mu - 3 sigma, win rate with its
Wilson 95% CI, mean rank with its t 95% CI, games), ladder.png (the ordinals with their
intervals), ladder.md (the table, the head-to-head shares, the command, the date, the versions)
and speed.csv.
"""
from __future__ import annotations

import itertools
import os
import platform
from collections import Counter
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

from . import make_bot
from .tournament import (Result, check_lineup, orders, play_in_folder, read_games, rotations, summarize, write_csv,
                         write_speed)
from .run_folder import write_text

KIND = "ladder"


def lineups(bots: list[str], players: int) -> list[tuple[str, ...]]:
    """Every table of `players` different bots (the combinations, in the order of `bots`)."""
    return list(itertools.combinations(bots, players))


def meetings(tables) -> Counter:
    """How many line-ups each pair of bots shares: {(bot, other): count}."""
    return Counter(pair for table in tables for pair in itertools.combinations(sorted(table), 2))


def schedule(bots: list[str], players: int, games_per_lineup: int, seed: int, **options):
    """The ladder's games (`tournament.Job`s): every line-up on games_per_lineup / players deals,
    each deal in every seat rotation; round r of deals plays every line-up once, in the order of `bots`
    in even rounds and reversed in odd ones. Rotations keep the bots' order around the table, so without
    the reversal a bot listed before another would always sit on the same side of it: two copies of one
    deterministic policy split their shared games 57/43 at 5 players. (At 2 players a rotation is the
    reversal.)"""
    tables = lineups(bots, players)
    reversed_tables = [order for table in tables for order in orders(table)[1:]]   # none at 2 players
    return rotations(tables + reversed_tables, len(tables) * games_per_lineup, seed, **options)


def check(bots: list[str], players: int, games_per_lineup: int, **options) -> None:
    """Raise ValueError naming the problem with a ladder's bots, table size or games per line-up."""
    repeated = [spec for spec, count in Counter(bots).items() if count > 1]
    if repeated:
        raise ValueError(f"{repeated[0]!r} is given twice: a ladder rates different bots "
                         "(give another parameter to rate a variant, e.g. mcts:iterations=50)")
    if len(bots) < players:
        raise ValueError(f"{len(bots)} bots for {players}-player tables: a ladder needs at least {players} "
                         "different bots (or fewer --players)")
    if games_per_lineup < players or games_per_lineup % players:
        raise ValueError(f"--games-per-lineup must be a positive multiple of --players ({players}), got "
                         f"{games_per_lineup}: each deal is played once in every seat rotation")
    check_lineup(bots[:players], players, **options)      # the game options and the first table
    for spec in bots[players:]:
        make_bot(spec, 0)


def run_in_folder(out: str | os.PathLike, bots: list[str], players: int = 4, games_per_lineup: int = 8,
                  seed: int = 0, workers: int = 1, progress: bool = True, resume: bool = False,
                  force: bool = False, command: str | None = None, date: str | None = None, ray: str | None = None,
                  **options) -> tuple[list[dict], list[Result]]:
    """Play the ladder into the folder `out` (each game saved as it ends), then write its table,
    plot and page; returns (ladder rows best first, the results of this session).

    command, date: shown in ladder.md (date: now, UTC, by default). resume, force, ray and errors: as
    `tournament.run_in_folder`."""
    params = {"bots": list(bots), "players": players, "games_per_lineup": games_per_lineup, "seed": seed,
              "options": dict(sorted(options.items()))}
    date = date or datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return play_in_folder(out, KIND, params, schedule(bots, players, games_per_lineup, seed, **options),
                          lambda folder, played: write_ladder(folder, params, played, command, date),
                          workers, progress, resume, force, ray)


def ladder_rows(games) -> list[dict]:
    """Per bot, best ordinal first: place, ratings, win rate and mean rank with their CIs, games."""
    keys = ["bot", "ordinal", "mu", "sigma", "win_rate", "win_low", "win_high", "mean_rank", "rank_low",
            "rank_high", "seat_games", "wins"]
    return [{"place": place, **{key: row[key] for key in keys}}
            for place, row in enumerate(summarize(games), start=1)]


def head_to_head(games) -> dict[tuple[str, str], tuple[float, int]]:
    """{(bot, other): (share of their shared games where bot ranked above other, a tie counting
    half; shared games)}: a check on the ratings that does not depend on the order of the games."""
    above, shared = Counter(), Counter()
    for bots, ranks in games:
        for (bot, rank), (other, other_rank) in itertools.permutations(zip(bots, ranks), 2):
            shared[bot, other] += 1
            above[bot, other] += (rank < other_rank) + 0.5 * (rank == other_rank)
    return {pair: (above[pair] / shared[pair], shared[pair]) for pair in shared}


def write_ladder(folder: Path, params: dict, played: list[Result], command: str | None, date: str) -> list[dict]:
    """ladder.csv, ladder.png and ladder.md from the folder's games.csv, speed.csv from its speed.jsonl
    (every session). Returns the ladder rows."""
    games = read_games(folder / "games.csv")
    rows = ladder_rows(games)
    write_csv(folder / "ladder.csv", rows)
    write_speed(folder)
    plot_ladder(folder / "ladder.png", rows, params["players"], len(games))
    write_text(folder / "ladder.md", markdown(rows, head_to_head(games), params, len(games), command, date))
    return rows


def markdown(rows: list[dict], pairs: dict, params: dict, games: int, command: str | None, date: str) -> str:
    """ladder.md: what was played, the table, the plot, the head-to-head shares, the command, the
    date and the versions."""
    bots, players = params["bots"], params["players"]
    tables = lineups(bots, players)
    met = sorted(set(meetings(tables).values()))
    deals = params["games_per_lineup"] // players
    lines = [
        "# Nefertiti bot ladder", "", f"At the table of {table_label(players, params['options'])}.", "",
        f"openskill Plackett-Luce ratings from {games} {players}-player games: {len(tables)} line-ups (every "
        f"{players} of the {len(bots)} bots; each pair of bots shares {' to '.join(map(str, met))} of them), "
        f"each on {deals} deal{'s' * (deals > 1)} played in all {players} seat rotations"
        f"{' (every other deal with the bots in reverse order)' if players > 2 and deals > 1 else ''}. "
        "Ordinal = mu - 3 sigma, "
        "a cautious rating (the bot's skill is above it with about 99.9% confidence), orders the ladder. "
        f"Win rate: share of games won (Wilson 95% CI; chance is 1/{players}); mean rank: 1 = best (t 95% CI).",
        "",
        "| # | bot | ordinal | mu | sigma | win rate [95% CI] | mean rank [95% CI] | games |",
        "|---:|---|---:|---:|---:|---|---|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['place']} | `{r['bot']}` | {r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} | "
                     f"{r['win_rate']:.1%} [{r['win_low']:.1%}, {r['win_high']:.1%}] | "
                     f"{r['mean_rank']:.2f} [{r['rank_low']:.2f}, {r['rank_high']:.2f}] | {r['seat_games']} |")
    options = ", ".join(f"{key}={value}" for key, value in params["options"].items() if value is not None)
    lines += ["", "![ladder: openskill ordinal per bot](ladder.png)", "",
              "Head to head: the share of their shared games in which the row's bot ranked above the column's "
              "(a tie counts half). openskill rates the games one by one in order, so two bots whose ordinals "
              "are close may stand in either order; these shares do not depend on the order.", "",
              "| | " + " | ".join(f"`{r['bot']}`" for r in rows) + " | shared games |",
              "|---|" + "---:|" * len(rows) + "---:|"]
    for r in rows:
        cells = [f"{pairs[r['bot'], c['bot']][0]:.2f}" if (r["bot"], c["bot"]) in pairs else "-" for c in rows]
        counts = sorted({n for (bot, _), (_, n) in pairs.items() if bot == r["bot"]})
        lines.append(f"| `{r['bot']}` | " + " | ".join(cells) + f" | {' to '.join(map(str, counts))} |")
    lines.append("")
    if command:
        lines.append(f"- command: `{command}`")
    lines += [f"- date: {date}", f"- seed: {params['seed']}; game options: {options or 'defaults'}",
              f"- versions: nefertiti-env {version('nefertiti-env')}, openskill {version('openskill')}, "
              f"Python {platform.python_version()}", ""]
    return "\n".join(lines)


def table_label(players: int, options: dict) -> str:
    """The table a ladder was played at, in words ("4 players, beginner setup, base characters"): a
    ladder rates the bots at one table, and their order changes from table to table."""
    characters = options.get("characters") or "base"
    memphis = options.get("memphis")
    label = (f"{players} players, {options.get('setup') or 'beginner'} setup, "
             f"{characters if isinstance(characters, str) else '+'.join(characters)} characters")
    label += ", the Port of Memphis" if memphis or (memphis is None and players == 5) else ""
    ruleset = options.get("ruleset") or "default"
    return label + ("" if ruleset == "default" else f", ruleset {ruleset}")


def plot_ladder(path: Path, rows: list[dict], players: int, games: int) -> None:
    """Each bot's ordinal (dot), mu (tick) and mu - 3 sigma .. mu + 3 sigma interval, best at the top."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = rows[::-1]
    fig, ax = plt.subplots(figsize=(7.5, 1.6 + 0.45 * len(rows)), layout="constrained")
    labels = [f"{r['bot']}\n({r['seat_games']} games)" for r in rows]
    mus = [r["mu"] for r in rows]
    spread = [3 * r["sigma"] for r in rows]
    ax.errorbar(mus, labels, xerr=spread, fmt="none", ecolor="#8a6d12", capsize=4,
                label="mu ± 3 sigma")
    ax.plot(mus, labels, "|", color="#5c4a0c", markersize=12, label="mu")
    ax.plot([r["ordinal"] for r in rows], labels, "o", color="#c9a227", label="ordinal (mu - 3 sigma)")
    for y, r in enumerate(rows):
        ax.annotate(f"{r['ordinal']:.1f}", (r["ordinal"], y), textcoords="offset points", xytext=(0, 7),
                    ha="center", fontsize=8)
    ax.margins(y=0.12)
    ax.set_title(f"Bot ladder: openskill ratings from {games} games, {players} players")
    ax.set_xlabel("openskill Plackett-Luce rating (higher is stronger)")
    ax.set_ylabel("bot (best at the top)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.5 / len(rows) - 0.12), ncol=3, fontsize=8,
              frameon=False)
    fig.savefig(path, dpi=100)
    plt.close(fig)
