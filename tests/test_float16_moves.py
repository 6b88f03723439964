"""benchmarks/float16_moves.py: the champion's own actor rounded to float16 judged at every decision it makes."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from nefertiti_env.agents.champion import CHAMPION_FILE

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "float16_moves.py"
spec = importlib.util.spec_from_file_location("float16_moves", SCRIPT)
float16_moves = importlib.util.module_from_spec(spec)
spec.loader.exec_module(float16_moves)


def test_one_game_a_table_reports_the_decisions_and_the_rounding(capsys):
    assert float16_moves.main([str(CHAMPION_FILE), "--games", "1"]) == 0
    row = [line for line in capsys.readouterr().out.splitlines() if line.startswith(f"| {CHAMPION_FILE} |")]
    decisions, changed, largest, median = row[0].split(" | ")[1:5]
    assert int(decisions) > 100 and 0 <= int(changed) <= int(decisions) // 20
    assert 0 < float(median.rstrip(" |")) <= float(largest) < 0.05
