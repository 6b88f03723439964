"""The balance analyses: from the raw tables to the numbers of the report.

Each function takes tables already cut to one study cell (one arm, ruleset and
player count: see `cell`) and returns plain rows (dicts); intervals are
(estimate, low, high) triples, 95%. A compared quantity also has its p-value and,
under `at`, a function giving its interval at another level (the report adjusts
every test together: `stats.Findings`). The report and the notebook both build on
these, so a number in the report can be recomputed from the CSV files alone.

Seats are studied by *position* in turn order (0 = the first player, who starts
with the least Deben), since the seat index itself is arbitrary once the first
player is drawn at random.
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .stats import (chi2_equal, detectable_difference, diff_means, diff_proportions, mean_ci, p_means, p_proportions,
                    p_rate, proportion, seat_edge)
from .tables import Table, rows, select, where

SOURCES = ("Deben", "seals", "characters")      # points that are not gifts


def cell(tabs: dict[str, Table], arm: str, ruleset: str, players: int) -> dict[str, Table]:
    """Every table cut to one arm, ruleset and player count."""
    return {name: where(t, arm=arm, ruleset=ruleset, players=players) for name, t in tabs.items()}


def interval(values) -> tuple[float, float, float]:
    """Mean with its t interval; NaN bounds below two values (NaN mean for none)."""
    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return float(values.mean()) if values.size else math.nan, math.nan, math.nan
    return mean_ci(values.tolist())


def win_matrix(seats: Table, n: int) -> np.ndarray:
    """[game, position] win shares (a shared win is 1/k)."""
    _, game = np.unique(seats["game"], return_inverse=True)
    wins = np.zeros((game.max() + 1 if game.size else 0, n))
    wins[game, seats["position"]] = seats["win"]
    return wins


# ------------------------------------------------------------------ seats
def seat_fairness(c: dict[str, Table], n: int) -> dict:
    """Win rate and mean score by position; the chi-squared test of equal win counts; the largest
    seat edge (max |win rate - 1/n|, `stats.seat_edge`) and the first player's edge over 1/n."""
    seats = c["seats"]
    games = win_matrix(seats, n).shape[0]
    positions = []
    for pos in range(n):
        s = where(seats, position=pos)
        positions.append({"position": pos, "games": rows(s), "wins": float(s["win"].sum()),
                          "win_rate": proportion(float(s["win"].sum()), rows(s)), "score": interval(s["score"])})
    wins = [p["wins"] for p in positions]
    first = positions[0]
    return {"games": games, "positions": positions, "chi2": chi2_equal(wins),
            "edge": seat_edge(wins, games), "edge_at": lambda level: seat_edge(wins, games, level),
            "first_player_edge": tuple(x - 1 / n for x in first["win_rate"]),
            "first_player_p": p_rate(first["wins"], first["games"], 1 / n),
            "first_player_at": lambda level: tuple(x - 1 / n for x in proportion(first["wins"], first["games"], level))}


def bot_results(c: dict[str, Table]) -> list[dict]:
    """Win rate and mean score per bot (line-ups that mix bots)."""
    seats = c["seats"]
    out = []
    for bot in sorted(set(seats["bot"].tolist())):
        s = where(seats, bot=bot)
        out.append({"bot": bot, "seat_games": rows(s), "win_rate": proportion(float(s["win"].sum()), rows(s)),
                    "score": interval(s["score"])})
    return out


# ------------------------------------------------------------------ gifts
def points_by_source(c: dict[str, Table]) -> list[dict]:
    """Share of all points scored by each gift type, Deben, unspent seals and characters."""
    seats, gifts = c["seats"], c["gifts"]
    totals = Counter()
    for t, p in zip(gifts["type"].tolist(), gifts["points"].tolist()):
        totals[t] += p
    totals["Deben"] = float(seats["deben_points"].sum())
    totals["seals"] = float(seats["seal_points"].sum())
    totals["characters"] = float(seats["character_points"].sum())
    everything = sum(totals.values()) or 1
    per_seat = rows(seats) or 1
    return [{"source": k, "share": v / everything, "per_seat": v / per_seat}
            for k, v in sorted(totals.items(), key=lambda kv: -kv[1])]


