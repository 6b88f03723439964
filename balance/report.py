"""The Markdown report of a study folder, with its PNG figures.

Built from the folder's CSV tables and `study.yaml` only, so `nefertiti balance
--report-only FOLDER` redraws it and the same tables give the same report. Timings
(which vary by machine) are in `run.json`, not here.
"""
from __future__ import annotations

import math
from pathlib import Path

from nefertiti_env import load_ruleset

from . import analysis as A
from . import config
from . import plots, runner, tables
from .page import table
from .restrict import Restriction
from .runner import CONTROL
from .stats import Findings

SUMMARY = "\x00summary\x00"     # where the count of tests and discoveries goes once every test is known


def pct(t) -> str:
    """'25.5% [20.0, 32.0]' from an (estimate, low, high) proportion triple."""
    return "n/a" if t is None or math.isnan(t[0]) else f"{100 * t[0]:.1f}% [{100 * t[1]:.1f}, {100 * t[2]:.1f}]"


def pp(t) -> str:
    """A difference of proportions in percentage points."""
    return "n/a" if t is None or math.isnan(t[0]) else f"{100 * t[0]:+.1f} pp [{100 * t[1]:+.1f}, {100 * t[2]:+.1f}]"


def num(t, digits: int = 1, sign: bool = False) -> str:
    if t is None or math.isnan(t[0]):
        return "n/a"
    f = f"{{:{'+' if sign else ''}.{digits}f}}"
    low = "?" if math.isnan(t[1]) else f.format(t[1])
    high = "?" if math.isnan(t[2]) else f.format(t[2])
    return f"{f.format(t[0])} [{low}, {high}]"


def _memphis(memphis) -> str:
    return {None: "where mandatory (5 players)", True: "on", False: "off"}[memphis]


def write(folder: str | Path) -> Path:
    """Analyse the study in `folder` and write report.md and the PNG figures there."""
    folder = Path(folder)
    study = config.read(folder / "study.yaml")
    cfg = config.parse(study, str(folder / "study.yaml"))       # the file a finished study wrote, unchanged
    tabs = tables.read_all(folder)
    runner.check_finished(folder, cfg, tables.rows(tabs["games"]))
    names = list(study["rulesets"])
    base = names[0]
    counts = sorted(set(tabs["games"]["players"][tabs["games"]["arm"] == "main"].tolist()))
    seed = study["seed"]
    cells = {(r, n): A.cell(tabs, "main", r, n) for r in names for n in counts}
    fairness = {r: {n: A.seat_fairness(cells[r, n], n) for n in counts} for r in names}
    findings = Findings()
    for f in fairness[base].values():        # one test each, shown in the headlines and in section 1
        f["chi2_q"] = findings.test(f["chi2"][2], lambda level, f=f: num(f["edge_at"](level), 3))
        f["first_q"] = findings.test(f["first_player_p"], lambda level, f=f: pp(f["first_player_at"](level)))
    out: list[str] = []
    w = out.append

    total = tables.rows(tabs["games"])
    w("# Nefertiti balance study\n")
    w(f"{total} games, seed {seed}, {study.get('setup', 'beginner')} setup, "
      f"{study.get('characters', 'base')} characters, Memphis {_memphis(study.get('memphis'))}, rulesets "
      + ", ".join(f"`{r}` ({study['rulesets'][r]})" for r in names) + f"; baseline `{base}`. "
      "Intervals are 95%. Positions are in turn order (1 = first player). "
      "Reproduce with `nefertiti balance --config study.yaml` (the file next to this report; `--out` "
      "picks another folder); the same seed gives the same tables and report, whatever `--workers`.\n")
    w(f"**Multiplicity**: {SUMMARY}. Each test's q-value (its Benjamini-Hochberg adjusted p-value) stands "
      "next to its p-value or interval; a discovery's interval is repeated at the false-coverage-rate level "
      "(Benjamini-Yekutieli), so selected findings keep their coverage. Every other interval is reported, "
      "none selected, at 95%. An interval holding 0 finds no effect, which is not evidence of none "
      "(restricted play gives the minimum detectable effect of its games, at 80% power).\n")
    own = study.get("ruleset_lineups") or {}
    w(table(["players", "games per ruleset", "line-up (seats rotate over games)"],
            [[n, study["games"], ", ".join(study["lineups"][n])
              + "".join(f"; under `{r}`: {', '.join(own[r][n])}" for r in names if r in own)] for n in counts]))

    w("\n## Headlines\n")
    for n in counts:
        f = fairness[base][n]
        shape = A.game_shape(cells[base, n])
        w(f"- **{n} players** ({f['games']} games): largest seat edge {num(f['edge'], 3)}, chi-squared "
          f"p = {f['chi2'][2]:.3g} ({f['chi2_q']}); first-player edge {pp(f['first_player_edge'])} over 1/{n} "
          f"({f['first_q']}); {shape['turns']['mean'][0]:.1f} turns and {shape['decisions']['mean'][0]:.0f} "
          f"decisions per game, margin {shape['margin']['mean'][0]:.1f} points, "
          f"{shape['lead_changes']['mean'][0]:.1f} lead changes.")
    w("")

    _seats(w, study, base, counts, fairness[base], cells, folder)
    _gifts(w, base, counts, cells, folder)
    _characters(w, base, counts, cells, tabs, study, folder, findings)
    _markets(w, base, counts, cells, folder)
    _shape(w, base, counts, cells, folder)
    if len(names) > 1:
        _rulesets(w, names, counts, cells, fairness, folder, findings, own)
    text = findings.fill("\n".join(out).replace(SUMMARY, findings.summary()))
    path = folder / "report.md"
    path.write_text(text + "\n", encoding="utf-8")
    return path


