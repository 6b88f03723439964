"""The atlas's questions about the game's parts: what Memphis changes beyond the mean score (seat
fairness, papyrus, its distributions), the tutors at 2 players, each stall's closings and which one
ends the game, and gift types' points per Deben.

They reuse the single study's analyses (`analysis.gift_economy`, `points_by_source`, `market_stats`)
on the atlas's cells, and a cell of several tables or populations is pooled into one (`pool`) so those
analyses count games right. The tests (Memphis's change of each position's win rate, the tutors'
cost to each position) are `Question`s, adjusted with every other test of the atlas.

The tutors are measured two ways: what they do (the `tutors` table: where each was placed, what it took,
how often a chance to place one was declined) and what their cards cost the players: the points a seat's
gifts lose because the neutral owner also holds their type (a gift type's `owners` counts it). (Foreign
gifts score as their classic type; gifts.csv holds a type's points and, apart, the part its foreign
bonuses add.)
"""
from __future__ import annotations

import math
from collections import Counter

import numpy as np

from nefertiti_env.core.engine.board import value_column

from . import analysis, tables
from .atlas_findings import CHANGED_BY, Answer, Question
from .stats import detectable, detectable_difference, detectable_mean, diff_means, diff_proportions, \
    mean_squared_edge, p_means, p_proportions, proportion, unweighted

MEMPHIS = "Memphis"


def pool(cells: list[dict[str, tables.Table]]) -> dict[str, tables.Table]:
    """Several cells (tables, populations) as one, each cell's game ids moved past the previous ones, so an
    analysis that counts games (monopolies, closings per game) counts every cell's games apart."""
    out, shift = {}, 0
    for c in cells:
        moved = {name: {**t, "game": t["game"] + shift} for name, t in c.items()}
        for name, t in moved.items():
            out[name] = {k: np.concatenate([out[name][k], v]) for k, v in t.items()} if name in out else t
        shift += int(c["games"]["game"].max()) + 1 if tables.rows(c["games"]) else 0
    return out


# ---------------------------------------------------------------- gifts
def points_per_deben(c: dict[str, tables.Table]) -> dict[str, float]:
    """Per gift type: its points at the end over the Deben paid for its cards (`analysis.gift_economy`);
    NaN for a type no one paid for (taken, not bought)."""
    return {e["type"]: 1 / e["deben_per_point"] if e["deben_per_point"] > 0 else math.nan
            for e in analysis.gift_economy(c)}


# -------------------------------------------------------------- Memphis
def memphis_seat_questions(off_table, on_table, off: dict[str, dict], on: dict[str, dict], n: int) -> list[Question]:
    """Whether Memphis changes seat fairness: each position's win rate, Memphis on minus off (same deals)."""
    out = []
    for pos in range(n):
        q = Question("memphis seat", on_table.name, f"position {pos + 1}", "pp", extra={"players": n})
        for pop in off:
            a, b = (tables.where(c[pop]["seats"], position=pos) for c in (on, off))
            wa, na, wb, nb = float(a["win"].sum()), tables.rows(a), float(b["win"].sum()), tables.rows(b)
            q.answers.append(Answer(pop, diff_proportions(wa, na, wb, nb), p_proportions(wa, na, wb, nb),
                                    detectable_difference(wb / nb if nb else math.nan, na, nb)))
        out.append(q)
    return out


def fairness_changes(twins, cells: dict, played: dict[str, list[str]], axis: str) -> list[Question]:
    """Whether one option of the table (`axis`: "memphis" or "setup") makes seats fairer, as one test per player
    count and population: the seat unfairness (`stats.mean_squared_edge`) of the table with the option (Memphis
    on, advanced stalls) minus that of its twin without, averaged over the pairs of tables of that player count
    that differ in the option alone (`stats.unweighted`). The per-position questions ask which seat gains;
    this one asks whether the seats end up closer to parity. Kind f"{axis} fairness", in pp^2; `extra["rms"]`
    holds each population's root-mean-square seat edge without and with the option (pp, for reading)."""
    by_count: dict[int, list] = {}
    for first, second in twins:
        by_count.setdefault(second.players, []).append((first, second))
    out = []
    for n, pairs in sorted(by_count.items()):
        q = Question(f"{axis} fairness", f"{CHANGED_BY[axis]}-{n}p", "mean squared seat edge", "pp2",
                     extra={"players": n, "pairs": len(pairs), "rms": {}})
        by_pop: dict[str, list] = {}            # (unfairness, variance) without and with, per pair both played
        for pair in pairs:
            for pop in (p for p in played[pair[1].name] if p in played[pair[0].name]):
                by_pop.setdefault(pop, []).append(
                    tuple(mean_squared_edge(analysis.win_matrix(cells[t.name, pop]["seats"], n)) for t in pair))
        for pop, both in by_pop.items():
            interval, p, se = unweighted([(b[0] - a[0], a[1] + b[1]) for a, b in both])
            q.answers.append(Answer(pop, interval, p, detectable(se), tables=len(both)))
            q.extra["rms"][pop] = tuple(math.sqrt(max(float(np.mean([pair[i][0] for pair in both])), 0.0))
                                        for i in (0, 1))
        out.append(q)
    return out


