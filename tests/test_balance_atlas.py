"""The balance atlas: its tables and sub-studies, the search subset, the verdict across populations, a whole
small atlas by the command (resume, character and market control kept by the engine, report), and its HTML
page in Chromium."""
from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from nefertiti_cli import main
from nefertiti_env.configs import resolve
from nefertiti_env import load_ruleset
from nefertiti_env.balance import atlas, atlas_plots, atlas_report, config, runner, tables
from nefertiti_env.balance.atlas_findings import Answer, Question
from test_browser import browser, screenshot  # noqa: F401  (the module's Chromium fixture)

TINY = {"kind": "atlas", "seed": 3, "games": 4, "populations": ["greedy", "banker"], "players": [2, 5],
        "setups": ["beginner"], "characters": ["base"], "memphis": [False, True],
        "values": {"games": 4, "markets": ["Gizeh"], "players": [2], "memphis": [False]},
        "search": {"populations": ["random"], "games": 2, "players": [2]}}     # random stands in for a search


def _packaged(name: str):
    """The packaged atlas config `name`, parsed."""
    return atlas.parse(yaml.safe_load(resolve(name).read_text()))


def test_packaged_atlas_covers_every_table_and_skips_memphis_off_at_5():
    cfg = _packaged("atlas")
    names = [t.name for t in atlas.tables(cfg)]
    assert len(names) == len(set(names)) == 3 * 8 + 4          # 2-4 players: 2 x 2 x 2; 5 players: Memphis on only
    assert not any(t.players == 5 and not t.memphis for t in atlas.tables(cfg))
    assert len(cfg.populations) >= 3 and {"mcts", "champion:search=800"} <= set(cfg.search[0].populations)
    valued = [t for t in atlas.tables(cfg) if atlas.valued(cfg, t)]
    assert {t.characters for t in valued} == {"base", "expansion"} and {t.players for t in valued} == {2, 3, 4, 5}
    assert {(t.players, t.memphis) for t in valued} == {(2, False), (2, True), (3, False), (3, True), (4, False),
                                                         (4, True), (5, True)} and {t.setup for t in valued} == {
        "beginner"}                                                 # Memphis both ways, but where it is mandatory
    assert any(p.startswith("champion:run=2") for p in cfg.populations)     # two independently trained agents
    assert atlas.markets(cfg) == [m.name for m in load_ruleset("default").markets]
    searched = [t for t in atlas.tables(cfg) if atlas.searched(cfg, t)]
    assert searched and set(searched) < set(atlas.tables(cfg))             # a subset, every one of them valued
    assert all(t in valued for t in searched)


def test_packaged_every_table_atlas_is_the_packaged_atlas_valued_at_every_table_and_made_the_shipped_answers():
    """configs/atlas_every_table.yaml: the packaged atlas's tables, policy-alone populations and seed (so the same
    deals), restricted play by them at all 28 tables, the search bot at every table (re-planning under each
    restriction at the 14 base tables and the two 2-player beginner expansion tables), the agent searching with
    its policy's prior at every table and the critic-searching agent at one per player count, both for seats
    only; the answers shipped under docs/results/balance/atlas/every_table were made by that config (its
    atlas.yaml), but for where they went."""
    every = _packaged("atlas_every_table")
    packaged = _packaged("atlas")
    assert atlas.tables(every) == atlas.tables(packaged) and (every.seed, every.populations, every.games) == (
        packaged.seed, packaged.populations, packaged.games)
    assert all(atlas.valued(every, t) for t in atlas.tables(every))
    critic = "champion:search=800:leaf_value=1"
    assert all({"mcts", "champion:search=800"} <= set(atlas.populations(every, t)) for t in atlas.tables(every))
    assert sorted(t.players for t in atlas.tables(every) if critic in atlas.populations(every, t)) == [2, 3, 4, 5]
    replanning = [t for t in atlas.tables(every) if atlas.study(every, t, "mcts").get("restricted")]
    assert replanning == [t for t in atlas.tables(every) if t.characters == "base" or (
        t.players, t.setup) == (2, "beginner")] and len(replanning) == 16
    assert {atlas.study(every, t, "mcts")["restricted"]["games"] for t in replanning} == {200}
    assert not any(atlas.study(every, t, pop).get("restricted") for t in atlas.tables(every)
                   for pop in ("champion:search=800", critic) if pop in atlas.populations(every, t))
    assert atlas.options(every, atlas.tables(every)[0]) == atlas.options(packaged, atlas.tables(packaged)[0])
    shipped = Path(__file__).resolve().parents[1] / "docs" / "results" / "balance" / "atlas" / "every_table"
    assert atlas.parse(yaml.safe_load((shipped / "atlas.yaml").read_text())) == every
    answers = tables.read(shipped, "answers")
    assert set(answers["table"]) >= {t.name for t in atlas.tables(every)} | {"pooled", "pooled-setup"} | {
        f"pooled-{axis}-{n}p" for axis in every.fairness for n in (2, 3, 4, 5) if (axis, n) != ("memphis", 5)}


def test_packaged_expansion_atlas_replans_at_every_expansion_table_on_the_every_table_atlas_deals():
    """configs/atlas_expansion.yaml: the search bot re-planning under each restriction (200 games per arm) at the
    14 expansion tables, beside banker and greedy, with the every-table atlas's seed and game counts, so that their
    policy-alone games are that atlas's, and so are the search bot's where that atlas has it re-plan too; the
    answers shipped under docs/results/balance/atlas/expansion were made by it, but for where they went, and pool
    each option per player count and over the whole expansion."""
    study = _packaged("atlas_expansion")
    every = _packaged("atlas_every_table")
    assert [t.name for t in atlas.tables(study)] == [t.name for t in atlas.tables(every) if t.characters == "expansion"]
    assert len(atlas.tables(study)) == 14
    assert (study.seed, study.games, study.values.games) == (every.seed, every.games, every.values.games)
    assert set(study.populations) < set(every.populations)
    replanned_in_every = 0
    for table in atlas.tables(study):
        assert atlas.populations(study, table) == ["banker", "greedy", "mcts"]
        assert atlas.study(study, table, "mcts")["restricted"]["games"] == 200
        assert atlas.options(study, table) == atlas.options(every, table)
        searched, searched_every = (atlas.study(c, table, "mcts") for c in (study, every))
        if searched_every.get("restricted"):                      # the same games but for their folder
            replanned_in_every += 1
            assert searched.pop("out") != searched_every.pop("out") and searched == searched_every
    assert replanned_in_every == 2                                # the two 2-player beginner tables
    shipped = Path(__file__).resolve().parents[1] / "docs" / "results" / "balance" / "atlas" / "expansion"
    made = atlas.parse(yaml.safe_load((shipped / "atlas.yaml").read_text()))
    assert made.model_dump(exclude={"out"}) == study.model_dump(exclude={"out"})
    answers = tables.read(shipped, "answers")
    assert {t.name for t in atlas.tables(study)} | {"pooled", "pooled-2p", "pooled-5p"} <= set(answers["table"])
    assert set(answers["population"][answers["kind"] == "character"]) == {"banker", "greedy", "mcts"}
    for n in (2, 3, 4, 5):
        merchant = tables.where(answers, kind="character", table=f"pooled-{n}p", subject="Merchant")
        assert sorted(merchant["population"]) == ["banker", "greedy", "mcts"]