def gift_economy(c: dict[str, Table]) -> list[dict]:
    """Per gift type: cards bought, Deben paid per card and per point, monopoly frequency.

    Deben paid: bids paid for cards of the type (a highest bidder's bid shared by the
    cards it took). Points: the type's points at the end of the game. Monopoly: the
    game ends with exactly one owner of the type.
    """
    gifts = c["gifts"]
    games = rows(c["games"])
    out = []
    for t in sorted(set(gifts["type"].tolist())):
        g = where(gifts, type=t)
        bought, paid, points = int(g["cards_bought"].sum()), float(g["deben_paid"].sum()), int(g["points"].sum())
        mono = len(set(g["game"][(g["owners"] == 1) & (g["items"] > 0)].tolist()))
        held = g["items"] > 0
        out.append({"type": t, "cards_bought": bought / max(games, 1), "deben_per_card": paid / bought if bought else
                    math.nan, "deben_per_point": paid / points if points else math.nan,
                    "points_per_game": points / max(games, 1), "owners": interval(_owners_per_game(g)),
                    "items_per_owner": float(g["items"][held].mean()) if held.any() else math.nan,
                    "monopoly": proportion(mono, games), "monopoly_games": mono})
    return out


def _owners_per_game(g: Table) -> list[int]:
    """Owners of the type at the end, one value per game in which someone holds it."""
    held = g["items"] > 0
    return list(Counter(g["game"][held].tolist()).values())


# ------------------------------------------------------------- characters
def character_use(c: dict[str, Table], n: int) -> list[dict]:
    """Per character: plays per game, timing, by whom, immediate effect, and the win rate and
    score of seats that played it against seats that did not (an association: seats that
    can play a character had seals to spend; restricted play measures the effect)."""
    chars, seats, games = c["characters"], c["seats"], c["games"]
    g_count = rows(games)
    turns = dict(zip(games["game"].tolist(), games["turns"].tolist()))
    seat_key = list(zip(seats["game"].tolist(), seats["seat"].tolist()))
    out = []
    for name in _ordered(chars["character"].tolist()):
        ch = where(chars, character=name)
        used = set(zip(ch["game"].tolist(), ch["seat"].tolist()))
        mask = np.array([k in used for k in seat_key], dtype=bool)
        yes, no = select(seats, mask), select(seats, ~mask)
        timing = [t / turns[g] for t, g in zip(ch["turn"].tolist(), ch["game"].tolist())]
        by_position = Counter(ch["position"].tolist())
        out.append({
            "character": name, "plays": rows(ch), "per_game": rows(ch) / max(g_count, 1),
            "turn": interval(ch["turn"]), "timing": interval(timing),
            "by_position": [by_position.get(p, 0) / rows(ch) for p in range(n)],
            "by_bot": dict(Counter(ch["bot"].tolist())),
            "score_gain": interval(ch["score_gain"]), "margin_gain": interval(ch["margin_gain"]),
            "win_used": proportion(float(yes["win"].sum()), rows(yes)),
            "win_not": proportion(float(no["win"].sum()), rows(no)),
            **_difference("win", float(yes["win"].sum()), rows(yes), float(no["win"].sum()), rows(no)),
            "score_used": interval(yes["score"]), "score_not": interval(no["score"]),
            **_mean_difference("score", yes["score"], no["score"]),
        })
    return out


def _difference(name: str, x1: float, n1: int, x2: float, n2: int) -> dict:
    """`<name>_diff` of two win rates with its p-value and `<name>_at` (its interval at a level)."""
    return {f"{name}_diff": diff_proportions(x1, n1, x2, n2), f"{name}_p": p_proportions(x1, n1, x2, n2),
            f"{name}_at": lambda level: diff_proportions(x1, n1, x2, n2, level)}


def _mean_difference(name: str, a, b) -> dict:
    """`<name>_diff` of two means (Welch) with its p-value and `<name>_at`."""
    return {f"{name}_diff": diff_means(a, b), f"{name}_p": p_means(a, b),
            f"{name}_at": lambda level: diff_means(a, b, level)}