def memphis_economy(c: dict[str, tables.Table]) -> dict:
    """At a Memphis table: papyrus points per seat and their share of all points, the foreign gifts' bonuses
    likewise (the points they add to their classic types), Memphis's distributions per game and the cards each
    hands out (the highest bidder's two, then the others' buys)."""
    sources = {s["source"]: s for s in analysis.points_by_source(c)}
    papyrus = sources.get("papyrus", {"share": 0.0, "per_seat": 0.0})
    seats = max(tables.rows(c["seats"]), 1)
    foreign = float(c["gifts"]["foreign_points"].sum()) / seats
    port = tables.where(c["closings"], market=MEMPHIS)
    games = max(tables.rows(c["games"]), 1)
    return {"papyrus_share": papyrus["share"], "papyrus_per_seat": papyrus["per_seat"],
            "foreign_per_seat": foreign, "foreign_share": foreign / (sum(s["per_seat"] for s in sources.values()) or 1),
            "distributions": tables.rows(port) / games,
            "cards": analysis.interval(port["high_cards"] + port["bought"])}


# --------------------------------------------------------------- tutors
def neutral_cost(c: dict[str, tables.Table], type_values: np.ndarray, type_names: list[str]) -> np.ndarray:
    """Per seat row of `c["seats"]`: the points its gifts lose because the neutral owner (the tutors' takes,
    2 players) also holds their type: items x (value with one owner fewer - value as scored). A type held by
    more owner rows than seats holding it in that game is held by the neutral owner too."""
    gifts = c["gifts"]
    held = gifts["items"] > 0
    holders = Counter(zip(gifts["game"][held].tolist(), gifts["type"][held].tolist()))
    index = {k: i for i, k in enumerate(zip(c["seats"]["game"].tolist(), c["seats"]["seat"].tolist()))}
    cost = np.zeros(tables.rows(c["seats"]))
    column = {name: t for t, name in enumerate(type_names)}
    for game, seat, kind, items, owners in zip(*(gifts[k][held].tolist()
                                                for k in ("game", "seat", "type", "items", "owners"))):
        if owners > holders[game, kind]:
            value = type_values[column[kind]]
            cost[index[game, seat]] += items * (value[value_column(owners - 1)] - value[value_column(owners)])
    return cost


def tutor_question(table, cells: dict[str, dict], type_values: np.ndarray, type_names: list[str]) -> Question:
    """Whether the tutors cost the two positions alike: points lost to the neutral owner, the first
    player minus the second."""
    q = Question("tutor", table.name, "points lost to the tutors' cards, position 1 minus 2", "points",
                 extra={"players": 2, "cost": {}})
    for pop, c in cells.items():
        cost = neutral_cost(c, type_values, type_names)
        first, second = (cost[c["seats"]["position"] == p] for p in (0, 1))
        q.answers.append(Answer(pop, diff_means(first, second), p_means(first, second),
                                detectable_mean(first, second)))
        q.extra["cost"][pop] = (analysis.interval(first), analysis.interval(second))
    return q


def tutor_use(c: dict[str, tables.Table]) -> list[dict]:
    """Per position (0 = the first player): tutors placed per game, the share of chances declined, and what
    the resolved ones took (Deben or a gift), their mean bid and the markets most used."""
    t, games = c["tutors"], tables.rows(c["games"])
    out = []
    for position in range(2):
        mine = tables.select(t, t["position"] == position)
        placed = mine["outcome"] != "declined"
        resolved = placed & (mine["outcome"] != "unresolved")
        took = Counter(mine["outcome"][resolved].tolist())
        markets = Counter(mine["market"][placed].tolist())
        out.append({"per_game": placed.sum() / games if games else math.nan,
                    "declined": 1 - placed.mean() if mine["outcome"].size else math.nan,
                    "deben": took["deben"] / resolved.sum() if resolved.any() else math.nan,
                    "unresolved": 1 - resolved.sum() / placed.sum() if placed.any() else math.nan,
                    "bid": float(mine["bid"][placed].mean()) if placed.any() else math.nan,
                    "markets": {m: k / placed.sum() for m, k in markets.most_common()}})
    return out


# -------------------------------------------------------------- closings
def game_enders(c: dict[str, tables.Table]) -> dict[str, tuple[float, float, float]]:
    """Per stall: the share of games its closing ended (the last closing of a classic market; the game ends
    once Akhenaton has come up and no classic market is open), with its Wilson interval."""
    closings = c["closings"]
    classic = tables.select(closings, closings["market"] != MEMPHIS)
    last: dict[int, tuple[int, str]] = {}
    for game, decision, stall in zip(*(classic[k].tolist() for k in ("game", "decision", "stall"))):
        if decision >= last.get(game, (-1, ""))[0]:
            last[game] = (decision, stall)
    games = tables.rows(c["games"])
    ends = Counter(stall for _, stall in last.values())
    return {stall: proportion(k, games) for stall, k in sorted(ends.items(), key=lambda kv: -kv[1])}


def closing_rows(title: str, by_population: dict[str, dict]) -> list[list]:
    """One row per stall of a table: closings per game per population, the closing conditions and the share
    of games it ended, both over every population's games."""
    pooled = pool(list(by_population.values()))
    ends = game_enders(pooled)
    per_pop = {pop: {s["stall"]: s["per_game"] for s in analysis.market_stats(c)} for pop, c in by_population.items()}
    rows = []
    for s in analysis.market_stats(pooled):
        rows.append([title, s["stall"], " / ".join(f"{per_pop[p].get(s['stall'], 0):.2f}" for p in by_population),
                     ", ".join(f"{k} {100 * v:.0f}%" for k, v in s["conditions"].items()),
                     "-" if s["market"] == MEMPHIS else f"{100 * ends.get(s['stall'], (0.0,))[0]:.0f}%"])
    return rows
