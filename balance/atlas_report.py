"""The atlas report: top findings in plain words, then seat fairness per table, the character and market
rankings, Memphis off and on, what Memphis and the advanced setup change in each option's value and (where
the config asks) in seat fairness, the tutors at 2 players, each stall's closings, gift types' points per
Deben and the cost of the run; `atlas.md` and the self-contained `atlas.html`.

Every test of the atlas (each seat of each table, each character and market, each Memphis comparison,
the tutors' cost to each position, each change in seat fairness, for every population that played the
table) is adjusted together by Benjamini-Hochberg (`stats.Findings`), and each question states its minimum
detectable effect (80% power, 5% two-sided) at the games played.
"""
from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import yaml

from nefertiti_env import load_ruleset

from . import analysis, atlas, atlas_parts, atlas_plots, atlas_questions, plots, runner, tables
from .atlas_findings import (CHANGED_BY, POOLED, Question, memphis_question, option_change_questions,
                             option_questions, pooled_option_questions,
                             per_count, pool_seats, pooled_seat_questions, seat_questions, seat_summary)
from .page import Page
from .report import num, pct, pp
from .stats import Findings

RATE = 0.05
VERDICT = {"game": "property of the game (populations agree)", "policy": "convention of a policy",
           "none": "no discovery"}


def load(folder: str | Path) -> atlas.AtlasConfig:
    return atlas.AtlasConfig.model_validate(yaml.safe_load((Path(folder) / atlas.ATLAS).read_text(encoding="utf-8")))