def test_each_sub_study_counts_its_games_without_scheduling_them():
    """`runner.game_count` is the schedule's length, for the packaged atlas's sub-studies (restricted arms or
    none, searching subsets) and a study that compares rulesets."""
    cfg = atlas.parse({**yaml.safe_load(resolve("atlas").read_text()), "games": 3,
                       "values": {"games": 2, "markets": True, "players": [2, 3, 4, 5], "setups": ["beginner"],
                                  "memphis": [False, True]},
                       "search": [{"populations": ["mcts"], "games": 2, "value_games": 1, "players": [4]}]})
    subs = [sub for _, _, sub in atlas.studies(cfg)]
    assert any(sub.restricted for sub in subs) and any(sub.restricted is None for sub in subs)
    assert [runner.game_count(sub) for sub in subs] == [len(runner.schedule(sub)) for sub in subs]
    variant = config.parse(yaml.safe_load(resolve("balance_variant").read_text()), "balance_variant")
    assert len(variant.rulesets) > 1 and runner.game_count(variant) == len(runner.schedule(variant))


def test_rosters_and_sub_studies():
    rules = load_ruleset("default")
    base, expansion = atlas.roster(rules, "base"), atlas.roster(rules, "expansion")
    assert "Thief" in base and "Trader" not in base and set(base) < set(expansion)
    assert len(expansion) == len({c.name for c in rules.characters})
    cfg = atlas.parse({**TINY, "out": "x"})
    subs = atlas.studies(cfg)
    assert len(subs) == 3 * 2 + 2                                # the searching population: the 2 tables of 2 players
    for table, pop, sub in subs:
        assert sub.lineups[table.players] == [pop] * table.players and sub.seed == cfg.seed
        assert (sub.restricted is not None) == (table.name == "2p-beginner-base-no-memphis")
        assert (pop == "random") == (table.players == 2 and pop not in cfg.populations)
        assert sub.games == (2 if pop == "random" else 4)
        assert sub.restricted is None or sub.restricted.games == sub.games     # value_games defaults to games
    sub = subs[0][2]
    assert [r.label for r in sub.restricted.forbid] == [f"no {name}" for name in base] + ["no market Gizeh"]
    assert sub.restricted.bot == "greedy"
    every = atlas.parse({**TINY, "values": {**TINY["values"], "markets": True},
                         "search": {**TINY["search"], "value_games": 3}})
    sub = next(sub for t, pop, sub in atlas.studies(every) if pop == "random" and sub.restricted)
    assert sub.games == 2 and sub.restricted.games == 3
    assert [r.name for r in sub.restricted.forbid if r.kind == "market"] == [m.name for m in rules.markets]


def test_search_subsets_each_play_their_tables_at_their_counts():
    """Two subsets: each population plays its own tables at its own game counts; value_games 0 plays no arm."""
    cfg = atlas.parse({**TINY, "search": [{**TINY["search"], "value_games": 0},
                                          {"populations": ["mcts"], "games": 3, "players": [5]}]})
    subs = {(t.name, pop): sub for t, pop, sub in atlas.studies(cfg)}
    assert {k for k in subs if k[1] in ("random", "mcts")} == {
        ("2p-beginner-base-no-memphis", "random"), ("2p-beginner-base-memphis", "random"),
        ("5p-beginner-base-memphis", "mcts")}
    assert subs["2p-beginner-base-no-memphis", "random"].restricted is None      # valued, but value_games: 0
    assert subs["2p-beginner-base-no-memphis", "greedy"].restricted is not None
    assert subs["5p-beginner-base-memphis", "mcts"].games == 3
    assert atlas.populations(cfg) == ["greedy", "banker", "random", "mcts"]
    five = next(t for t in atlas.tables(cfg) if t.players == 5)
    assert atlas.subset(cfg, "mcts", five).games == 3 and atlas.subset(cfg, "greedy", five) is None


def test_a_population_in_two_subsets_plays_each_subsets_tables_at_its_counts():
    """Restricted arms at one table, seat fairness alone at another: one population, two subsets, no table
    in common (sharing one is refused: which counts would it play?)."""
    arms = {**TINY["search"], "populations": ["mcts"], "value_games": 3}
    seats = {"populations": ["mcts"], "games": 5, "value_games": 0, "players": [5]}
    cfg = atlas.parse({**TINY, "search": [arms, seats]})
    subs = {t.name: sub for t, pop, sub in atlas.studies(cfg) if pop == "mcts"}
    assert subs["2p-beginner-base-no-memphis"].games == 2 and subs["2p-beginner-base-no-memphis"].restricted.games == 3
    assert subs["5p-beginner-base-memphis"].games == 5 and subs["5p-beginner-base-memphis"].restricted is None
    assert atlas.populations(cfg) == ["greedy", "banker", "mcts"]
    with pytest.raises(config.ConfigError) as err:
        atlas.parse({**TINY, "search": [arms, {**seats, "players": [2, 5]}]})
    assert "search.1.populations" in str(err.value) and "2p-beginner-base-no-memphis" in str(err.value)


def test_a_memphis_axis_keeps_the_tables_where_memphis_is_mandatory():
    """`memphis: [false]` cannot mean "no 5-player table": at 5 players there is no choice to make."""
    cfg = atlas.parse({**TINY, "values": {"games": 4, "players": [2, 5], "memphis": [False]}})
    valued = [t.name for t in atlas.tables(cfg) if atlas.valued(cfg, t)]
    assert valued == ["2p-beginner-base-no-memphis", "5p-beginner-base-memphis"]
    cfg = atlas.parse({**TINY, "values": {"games": 4, "players": [2, 5], "memphis": [True]}})
    assert [t.name for t in atlas.tables(cfg) if atlas.valued(cfg, t)] == ["2p-beginner-base-memphis",
                                                                            "5p-beginner-base-memphis"]


SEARCH = {"populations": ["mcts"], "games": 2}


@pytest.mark.parametrize("bad, key", [({"populations": ["nobot"]}, "populations"),
                                      ({"characters": ["nope"]}, "characters"),
                                      ({"players": [6]}, "6"), ({"colour": 1}, "colour"),
                                      ({"values": {"games": 4, "markets": ["Rome"]}}, "values.markets"),
                                      ({"values": {"games": 4, "players": [3]}}, "values: picks none"),
                                      ({"search": {**SEARCH, "populations": ["greedy"]}}, "search.0.populations"),
                                      ({"search": [SEARCH, SEARCH]}, "already play"),
                                      ({"search": {**SEARCH, "memphis": [None]}}, "search.0.memphis"),
                                      ({"search": {**SEARCH, "value_games": -1}}, "search.0.value_games"),
                                      ({"fairness": ["setup"]}, "fairness: setup needs both"),
                                      ({"fairness": ["seats"]}, "fairness"),
                                      ({"search": [SEARCH, {**SEARCH, "populations": ["random"],
                                                            "players": [4]}]}, "search.1: picks none")])
def test_bad_atlas_configs_are_named(bad, key):
    with pytest.raises(config.ConfigError) as err:
        atlas.parse({**TINY, **bad})
    assert key in str(err.value)


def _question(*estimates):
    return Question("seat", "t", "position 1", "pp", [Answer(f"p{i}", e, 0.0, 0.1, test=i)
                                                     for i, e in enumerate(estimates)])


