"""The study's raw tables: column names, CSV writing and reading.

Every table starts with the key of its game (arm, ruleset, players, game), so tables
join on it. Reading gives a `Table`: a dict of numpy columns (text for the columns
in TEXT, numbers otherwise), which is all the analyses and the notebook need; no
data-frame library is required. Text is numpy's variable-width StringDType: a
fixed-width column is as wide as its longest cell in every row (a bot spec of 48
characters costs 192 bytes a row), which made an atlas's report hold 16 GB.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from nefertiti_env.core.limits import MAX_PLAYERS

KEY = ["arm", "ruleset", "players", "game"]

COLUMNS: dict[str, list[str]] = {
    # one row per game; per-seat columns up to MAX_PLAYERS (empty for absent seats)
    "games": KEY + ["seed", "first_player", "turns", "decisions", "winners", "margin", "lead_changes",
                    "last_lead_change"]
             + [f"{what}_{s}" for what in ("bot", "score", "rank") for s in range(MAX_PLAYERS)],
    # one row per seat of a game; position 0 is the first player; win is 1/k for k shared winners;
    # forced: restricted play's decisions in which the engine lifted the seat's restriction
    "seats": KEY + ["seat", "position", "bot", "score", "rank", "win", "money", "seals", "gift_points",
                    "deben_points", "seal_points", "character_points", "other_points", "characters_played",
                    "cards_bought", "deben_paid", "forced"],
    # gift holdings at the end, one row per seat and gift type held or bought; foreign_points: the part of
    # points that the seat's foreign bonuses of the type add (Memphis, docs/rules.md §7.4; 0 without)
    "gifts": KEY + ["seat", "type", "items", "points", "foreign_points", "owners", "cards_bought", "deben_paid"],
    # one row per market closing
    "closings": KEY + ["turn", "decision", "market", "stall", "condition", "closer", "servants", "winning_bid",
                       "high_seat", "high_paid", "high_cards", "bought", "halves", "cards_left"],
    # one row per character played
    "characters": KEY + ["turn", "decision", "seat", "position", "bot", "character", "choices",
                         "points_gained", "deben_gained", "score_gain", "margin_gain"],
    # 2 players (docs/rules.md §8): one row per tutor placed, and per chance to place one declined (market
    # empty, bid -1); outcome: "declined", "deben" (the tutor took Deben from a Reserve that held `reserve`),
    # the gift type it took for the neutral owner, or "unresolved" (still on the board at the end)
    "tutors": KEY + ["turn", "decision", "seat", "position", "bot", "market", "bid", "outcome", "reserve"],
}
# an atlas's own table, in its top folder: every answer its report judges (atlas.md's figures as data), one row
# per question and population; win-rate questions in points of win rate (unit pp), the others in points; q is
# Benjamini-Hochberg over the whole atlas
ATLAS_COLUMNS = {"answers": ["kind", "table", "subject", "unit", "population", "estimate", "low", "high", "p", "q",
                             "detectable", "verdict"]}
_SCHEMAS = {**COLUMNS, **ATLAS_COLUMNS}

# columns read as text even when every value looks like a number (e.g. winners "2", or "0;2" if shared)
TEXT = {"arm", "ruleset", "winners", "bot", *(f"bot_{s}" for s in range(MAX_PLAYERS)), "type", "market", "stall",
        "condition", "character", "choices", "outcome", "kind", "table", "subject", "unit", "population", "verdict"}

Table = dict[str, np.ndarray]
STRING = np.dtypes.StringDType()


def write(folder: Path, name: str, rows: list[tuple]) -> Path:
    path = Path(folder) / f"{name}.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(_SCHEMAS[name])
        out.writerows(rows)
    return path


class TableError(ValueError):
    """A study table that cannot be read as written; the message names the file and line."""


def read(folder: str | Path, name: str) -> Table:
    """Read one table of a study folder into numpy columns (TableError if it is not as `write` wrote it;
    FileNotFoundError if it is missing)."""
    path = Path(folder) / f"{name}.csv"
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader, None)
            rows = list(reader)
    except (UnicodeDecodeError, csv.Error) as err:
        raise TableError(f"{path}: not a CSV table ({err})") from None
    if header != _SCHEMAS[name]:
        raise TableError(f"{path}: the first line must be the {name} table's columns ({', '.join(_SCHEMAS[name][:4])}, "
                         "...)")
    for line, row in enumerate(rows, start=2):
        if len(row) != len(header):
            raise TableError(f"{path} line {line}: {len(row)} cells, expected {len(header)}")
    cols = list(zip(*rows)) if rows else [()] * len(header)
    try:
        return {h: np.array(c, dtype=STRING) if h in TEXT else _column(c) for h, c in zip(header, cols)}
    except ValueError as err:
        raise TableError(f"{path}: a number column holds text ({err})") from None


def read_all(folder: str | Path) -> dict[str, Table]:
    """Every table of a study folder; a study played before tutors were recorded reads as having none."""
    out = {}
    for name in COLUMNS:
        try:
            out[name] = read(folder, name)
        except FileNotFoundError:
            if name != "tutors":
                raise
            out[name] = {c: np.array([], dtype=STRING if c in TEXT else np.int64) for c in COLUMNS[name]}
    return out


def _column(values) -> np.ndarray:
    """Integers, else floats (empty cells NaN)."""
    try:
        return np.array([int(v) for v in values], dtype=np.int64)
    except ValueError:
        pass
    return np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)


def select(table: Table, mask) -> Table:
    """The rows where `mask` is true."""
    return {k: v[mask] for k, v in table.items()}


def where(table: Table, /, **equal) -> Table:
    """The rows whose columns equal the given values: `where(seats, players=4, arm="main")`."""
    mask = np.ones(len(next(iter(table.values()))), dtype=bool)
    for column, value in equal.items():
        mask &= table[column] == value
    return select(table, mask)


def rows(table: Table) -> int:
    return len(next(iter(table.values()))) if table else 0