def write(folder: str | Path) -> Path:
    """Analyse every sub-study of the atlas in `folder` and write atlas.md, atlas.html and the figures."""
    folder = Path(folder)
    cfg = load(folder)
    cfg = cfg.model_copy(update={"out": str(folder)})
    subs = atlas.studies(cfg)
    by_table = {t.name: t for t, _, _ in subs}
    played = {name: atlas.populations(cfg, t) for name, t in by_table.items()}
    cells, values, games = {}, {}, 0
    for t in by_table.values():     # one table's raw games at a time: a whole atlas's would not fit in memory
        data, restricted = {}, []
        for _, pop, sub in (s for s in subs if s[0].name == t.name):
            data[pop] = tables.read_all(sub.out)
            runner.check_finished(sub.out, sub, tables.rows(data[pop]["games"]))
            cells[t.name, pop] = analysis.cell(data[pop], "main", "default", t.players)
            games += tables.rows(data[pop]["games"])
            restricted += [pop] if sub.restricted else []       # a search subset may play no arm
        if atlas.valued(cfg, t):
            values[t.name] = option_questions(t, t.players, {p: data[p] for p in played[t.name] if p in restricted},
                                              atlas.asked(cfg, t))
    findings = Findings(RATE)
    questions: list[Question] = []
    seat_rows, pooled, table_seats = [], defaultdict(dict), []
    for t in by_table.values():
        n = t.players
        mine = {pop: cells[t.name, pop] for pop in played[t.name]}
        table_seats += seat_questions(t, n, mine)
        for pop, c in mine.items():
            s = seat_summary(c, n)
            pool_seats(pooled, n, pop, s)
            seat_rows.append([t.title, pop, s["games"], " / ".join(f"{100 * w[0]:.0f}" for w in s["win_rate"]),
                              " / ".join(f"{r[0]:.2f}" for r in s["rank"]), num(tuple(100 * x for x in s["edge"]))])
    # not at a player count of one table: its table's seat questions would be asked twice in the family
    pooled_seat = [q for n, by_pop in sorted(pooled.items()) if max(c for *_, c in by_pop.values()) > 1
                   for q in pooled_seat_questions(n, by_pop)]
    questions += table_seats + pooled_seat
    questions += [q for qs in values.values() for q in qs]
    pooled_values = pooled_option_questions(list(values.values())) if len(values) > 1 else []
    by_count = defaultdict(list)            # the valued tables of each player count
    for name, qs in values.items():
        by_count[by_table[name].players].append(qs)
    count_values = {per_count(n): pooled_option_questions(v, per_count(n)) for n, v in sorted(by_count.items())
                    if len(by_count) > 1 and len(v) > 1}      # neither the whole pool again nor one table twice
    questions += pooled_values + [q for qs in count_values.values() for q in qs]
    twins = {axis: _twins(by_table, axis) for axis in CHANGED_BY}
    memphis, memphis_seats = [], []
    for off, t in twins["memphis"]:
        both = [p for p in played[t.name] if p in played[off.name]]
        on_c, off_c = ({p: cells[name, p] for p in both} for name in (t.name, off.name))
        memphis.append(memphis_question(off, t, off_c, on_c, t.players))
        memphis_seats += atlas_questions.memphis_seat_questions(off, t, off_c, on_c, t.players)
    rules = load_ruleset(cfg.ruleset)
    tutors = [atlas_questions.tutor_question(t, {p: cells[t.name, p] for p in played[t.name]},
                                             np.asarray(rules.type_values), list(rules.type_names))
              for t in by_table.values() if t.players == 2]
    pairs = {axis: [(values[a.name], values[b.name]) for a, b in twins[axis]     # valued pairs
                    if a.name in values and b.name in values] for axis in CHANGED_BY}
    changes = {axis: option_change_questions(pairs[axis], axis) for axis in CHANGED_BY}
    questions += memphis + memphis_seats + changes["memphis"] + tutors + changes["setup"]
    fairness = {axis: atlas_questions.fairness_changes(twins[axis], cells, played, axis) for axis in cfg.fairness}
    questions += [q for qs in fairness.values() for q in qs]
    for q in questions:
        q.register(findings)
    qv = findings.adjusted()
    tables.write(folder, "answers", _answers(questions, qv))

    pops = atlas.populations(cfg)
    page = Page("Balance atlas of Nefertiti")
    page.text(f"Populations (each in every seat, self-play): {', '.join(f'`{p}`' for p in pops)}; "
              f"{len(by_table)} tables: {games} games in all (seed {cfg.seed}). These describe the reconstructed "
              f"ruleset `{cfg.ruleset}` played by these bots; a finding is the game's only when every population "
              "that played its table shows it. A table a population did not play is marked \"not played\", an "
              "option it did not value \"not valued\": neither is a disagreement.")
    page.table(["population", "plays", "tables", "games per table", "valued tables", "games per restricted arm"],
               _populations(cfg, subs))
    page.text(findings.summary() + f"; a finding is a discovery of one population at q < {RATE:g}.")
    each = "each population over those it valued"       # a searching population may value fewer tables
    titled = {**by_table, POOLED: Pooled(f"All {len(values)} valued tables, pooled ({each})"),
              **{CHANGED_BY[axis]: Pooled(f"{_count(len(pairs[axis]), 'pair')} of valued tables with "
                                          f"{CHANGE[axis]['pairs']}, pooled ({each})") for axis in CHANGED_BY},
              **{per_count(n): Pooled(f"All tables of {n} players, pooled") for n in pooled},
              **{q.table: Pooled(f"{_count(q.extra['pairs'], 'pair')} of tables of {q.extra['players']} players "
                                 f"with {CHANGE[axis]['pairs']}, pooled") for axis, qs in fairness.items() for q in qs}}
    _top(page, questions, qv, titled)
    _figures(page, folder, pooled, {**({POOLED: pooled_values} if pooled_values else {}), **count_values, **values,
                                    **{CHANGED_BY[axis]: qs for axis, qs in changes.items() if qs}}, memphis, titled)
    atlas_parts.figures(page, folder, cells, by_table, played)
    page.heading("Seat fairness per table")
    page.text("Win rate (%) and mean rank by position in turn order (1 = first player; parity is 1/n and "
              "(n+1)/2), and the largest seat edge in win-rate points with its simultaneous 95% interval.")
    page.table(["table", "population", "games", "win % by position", "mean rank by position", "largest edge (pp)"],
               seat_rows)
    page.text("Minimum detectable seat edge (80% power), per player count and population: "
              + "; ".join(sorted({f"{q.extra['players']} players {a.population} {100 * a.detectable:.1f} pp"
                                  for q in table_seats for a in q.answers})) + ".")
    if pooled_seat:
        page.text("Pooled over the tables of each player count (each population over the tables it played), a "
                  "seat's edge is measured at several times one table's games:")
        _questions(page, "Pooled seats per player count", pooled_seat, qv, titled, pops)
    _questions(page, "Seats against parity", table_seats, qv, by_table, pops)
    if pooled_values:
        page.heading("Character and market value, pooled over the valued tables")
        page.text("Each option's value (below, per table) pooled over every valued table that offers it: the "
                  "inverse-variance weighted mean of the tables' values, per population (a fixed-effect "
                  "meta-analysis; each table's variance counts the arms as independent, so the intervals are "
                  "conservative). It averages over player counts and rosters; the per-table sections show where "
                  "a value differs.")
        for what in (CHARACTERS, MARKETS):
            _options(page, titled[POOLED], [q for q in pooled_values if q.kind == what["noun"]], qv, pops,
                     {**what, "text": "Ranked by the mean value over populations.",
                      "extra": _tables})
    if count_values:
        page.heading("Character and market value per player count")
        page.text("The same pooling over the valued tables of one player count (each population over those it "
                  "valued): an option whose value changes with the number of players shows it here, measured more "
                  "finely than at one table (the MDE column).")
        for name, qs in count_values.items():
            for what in (CHARACTERS, MARKETS):
                _options(page, titled[name], [q for q in qs if q.kind == what["noun"]], qv, pops,
                         {**what, "text": "Ranked by the mean value over populations.", "extra": _tables})
    for name, qs in values.items():
        _options(page, by_table[name], [q for q in qs if q.kind == "character"], qv, pops, CHARACTERS)
        _options(page, by_table[name], [q for q in qs if q.kind == "market"], qv, pops, MARKETS)
    if memphis:
        _questions(page, "What Memphis changes: mean score per seat, on minus off", memphis, qv, by_table, pops)
        _questions(page, "What Memphis changes: each position's win rate, on minus off", memphis_seats, qv,
                   by_table, pops)
    for axis, qs in changes.items():
        if qs:
            change = CHANGE[axis]
            page.heading(change["heading"])
            page.text(change["text"])
            for what in change["kinds"]:
                _options(page, titled[CHANGED_BY[axis]], [q for q in qs if q.kind == what["noun"]], qv, pops, what)
    for axis, qs in fairness.items():
        _fairness(page, axis, qs, qv, titled, pops)
    atlas_parts.memphis_economy(page, cells, by_table, played)
    if tutors:
        _tutors(page, [q for q in table_seats if q.extra["players"] == 2], tutors, qv, by_table, pops,
                {(q.table, pop): atlas_questions.tutor_use(cells[q.table, pop]) for q in tutors
                 for pop in q.extra["cost"]})
    atlas_parts.closings(page, cells, by_table, played)
    atlas_parts.gifts(page, cells, by_table, played)
    _cost(page, cfg, subs)
    _method(page)
    md = findings.fill(page.markdown())
    (folder / "atlas.md").write_text(md, encoding="utf-8")
    (folder / "atlas.html").write_text(findings.fill(page.html()), encoding="utf-8")
    return folder / "atlas.md"


