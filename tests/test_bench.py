"""`nefertiti bench` (issue #2, section 7): one run reports the three speeds and the ratios."""
from __future__ import annotations

from nefertiti_cli import main


def test_bench_reports_core_env_connect_four_and_both_ratios(capsys):
    assert main(["bench", "--seconds", "0.05", "--repeats", "2"]) == 0
    out = capsys.readouterr().out
    figures = dict(line.strip().rsplit(None, 1) for line in out.splitlines() if line.startswith("  "))
    figures = {name[:3] if name.startswith("(") else name: float(value.replace(",", ""))
               for name, value in figures.items()}
    assert list(figures) == ["(a)", "(b)", "(c)", "ratio (b)/(c) of the best figures",
                             "ratio (b)/(c), median over the repeats"], out
    assert all(v > 0 for v in figures.values())
    best_ratio = figures["ratio (b)/(c) of the best figures"]
    assert abs(best_ratio - figures["(b)"] / figures["(c)"]) < 0.01


def test_bench_rejects_a_useless_duration(capsys):
    assert main(["bench", "--seconds", "0", "--repeats", "1"]) == 2
    assert "--seconds must be > 0" in capsys.readouterr().err