def _ordered(names: list[str]) -> list[str]:
    """Most played first, then by name."""
    counts = Counter(names)
    return sorted(counts, key=lambda k: (-counts[k], k))


def restricted_play(tabs: dict[str, Table], ruleset: str, n: int, arms: list[str], control: str) -> list[dict]:
    """The restricted seat (game i: seat i mod n) against the same seat unrestricted in the
    control arm (same deals): its win rate and score, their changes with intervals and p-values,
    the forced decisions (the engine lifted the restriction) per game, and the minimum detectable
    change of win rate (80% power, 5% two-sided) at these games: a change smaller than that is not
    measured, so an interval holding 0 reads "not measured", not "no effect"."""
    def focal(arm):
        s = where(tabs["seats"], arm=arm, ruleset=ruleset, players=n)
        return select(s, s["seat"] == s["game"] % n)

    base = focal(control)
    bw, bn = float(base["win"].sum()), rows(base)
    out = []
    for arm in [control, *arms]:
        s = focal(arm)
        w, k = float(s["win"].sum()), rows(s)
        row = {"arm": arm, "games": k, "wins": w, "win_rate": proportion(w, k), "score": interval(s["score"]),
               "forced": float(s["forced"].sum()) / max(k, 1), "win_change": None, "score_change": None,
               "detectable": detectable_difference(bw / bn if bn else math.nan, k, bn)}
        if arm != control:
            d, m = _difference("win", w, k, bw, bn), _mean_difference("score", s["score"], base["score"])
            row.update(win_change=d["win_diff"], win_p=d["win_p"], win_at=d["win_at"],
                       score_change=m["score_diff"], score_p=m["score_p"], score_at=m["score_at"])
        out.append(row)
    return out


# ---------------------------------------------------------------- markets
def market_stats(c: dict[str, Table]) -> list[dict]:
    """Per stall: closings per game, by which condition, winning bid, unpaid bids, cards left."""
    closings = c["closings"]
    games = max(rows(c["games"]), 1)
    out = []
    for stall in sorted(set(closings["stall"].tolist())):
        s = where(closings, stall=stall)
        bids = s["winning_bid"][s["winning_bid"] >= 0]
        conditions = Counter(s["condition"].tolist())
        out.append({"stall": stall, "market": s["market"][0], "closings": rows(s), "per_game": rows(s) / games,
                    "conditions": {k: v / rows(s) for k, v in conditions.most_common()},
                    "servants": interval(s["servants"]), "winning_bid": interval(bids),
                    "unpaid": proportion(float((s["high_paid"] == 0).sum()), rows(s)),
                    "bought": float(s["bought"].mean()), "halves": float(s["halves"].mean()),
                    "cards_left": interval(s["cards_left"])})
    return out


# ------------------------------------------------------- length, margins
def game_shape(c: dict[str, Table]) -> dict:
    """Game length (turns, decisions), score margins and lead changes."""
    g = c["games"]
    shared = np.char.find(g["winners"], ";") >= 0
    last = g["last_lead_change"] / np.maximum(g["turns"], 1)
    return {
        "games": rows(g),
        "turns": _spread(g["turns"]), "decisions": _spread(g["decisions"]), "margin": _spread(g["margin"]),
        "close": proportion(float((g["margin"] <= 2).sum()), rows(g)),
        "shared": proportion(float(shared.sum()), rows(g)),
        "lead_changes": _spread(g["lead_changes"]),
        "no_lead_change": proportion(float((g["lead_changes"] == 0).sum()), rows(g)),
        "last_change": interval(last[g["lead_changes"] > 0]),
    }


def _spread(values) -> dict:
    v = np.asarray(values, dtype=np.float64)
    if not v.size:
        return {"mean": (math.nan,) * 3, "min": math.nan, "median": math.nan, "p90": math.nan, "max": math.nan}
    return {"mean": interval(v), "min": float(v.min()), "median": float(np.median(v)),
            "p90": float(np.quantile(v, 0.9)), "max": float(v.max())}