@dataclass(frozen=True)
class Pooled:
    """Stands for a table in the report's titles where a question is pooled over several."""

    title: str


def _answers(questions: list[Question], qv) -> list[tuple]:
    """The rows of answers.csv: every figure the report judges, for a notebook that has no raw games."""
    rows = []
    for q in questions:
        scale = SCALE[q.unit]
        verdict = q.verdict(qv, RATE)
        rows += [(q.kind, q.table, q.subject, q.unit, a.population, *(round(scale * x, 4) for x in a.estimate),
                  f"{a.p:.4g}", f"{qv[a.test]:.4g}", round(scale * a.detectable, 4), verdict) for a in q.answers]
    return rows


def _populations(cfg: atlas.AtlasConfig, subs) -> list[list]:
    """Each population's tables and game counts, as played (policy alone: every table; searching: its subset,
    which may be every table too)."""
    rows, every = [], len(atlas.tables(cfg))
    for pop in atlas.populations(cfg):
        mine = [sub for _, p, sub in subs if p == pop]
        valued = [sub for sub in mine if sub.restricted]
        rows.append([f"`{pop}`", "every table" if len(mine) == every else "search subset", len(mine),
                     mine[0].games if mine else 0, len(valued), valued[0].restricted.games if valued else "-"])
    return rows


SCALE = {"points": 1, "pp": 100, "pp2": 10_000}      # a question's unit: its figures' factor and suffix
SUFFIX = {"points": "", "pp": " pp", "pp2": " pp²"}