def test_verdict_game_policy_none():
    q = np.array([0.001, 0.3])
    assert _question((0.10, 0.05, 0.15), (0.06, 0.01, 0.11)).verdict(q, 0.05) == "game"
    assert _question((0.10, 0.05, 0.15), (-0.01, -0.04, 0.02)).verdict(q, 0.05) == "policy"   # no common point
    assert _question((0.10, 0.05, 0.15), (0.02, -0.01, 0.06)).verdict(np.array([0.2, 0.3]), 0.05) == "none"
    assert _question((0.10, 0.05, 0.15)).verdict(q[:1], 0.05) == "policy"                      # one population


def test_a_pooled_verdict_is_judged_among_the_populations_that_pooled_the_most_tables():
    """Two populations over eight tables agree; a third over two of them disagrees: another mix of tables,
    so it is reported but does not judge. Over as many tables as the others, it would."""
    q = np.array([0.001, 0.001, 0.001])
    question = _question((0.03, 0.02, 0.04), (0.03, 0.02, 0.04), (0.07, 0.05, 0.09))
    for answer, tables in zip(question.answers, (8, 8, 2)):
        answer.tables = tables
    assert question.verdict(q, 0.05) == "game"
    question.answers[2].tables = 8
    assert question.verdict(q, 0.05) == "policy"


@pytest.fixture(scope="module")
def small_atlas(tmp_path_factory):
    folder = tmp_path_factory.mktemp("atlas")
    path = folder / "atlas.yaml.in"
    path.write_text(yaml.safe_dump({**TINY, "out": str(folder / "out")}))
    assert main(["balance", "--config", str(path), "--quiet"]) == 0
    return path, folder / "out"


def test_atlas_runs_resumes_and_reports(small_atlas):
    path, out = small_atlas
    md = (out / "atlas.md").read_text()
    for part in ("Top findings", "Benjamini-Hochberg", "Seat fairness per table", "Character value",
                 "Market value", "stall wins", "What Memphis changes", "games/s", "MDE", "search subset"):
        assert part in md
    cfg = atlas.parse({**TINY, "out": str(out)})
    main_games = 6 * 4 + 2 * 2                                                 # policy alone; random on 2 tables
    assert atlas.saved(cfg) == (main_games + 2 * 10 * 4 + 10 * 2,) * 2        # control, 8 characters, Gizeh
    before = {p: p.read_bytes() for p in out.rglob("*.csv")}
    assert main(["balance", "--config", str(path), "--quiet", "--resume"]) == 0
    assert {p: p.read_bytes() for p in out.rglob("*.csv")} == before
    assert main(["balance", "--config", str(path), "--quiet"]) == 2           # a finished atlas is not overwritten
    page = (out / "atlas.html").read_bytes()
    assert main(["balance", "--report-only", str(out)]) == 0                    # redrawn from the CSV tables alone
    assert (out / "atlas.md").read_text() == md and (out / "atlas.html").read_bytes() == page