# -------------------------------------------------------------- rulesets
def compare(base: dict[str, Table], other: dict[str, Table], n: int) -> list[dict]:
    """Headline metrics of two rulesets (same player count), with the difference other - base, its
    p-value and `at` (its interval at a level). Games are matched by deal (same seeds); the intervals
    and tests treat the two samples as independent, which is conservative when matched deals make the
    results alike."""
    rows_out = []

    def add(metric, a, b, diff=None):
        row = {"metric": metric, "base": a, "other": b, "diff": (math.nan,) * 3, "p": math.nan, "at": None}
        if diff is not None:
            row.update(diff=diff["d"], p=diff["p"], at=diff["at"])
        rows_out.append(row)

    def rates(xb, nb, xa, na):
        d = _difference("d", xb, nb, xa, na)
        return {"d": d["d_diff"], "p": d["d_p"], "at": d["d_at"]}

    def means(b, a):
        d = _mean_difference("d", b, a)
        return {"d": d["d_diff"], "p": d["d_p"], "at": d["d_at"]}

    fa, fb = seat_fairness(base, n), seat_fairness(other, n)
    for pos in range(n):
        pa, pb = fa["positions"][pos], fb["positions"][pos]
        add(f"win rate, position {pos + 1}", pa["win_rate"], pb["win_rate"],
            rates(pb["wins"], pb["games"], pa["wins"], pa["games"]))
    add("largest seat edge", fa["edge"], fb["edge"])
    for metric, table, column in (("mean score per seat", "seats", "score"), ("turns per game", "games", "turns"),
                                  ("decisions per game", "games", "decisions"), ("score margin", "games", "margin"),
                                  ("lead changes", "games", "lead_changes")):
        a, b = base[table][column], other[table][column]
        add(metric, interval(a), interval(b), means(b, a))
    ca, cb = _per_game(base, "characters"), _per_game(other, "characters")
    add("characters played per game", interval(ca), interval(cb), means(cb, ca))
    sa, sb = _shares(base), _shares(other)
    for source in sorted(set(sa) | set(sb), key=lambda k: -np.mean(sa.get(k, [0]))):
        a, b = sa.get(source, np.zeros(rows(base["games"]))), sb.get(source, np.zeros(rows(other["games"])))
        add(f"share of points: {source}", interval(a), interval(b), means(b, a))
    ma = {r["type"]: r for r in gift_economy(base)}
    mb = {r["type"]: r for r in gift_economy(other)}
    ga, gb = rows(base["games"]), rows(other["games"])
    for t in sorted(set(ma) | set(mb)):
        xa = ma[t]["monopoly_games"] if t in ma else 0
        xb = mb[t]["monopoly_games"] if t in mb else 0
        add(f"monopoly: {t}", proportion(xa, ga), proportion(xb, gb), rates(xb, gb, xa, ga))
    return rows_out


def _per_game(c: dict[str, Table], table: str) -> np.ndarray:
    """Rows of `table` per game (zeros included), in game order."""
    ids = c["games"]["game"]
    counts = Counter(c[table]["game"].tolist())
    return np.array([counts.get(g, 0) for g in ids.tolist()], dtype=np.float64)


def _shares(c: dict[str, Table]) -> dict[str, np.ndarray]:
    """Per game, the share of that game's points from each source (gift types, Deben, seals, characters)."""
    ids = c["games"]["game"].tolist()
    index = {g: i for i, g in enumerate(ids)}
    seats, gifts = c["seats"], c["gifts"]
    total = np.zeros(len(ids))
    parts: dict[str, np.ndarray] = {}
    for source, column in zip(SOURCES, ("deben_points", "seal_points", "character_points")):
        arr = parts[source] = np.zeros(len(ids))
        np.add.at(arr, [index[g] for g in seats["game"].tolist()], seats[column])
    for t in set(gifts["type"].tolist()):
        g = where(gifts, type=t)
        arr = parts[t] = np.zeros(len(ids))
        np.add.at(arr, [index[x] for x in g["game"].tolist()], g["points"])
    for arr in parts.values():
        total += arr
    total[total == 0] = 1
    return {k: v / total for k, v in parts.items()}