def _figure(a, unit: str) -> str:
    return f"{a.population} {num(tuple(SCALE[unit] * x for x in a.estimate), 1, sign=True)}{SUFFIX[unit]}"


def _top(page: Page, questions: list[Question], qv, by_table) -> None:
    """Properties of the game first, then policies' conventions, the largest effects first: measured in their
    minimum detectable effects, since questions in points and in win-rate points share the list."""
    page.heading("Top findings")
    judged = [(q, q.verdict(qv, RATE)) for q in questions]
    found = [(q, v) for q, v in judged if v != "none"]
    found.sort(key=lambda qv_: (qv_[1] != "game", -max(abs(a.estimate[0]) / a.detectable if a.detectable > 0 else 0
                                                      for a in qv_[0].answers)))
    if not found:
        page.text("No discovery at this scale: every effect is below its minimum detectable effect or absent.")
        return
    lines = []
    for q, v in found[:15]:
        figures = "; ".join(_figure(a, q.unit) + (f" ({_q(qv, a)})") for a in q.answers)
        more = _mean(q) > 0
        what = {"seat": f"{q.subject} wins {'more' if more else 'less'} often than parity",
                "character": f"the option of the {q.subject} is worth {'more' if more else 'less'} than "
                             "nothing to its seat",
                "market": f"the option of placing servants at {q.subject} is worth {'more' if more else 'less'} "
                          "than nothing to its seat",
                "memphis": f"Memphis {'raises' if more else 'lowers'} the mean score per seat",
                "memphis seat": f"Memphis {'raises' if more else 'lowers'} the win rate of {q.subject}",
                "memphis character": f"Memphis makes the option of the {q.subject} worth {'more' if more else 'less'}"
                                     " to its seat",
                "memphis market": f"Memphis makes the option of placing servants at {q.subject} worth "
                                  f"{'more' if more else 'less'} to its seat",
                "setup character": f"the advanced stalls make the option of the {q.subject} worth "
                                   f"{'more' if more else 'less'} to its seat",
                "setup market": f"the advanced stalls make the option of placing servants at {q.subject} worth "
                                f"{'more' if more else 'less'} to its seat",
                "setup fairness": f"the advanced stalls bring the seats {'further from' if more else 'nearer to'} "
                                  "parity",
                "memphis fairness": f"Memphis brings the seats {'further from' if more else 'nearer to'} parity",
                "tutor": f"the tutors' cards cost the first player {'more' if more else 'less'} points than "
                         "the second"}[q.kind]
        who = ("every population that played it agrees (" + ", ".join(a.population for a in q.answers)
               + "): a property of the game" if v == "game" else
               "the populations disagree: a convention of " + ", ".join(
                   a.population for a in q.answers if qv[a.test] < RATE))
        lines.append(f"**{by_table[q.table].title}**: {what} ({figures}); {who}.")
    page.bullets(lines)


def _mean(q: Question) -> float:
    return sum(a.estimate[0] for a in q.answers) / len(q.answers)


def _q(qv, a) -> str:
    q = qv[a.test]
    return "q n/a" if math.isnan(q) else (f"**q = {q:.2g}**" if q < RATE else f"q = {q:.2g}")


def _mde(q: Question) -> str:
    """The question's minimum detectable effect: one figure, or the range over populations (their games differ)."""
    scale = SCALE[q.unit]
    low, high = (scale * f(a.detectable for a in q.answers) for f in (min, max))
    return f"{low:.1f}" if round(low, 1) == round(high, 1) else f"{low:.1f}-{high:.1f}"


def _cells(q: Question, pops: list[str], cell, absent: str = "not played") -> list[str]:
    """One cell per population of the atlas, in its order; `absent` where it has no answer: "not played" for a
    table it did not play, "not valued" for an option it did not value (it may have played the table)."""
    answers = {a.population: a for a in q.answers}
    return [cell(answers[p]) if p in answers else absent for p in pops]


def _questions(page: Page, title: str, questions: list[Question], qv, by_table, pops: list[str]) -> None:
    page.heading(title, 3)
    rows = [[by_table[q.table].title, q.subject, *_cells(q, pops, lambda a: _figure(a, q.unit) + f" ({_q(qv, a)})"),
             VERDICT[q.verdict(qv, RATE)], _mde(q)] for q in questions]
    page.table(["table", "question", *pops, "verdict", "MDE"], rows)


