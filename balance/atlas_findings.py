"""The atlas's questions, answered per population and judged across populations.

A question (a seat's win rate at one table, a character's or a market's value, what Memphis changes)
has one answer per population that played its table (a population that did not play it has no
answer, which is no disagreement): an estimate with its 95% interval, a p-value and the minimum
detectable effect at the games played. Every p-value of the atlas goes into one `stats.Findings`
(Benjamini-Hochberg over the whole atlas). A question's verdict:

- "game": some population finds an effect (q < 0.05), every answering population's estimate has
  its sign and their intervals share a point: a property of the game, not of one policy;
- "policy": some population finds an effect the others do not share: a convention of that
  policy, reported with every population's figure;
- "none": no population finds an effect; below the minimum detectable effect it is not measured.

A pooled question is judged among the populations that pooled the most tables: a searching population
that played two of a player count's eight tables answers it over another mix of tables, so its figure is
reported beside the others' but does not make or break their agreement (its own tables' questions compare
it like for like).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import analysis, runner, tables
from .restrict import Restriction
from .stats import Findings, detectable, detectable_difference, detectable_mean, diff_means, p_means, p_rate, \
    pooled, proportion


POOLED = "pooled"        # the `table` of a question pooled over every valued table
POOLED_MEMPHIS = "pooled-memphis"   # ... over every pair of valued tables with Memphis off and on
POOLED_SETUP = "pooled-setup"       # ... over every pair of valued tables with the beginner and advanced stalls
CHANGED_BY = {"memphis": POOLED_MEMPHIS, "setup": POOLED_SETUP}    # the axes whose change in value is pooled


@dataclass
class Answer:
    population: str
    estimate: tuple[float, float, float]      # (value, low, high)
    p: float
    detectable: float
    test: int = -1                            # index of its test in the atlas's Findings
    tables: int = 1                           # tables pooled into the answer


@dataclass
class Question:
    kind: str                                 # seat, character, market, memphis
    table: str
    subject: str                              # "position 1", "Thief", ...
    unit: str                                 # pp (win rate points) or points
    answers: list[Answer] = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    def register(self, findings: Findings) -> None:
        for a in self.answers:
            a.test = len(findings.tests)
            findings.test(a.p)

    def verdict(self, q: np.ndarray, rate: float) -> str:
        most = max((a.tables for a in self.answers), default=1)
        judged = [a for a in self.answers if a.tables == most]
        found = [a for a in judged if not math.isnan(q[a.test]) and q[a.test] < rate]
        if not found:
            return "none"
        signs = {np.sign(a.estimate[0]) for a in judged}
        common = max(a.estimate[1] for a in judged) <= min(a.estimate[2] for a in judged)
        return "game" if len(signs) == 1 and common and len(judged) > 1 else "policy"


def seat_questions(table, n: int, by_population: dict[str, dict]) -> list[Question]:
    """Each position's win rate against parity 1/n; the answer is its edge (rate - 1/n)."""
    out = []
    for pos in range(n):
        q = Question("seat", table.name, f"position {pos + 1}", "pp", extra={"players": n})
        for pop, c in by_population.items():
            s = tables.where(c["seats"], position=pos)
            q.answers.append(_seat_answer(pop, float(s["win"].sum()), tables.rows(s), n))
        out.append(q)
    return out


def _seat_answer(population: str, wins: float, games: int, n: int, tables: int = 1) -> Answer:
    """A position's win rate against parity 1/n over `tables` tables: its edge (rate - 1/n) with the Wilson
    interval."""
    rate = proportion(wins, games)
    return Answer(population, tuple(x - 1 / n for x in rate), p_rate(wins, games, 1 / n),
                  detectable_difference(1 / n, games, math.inf), tables=tables)