def test_a_published_atlas_holds_its_report_and_settings_and_no_game_table(small_atlas, tmp_path, capsys):
    """docs/balance.md, "Publishing a study": `--publish` copies the report, figures, answers and every study's
    settings and timings out of the run, adds to what the folder held, replaces only what it wrote before, and
    refuses a folder inside the run."""
    _, out = small_atlas
    dest = tmp_path / "published"
    dest.mkdir()
    (dest / "answers_stage1.csv").write_text("kept\n")
    (dest / "atlas.md").write_text("a report written by hand\n")
    assert main(["balance", "--report-only", str(out), "--publish", str(dest)]) == 2      # not ours: not replaced
    assert "atlas.md" in capsys.readouterr().err and sorted(p.name for p in dest.iterdir()) == [
        "answers_stage1.csv", "atlas.md"]
    (dest / "atlas.md").unlink()
    assert main(["balance", "--report-only", str(out), "--publish", str(dest)]) == 0
    (dest / "atlas.md").write_text("an older publication\n")                     # ours: replaced
    assert main(["balance", "--report-only", str(out), "--publish", str(dest)]) == 0
    names = {p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    studies = {p.parent.relative_to(out).as_posix() for p in out.glob("*/*/study.yaml")}
    assert len(studies) == 3 * 2 + 2                                      # 3 tables x 2, random at 2
    assert {"atlas.md", "atlas.html", "answers.csv", "atlas.yaml", "answers_stage1.csv"} <= names
    assert {n for n in names if n.endswith(".png")} == {p.name for p in out.glob("*.png")} != set()
    assert {f"{s}/{f}" for s in studies for f in ("study.yaml", "run.json")} <= names
    assert not [n for n in names if n.endswith((".jsonl", "games.csv", "seats.csv"))]
    assert (dest / "answers.csv").read_bytes() == (out / "answers.csv").read_bytes()
    assert (dest / "atlas.md").read_bytes() == (out / "atlas.md").read_bytes()
    assert f"published {len(names) - 2} files into {dest}" in capsys.readouterr().out     # not the two kept
    assert main(["balance", "--report-only", str(out), "--publish", str(out / "docs")]) == 2
    assert "inside it" in capsys.readouterr().err and not (out / "docs").exists()


def test_answers_csv_holds_every_figure_the_report_judges(small_atlas):
    _, out = small_atlas
    md = (out / "atlas.md").read_text()
    answers = tables.read(out, "answers")
    tests, found = (int(x) for x in re.search(r"(\d+) tests in this report.*?; (\d+) discoveries", md).groups())
    assert int(np.isfinite(answers["p"]).sum()) == tests and int((answers["q"] < 0.05).sum()) == found
    seats = tables.where(answers, kind="seat", table="2p-beginner-base-no-memphis", population="greedy")
    assert list(seats["subject"]) == ["position 1", "position 2"] and set(seats["unit"]) == {"pp"}
    assert seats["estimate"][0] == pytest.approx(-seats["estimate"][1], abs=1e-3)    # 2 players: edges mirror
    assert all(lo <= e <= hi for e, lo, hi in zip(answers["estimate"], answers["low"], answers["high"]))
    assert set(answers["verdict"]) <= {"game", "policy", "none"}


def test_no_question_is_asked_of_a_character_the_player_count_does_not_deal(small_atlas):
    """docs/rules.md §1.1: two players play without the Scribe +3. Its arm still plays (it equals the control
    game for game, kept so that atlases played before resume), but no answer reports it as a value of nothing."""
    path, out = small_atlas
    rules, cfg = load_ruleset("default"), atlas.parse(yaml.safe_load(path.read_text()))
    dealt = _dealt_at_2()
    assert "Scribe +3" not in dealt and "Scribe +2" in dealt
    assert set(atlas.roster(rules, "base")) <= rules.dealt(3)
    (table,) = [t for t in atlas.tables(cfg) if atlas.valued(cfg, t)]
    assert table.players == 2 and {"character": "Scribe +3"} in atlas.options(cfg, table)
    assert atlas.asked(cfg, table) == [arm for arm in atlas.options(cfg, table) if arm != {"character": "Scribe +3"}]
    seats = tables.read_all(out / table.name / "greedy")["seats"]
    arm = tables.where(seats, arm="no Scribe +3")
    assert tables.rows(arm) > 0 and list(arm["win"]) == list(tables.where(seats, arm=runner.CONTROL)["win"])
    answers = tables.read(out, "answers")
    characters = set(tables.where(answers, kind="character", table=table.name)["subject"])
    assert characters == dealt and "Scribe +3" not in (out / "atlas.md").read_text()


def _dealt_at_2() -> set[str]:
    """The base characters a 2-player game deals (all but the Scribe +3, docs/rules.md §1.1)."""
    rules = load_ruleset("default")
    return set(atlas.roster(rules, "base")) & rules.dealt(2)


def _rows(md: str, heading: str) -> list[list[str]]:
    """The cells of the markdown table under a heading of the report."""
    part = md.split(heading, 1)[1].split("\n#", 1)[0]
    return [[c.strip() for c in line.strip("|").split("|")] for line in part.splitlines()
            if line.startswith("|") and not line.startswith("|---")]


def test_a_table_a_population_did_not_play_is_not_played(small_atlas):
    _, out = small_atlas
    md = (out / "atlas.md").read_text()
    header, *rows = _rows(md, "### Seats against parity")
    random = header.index("random")
    for row in rows:
        assert (row[random] == "not played") == row[0].startswith("5 players")
        assert row[header.index("greedy")] != "not played"
    listed = {r[0]: r for r in _rows(md, "Populations (each")[1:]}
    assert listed["`random`"][1:] == ["search subset", "2", "2", "1", "2"]
    assert listed["`greedy`"][1:] == ["every table", "3", "4", "1", "4"]
    header, *rows = _rows(md, "### What Memphis changes")
    assert rows and all(r[header.index("random")] != "not played" for r in rows)        # Memphis: 2 players only


def test_the_parts_of_the_game_are_answered_from_the_sub_studies(small_atlas):
    """Memphis's seats and papyrus, the tutors at 2 players, stall closings, gift points per Deben: each section
    holds the figures its sub-studies' CSV tables give."""
    from nefertiti_env.balance import analysis, atlas_questions
    _, out = small_atlas
    md = (out / "atlas.md").read_text()
    header, *rows = _rows(md, "### What Memphis changes: each position's win rate")
    assert len(rows) == 2                                                     # 2 players: Memphis is always on at 5
    assert {r[header.index("verdict")] for r in rows} <= set(atlas_report.VERDICT.values())
    header, *rows = _rows(md, "### Points lost to the tutors' cards")
    assert rows[2][:2] == ["table", "population"]                              # then the points lost per position
    assert [r[0] for r in rows[:2]] == ["2 players, beginner, base characters, Memphis off",
                                    "2 players, beginner, base characters, Memphis on"]
    assert all(r[header.index("random")] != "not played" for r in rows[:2])        # the subset plays 2 players
    rules = load_ruleset("default")
    cell = analysis.cell(tables.read_all(out / "2p-beginner-base-memphis" / "greedy"), "main", "default", 2)
    cost = atlas_questions.neutral_cost(cell, np.asarray(rules.type_values), list(rules.type_names))
    first = [r for r in _rows(md, "| table | population | position 1: points lost") if r[1] == "greedy"][1]
    assert first[2].startswith(f"{cost[cell['seats']['position'] == 0].mean():.1f} [")
    use = [r for r in _rows(md, "| table | population | placed per game") if r[1] == "greedy"][1]   # Memphis on
    placed, games = cell["tutors"]["outcome"] != "declined", tables.rows(cell["games"])
    assert placed.any() and use[2] == " / ".join(f"{(placed & (cell['tutors']['position'] == p)).sum() / games:.2f}"
                                                 for p in (0, 1))
    header, *rows = _rows(md, "## Stall closings per table")
    for table in {r[0] for r in rows}:                                        # each game has one closing that ends it
        ends = [int(r[4].rstrip("%")) for r in rows if r[0] == table and r[4] != "-"]
        assert abs(sum(ends) - 100) <= len(ends)
    assert any(r[1] == "Memphis" and "distribution" in r[3] for r in rows if "Memphis on" in r[0])
    header, *rows = _rows(md, "## Gift types' points per Deben")
    row = next(r for r in rows if r[0] == "2 players, beginner, base characters, Memphis on" and r[1] == "greedy")
    for kind, v in atlas_questions.points_per_deben(cell).items():
        assert row[header.index(kind)] == ("-" if math.isnan(v) else f"{v:.2f}")
    assert row[header.index("papyrus")] != "-"                                # papyrus comes with Memphis
    header, *rows = _rows(md, "### Memphis: papyrus, foreign gifts and the Port's resolutions")
    assert rows and all("Memphis on" in r[0] for r in rows)
    row = next(r for r in rows if r[0] == "2 players, beginner, base characters, Memphis on" and r[1] == "greedy")
    foreign = cell["gifts"]["foreign_points"].sum() / len(cell["seats"]["seat"])
    assert row[header.index("foreign bonus points per seat")] == f"{foreign:.2f}"
    for png in ("atlas_gifts", "atlas_closings"):
        assert f"({png}.png)" in md and (out / f"{png}.png").stat().st_size > 1000


def test_games_option_sets_every_count_of_the_atlas(tmp_path):
    """--games (a small run) sets the games per table and per arm, the search subsets' too (a subset without
    restricted arms stays without)."""
    path = tmp_path / "atlas.yaml"
    search = [{**TINY["search"], "games": 3, "value_games": 5},
              {"populations": ["mcts:iterations=20"], "games": 3, "value_games": 0, "players": [2], "memphis": [False]}]
    path.write_text(yaml.safe_dump({**TINY, "search": search}))
    out = tmp_path / "out"
    assert main(["balance", "--config", str(path), "--quiet", "--games", "1", "--out", str(out)]) == 0
    cfg = atlas_report.load(out)
    assert atlas.saved(cfg)[0] == 6 * 1 + 2 * 1 + 3 * 10 * 1 + 1      # main games; control, 8 characters, Gizeh; mcts
    assert {sub.games for _, _, sub in atlas.studies(atlas_report.load(out))} == {1}


def test_a_search_subset_joins_a_finished_atlas_on_resume(tmp_path):
    """The policy-alone atlas first, then its search subset by --resume: only the searching games are played."""
    path, out = tmp_path / "atlas.yaml", tmp_path / "out"
    alone = {k: v for k, v in TINY.items() if k != "search"}
    path.write_text(yaml.safe_dump({**alone, "games": 2, "values": {**TINY["values"], "games": 1}, "out": str(out)}))
    assert main(["balance", "--config", str(path), "--quiet"]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*.csv") if p.parent != out}   # the sub-studies' games
    raw = {**TINY, "games": 2, "values": {**TINY["values"], "games": 1}, "out": str(out)}
    path.write_text(yaml.safe_dump(raw))
    assert main(["balance", "--config", str(path), "--quiet", "--resume"]) == 0
    done, total = atlas.saved(atlas.parse(raw))
    assert done == total == 6 * 2 + 2 * 2 + 2 * 10 * 1 + 10 * 2
    assert {p: p.read_bytes() for p in before} == before
    assert sorted({p.parent.name for p in out.rglob("*.csv") if p.parent != out}
                  - {p.parent.name for p in before}) == ["random"]
    assert "not played" in (out / "atlas.md").read_text()


def test_character_and_market_control_is_kept_by_the_engine(small_atlas):
    _, out = small_atlas
    for pop in ("greedy", "banker", "random"):
        tabs = tables.read_all(out / "2p-beginner-base-no-memphis" / pop)
        chars, seats, closings = tabs["characters"], tabs["seats"], tabs["closings"]
        assert tables.rows(tables.where(seats, arm=runner.CONTROL)) == (4 if pop == "random" else 8)
        for name in atlas.roster(load_ruleset("default"), "base"):
            arm = f"no {name}"
            mine = tables.where(chars, arm=arm, character=name)
            forced = tables.where(seats, arm=arm)["forced"].sum()
            assert forced > 0 or not (mine["seat"] == mine["game"] % 2).any()
        won = tables.where(closings, arm="no market Gizeh", market="Gizeh")
        forced = tables.where(seats, arm="no market Gizeh")["forced"].sum()
        assert forced > 0 or not (won["high_seat"] == won["game"] % 2).any()
        assert tables.rows(tables.where(closings, arm=runner.CONTROL, market="Gizeh")) > 0


def test_atlas_page_shows_its_figures(small_atlas, browser, tmp_path):  # noqa: F811
    _, out = small_atlas
    page = out / "atlas.html"
    assert "src=\"atlas_" not in page.read_text()                        # figures embedded, not linked
    browser.get(page.as_uri())
    images = browser.execute_script("return Array.from(document.images).map(i => i.complete && i.naturalWidth)")
    assert len(images) == 6 and all(w and w > 200 for w in images)      # seats, characters, markets, Memphis,
    #                                                                    gifts per Deben, the stall that ends the game
    screenshot(browser, tmp_path, "atlas.png")
    from PIL import Image
    shot = np.asarray(Image.open(tmp_path / "atlas.png").convert("L"), dtype=float)
    assert shot.std() > 10 and (shot < 128).mean() > 0.005                 # text and figures, not a blank page
    assert not math.isnan(shot.mean())


def test_a_ranking_figure_marks_each_population_at_the_options_it_valued():
    """A searching population re-plans at the base-roster tables only, so a pooled ranking holds expansion
    characters it has no value for (docs/balance.md, the atlas); each population's markers sit at its own
    options, in the ranking's rows."""
    ranking = [("Merchant", {"agent": (0.03, 0.01, 0.05), "mcts": (0.01, -0.02, 0.04)}),
               ("Oracle", {"agent": (0.0, -0.01, 0.01)}),
               ("Thief", {"mcts": (-0.02, -0.05, 0.01), "agent": (-0.01, -0.02, 0.0)})]
    ax = atlas_plots.options(ranking, "ranking").axes[0]
    drawn = {c.get_label(): c.lines[0].get_xydata() for c in ax.containers}
    assert sorted(drawn) == ["agent", "mcts"]
    assert np.allclose(drawn["agent"][:, 0], [3.0, 0.0, -1.0]) and np.allclose(drawn["mcts"][:, 0], [1.0, -2.0])
    assert np.allclose(drawn["agent"][:, 1], [1.9, 0.9, -0.1]) and np.allclose(drawn["mcts"][:, 1], [2.1, 0.1])


def test_an_option_table_has_a_column_for_each_population_that_valued_any_of_its_options():
    """The ranking's first option (an expansion character, say) may lack the searching population that
    valued the base roster only; its column stays, "not valued" where it has no value."""
    page = atlas_report.Page("atlas")
    oracle = Question("character", "pooled", "Oracle", "pp", [Answer("agent", (0.05, 0.0, 0.1), 0.01, 0.02, 0)])
    thief = Question("character", "pooled", "Thief", "pp", [Answer("agent", (0.0, -0.1, 0.1), 1.0, 0.02, 1),
                                                            Answer("mcts", (0.01, -0.1, 0.1), 0.9, 0.05, 2)])
    what = {"noun": "character", "title": "Character value", "text": "", "extra": lambda q, a: ""}
    atlas_report._options(page, atlas_report.Pooled("pooled"), [oracle, thief], np.array([0.02, 1.0, 1.0]),
                          ["agent", "mcts"], what)
    _, header, rows = page.blocks[-1]
    assert header[:3] == ["character", "agent", "mcts"]
    assert [row[0] for row in rows] == ["Oracle", "Thief"] and rows[0][2] == "not valued"
    assert rows[1][2].startswith("+1.0 pp")


def test_recorder_buys_cards_that_are_no_gift():
    """Expansion tables deal cards past the gift kinds (the Roaming Thief's card): bought, of no gift type."""
    from nefertiti_env import NefertitiGame
    from nefertiti_env.agents import make_bot
    from nefertiti_env.balance import record

    game = NefertitiGame(2, seed=3, characters="expansion")      # greedy buys the Roaming Thief's card here
    bots = [make_bot("greedy", seed=s) for s in range(2)]
    for b, s in zip(bots, range(2)):
        b.reset(s)
    rows = record.play_recorded(game, bots, ["greedy", "greedy"], ("main", "default", 2, 0))
    seat_cards = sum(r[tables.COLUMNS["seats"].index("cards_bought")] for r in rows["seats"])
    gift_cards = sum(r[tables.COLUMNS["gifts"].index("cards_bought")] for r in rows["gifts"])
    assert game.state.slots.size and 0 < gift_cards <= seat_cards


@pytest.mark.parametrize("which", ["shipped", "full"])
def test_atlas_notebook_queries_an_atlas(which, small_atlas, monkeypatch):
    """notebooks/atlas.ipynb runs without an error on the shipped atlas (its report and answers.csv) and on a
    full one, where it also recomputes seats, a character's value, closings, gifts, the tutors' cost and use."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    root = Path(__file__).resolve().parents[1]
    folder = root / "docs" / "results" / "balance" / "atlas" if which == "shipped" else small_atlas[1]
    monkeypatch.setenv("BALANCE_ATLAS", str(folder))
    notebook = nbformat.read(root / "notebooks" / "atlas.ipynb", as_version=4)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(root / "notebooks")}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert re.search(r"\d+ answers, \d+ discoveries", text) and "character " in text
    if which == "shipped":
        assert "a local run adds the sub-studies' tables" in text and "mcts" in text
    else:
        assert sum("image/png" in o.get("data", {}) for o in outputs) == 1              # the seat figure
        assert "value of the Thief" in text and "players, greedy" in text
        assert "ended" in text and "points per Deben" in text and "points lost to the tutors' cards" in text
        assert "tutors placed per game" in text


def _option(table, pop, control, restricted, games=1000):
    q = Question("character", table, "Thief", "pp")
    q.answers.append(Answer(pop, (0.0, 0.0, 0.0), 1.0, 0.1))
    q.extra[pop] = {"counts": (control, games, restricted, games)}
    return q


def test_pooled_value_is_the_inverse_variance_mean_of_the_tables():
    """Two tables' values (30 and 10 points) pool to their weighted mean, nearer the more certain one (the
    table nearer 0% or 100%), with an interval narrower than either table's."""
    from nefertiti_env.balance.atlas_findings import POOLED, pooled_option_questions
    (q,) = pooled_option_questions([[_option("a", "p", 500, 200)], [_option("b", "p", 150, 50)]])
    (a,) = q.answers
    variance = [((c + 1) / 1002 * (1 - (c + 1) / 1002) + (r + 1) / 1002 * (1 - (r + 1) / 1002)) / 1002
                for c, r in ((500, 200), (150, 50))]
    w = 1 / np.asarray(variance)
    assert q.table == POOLED and q.extra["tables"] == ["a", "b"] and q.answers[0].tables == 2
    assert a.estimate[0] == pytest.approx((w @ [0.3, 0.1]) / w.sum())
    assert 0.1 < a.estimate[0] < 0.2                                            # nearer the 10-point table
    assert a.estimate[2] - a.estimate[1] == pytest.approx(2 * 1.959964 / math.sqrt(w.sum()))
    assert a.p < 1e-6 and a.detectable == pytest.approx(2.801585 / math.sqrt(w.sum()), rel=1e-4)


def test_pooled_value_interval_covers_a_worthless_option():
    """Simulated fair options (the same win rate with and without, at four tables of 2-5 players, 1,000 games
    per arm): the pooled 95% interval holds the true 0 in about 95% of 400 studies, and its p is not small
    more often than it should be."""
    from nefertiti_env.balance.atlas_findings import pooled_option_questions
    rng = np.random.default_rng(7)
    covered, small = 0, 0
    for _ in range(400):
        per_table = [[_option(f"{n}p", "p", *rng.binomial(1000, 1 / n, size=2))] for n in (2, 3, 4, 5)]
        (a,) = pooled_option_questions(per_table)[0].answers
        covered += a.estimate[1] <= 0 <= a.estimate[2]
        small += a.p < 0.05
    assert 0.92 <= covered / 400 <= 0.99 and small / 400 <= 0.08


def test_the_report_pools_each_option_over_the_valued_tables(tmp_path):
    """With two valued tables, each character and market gets a pooled value per population, in answers.csv and
    in its own section."""
    raw = {**{k: v for k, v in TINY.items() if k != "search"}, "games": 2,
           "values": {"games": 2, "markets": ["Gizeh"], "players": [2, 5], "memphis": [False]},
           "out": str(tmp_path / "out")}
    path = tmp_path / "atlas.yaml"
    path.write_text(yaml.safe_dump(raw))
    assert main(["balance", "--config", str(path), "--quiet"]) == 0
    answers = tables.read(tmp_path / "out", "answers")
    pooled = tables.where(answers, table="pooled", population="greedy")
    assert sorted(pooled["subject"]) == sorted(atlas.roster(load_ruleset("default"), "base") + ["Gizeh"])
    md = (tmp_path / "out" / "atlas.md").read_text()
    header, *rows = _rows(md, "## Character value: All 2 valued tables, pooled (each population over those it valued)")
    assert len(rows) == len(atlas.roster(load_ruleset("default"), "base")) and "2 tables" in rows[0][1]
    per_count = np.isin(answers["table"], ["pooled-2p", "pooled-5p"])       # one valued table per count: no pool
    assert per_count.any() and set(answers["kind"][per_count]) == {"seat"}


def test_the_report_pools_each_option_per_player_count_as_an_atlas_of_that_count_alone_does(tmp_path):
    """Valued at two 2-player tables and one 5-player one, the report also pools each option over the 2-player
    tables (not over the single 5-player table: that would be its own test twice), with the very figures an
    atlas of the 2-player tables alone pools over all its tables; the per-count pool has its own section."""
    def run(name, players):
        raw = {**{k: v for k, v in TINY.items() if k != "search"}, "games": 2, "players": players,
               "values": {"games": 2, "markets": ["Gizeh"], "players": list(players), "memphis": [False, True]},
               "out": str(tmp_path / name)}
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(raw))
        assert main(["balance", "--config", str(tmp_path / f"{name}.yaml"), "--quiet"]) == 0
        return tables.read(tmp_path / name, "answers")
    both, two = run("both", [2, 5]), run("two", [2])
    options = ("character", "market")
    per_count = tables.select(both, np.isin(both["kind"], options) & (both["table"] == "pooled-2p"))
    alone = tables.select(two, np.isin(two["kind"], options) & (two["table"] == "pooled"))
    assert tables.rows(per_count) == tables.rows(alone) == 2 * (len(_dealt_at_2()) + 1)
    for field in ("subject", "population", "estimate", "low", "high", "p"):
        assert list(per_count[field]) == list(alone[field])
    assert not np.isin(both["kind"], options)[both["table"] == "pooled-5p"].any()
    md = (tmp_path / "both" / "atlas.md").read_text()
    header, *rows = _rows(md, "## Character value: All tables of 2 players, pooled\n")
    assert len(rows) == len(_dealt_at_2()) and "2 tables" in rows[0][1]