def _seats(w, study, base, counts, fairness, cells, folder):
    w("## 1. Seat fairness\n")
    w("The chi-squared test asks whether the win counts per position could share one expected value. The largest "
      "seat edge is max |win rate - 1/n| over positions; its interval comes from simultaneous (Bonferroni) Wilson "
      "intervals of the win rates, so it covers the true edge at 95% or more, 0 included (its estimate is biased "
      "upwards near parity: read the interval). A shared win counts 1/k for each of k winners.\n")
    w("A seat finding from one population of bots (self-play, or one line-up) is that population's: a policy "
      "can learn conventions for where it sits. It is a property of the game only when at least two populations "
      "(other bots, other policies) agree within their intervals.\n")
    rules = load_ruleset(study["rulesets"][base])
    for n in counts:
        f = fairness[n]
        money = rules.players[n].money
        w(f"### {n} players\n")
        w(table(["position", "starting Deben", "win rate", "mean score"],
                [[p["position"] + 1, money[p["position"]], pct(p["win_rate"]), num(p["score"])]
                 for p in f["positions"]]))
        stat, df, p = f["chi2"]
        w(f"\nChi-squared {stat:.2f} on {df} df, p = {p:.3g} ({f['chi2_q']}); largest seat edge "
          f"{num(f['edge'], 3)}; first-player edge {pp(f['first_player_edge'])} over the fair 1/{n} "
          f"({f['first_q']}).\n")
        bots = A.bot_results(cells[base, n])
        if len(bots) > 1:
            w(table(["bot", "seat-games", "win rate", "mean score"],
                    [[b["bot"], b["seat_games"], pct(b["win_rate"]), num(b["score"])] for b in bots]))
            w("")
    plots.save(plots.seats(fairness), folder / "seats.png")
    w("![win rate and mean score by position](seats.png)\n")


def _gifts(w, base, counts, cells, folder):
    w("## 2. Gifts\n")
    w("Points by source over all seats. Deben per card: bids paid for cards of the type (a highest bidder's "
      "bid is shared by the cards it took); Deben per point: those Deben over the type's points at the end. "
      "Monopoly: the game ends with one owner of the type.\n")
    sources, economy = {}, {}
    for n in counts:
        sources[n] = A.points_by_source(cells[base, n])
        economy[n] = A.gift_economy(cells[base, n])
        w(f"### {n} players\n")
        w(table(["source", "share of points", "points per seat"],
                [[s["source"], f"{100 * s['share']:.1f}%", f"{s['per_seat']:.1f}"] for s in sources[n]]))
        w("")
        w(table(["gift type", "cards bought per game", "Deben per card", "Deben per point", "points per game",
                 "owners at the end", "items per owner", "monopoly games"],
                [[e["type"], f"{e['cards_bought']:.2f}", f"{e['deben_per_card']:.2f}", f"{e['deben_per_point']:.2f}",
                  f"{e['points_per_game']:.1f}", num(e["owners"], 2), f"{e['items_per_owner']:.2f}",
                  pct(e["monopoly"])] for e in economy[n]]))
        w("")
    games = {n: tables.rows(cells[base, n]["games"]) for n in counts}
    plots.save(plots.gifts(sources, economy, games), folder / "gifts.png")
    w("![points by source, Deben per point, monopolies](gifts.png)\n")


