"""`nefertiti bench` (issue #2, section 7): one run reports the three speeds and the ratios."""
from __future__ import annotations

import random

from nefertiti_cli import main


def test_bench_reports_core_env_connect_four_and_both_ratios(capsys):
    assert main(["bench", "--seconds", "0.05", "--repeats", "2"]) == 0
    out, err = capsys.readouterr()
    assert "bench:" in err and "/8 " in err              # a progress bar over the 2 x 4 measurements
    figures = dict(line.strip().rsplit(None, 1) for line in out.splitlines() if line.startswith("  "))
    figures = {name[:3] if name.startswith("(") else name: float(value.replace(",", ""))
               for name, value in figures.items()}
    assert list(figures) == ["(a)", "(b)", "(c)", "(d)", "ratio (b)/(c) of the best figures",
                             "ratio (b)/(c), median over the repeats", "this env: 1/(b) - 1/(d)",
                             "connect four: 1/(c) - 1/(d)"], out
    assert all(v > 0 for v in figures.values())
    best_ratio = figures["ratio (b)/(c) of the best figures"]
    assert abs(best_ratio - figures["(b)"] / figures["(c)"]) < 0.01
    own = 1e6 / figures["(b)"] - 1e6 / figures["(d)"]
    assert abs(own - figures["this env: 1/(b) - 1/(d)"]) < 0.1 + 0.01 * own


def test_the_floor_env_is_a_valid_aec_env_of_fixed_length_games():
    """(d) must be an honest floor: a correct AEC env (PettingZoo's api_test) whose games are 150 decisions."""
    from pettingzoo.test import api_test

    from nefertiti_cli.bench import floor_env, play_env_game

    api_test(floor_env(), num_cycles=200)
    assert play_env_game(floor_env(), 0, random.Random(0)) == 150


def test_bench_rejects_a_useless_duration(capsys):
    assert main(["bench", "--seconds", "0", "--repeats", "1"]) == 2
    assert "--seconds must be > 0" in capsys.readouterr().err