def test_a_searching_population_without_arms_at_valued_tables_values_no_option(tmp_path):
    """`value_games: 0` at valued tables: the population answers the seat questions there and no option
    question (it played no restricted arm), and the pooled values are the other populations'."""
    raw = {**TINY, "games": 2, "values": {"games": 2, "markets": ["Gizeh"], "players": [2, 5], "memphis": [False]},
           "search": {"populations": ["random"], "games": 2, "value_games": 0, "players": [2, 5]},
           "out": str(tmp_path / "out")}
    path = tmp_path / "atlas.yaml"
    path.write_text(yaml.safe_dump(raw))
    assert main(["balance", "--config", str(path), "--quiet"]) == 0
    answers = tables.read(tmp_path / "out", "answers")
    mine = tables.where(answers, population="random")
    assert set(mine["kind"].tolist()) >= {"seat"} and not {"character", "market"} & set(mine["kind"].tolist())
    assert tables.rows(tables.where(answers, table="pooled", population="greedy")) > 0


def test_a_player_count_of_one_table_asks_its_seat_questions_once(small_atlas):
    """Pooled over a player count's single table, the seat questions would be that table's asked again, counted
    twice in the family Benjamini-Hochberg adjusts and listed twice among the findings: the report pools the seats
    of a count only over two tables or more (here 2 players: Memphis off and on; 5 players: one table)."""
    _, out = small_atlas
    seats = tables.where(tables.read(out, "answers"), kind="seat")
    assert set(seats["table"]) == {"2p-beginner-base-no-memphis", "2p-beginner-base-memphis",
                                   "5p-beginner-base-memphis", "pooled-2p"}
    assert tables.rows(tables.where(seats, table="5p-beginner-base-memphis")) == 5 * 2     # greedy and banker
    asked = list(zip(seats["table"], seats["subject"], seats["population"]))
    assert len(asked) == len(set(asked))