CHARACTERS = {
    "noun": "character", "title": "Character value", "figure": "atlas_characters",
    "text": "Value: the win rate of the seat that may take the character (unrestricted control) minus the same "
            "seat's with that character forbidden by the engine (same deals), in points of win rate. Take rate: "
            "share of control games in which that seat played it; points per seal: the score the play gained, "
            "Deben and points, net of the seal spent on it (mean over every play of the control, any seat). "
            "Ranked by the mean value over populations. In an expansion "
            "table a drawn character is absent from some deals, which dilutes its value.",
    "extra": lambda q, a: f"take {pct(q.extra[a.population]['take_rate'])}; "
                          f"{num(q.extra[a.population]['points_per_seal'])} pts/seal"}
MARKETS = {
    "noun": "market", "title": "Market value", "figure": "atlas_markets",
    "text": "Value: the win rate of the seat that may place servants at the market (unrestricted control) minus "
            "the same seat's with every square of that market forbidden by the engine (same deals), in points of "
            "win rate. Stall wins: share of control games in which that seat won a stall of the market (highest "
            "bid, paid). Ranked by the mean value over populations; a market that opens late (Louqsor) is "
            "forbidden only once it opens.",
    "extra": lambda q, a: f"stall wins {pct(q.extra[a.population]['stall_wins'])}"}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _tables(q: Question, a) -> str:
    return _count(a.tables, "table")


MEMPHIS_CHARACTERS = {"noun": "memphis character", "title": "Memphis on minus off, character value",
                      "figure": "atlas_memphis_characters", "text": "Ranked by the mean change over populations; "
                      "each cell: the change (q), and the pairs of tables pooled.",
                      "extra": lambda q, a: _count(a.tables, "pair")}
MEMPHIS_MARKETS = {**MEMPHIS_CHARACTERS, "noun": "memphis market", "title": "Memphis on minus off, market value",
                   "figure": "atlas_memphis_markets"}
SETUP_CHARACTERS = {**MEMPHIS_CHARACTERS, "noun": "setup character", "figure": "atlas_setup_characters",
                    "title": "Advanced minus beginner stalls, character value"}
SETUP_MARKETS = {**MEMPHIS_CHARACTERS, "noun": "setup market", "figure": "atlas_setup_markets",
                 "title": "Advanced minus beginner stalls, market value"}
CHANGE = {
    "memphis": {"pairs": "Memphis off and on", "kinds": (MEMPHIS_CHARACTERS, MEMPHIS_MARKETS),
                "heading": "What Memphis changes: each character's and market's value, on minus off",
                "text": "An option's value (above) at a table with Memphis on minus its value at the same table "
                        "with Memphis off, per population, pooled over the pairs of valued tables that differ in "
                        "Memphis alone (inverse-variance weighted; each pair's variance is the sum of its two "
                        "tables'). Positive: the Port makes the option worth more to its seat."},
    "setup": {"pairs": "the beginner and advanced stalls", "kinds": (SETUP_CHARACTERS, SETUP_MARKETS),
              "heading": "What the advanced setup changes: each character's and market's value, advanced minus "
                         "beginner",
              "text": "An option's value (above) at a table with the advanced stalls minus its value at the same "
                      "table with the beginner stalls, per population, pooled over the pairs of valued tables that "
                      "differ in the setup alone (inverse-variance weighted; each pair's variance is the sum of its "
                      "two tables'). Positive: the advanced stalls make the option worth more to its seat."},
}


FAIRNESS = {"memphis": {"heading": "Does Memphis make the seats fairer?", "change": "on minus off",
                        "differ": "Memphis", "rms": "off → on", "fairer": "the tables with Memphis on"},
            "setup": {"heading": "Does the advanced setup make the seats fairer?", "change": "advanced minus beginner",
                      "differ": "the setup", "rms": "beginner → advanced", "fairer": "the advanced tables"}}