def _characters(w, base, counts, cells, tabs, study, folder, findings):
    w("## 3. Characters\n")
    w("Timing: turn of play over the game's turns. Immediate gain: the player's score (and margin over the best "
      "other seat) right after the character's choices minus just before, net of the seal spent (3 points). Played vs not: seats that played the "
      "character at least once against all other seats; an association, not an effect (a seat needs a seal to "
      "play one), which restricted play below measures.\n")
    for n in counts:
        use = A.character_use(cells[base, n], n)
        w(f"### {n} players\n")
        w(table(["character", "plays per game", "turn", "timing", "by position (1..n)", "immediate score gain",
                 "immediate margin gain", "win rate played", "win rate not", "difference", "score difference"],
                [[u["character"], f"{u['per_game']:.2f}", num(u["turn"]), num(u["timing"], 2),
                  " / ".join(f"{100 * x:.0f}%" for x in u["by_position"]), num(u["score_gain"]),
                  num(u["margin_gain"]), pct(u["win_used"]), pct(u["win_not"]),
                  f"{pp(u['win_diff'])}, {findings.test(u['win_p'], lambda lv, u=u: pp(u['win_at'](lv)))}",
                  f"{num(u['score_diff'], sign=True)}, "
                  f"{findings.test(u['score_p'], lambda lv, u=u: num(u['score_at'](lv), sign=True))}"]
                 for u in use]))
        bots = sorted({b for u in use for b in u["by_bot"]})
        if len(bots) > 1:
            w("\nPlays by bot: " + "; ".join(f"{u['character']}: " + ", ".join(
                f"{b} {u['by_bot'].get(b, 0)}" for b in bots) for u in use) + ".\n")
        w("")
        if n == counts[-1]:
            plots.save(plots.characters(use, f"{n} players, {tables.rows(cells[base, n]['games'])} games"),
                       folder / "characters.png")
            w("![character plays and association with winning](characters.png)\n")

    r = study.get("restricted")
    if not r:
        return
    options = [Restriction.of(x) for x in r["forbid"]]
    rules = load_ruleset(study["rulesets"][base])
    w("### Restricted play\n")
    w(f"`{r['bot']}` in every seat; in game i the seat i mod n is forbidden one character (or placing on one "
      "market) and is compared with the same seat in the unrestricted control arm, on the same deals. The "
      "engine keeps the restriction (the game's `forbidden` option), whatever the bot; forced decisions are those "
      "in which it lifted it (only forbidden actions or only characters were left). A negative change means the "
      "option helps its user. Detectable: the smallest change of win rate these games find with 80% power (5%, "
      "two-sided); an interval holding 0 says the change is smaller than that, or not measured, not that there "
      "is none.\n")
    results = {}
    for n in r["player_counts"]:
        arms = [o.label for o in options if o.in_game(rules, n)]
        results[n] = A.restricted_play(tabs, base, n, arms, CONTROL)
        w(f"**{n} players**, {r['games']} games per arm\n")
        idle = [o.name for o in options if o.label not in arms]
        if idle:
            w(f"Not dealt at {n} players, so not measured (the arm plays the control game for game): "
              f"{', '.join(idle)}.\n")
        w(table(["arm", "win rate of the restricted seat", "change", "detectable", "mean score", "score change",
                 "forced decisions per game"],
                [[x["arm"], pct(x["win_rate"]),
                  f"{pp(x['win_change'])}, {findings.test(x['win_p'], lambda lv, x=x: pp(x['win_at'](lv)))}"
                  if x["win_change"] else "-",
                  f"±{100 * x['detectable']:.1f} pp", num(x["score"]),
                  f"{num(x['score_change'], sign=True)}, "
                  f"{findings.test(x['score_p'], lambda lv, x=x: num(x['score_at'](lv), sign=True))}"
                  if x["score_change"] else "-", f"{x['forced']:.2f}"] for x in results[n]]))
        w("")
    plots.save(plots.restricted(results), folder / "restricted.png")
    w("![win-rate change under restriction](restricted.png)\n")


