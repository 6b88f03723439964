"""The training run's report reads its learning curve whatever a kill or a hand left in evaluations.csv
(docs/reliability.md): damaged lines are left out and named, the rest is plotted."""
from __future__ import annotations

from nefertiti_env.training.report import plot_learning_curve, read_evaluations

HEADER = "timesteps,baseline,games,wins,win_rate,ci_low,ci_high,mean_score,parity\n"
GOOD = ["1000,random,60,30,0.5,0.38,0.62,90.1,0.25\n", "2000,random,60,40,0.6667,0.54,0.77,95.0,0.25\n"]


def test_damaged_lines_of_the_learning_curve_are_left_out_and_named(tmp_path, capsys):
    path = tmp_path / "evaluations.csv"
    path.write_text(HEADER + GOOD[0] + "1500,random,60,3\x00\x00\n" + "x,random,60,1,0.1,0,0.2,1,0.25\n" + GOOD[1])
    rows = read_evaluations(path)
    assert [r["timesteps"] for r in rows] == ["1000", "2000"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: left out 2 damaged line(s) of the learning curve: 3, 4" in err
    plot_learning_curve(rows, [], 2000, tmp_path / "curve.png", "run")
    assert (tmp_path / "curve.png").stat().st_size > 1000


def test_a_whole_learning_curve_is_read_as_written(tmp_path, capsys):
    path = tmp_path / "evaluations.csv"
    path.write_text(HEADER + "".join(GOOD))
    assert [r["win_rate"] for r in read_evaluations(path)] == ["0.5", "0.6667"]
    assert capsys.readouterr().err == ""


def test_a_mixture_of_player_counts_gets_one_panel_per_parity(tmp_path, monkeypatch):
    """Each panel draws its own 1/n line: a 2-player table's 0.5 and a 4-player table's 0.25."""
    import matplotlib.axes
    lines = []
    real = matplotlib.axes.Axes.axhline
    monkeypatch.setattr(matplotlib.axes.Axes, "axhline", lambda ax, y, **kw: lines.append(y) or real(ax, y, **kw))
    rows = [dict(zip(HEADER.strip().split(","), line.strip().split(","))) for line in GOOD]
    two = [{**row, "baseline": "2p banker", "parity": "0.5"} for row in rows]
    plot_learning_curve(rows + two, [], 2000, tmp_path / "curve.png", "mixture")
    assert lines == [0.5, 0.25]
    lines.clear()
    plot_learning_curve(rows, [], 2000, tmp_path / "one.png", "one table")
    assert lines == [0.25]