def _fairness(page: Page, axis: str, qs: list[Question], qv, titled, pops: list[str]) -> None:
    """One test per player count: does the option bring the seats nearer parity (`fairness_changes`)?"""
    if not qs:
        return
    what = FAIRNESS[axis]
    page.heading(what["heading"])
    page.text(f"Seat unfairness: the mean over positions of (win rate - parity)^2, in squared points of win rate "
              f"(pp²), estimated without bias (fair seats average 0). Each cell: its change, {what['change']}, "
              f"averaged over the pairs of tables of that player count that differ in {what['differ']} alone "
              f"(q); then the root-mean-square seat edge, {what['rms']} (pp, for reading). Negative: "
              f"{what['fairer']} are fairer. In simulated atlases the interval covers the true change in 93-100% "
              "of them, most often at fair seats, where it is conservative.")
    rows = [[titled[q.table].title, *_cells(q, pops, lambda a, q=q: f"{_figure(a, q.unit)} ({_q(qv, a)}); "
                                                                     + " → ".join(f"{100 * r:.1f}" for r in
                                                                                  q.extra["rms"][a.population])),
             VERDICT[q.verdict(qv, RATE)], _mde(q)] for q in qs]
    page.table(["tables", *pops, "verdict", "MDE (pp²)"], rows)


def _twins(by_table: dict[str, atlas.Table], axis: str) -> list[tuple[atlas.Table, atlas.Table]]:
    """Each pair of the atlas's tables that differ in `axis` alone: (Memphis off, on) or (beginner, advanced
    stalls), in the atlas's order of the second."""
    first, second = {"memphis": (False, True), "setup": ("beginner", "advanced")}[axis]
    named = [(replace(t, **{axis: first}).name, t) for t in by_table.values() if getattr(t, axis) == second]
    return [(by_table[name], t) for name, t in named if name in by_table]


def _options(page: Page, table, qs: list[Question], qv, pops: list[str], what: dict) -> None:
    """The value of each character (or market) of a valued table, ranked, one column per population."""
    if not qs:
        return
    page.heading(f"{what['title']}: {table.title}")
    page.text(what["text"])
    answering = [p for p in pops if any(a.population == p for q in qs for a in q.answers)]
    rows = [[q.subject, *_cells(q, answering, lambda a: f"{pp(a.estimate)} ({_q(qv, a)}); "
                                                          + what["extra"](q, a), "not valued"),
             VERDICT[q.verdict(qv, RATE)], _mde(q)] for q in sorted(qs, key=lambda q: -_mean(q))]
    page.table([what["noun"], *answering, "verdict", "MDE (pp)"], rows)


def _figures(page: Page, folder: Path, pooled, values, memphis, by_table) -> None:
    page.heading("Figures")
    path = plots.save(atlas_plots.seats(dict(pooled)), folder / "atlas_seats.png")
    page.figure(path, "Seat fairness per player count (pooled over the tables of that count each population played)")
    for name, qs in values.items():
        for what in (CHARACTERS, MARKETS, MEMPHIS_CHARACTERS, MEMPHIS_MARKETS, SETUP_CHARACTERS, SETUP_MARKETS):
            mine = sorted((q for q in qs if q.kind == what["noun"]), key=lambda q: -_mean(q))
            if mine:
                ranking = [(q.subject, {a.population: a.estimate for a in q.answers}) for q in mine]
                path = plots.save(atlas_plots.options(ranking, f"{what['title']}: {by_table[name].title}"),
                                  folder / f"{what['figure']}_{name}.png")
                page.figure(path, f"{what['title']} ranking with 95% intervals: {by_table[name].title}")
    if memphis:
        edges = defaultdict(dict)
        for q in memphis:
            for pop, e in q.extra["edges"].items():      # the first table of each count
                edges[q.extra["players"]].setdefault(pop, e)
        path = plots.save(atlas_plots.memphis(dict(edges)), folder / "atlas_memphis.png")
        page.figure(path, "Largest seat edge with Memphis off and on (first table of each player count)")


