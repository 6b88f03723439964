"""benchmarks/thinking_time.py: the policy alone, with search, and the search bot timed side by side."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "thinking_time.py"
spec = importlib.util.spec_from_file_location("thinking_time", SCRIPT)
thinking_time = importlib.util.module_from_spec(spec)
spec.loader.exec_module(thinking_time)


def test_three_bots_per_table_each_with_its_decisions_timed(capsys):
    assert [b for _, b in thinking_time.bots("champion", 800)] == ["champion", "champion:search=800",
                                                                  "mcts:iterations=800"]
    assert thinking_time.main(["--games", "1", "--search", "4", "--tables", "2p-base"]) == 0
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines() if line.startswith("| 2p-base |")]
    assert [r[1] for r in rows[:3]] == ["policy alone", "policy with search (4)", "mcts (4)"]
    assert all(int(r[2].replace(",", "")) > 0 and float(r[3].rstrip(" |")) > 0 for r in rows[:3])