def pooled_seat_questions(n: int, by_population: dict[str, tuple[list[float], int, int]]) -> list[Question]:
    """Each position's win rate against parity over every table of n players a population played (its wins by
    position, games and tables summed): the headline seat question, at several times one table's games."""
    out = []
    for pos in range(n):
        q = Question("seat", per_count(n), f"position {pos + 1}", "pp", extra={"players": n})
        q.answers += [_seat_answer(pop, wins[pos], games, n, count)
                      for pop, (wins, games, count) in by_population.items()]
        out.append(q)
    return out


def per_count(n: int) -> str:
    """The `table` of the questions pooled over the tables of n players (seats, and option values)."""
    return f"{POOLED}-{n}p"


def seat_summary(c: dict, n: int) -> dict:
    """Win rate and mean rank by position and the largest seat edge, for one table and population."""
    fair = analysis.seat_fairness(c, n)
    ranks = [analysis.interval(tables.where(c["seats"], position=p)["rank"]) for p in range(n)]
    return {"games": fair["games"], "win_rate": [p["win_rate"] for p in fair["positions"]],
            "wins": [p["wins"] for p in fair["positions"]], "rank": ranks, "edge": fair["edge"]}


def pool_seats(pooled: dict, n: int, population: str, summary: dict) -> None:
    """Add one table's `seat_summary` to `pooled[n][population]`: (wins by position, games, tables) summed over
    the tables of n players, as `pooled_seat_questions` reads them."""
    wins, games, count = pooled[n].get(population, ([0.0] * n, 0, 0))
    pooled[n][population] = ([a + b for a, b in zip(wins, summary["wins"])], games + summary["games"], count + 1)


def option_questions(table, n: int, tabs_by_population: dict[str, dict], forbid: list[dict]) -> list[Question]:
    """Each option's value to the seat that may use it: the control seat's win rate minus the same seat's with
    the option forbidden (same deals). Characters (kind "character") also get their take rate and points per
    seal spent in the control; markets (kind "market") the share of control games in which that seat won a
    stall of the market (highest bid, paid). Each keeps its counts (control wins and games, restricted wins and
    games) for the value pooled over tables (`pooled_option_questions`)."""
    options = [Restriction.of(item) for item in forbid]
    out = {(o.kind, o.name): Question(o.kind, table.name, o.name, "pp") for o in options}
    for pop, tabs in tabs_by_population.items():
        rows = {r["arm"]: r for r in analysis.restricted_play(tabs, "default", n, [o.label for o in options],
                                                              runner.CONTROL)}
        control = analysis.cell(tabs, runner.CONTROL, "default", n)
        chars, closings = control["characters"], control["closings"]
        focal = tables.select(chars, chars["seat"] == chars["game"] % n)
        won = tables.select(closings, (closings["high_seat"] == closings["game"] % n) & (closings["high_paid"] == 1))
        games = tables.rows(control["games"])
        base = rows[runner.CONTROL]
        for o in options:
            r = rows[o.label]
            d, low, high = r["win_change"]
            q = out[o.kind, o.name]
            q.answers.append(Answer(pop, (-d, -high, -low), r["win_p"], r["detectable"]))   # control minus restricted
            counts = {"counts": (base["wins"], base["games"], r["wins"], r["games"]), "forced": r["forced"]}
            if o.kind == "character":
                mine = tables.where(focal, character=o.name)
                plays = tables.where(chars, character=o.name)
                q.extra[pop] = {"take_rate": proportion(len(set(mine["game"].tolist())), games),
                                "points_per_seal": analysis.interval(plays["score_gain"]), **counts}
            else:
                mine = tables.where(won, market=o.name)
                q.extra[pop] = {"stall_wins": proportion(len(set(mine["game"].tolist())), games), **counts}
    return list(out.values())