def test_seats_are_also_pooled_per_player_count(small_atlas):
    """The headline seat question: each position's wins summed over the tables of its player count."""
    _, out = small_atlas
    answers = tables.read(out, "answers")
    pooled = tables.where(answers, table="pooled-2p", population="greedy")
    wins = games = 0
    for name in ("2p-beginner-base-no-memphis", "2p-beginner-base-memphis"):
        seats = tables.where(tables.read_all(out / name / "greedy")["seats"], arm="main", position=0)
        wins, games = wins + float(seats["win"].sum()), games + tables.rows(seats)
    assert list(pooled["subject"]) == ["position 1", "position 2"]
    assert pooled["estimate"][0] == pytest.approx(100 * (wins / games - 0.5), abs=1e-3)    # in points
    header, *rows = _rows((out / "atlas.md").read_text(), "### Pooled seats per player count")
    assert [r[0] for r in rows] == ["All tables of 2 players, pooled"] * 2     # one 5-player table: not pooled


def test_an_atlas_resumed_with_other_weights_behind_a_population_is_refused(tmp_path, capsys):
    """Checked before the finished sub-studies are skipped: a new `champion` must not join an atlas whose
    other sub-studies the old one played."""
    from shutil import copyfile

    from nefertiti_env.agents.champion import CHAMPION_FILES

    model, path, out = tmp_path / "agent.pt", tmp_path / "atlas.yaml", tmp_path / "out"
    copyfile(CHAMPION_FILES[2], model)
    spec = f"ppo:path={model}"
    raw = {**{k: v for k, v in TINY.items() if k not in ("search", "values")}, "populations": [spec, "greedy"],
           "players": [2], "memphis": [False], "games": 2, "out": str(out)}
    path.write_text(yaml.safe_dump(raw))
    assert main(["balance", "--config", str(path), "--quiet"]) == 0
    assert main(["balance", "--config", str(path), "--quiet", "--resume"]) == 0
    copyfile(CHAMPION_FILES[1], model)
    capsys.readouterr()
    assert main(["balance", "--config", str(path), "--quiet", "--resume"]) == 2
    err = capsys.readouterr().err
    assert f"the weights behind {spec} differ from those this run started with" in err and "Traceback" not in err