def _markets(w, base, counts, cells, folder):
    w("## 4. Markets\n")
    w("Per stall: closings per game and the condition that closed it ('full': every square taken; 'no servant "
      "left': a player closed it by choice), servants resolved, winning (highest) bid, how often the highest "
      "bidder could not pay, cards bought by the other servants, half-Reserve takes, cards left unbought.\n")
    for n in counts:
        stalls = A.market_stats(cells[base, n])
        w(f"### {n} players\n")
        w(table(["stall", "closings per game", "closed by", "servants", "winning bid", "highest bidder could not pay",
                 "other buys", "half takes", "cards left"],
                [[s["stall"], f"{s['per_game']:.2f}", ", ".join(f"{k} {100 * v:.0f}%" for k, v in
                                                                 s["conditions"].items()),
                  num(s["servants"]), num(s["winning_bid"]), pct(s["unpaid"]), f"{s['bought']:.2f}",
                  f"{s['halves']:.2f}", num(s["cards_left"], 2)] for s in stalls]))
        w("")
        if n == counts[-1]:
            plots.save(plots.markets(stalls, f"{n} players, {tables.rows(cells[base, n]['games'])} games"),
                       folder / "markets.png")
            w("![closings per stall and winning bids](markets.png)\n")


def _shape(w, base, counts, cells, folder):
    w("## 5. Game length, score margins, lead changes\n")
    w("Margin: winner's score minus the best other score (0 when Deben broke a tie). Lead change: the sole "
      "leader by current score (gifts at their current value, 1 per 2 Deben, 3 per seal, points scored) after "
      "a turn differs from the previous sole leader; ties are skipped.\n")
    rows = []
    for n in counts:
        s = A.game_shape(cells[base, n])
        for label, key in (("turns", "turns"), ("decisions", "decisions"), ("score margin", "margin"),
                           ("lead changes", "lead_changes")):
            d = s[key]
            rows.append([n, label, num(d["mean"]), f"{d['min']:.0f}", f"{d['median']:.0f}", f"{d['p90']:.0f}",
                         f"{d['max']:.0f}"])
    w(table(["players", "per game", "mean", "min", "median", "90%", "max"], rows))
    w("")
    rows = []
    for n in counts:
        s = A.game_shape(cells[base, n])
        rows.append([n, pct(s["close"]), pct(s["shared"]), pct(s["no_lead_change"]), num(s["last_change"], 2)])
    w(table(["players", "margin <= 2 points", "shared win", "no lead change", "last lead change (share of game)"],
            rows))
    w("")
    plots.save(plots.game_shape({n: cells[base, n]["games"] for n in counts}), folder / "game_shape.png")
    w("![game length, margins, lead changes](game_shape.png)\n")


def _rulesets(w, names, counts, cells, fairness, folder, findings, own):
    base = names[0]
    w("## 6. Ruleset comparison\n")
    players = ("the same line-ups, except " + ", ".join(f"`{r}`" for r in names if r in own)
               + ", played by its own (the line-up table above)") if own else "the same line-ups"
    w(f"Each ruleset plays the same deals (seeds) with {players}. Differences are other - `{base}`: "
      "proportions by Newcombe's interval and the chi-squared test, means by Welch's interval and t test.\n")
    for other in names[1:]:
        for n in counts:
            rows = A.compare(cells[base, n], cells[other, n], n)
            w(f"### `{other}` vs `{base}`, {n} players\n")
            w(table(["metric", base, other, "difference"],
                    [[r["metric"], *_format_pair(r, findings)] for r in rows]))
            w("")
    plots.save(plots.rulesets(fairness), folder / "rulesets.png")
    w("![win rate by position per ruleset](rulesets.png)\n")


def _format_pair(r, findings) -> list[str]:
    metric = r["metric"]
    if metric.startswith(("win rate", "monopoly", "share of points")):
        show = pp
        cells = [pct(r["base"]), pct(r["other"])]
    else:
        digits = 3 if metric == "largest seat edge" else 1
        show = lambda t: num(t, digits, sign=True)  # noqa: E731
        cells = [num(r["base"], digits), num(r["other"], digits)]
    if r["at"] is None:
        return [*cells, "-"]
    return [*cells, f"{show(r['diff'])}, {findings.test(r['p'], lambda lv, r=r: show(r['at'](lv)))}"]
