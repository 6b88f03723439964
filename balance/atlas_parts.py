"""The atlas report's sections on the game's parts that hold no test: Memphis's papyrus and distributions,
each stall's closings and which one ends the game, gift types' points per Deben, and their figures.

Rows come from `atlas_questions` (the single study's analyses on the atlas's cells); a section over several
populations pools their games (`atlas_questions.pool`) where one figure per stall reads better than one per
population.
"""
from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

from . import atlas_plots, plots
from . import atlas_questions as Q
from .page import Page
from .report import num


def memphis_economy(page: Page, cells, by_table, played) -> None:
    rows = []
    for t in by_table.values():
        for pop in played[t.name] if t.memphis else []:
            e = Q.memphis_economy(cells[t.name, pop])
            rows.append([t.title, pop, f"{e['papyrus_per_seat']:.2f}", f"{100 * e['papyrus_share']:.1f}%",
                         f"{e['foreign_per_seat']:.2f}", f"{100 * e['foreign_share']:.1f}%",
                         f"{e['distributions']:.2f}", num(e["cards"], 2)])
    if not rows:
        return
    page.heading("Memphis: papyrus, foreign gifts and the Port's resolutions", 3)
    page.text("At each Memphis table: the papyrus's points per seat and share of all points scored; the foreign "
              "gifts' bonuses likewise (a foreign gift scores as its classic type, and its bonus adds to every item "
              "of that type its owner holds: these are the points the bonuses add); the Port's resolutions per game "
              "(distributions and its last resolution when Akhenaton comes up) and the cards each hands out (the "
              "highest bidder's, then the other servants' buys). What Memphis does to the score in all is its "
              "mean-score question above.")
    page.table(["table", "population", "papyrus points per seat", "papyrus share of points",
                "foreign bonus points per seat", "foreign bonus share of points", "Port resolutions per game",
                "cards per resolution"], rows)


def closings(page: Page, cells, by_table, played) -> None:
    page.heading("Stall closings per table")
    page.text("Per stall: closings per game (one figure per population, in the order of the table's populations), "
              "the conditions that closed it ('no servant left': a player closed it for lack of servants; "
              "'full': every square taken; 'distribution': Memphis's resolutions) and the share of games its "
              "closing ended (the last closing of a classic market, once Akhenaton has come up), both over every "
              "population's games.")
    rows = []
    for t in by_table.values():
        rows += Q.closing_rows(f"{t.title} ({', '.join(played[t.name])})",
                               {p: cells[t.name, p] for p in played[t.name]})
    page.table(["table (populations)", "stall", "closings per game", "closed by", "ends the game"], rows)


def gifts(page: Page, cells, by_table, played) -> None:
    page.heading("Gift types' points per Deben")
    page.text("Per table and population: a gift type's points at the end of the game over the Deben paid for its "
              "cards (a highest bidder's bid shared by the cards it took; `analysis.gift_economy`). A type above "
              "the others is cheap for what it scores; '-' where no one paid for it. A papyrus also brings its "
              "buyer a seal, which is not counted among the papyrus's points.")
    kinds = sorted({k for c in cells.values() for k in c["gifts"]["type"].tolist()})
    rows = []
    for t in by_table.values():
        for pop in played[t.name]:
            v = Q.points_per_deben(cells[t.name, pop])
            rows.append([t.title, pop, *("-" if math.isnan(v.get(k, math.nan)) else f"{v[k]:.2f}" for k in kinds)])
    page.table(["table", "population", *kinds], rows)


def figures(page: Page, folder: Path, cells, by_table, played) -> None:
    """Points per Deben per gift type and the stall that ends the game, per player count (pooled over its tables)."""
    by_count = defaultdict(lambda: defaultdict(list))
    for t in by_table.values():
        for pop in played[t.name]:
            by_count[t.players][pop].append(cells[t.name, pop])
    value = {n: {pop: Q.points_per_deben(Q.pool(cs)) for pop, cs in pops.items()} for n, pops in by_count.items()}
    path = plots.save(atlas_plots.points_per_deben(value), folder / "atlas_gifts.png")
    page.figure(path, "Gift types' points per Deben paid, per player count (pooled over the tables of that count)")
    ends = {n: Q.game_enders(Q.pool([c for cs in pops.values() for c in cs])) for n, pops in by_count.items()}
    path = plots.save(atlas_plots.game_enders(ends), folder / "atlas_closings.png")
    page.figure(path, "The stall whose closing ended the game, per player count (every table and population)")