def pooled_option_questions(per_table: list[list[Question]], table: str = POOLED) -> list[Question]:
    """Each character's and market's value pooled over the valued tables that offer it (`table` names the pool:
    every valued table, or those of one player count, `per_count`), per population: the
    inverse-variance weighted mean of the tables' values (a fixed-effect meta-analysis), so one figure answers
    "is this option worth taking?" at a minimum detectable effect of a few points where one table's 1,000
    games per arm detect about 6. Each table's variance is the two independent proportions' (Agresti-Caffo:
    one win and one loss added to each arm), which overstates it under the arms' common deals, so the
    intervals are conservative. It is an average over player counts and rosters: a value that changes sign
    between tables averages out, and the per-table sections show it."""
    by_option: dict[tuple[str, str], list[Question]] = {}
    for qs in per_table:
        for q in qs:
            by_option.setdefault((q.kind, q.subject), []).append(q)
    out = []
    for (kind, name), qs in by_option.items():
        pooled = Question(kind, table, name, "pp", extra={"tables": [q.table for q in qs]})
        for pop in dict.fromkeys(a.population for q in qs for a in q.answers):
            pooled.answers.append(_pooled(pop, [_value(q, pop) for q in qs if pop in q.extra]))
        out.append(pooled)
    return out


def option_change_questions(pairs: list[tuple[list[Question], list[Question]]], axis: str) -> list[Question]:
    """What one axis of the table changes in each option's value: its value at the second table of a pair minus
    the first, per population, pooled over the pairs of valued tables that differ in that axis alone (each pair's
    variance the sum of its two tables', inverse-variance weighted as in `pooled_option_questions`). `axis`
    "memphis" pairs (off, on), "setup" (beginner, advanced); kinds f"{axis} character" and f"{axis} market"."""
    by_option: dict[tuple[str, str], list[tuple[Question, Question]]] = {}
    for first_qs, second_qs in pairs:
        second = {(q.kind, q.subject): q for q in second_qs}
        for q in first_qs:
            if (q.kind, q.subject) in second:
                by_option.setdefault((q.kind, q.subject), []).append((q, second[q.kind, q.subject]))
    out = []
    for (kind, name), both in by_option.items():
        question = Question(f"{axis} {kind}", CHANGED_BY[axis], name, "pp",
                            extra={"tables": [second.table for _, second in both]})
        for pop in dict.fromkeys(a.population for _, second in both for a in second.answers):
            diffs = []
            for first, second in both:
                if pop in first.extra and pop in second.extra:
                    (value_second, var_second), (value_first, var_first) = _value(second, pop), _value(first, pop)
                    diffs.append((value_second - value_first, var_second + var_first))
            if diffs:
                question.answers.append(_pooled(pop, diffs))
        out.append(question)
    return out


def _value(q: Question, pop: str) -> tuple[float, float]:
    """One table's option value to `pop` and its variance (Agresti-Caffo: a win and a loss added to each arm)."""
    cw, cn, rw, rn = q.extra[pop]["counts"]
    pc, pr = (cw + 1) / (cn + 2), (rw + 1) / (rn + 2)
    return cw / cn - rw / rn, pc * (1 - pc) / (cn + 2) + pr * (1 - pr) / (rn + 2)


def _pooled(pop: str, values: list[tuple[float, float]]) -> Answer:
    """One population's answer pooled over tables (`stats.pooled`)."""
    interval, p, se = pooled(values)
    return Answer(pop, interval, p, detectable(se), tables=len(values))


def memphis_question(off_table, on_table, off: dict[str, dict], on: dict[str, dict], n: int) -> Question:
    """What the Port of Memphis changes at one table: the mean score per seat (tested) and the largest
    seat edge off and on (for the figure)."""
    score = Question("memphis", on_table.name, "mean score per seat", "points",
                     extra={"players": n, "off": off_table.name, "edges": {}})
    for pop in off:
        a, b = on[pop]["seats"]["score"], off[pop]["seats"]["score"]
        score.answers.append(Answer(pop, diff_means(a, b), p_means(a, b), detectable_mean(a, b)))
        score.extra["edges"][pop] = {"off": seat_summary(off[pop], n)["edge"], "on": seat_summary(on[pop], n)["edge"]}
    return score
