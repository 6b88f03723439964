"""benchmarks/leaf_value.py: paired differences on the same games, and a quick run writes its four lines."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from conftest import import_extra

import_extra("torch", "train")
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))                 # the script imports its sibling scripts
spec = importlib.util.spec_from_file_location("leaf_value", BENCHMARKS / "leaf_value.py")
leaf_value = importlib.util.module_from_spec(spec)
spec.loader.exec_module(leaf_value)


def test_the_difference_is_taken_game_by_game():
    a = {g: g == 7 for g in range(8)}
    b = {**{g: g < 6 for g in range(8)}, 9: True}          # game 9 was not played by a: left out
    points, _, p = leaf_value.difference(a, b).partition(" | ")
    assert points.startswith("+62.5 [")                     # 6 games won by b only, 1 by a only, of 8
    assert float(p) == pytest.approx(0.125)                 # exact McNemar: 2 x P(X <= 1), X ~ Bin(7, 1/2)


def test_paired_wins_compares_a_range_of_games_with_its_interval(tmp_path, capsys):
    """`paired_wins.py --games FIRST:STOP` keeps those games of both runs, as leaf_value's difference counts them."""
    import paired_wins

    for name, won in (("a", [1, 0, 0, 1, 0, 1]), ("b", [1, 1, 1, 0, 1, 1])):
        (tmp_path / name).mkdir()
        rows = [f"{g},ppo:x,{2 - w},mcts,{1 + w}" for g, w in enumerate(won)]
        (tmp_path / name / "games.csv").write_text("game,bot_0,rank_0,bot_1,rank_1\n" + "\n".join(rows) + "\n")
    a, b = (paired_wins.wins(tmp_path / name, "ppo") for name in "ab")
    assert a == {0: True, 1: False, 2: False, 3: True, 4: False, 5: True}
    paired_wins.main([str(tmp_path / "a"), str(tmp_path / "b"), "--bot", "ppo", "--games", "1:5"])
    out = capsys.readouterr().out
    kept = ({g: a[g] for g in range(1, 5)}, {g: b[g] for g in range(1, 5)})
    assert out.startswith("4 games on the same deals: a 1 wins (25.0%), b 3 (75.0%), b - a +50.0 points [")
    assert leaf_value.difference(*kept).startswith("+50.0 [") and "by a only 1, by b only 3" in out


def test_a_quick_run_writes_the_four_lines(tmp_path):
    from nefertiti_env.agents.champion import CHAMPION_FILE

    leaf_value.main(["--model", str(CHAMPION_FILE), "--table", "2p-base", "--budgets", "4,8", "--games", "2",
                     "--workers", "1", "--out", str(tmp_path)])
    text = (tmp_path / "leaf_value.md").read_text()
    assert [line.split(" | ")[0] for line in text.splitlines() if line.startswith("| critic: 8 - 4")] == \
        ["| critic: 8 - 4"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heuristic-4", "heuristic-8", "leaf_value.md",
                                                          "learnt-4", "learnt-8"]


def test_a_selection_run_plays_the_critics_lines_with_its_settings_on_its_seed(tmp_path):
    """Settings are chosen on other deals than the reported ones: --seed and --options reach every line."""
    import csv

    from nefertiti_env.agents.champion import CHAMPION_FILE

    leaf_value.main(["--model", str(CHAMPION_FILE), "--table", "2p-base", "--budgets", "4,8", "--games", "2",
                     "--workers", "1", "--leaves", "critic", "--options", "c=0.2:width=3", "--seed", "11",
                     "--out", str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["leaf_value.md", "learnt-4", "learnt-8"]
    text = (tmp_path / "leaf_value.md").read_text()
    assert "seed 11, search settings `c=0.2:width=3`" in text and "heuristic" not in text
    with open(tmp_path / "learnt-8" / "games.csv") as f:
        bots = {value for row in csv.DictReader(f) for key, value in row.items() if key.startswith("bot_")}
    assert f"ppo:path={CHAMPION_FILE}:search=8:leaf_value=1:c=0.2:width=3" in bots