def _tutors(page: Page, seats: list[Question], tutors: list[Question], qv, by_table, pops: list[str],
            use: dict[tuple[str, str], list[dict]]) -> None:
    """At 2 players every game has tutors, so the 2-player seat questions are the tutor game's fairness; the
    tutors' own effect is what they do and what their cards cost each position."""
    page.heading("The tutors at 2 players")
    page.text("Every 2-player game is played with tutors (there is no tutor-free control in the atlas), so the "
              "2-player seat questions below are the fairness of the tutor game. The tutors' own effect is "
              "what their cards cost the players: the points a seat's gifts lose because the neutral owner also "
              "holds their type (items x the value with one owner fewer minus the value scored), the first "
              "player minus the second.")
    _questions(page, "Seats at 2 players (with tutors)", seats, qv, by_table, pops)
    _questions(page, "Points lost to the tutors' cards", tutors, qv, by_table, pops)
    page.table(["table", "population", "position 1: points lost per game", "position 2"],
               [[by_table[q.table].title, pop, num(first), num(second)]
                for q in tutors for pop, (first, second) in q.extra["cost"].items()])
    page.text("What the tutors do, by position (first player / second): tutors placed per game; the share of "
              "chances to place one that were declined; of those resolved, the share that took Deben (the rest "
              "took a gift for the neutral owner); the share still on the board when the game ended; their mean "
              "bid; the markets they were placed at, most used first. A study played before tutors were "
              "recorded shows none.")

    def both(rows, key, fmt):
        return " / ".join("-" if math.isnan(r[key]) else fmt(r[key]) for r in rows)

    def share(x: float) -> str:
        return f"{100 * x:.0f}%"

    page.table(["table", "population", "placed per game", "declined", "took Deben", "unresolved", "mean bid",
                "markets (position 1)"],
               [[by_table[name].title, pop, both(rows, "per_game", lambda x: f"{x:.2f}"),
                 both(rows, "declined", share), both(rows, "deben", share), both(rows, "unresolved", share),
                 both(rows, "bid", lambda x: f"{x:.1f}"),
                 ", ".join(f"{m} {share(x)}" for m, x in list(rows[0]["markets"].items())[:3]) or "-"]
                for (name, pop), rows in use.items()])


def _cost(page: Page, cfg, subs) -> None:
    """Games/s per table (from each sub-study's run.json) and what the full scale would cost at these rates."""
    page.heading("Cost")
    rows, games, seconds = [], 0, 0.0
    hours, full = {"policy alone": 0.0, "searching": 0.0}, {"policy alone": 0, "searching": 0}
    for t, pop, sub in subs:
        try:
            run = json.loads((Path(sub.out) / "run.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        timed = run.get("timed_games", run["games"])        # a killed session's games were never timed
        rate = timed / run["seconds"] if run["seconds"] else math.nan
        games, seconds = games + timed, seconds + run["seconds"]
        arms = len(sub.restricted.forbid) + 1 if sub.restricted else 0
        scale = max(1000, cfg.games) * (1 + arms)          # >= 1,000 games per table, population and arm
        kind = "policy alone" if pop in cfg.populations else "searching"
        full[kind] += scale
        hours[kind] += scale / rate / 3600 if rate > 0 else 0.0      # a sub-study too short to time adds nothing
        rows.append([t.title, pop, run["games"], f"{run['seconds']:.1f}", f"{rate:.1f}"])
    page.text("Games per second of each table and population (the restricted arms included) on the machine that "
              "ran the atlas: machine dependent, from each sub-study's run.json.")
    page.table(["table", "population", "games", "seconds", "games/s"], rows)
    if games and seconds:
        cost = "; ".join(f"{kind} {full[kind]:,} games, about {hours[kind]:.1f} hours" for kind in full if full[kind])
        page.text(f"This run: {games} games in {seconds / 60:.1f} minutes. At these rates, per table and "
                  f"population, the atlas's tables at 1,000 games per table, population and arm would take, on the "
                  f"same machine: {cost}. A headline question at 3 points of minimum "
                  "detectable effect needs about 3,500 games per arm for a difference of two win rates near 25% "
                  "(restricted play) or 1,700 for one win rate against parity.")


def _method(page: Page) -> None:
    page.heading("Method")
    page.bullets([
        "Each table and population is a balance study of its own (`<table>/<population>/`: the lab's CSV tables); "
        "all populations of a table meet the same deals (common random numbers).",
        "Character value is restricted play (Jaffe et al. 2012, *Evaluating competitive game balance with "
        "restricted play*): the option is removed from one seat by the engine's legal-move generation, so "
        "searching bots re-plan under it; the control is the same seat of the same deals, unrestricted.",
        "Populations stand in for the strong agents of Tomasev et al. 2020 (*Assessing game balance with "
        "AlphaZero*): a finding is the game's only when the interval of every population that played the table "
        "shares a point and signs agree (a table a population did not play is no disagreement).",
        "Multiplicity: Benjamini-Hochberg over every test of the atlas (q-values); MDE: the smallest effect found "
        "with 80% power at 5% two-sided, at the games played; an interval holding 0 means not measured below it.",
    ])
