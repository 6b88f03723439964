"""The ladder: a balanced schedule of line-ups, the same files whatever the workers and after a
resume, a bot that always loses rated last, the CLI's errors and its stop-and-resume message."""
from __future__ import annotations

import csv
import itertools
from collections import Counter

import pytest

from nefertiti_env.agents import ladder, tournament
from nefertiti_cli import main

BOTS = ["random", "greedy:samples=1", "collector:samples=1", "banker:samples=1"]
TINY = dict(bots=BOTS, players=3, games_per_lineup=3, seed=0, progress=False, command="nefertiti ladder (test)",
            date="2026-01-01 00:00 UTC")
FILES = ["games.csv", "records.jsonl", "ladder.json", "ladder.csv", "ladder.md", "ladder.png"]
CLI = ["ladder", "--bots", ",".join(BOTS), "--players", "3", "--games-per-lineup", "3", "--seed", "0", "--quiet"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("ladder")
    rows, played = ladder.run_in_folder(out, workers=1, **TINY)
    return out, rows, played


def same_files(a, b, names=FILES) -> None:
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.parametrize("bots, players", [(6, 4), (7, 4), (5, 3), (9, 4), (4, 2), (6, 5)])
def test_schedule_is_balanced(bots, players):
    names = [f"mcts:iterations={i + 1}" for i in range(bots)]
    jobs = ladder.schedule(names, players, 2 * players, seed=0)
    tables = Counter(frozenset(job.bots) for job in jobs)
    assert len(tables) == len(list(itertools.combinations(names, players)))
    assert set(tables.values()) == {2 * players}                  # every line-up as often
    pairs = Counter(pair for job in jobs for pair in itertools.combinations(sorted(job.bots), 2))
    assert len(pairs) == bots * (bots - 1) // 2
    assert max(pairs.values()) - min(pairs.values()) <= 1           # every pair meets as often
    seats = Counter((bot, seat) for job in jobs for seat, bot in enumerate(job.bots))
    assert len(set(seats.values())) == 1 and len(seats) == bots * players   # every bot in every seat as often
    for block in range(0, len(jobs), players):                     # a deal is played in every rotation
        deal = jobs[block:block + players]
        assert len({job.seed for job in deal}) == 1 and len({frozenset(job.bots) for job in deal}) == 1
        assert sorted(job.rotation for job in deal) == list(range(players))
    assert len({job.seed for job in jobs}) == len(jobs) // players
    after = Counter(((job.bots.index(b) - job.bots.index(a)) % players, a, b)       # b sits k seats after a
                    for job in jobs for a, b in itertools.permutations(job.bots, 2))
    assert all(after[k, a, b] == after[k, b, a] for k, a, b in after)              # each side of the other as often


def test_more_games_per_line_up_extend_the_shorter_ladder():
    short, long = ladder.schedule(BOTS, 3, 3, seed=1), ladder.schedule(BOTS, 3, 9, seed=1)
    assert long[:len(short)] == short and len(long) == 3 * len(short) == 36


def test_a_ladder_of_one_line_up_is_that_tournament():
    """Both reverse the bots every other deal (at 2 players a rotation is the reversal)."""
    forward, backward = tournament.rotations([BOTS[:3]], 6, seed=4), tournament.rotations([BOTS[2::-1]], 6, seed=4)
    assert ladder.schedule(BOTS[:3], 3, 6, seed=4) == tournament.schedule(BOTS[:3], 6, seed=4)
    assert tournament.schedule(BOTS[:3], 6, seed=4) == forward[:3] + backward[3:]
    assert ladder.schedule(BOTS[:2], 2, 6, seed=4) == tournament.schedule(BOTS[:2], 6, seed=4)


def test_the_files_and_the_table(tiny):
    out, rows, played = tiny
    assert {p.name for p in out.iterdir()} >= {*FILES, "speed.csv"}
    with open(out / "games.csv") as f:
        games = list(csv.DictReader(f))
    assert len(games) == len(played) == 12
    with open(out / "ladder.csv") as f:
        table = list(csv.DictReader(f))
    assert [r["bot"] for r in table] == [r["bot"] for r in rows] and sorted(r["bot"] for r in rows) == sorted(BOTS)
    assert [int(r["place"]) for r in table] == [1, 2, 3, 4]
    ordinals = [float(r["ordinal"]) for r in table]
    assert ordinals == sorted(ordinals, reverse=True)
    for r in table:
        assert float(r["ordinal"]) == pytest.approx(float(r["mu"]) - 3 * float(r["sigma"]))
        assert float(r["win_low"]) <= float(r["win_rate"]) <= float(r["win_high"])
        assert int(r["seat_games"]) == 9                       # in 3 of the 4 line-ups, 3 games each
    page = (out / "ladder.md").read_text()
    assert "| 1 | `" in page and "- command: `nefertiti ladder (test)`" in page and "2026-01-01" in page
    assert "each pair of bots shares 2 of them" in page and "![ladder" in page and "Head to head" in page
    assert (out / "ladder.png").stat().st_size > 10_000


def test_same_files_with_two_workers(tiny, tmp_path):
    ladder.run_in_folder(tmp_path, workers=2, **TINY)
    same_files(tiny[0], tmp_path)


def stop_at_game(n: int, monkeypatch):
    """Make game n raise KeyboardInterrupt (a Ctrl-C there); returns the real `play_job` to restore."""
    play_job = tournament.play_job

    def stopping(job):
        if job.index == n:
            raise KeyboardInterrupt
        return play_job(job)

    monkeypatch.setattr(tournament, "play_job", stopping)
    return play_job


def test_an_interrupted_ladder_resumes_to_the_same_files(tiny, tmp_path, monkeypatch):
    play_job = stop_at_game(5, monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        ladder.run_in_folder(tmp_path, workers=1, **TINY)
    assert tournament.finished_games(tmp_path) == 5
    monkeypatch.setattr(tournament, "play_job", play_job)
    _, played = ladder.run_in_folder(tmp_path, workers=1, resume=True, **TINY)
    assert [r.job.index for r in played] == list(range(5, 12))
    same_files(tiny[0], tmp_path)


def test_a_bot_that_always_loses_ranks_last(tiny):
    out, rows, _ = tiny
    last = [ranks[bots.index("random")] for bots, ranks in tournament.read_games(out / "games.csv")
            if "random" in bots]
    assert last == [3] * 9                                     # random lost every game it played here
    assert rows[-1]["bot"] == "random" and rows[-1]["wins"] == 0
    # and on made-up results, whatever the order the bots first appear in
    games = []
    for order in itertools.permutations(["loser", "a", "b", "c"]):       # every seating, the loser first in one
        others = [b for b in order if b != "loser"]
        games.append((list(order), [4 if b == "loser" else 1 + others.index(b) for b in order]))
    assert ladder.ladder_rows(games)[-1]["bot"] == "loser"


def test_head_to_head_shares_count_ties_half():
    games = [(["a", "b", "c"], [1, 2, 2]), (["c", "a", "b"], [1, 3, 2]), (["b", "c"], [1, 1])]
    pairs = ladder.head_to_head(games)
    assert pairs["a", "b"] == (0.5, 2) and pairs["b", "a"] == (0.5, 2)
    assert pairs["b", "c"] == (pytest.approx(1 / 3), 3) and pairs["c", "a"] == (0.5, 2) and ("a", "a") not in pairs
    assert pairs["c", "b"][0] + pairs["b", "c"][0] == 1


@pytest.mark.parametrize("argv, message", [
    (["--bots", "random,greedy,random"], "'random' is given twice"),
    (["--add", "greedy"], "'greedy' is given twice"),                  # --add extends the default bots
    (["--bots", "random,greedy"], "2 bots for 3-player tables"),
    (["--bots", "random,greedy,banker", "--games-per-lineup", "4"], "must be a positive multiple of --players (3)"),
    (["--bots", "random,greedy", "--add", "alphazero"], "unknown bot 'alphazero'"),
    (["--bots", "random,greedy,banker", "--add", "mcts:iterations=0"], "mcts: iterations must be >= 1"),
])
def test_cli_errors_exit_2_without_traceback(argv, message, capsys, tmp_path):
    code = main(["ladder", "--players", "3", "--out", str(tmp_path), "--quiet", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err
    assert not any(tmp_path.iterdir())


def test_cli_stops_says_how_to_resume_and_resumes(tiny, tmp_path, monkeypatch, capsys):
    play_job = stop_at_game(7, monkeypatch)
    out = tmp_path / "run"
    assert main([*CLI, "--out", str(out)]) == 130
    err = capsys.readouterr().err
    assert f"stopped: 7 of 12 games are saved in {out}/" in err and f"--out {out} --resume" in err
    monkeypatch.setattr(tournament, "play_job", play_job)
    assert main([*CLI, "--out", str(out), "--resume"]) == 0
    assert "ordinal" in capsys.readouterr().out
    same_files(tiny[0], out, ["games.csv", "records.jsonl", "ladder.csv", "ladder.png"])
    assert f"- command: `nefertiti {' '.join(CLI)} --out {out}`" in (out / "ladder.md").read_text()


def test_default_bots_are_every_shipped_bot():
    from nefertiti_env.agents import BOTS as SHIPPED, LADDER_BOTS

    assert {spec.partition(":")[0] for spec in LADDER_BOTS} == set(SHIPPED) - {"ppo", "mixture"}   # those need files
    assert len(set(LADDER_BOTS)) == len(LADDER_BOTS)
    ladder.check(LADDER_BOTS, 4, 8)


def test_a_ladder_plays_and_names_the_table_it_is_given(tmp_path):
    """`nefertiti ladder --players 3 --setup advanced --characters expansion --memphis`: every game is
    played at that table (docs/rules.md §1 setup, §7 Memphis: the options a game records) and the page names it."""
    import json

    out = tmp_path / "ladder"
    assert main(["ladder", "--bots", "random,greedy:samples=1,banker:samples=1", "--players", "3",
                 "--games-per-lineup", "3", "--setup", "advanced", "--characters", "expansion", "--memphis",
                 "--out", str(out), "--quiet"]) == 0
    records = [json.loads(line)["record"]["options"] for line in (out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 3 and all((r["num_players"], r["setup"], r["characters"], r["memphis"]) ==
                                     (3, "advanced", "expansion", True) for r in records)
    assert "At the table of 3 players, advanced setup, expansion characters, the Port of Memphis." in \
        (out / "ladder.md").read_text()
    assert ladder.table_label(5, {}) == "5 players, beginner setup, base characters, the Port of Memphis"


def test_ladder_tables_rates_the_bots_at_each_table(tmp_path):
    """benchmarks/ladder_tables.py: one ladder per table of the bar, in its own folder, and the places side by side."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "ladder_tables.py"
    spec = importlib.util.spec_from_file_location("ladder_tables", script)
    ladder_tables = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ladder_tables)
    out = tmp_path / "tables"
    bots = "random,greedy:samples=1,banker:samples=1"
    assert ladder_tables.main(["--bots", bots, "--tables", "2p-base,3p-expansion-memphis", "--games-per-lineup", "6",
                               "--out", str(out), "--quiet"]) == 0
    with open(out / "ladder_tables.csv") as f:
        rows = list(csv.DictReader(f))
    for table, players in (("2p-base", 2), ("3p-expansion-memphis", 3)):
        mine = [r for r in rows if r["table"] == table]
        assert [int(r["place"]) for r in mine] == [1, 2, 3] and {r["bot"] for r in mine} == set(bots.split(","))
        with open(out / table / "ladder.csv") as f:
            assert [r["bot"] for r in csv.DictReader(f)] == [r["bot"] for r in mine]
        assert len((out / table / "games.csv").read_text().splitlines()) == 1 + 6 * len(ladder.lineups(
            bots.split(","), players))
    page = (out / "ladder_tables.md").read_text()
    assert "| bot | 2p-base | 3p-expansion-memphis |" in page and "the Port of Memphis" in page
    assert ladder_tables.main(["--bots", bots, "--tables", "5p-base", "--out", str(out), "--quiet"]) == 2  # 3 bots < 5