def test_an_atlas_resumed_with_a_population_added_plays_only_the_new_one(tmp_path):
    """A searching population added to a finished atlas: --resume plays its sub-studies alone, keeps the
    others' games, and records its weights so that a later resume checks them too."""
    import json

    from nefertiti_env.agents import weights

    path, out = tmp_path / "atlas.yaml", tmp_path / "out"
    raw = {**{k: v for k, v in TINY.items() if k not in ("search", "values")}, "populations": ["greedy"],
           "players": [2], "memphis": [False], "games": 2, "out": str(out)}
    path.write_text(yaml.safe_dump(raw))
    assert main(["balance", "--config", str(path), "--quiet"]) == 0
    greedy = out / "2p-beginner-base-no-memphis" / "greedy"
    before = {f.name: f.read_bytes() for f in greedy.rglob("*") if f.is_file() and f.suffix != ".json"}
    path.write_text(yaml.safe_dump({**raw, "search": {"populations": ["champion:search=20"], "games": 2}}))
    assert main(["balance", "--config", str(path), "--quiet", "--resume"]) == 0
    assert {f.name: f.read_bytes() for f in greedy.rglob("*") if f.is_file() and f.suffix != ".json"} == before
    searched = out / "2p-beginner-base-no-memphis" / atlas.slug("champion:search=20")
    assert runner.finished_games(searched) == 2
    assert "champion:search=20" in json.loads((out / weights.WEIGHTS).read_text())


def test_an_atlas_resumed_with_more_valued_tables_ends_as_one_played_whole(tmp_path):
    """Values widened to Memphis on, by --resume of a finished atlas: the tables it had already played gain their
    restricted arms after their own games, nothing else is replayed, and the report (answers.csv) is the one an
    atlas played whole with the wider values gives."""
    raw = {**{k: v for k, v in TINY.items() if k != "search"}, "players": [2], "games": 2,
           "values": {**TINY["values"], "games": 1}}
    wider = {**raw, "values": {**raw["values"], "memphis": [False, True]}}
    whole, grown = tmp_path / "whole", tmp_path / "grown"
    for folder, config in ((whole, wider), (grown, raw)):
        (tmp_path / f"{folder.name}.yaml").write_text(yaml.safe_dump({**config, "out": str(folder)}))
        assert main(["balance", "--config", str(tmp_path / f"{folder.name}.yaml"), "--quiet"]) == 0
    off = grown / "2p-beginner-base-no-memphis" / "greedy" / "games.csv"
    kept = off.read_bytes()
    (tmp_path / "grown.yaml").write_text(yaml.safe_dump({**wider, "out": str(grown)}))
    assert main(["balance", "--config", str(tmp_path / "grown.yaml"), "--quiet", "--resume"]) == 0
    assert off.read_bytes() == kept
    for csv in whole.rglob("*.csv"):
        assert (grown / csv.relative_to(whole)).read_bytes() == csv.read_bytes(), csv
    answers = tables.read(grown, "answers")                    # valued both ways: what Memphis changes in each value
    changes = tables.where(answers, kind="memphis character", population="greedy")
    assert tables.rows(changes) == len(_dealt_at_2())
    assert set(changes["table"]) == {"pooled-memphis"}
    assert "## What Memphis changes: each character's and market's value, on minus off" in (
        grown / "atlas.md").read_text()


def test_an_atlas_valued_at_both_setups_reports_what_the_advanced_stalls_change(tmp_path):
    """docs/rules.md 1.4 (the opening display): restricted play at the beginner and the advanced stalls of the
    same table gives, per option and population, the value at the advanced table minus the beginner one (one pair
    of tables here, so the pooled change is that difference)."""
    raw = {**{k: v for k, v in TINY.items() if k != "search"}, "players": [2], "games": 2, "memphis": [False],
           "setups": ["beginner", "advanced"],
           "values": {**TINY["values"], "games": 8, "setups": ["beginner", "advanced"]}, "out": str(tmp_path / "a")}
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(raw))
    assert main(["balance", "--config", str(tmp_path / "a.yaml"), "--quiet"]) == 0
    answers = tables.where(tables.read(tmp_path / "a", "answers"), population="greedy")
    changes = {}
    for kind in ("character", "market"):
        change = tables.where(answers, kind=f"setup {kind}")
        assert set(change["table"]) == {"pooled-setup"}
        for subject, estimate in zip(change["subject"], change["estimate"]):
            beginner, advanced = (float(tables.where(answers, kind=kind, subject=subject, table=f"2p-{setup}-base-"
                                                     "no-memphis")["estimate"][0]) for setup in ("beginner", "advanced"))
            changes[subject] = float(estimate)
            assert changes[subject] == pytest.approx(advanced - beginner, abs=1e-3)
    assert set(changes) == {*_dealt_at_2(), "Gizeh"} and any(changes.values())
    assert "## What the advanced setup changes: each character's and market's value, advanced minus beginner" in (
        tmp_path / "a" / "atlas.md").read_text()


