"""The balance atlas: its tables and sub-studies, the verdict across populations, a whole small atlas
by the command (resume, character control kept by the engine, report), and its HTML page in Chromium."""
from __future__ import annotations

import math

import numpy as np
import pytest
import yaml

from nefertiti_cli import main
from nefertiti_cli.configs import resolve
from nefertiti_env import load_ruleset
from nefertiti_env.balance import atlas, config, runner, tables
from nefertiti_env.balance.atlas_findings import Answer, Question
from test_browser import browser, screenshot  # noqa: F401  (the module's Chromium fixture)

TINY = {"kind": "atlas", "seed": 3, "games": 4, "populations": ["greedy", "banker"], "players": [2, 5],
        "setups": ["beginner"], "characters": ["base"], "memphis": [False, True],
        "values": {"games": 4, "players": [2], "memphis": [False]}}


def test_packaged_atlas_covers_every_table_and_skips_memphis_off_at_5():
    cfg = atlas.parse(yaml.safe_load(resolve("atlas").read_text()))
    names = [t.name for t in atlas.tables(cfg)]
    assert len(names) == len(set(names)) == 3 * 8 + 4          # 2-4 players: 2 x 2 x 2; 5 players: Memphis on only
    assert not any(t.players == 5 and not t.memphis for t in atlas.tables(cfg))
    assert len(cfg.populations) >= 3
    assert [t.name for t in atlas.tables(cfg) if atlas.valued(cfg, t)] == [
        "4p-beginner-base-no-memphis", "4p-beginner-expansion-no-memphis"]


def test_rosters_and_sub_studies():
    rules = load_ruleset("default")
    base, expansion = atlas.roster(rules, "base"), atlas.roster(rules, "expansion")
    assert "Thief" in base and "Trader" not in base and set(base) < set(expansion)
    assert len(expansion) == len({c.name for c in rules.characters})
    cfg = atlas.parse({**TINY, "out": "x"})
    subs = atlas.studies(cfg)
    assert len(subs) == 3 * 2
    for table, pop, sub in subs:
        assert sub.lineups[table.players] == [pop] * table.players and sub.seed == cfg.seed
        assert (sub.restricted is not None) == (table.name == "2p-beginner-base-no-memphis")
    sub = subs[0][2]
    assert [r.name for r in sub.restricted.forbid] == base and sub.restricted.bot == "greedy"


@pytest.mark.parametrize("bad, key", [({"populations": ["nobot"]}, "populations"),
                                      ({"characters": ["nope"]}, "characters"),
                                      ({"players": [6]}, "6"), ({"colour": 1}, "colour")])
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
                 "What Memphis changes", "games/s", "MDE"):
        assert part in md
    cfg = atlas.parse({**TINY, "out": str(out)})
    assert atlas.saved(cfg) == (6 * 4 + 2 * 9 * 4,) * 2       # main games; control and 8 character arms
    before = {p: p.read_bytes() for p in out.rglob("*.csv")}
    assert main(["balance", "--config", str(path), "--quiet", "--resume"]) == 0
    assert {p: p.read_bytes() for p in out.rglob("*.csv")} == before
    assert main(["balance", "--config", str(path), "--quiet"]) == 2           # a finished atlas is not overwritten
    page = (out / "atlas.html").read_bytes()
    assert main(["balance", "--report-only", str(out)]) == 0                    # redrawn from the CSV tables alone
    assert (out / "atlas.md").read_text() == md and (out / "atlas.html").read_bytes() == page


def test_character_control_is_kept_by_the_engine(small_atlas):
    _, out = small_atlas
    for pop in ("greedy", "banker"):
        tabs = tables.read_all(out / "2p-beginner-base-no-memphis" / pop)
        chars, seats = tabs["characters"], tabs["seats"]
        assert tables.rows(tables.where(seats, arm=runner.CONTROL)) == 8
        for name in atlas.roster(load_ruleset("default"), "base"):
            arm = f"no {name}"
            mine = tables.where(chars, arm=arm, character=name)
            forced = tables.where(seats, arm=arm)["forced"].sum()
            assert forced > 0 or not (mine["seat"] == mine["game"] % 2).any()


def test_atlas_page_shows_its_figures(small_atlas, browser, tmp_path):  # noqa: F811
    _, out = small_atlas
    page = out / "atlas.html"
    assert "src=\"atlas_" not in page.read_text()                        # figures embedded, not linked
    browser.get(page.as_uri())
    images = browser.execute_script("return Array.from(document.images).map(i => i.complete && i.naturalWidth)")
    assert len(images) == 3 and all(w and w > 200 for w in images)
    screenshot(browser, tmp_path, "atlas.png")
    from PIL import Image
    shot = np.asarray(Image.open(tmp_path / "atlas.png").convert("L"), dtype=float)
    assert shot.std() > 10 and (shot < 128).mean() > 0.005                 # text and figures, not a blank page
    assert not math.isnan(shot.mean())


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
    assert game.slots.size and 0 < gift_cards <= seat_cards