def test_an_atlas_asked_for_fairness_tests_whether_each_option_brings_the_seats_nearer_parity(tmp_path):
    """docs/rules.md 1.4 (the opening display) and 6 (Memphis): with `fairness`, one test per player count and
    population of the seat unfairness with the option minus without, averaged over the twin tables (two pairs
    a side here), computed by hand from the seats' win shares."""
    raw = {**{k: v for k, v in TINY.items() if k not in ("search", "values")}, "players": [2], "games": 40,
           "setups": ["beginner", "advanced"], "fairness": ["setup", "memphis"], "out": str(tmp_path / "a")}
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(raw))
    assert main(["balance", "--config", str(tmp_path / "a.yaml"), "--quiet"]) == 0
    answers = tables.read(tmp_path / "a", "answers")

    def unfairness(table: str, pop: str) -> float:
        seats = tables.read(tmp_path / "a" / table / pop, "seats")
        wins = np.array([tables.where(seats, position=k)["win"] for k in (0, 1)])       # [position, game]
        return float(((wins.mean(axis=1) - 0.5) ** 2).sum() - wins.var(axis=1, ddof=1).sum() / 40) / 2

    for axis, pairs in (("setup", [("beginner-base-no-memphis", "advanced-base-no-memphis"),
                                   ("beginner-base-memphis", "advanced-base-memphis")]),
                        ("memphis", [("beginner-base-no-memphis", "beginner-base-memphis"),
                                     ("advanced-base-no-memphis", "advanced-base-memphis")])):
        rows = tables.where(answers, kind=f"{axis} fairness")
        assert list(rows["table"]) == [f"pooled-{axis}-2p"] * 2 and set(rows["population"]) == {"greedy", "banker"}
        for pop, estimate in zip(rows["population"], rows["estimate"]):
            by_hand = np.mean([unfairness(f"2p-{b}", pop) - unfairness(f"2p-{a}", pop) for a, b in pairs])
            assert float(estimate) == pytest.approx(1e4 * by_hand, abs=1e-3)
        assert any(float(e) != 0 for e in rows["estimate"])
    md = (tmp_path / "a" / "atlas.md").read_text()
    assert "## Does the advanced setup make the seats fairer?" in md and "## Does Memphis make the seats fairer?" in md
    assert "Top findings" in md


def test_memphis_change_in_value_pools_each_pairs_difference():
    """An option worth 30 points with Memphis on and 10 off at one pair of tables, and 20 on and 20 off at
    another, changes by the inverse-variance mean of +20 and 0, each pair's variance the sum of its two tables';
    simulated options whose value Memphis leaves alone get intervals that hold 0 in about 95% of studies."""
    from nefertiti_env.balance.atlas_findings import POOLED_MEMPHIS, option_change_questions

    def var(c, r):
        return sum((x + 1) / 1002 * (1 - (x + 1) / 1002) / 1002 for x in (c, r))

    (q,) = option_change_questions([([_option("a-off", "p", 300, 200)], [_option("a-on", "p", 500, 200)]),
                                    ([_option("b-off", "p", 400, 200)], [_option("b-on", "p", 400, 200)])],
                                   "memphis")
    (a,) = q.answers
    w = 1 / np.asarray([var(300, 200) + var(500, 200), var(400, 200) + var(400, 200)])
    assert (q.kind, q.table, q.subject, q.extra["tables"], a.tables) == (
        "memphis character", POOLED_MEMPHIS, "Thief", ["a-on", "b-on"], 2)
    assert a.estimate[0] == pytest.approx(w @ [0.2, 0.0] / w.sum()) and 0 < a.estimate[0] < 0.2
    assert a.estimate[2] - a.estimate[1] == pytest.approx(2 * 1.959964 / math.sqrt(w.sum()))
    rng = np.random.default_rng(11)
    covered = 0
    for _ in range(400):
        pairs = [tuple([_option(f"{n}p-{m}", "p", *rng.binomial(1000, [1 / n + 0.05, 1 / n]))] for m in "ab")
                 for n in (2, 3, 4)]
        (a,) = option_change_questions(pairs, "memphis")[0].answers
        covered += a.estimate[1] <= 0 <= a.estimate[2]
    assert 0.92 <= covered / 400 <= 0.99


@pytest.mark.parametrize("name, names", [
    ("atlas_search_3p", ["3p-beginner-base-no-memphis"]),
    ("atlas_search_4p", ["4p-beginner-base-no-memphis", "4p-beginner-expansion-no-memphis"]),
    ("atlas_search_5p", ["5p-beginner-base-memphis"]),
    ("atlas_search_2p", ["2p-beginner-base-no-memphis"]),
    ("atlas_search_4p_memphis", ["4p-beginner-base-memphis"]),
    ("atlas_search_3p_memphis", ["3p-beginner-base-memphis"]),
    ("atlas_search_2p_memphis", ["2p-beginner-base-memphis"]),
    ("atlas_search_3p_expansion_memphis", ["3p-beginner-expansion-memphis"]),
    ("atlas_search_4p_expansion_memphis", ["4p-beginner-expansion-memphis"]),
    ("atlas_search_3p_expansion", ["3p-beginner-expansion-no-memphis"]),
    ("atlas_search_2p_expansion", ["2p-beginner-expansion-no-memphis"]),
    ("atlas_search_2p_expansion_memphis", ["2p-beginner-expansion-memphis"])])
def test_packaged_search_atlas_replans_at_1000_games_an_arm_on_the_packaged_atlas_deals(name, names):
    """configs/atlas_search_*.yaml: the agent searching with its policy's prior (and mcts, where the study names
    it) re-plan under each restriction at 1,000 games per arm at beginner tables of the packaged atlas (which plays
    them there at 200 per arm, or with no restriction, or not at all), beside the masked policy and banker with
    that atlas's seed and game counts, so that their games, and the searching populations' seat games where that
    atlas plays them, are that atlas's; the answers shipped under docs/results/balance/atlas/search_* were made
    by it."""
    study, packaged = _packaged(name), _packaged("atlas")
    rules = load_ruleset("default")
    assert [t.name for t in atlas.tables(study)] == names
    assert (study.seed, study.games, study.values.games) == (packaged.seed, packaged.games, packaged.values.games)
    searching = [p for part in study.search for p in part.populations]
    assert "champion:search=800" in searching
    for table in atlas.tables(study):
        assert table in atlas.tables(packaged)
        assert atlas.populations(study, table) == [*study.populations, *searching]
        forbid = atlas.study(packaged, table, study.populations[0])["restricted"]["forbid"]
        assert len(forbid) == len(atlas.roster(rules, table.characters)) + len(atlas.markets(study))
        for population in atlas.populations(study, table):   # the same games but for their folder
            ours, theirs = atlas.study(study, table, population), atlas.study(packaged, table, population)
            assert ours.pop("out") != theirs.pop("out")
            if population in searching:                        # but 1,000 games an arm, not 200 or none
                restricted = ours.pop("restricted")
                assert (restricted["games"], restricted["forbid"]) == (1000, forbid)
                if population in atlas.populations(packaged, table):
                    assert theirs.pop("restricted", {"games": 200})["games"] == 200
                else:                                          # what the packaged atlas would play there
                    theirs.pop("restricted")
            assert ours == theirs
    shipped = Path(__file__).resolve().parents[1] / "docs" / "results" / "balance" / "atlas" / name[len("atlas_"):]
    made = atlas.parse(yaml.safe_load((shipped / "atlas.yaml").read_text()))
    assert made.model_dump(exclude={"out"}) == study.model_dump(exclude={"out"})
    answers = tables.read(shipped, "answers")
    widest = 2 * 1.96 * 100 * math.sqrt(2 * 0.25 / 1000)   # points: two win rates of 1,000 games each, both at 50%
    for table, population in itertools.product(atlas.tables(study), searching):
        markets = tables.where(answers, kind="market", table=table.name, population=population)
        assert sorted(markets["subject"]) == sorted(atlas.markets(study))
        assert all(high - low < widest for low, high in zip(markets["low"], markets["high"]))   # 200 games: 19.6
    counts = Counter(t.players for t in atlas.tables(study))      # seats pooled over two tables or more, not one
    pooled = {f"pooled-{n}p" for n, k in counts.items() if k > 1}
    assert set(tables.where(answers, kind="seat")["table"]) == set(names) | pooled     # each seat question once
