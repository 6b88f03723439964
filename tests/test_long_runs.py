"""Long runs survive kills, stops and bad folders: tournaments and balance studies
save each game as it ends, stop their workers on SIGTERM, and --resume gives the same files."""
from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nefertiti_env.agents.tournament import run_in_folder
from nefertiti_cli import main

ROOT = Path(__file__).resolve().parent.parent
# an MCTS seat makes the run last seconds: with the compiled heuristics alone, 24 games could end between the
# test's seeing the first games saved and its kill or SIGTERM (CI saw a run at its end, its pool half gone)
TOURNAMENT = ["tournament", "--players", "3", "--bots", "mcts,greedy,random", "--games", "24", "--seed", "5",
              "--quiet"]
FILES = ["games.csv", "records.jsonl", "summary.csv", "tournament.json"]


def children(pid: int) -> set[int]:
    """Process ids whose parent is `pid` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def rows(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n") - 1
    except FileNotFoundError:
        return 0


def start(argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "nefertiti_cli", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_for_games(proc: subprocess.Popen, path: Path, games: int) -> None:
    deadline = time.monotonic() + 120
    while rows(path) < games:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no games written"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    assert main([*TOURNAMENT, "--out", str(out)]) == 0
    return out


def same_files(a: Path, b: Path, names=FILES) -> None:
    for name in names:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


# ------------------------------------------------------------- statistics at the edges
def test_a_bot_that_always_wins_and_bots_that_never_win_go_through_the_plot(tmp_path):
    summary, played = run_in_folder(tmp_path, ["greedy", "random", "random", "random"], games=8, seed=0,
                                    progress=False)
    by_bot = {row["bot"]: row for row in summary}
    assert by_bot["greedy"]["wins"] == 8 and by_bot["greedy"]["win_high"] == 1.0
    assert by_bot["random"]["wins"] == 0 and by_bot["random"]["win_low"] == 0.0
    assert len(played) == 8 and (tmp_path / "winrates.png").stat().st_size > 1000


# ------------------------------------------------------------- kill -9, then --resume
def test_a_killed_tournament_resumes_to_the_same_files(tmp_path, uninterrupted):
    out = tmp_path / "run"
    proc = start([*TOURNAMENT, "--out", str(out)])
    wait_for_games(proc, out / "games.csv", 3)
    proc.kill()
    proc.communicate()
    assert 3 <= rows(out / "games.csv") < 24
    with open(out / "games.csv", "a") as f:            # what a kill in the middle of a write leaves
        f.write("17,8812")
    with open(out / "records.jsonl", "a") as f:
        f.write('{"game": 17, "bo')
    assert main([*TOURNAMENT, "--out", str(out), "--resume"]) == 0
    same_files(out, uninterrupted)
    assert speed_decisions(out) == speed_decisions(uninterrupted) == game_decisions(out)    # every session's


def speed_decisions(folder: Path) -> int:
    with open(folder / "speed.csv") as f:
        return sum(int(row["decisions"]) for row in csv.DictReader(f))


def game_decisions(folder: Path) -> int:
    with open(folder / "games.csv") as f:
        return sum(int(row["decisions"]) for row in csv.DictReader(f))


def test_a_resume_after_the_last_game_writes_speed_csv_and_reports_a_damaged_record(tmp_path, uninterrupted,
                                                                                    capsys):
    """A kill just after the last game left no speed.csv: a resume writes it, over every game; a damaged
    records line (a disk fault) is named on stderr and kept as it is."""
    import shutil

    out = tmp_path / "run"
    shutil.copytree(uninterrupted, out)
    (out / "speed.csv").unlink()
    lines = (out / "records.jsonl").read_bytes().split(b"\n")
    lines[2] = b"\x00" * len(lines[2])
    (out / "records.jsonl").write_bytes(b"\n".join(lines))
    assert main([*TOURNAMENT, "--out", str(out), "--resume"]) == 0
    assert speed_decisions(out) == game_decisions(out)
    err = capsys.readouterr().err
    assert f"{out / 'records.jsonl'}: line(s) 3 are damaged" in err
    assert (out / "records.jsonl").read_bytes() == b"\n".join(lines)


def test_resume_refuses_other_parameters_and_a_run_needs_resume_or_force(tmp_path, uninterrupted, capsys):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(uninterrupted, out)
    assert main([*TOURNAMENT, "--out", str(out), "--resume", "--seed", "6"]) == 2
    assert "other seed (seed=5)" in capsys.readouterr().err
    assert main([*TOURNAMENT, "--out", str(out)]) == 2
    assert "pass --resume to continue it, --force to start it over" in capsys.readouterr().err
    assert main([*TOURNAMENT, "--out", str(out), "--resume"]) == 0        # finished: nothing left to play
    same_files(out, uninterrupted)


# ------------------------------------------------------------- SIGTERM stops every worker
def test_resume_refuses_other_weights_behind_a_bot_spec(tmp_path, capsys):
    """`ppo:path=FILE` (or `champion`) names weights: a run resumed after the file changed is refused, not mixed."""
    import shutil

    from nefertiti_env.agents.champion import CHAMPION_FILES

    model, out = tmp_path / "agent.pt", tmp_path / "run"
    shutil.copyfile(CHAMPION_FILES[2], model)
    argv = ["tournament", "--players", "3", "--bots", f"ppo:path={model},random,random", "--games", "3", "--quiet",
            "--out", str(out)]
    assert main(argv) == 0 and main([*argv, "--resume"]) == 0
    assert list(json.loads((out / "weights.json").read_text())) == [f"ppo:path={model}"]
    shutil.copyfile(CHAMPION_FILES[1], model)
    capsys.readouterr()
    assert main([*argv, "--resume"]) == 2
    assert f"the weights behind ppo:path={model} differ from those this run started with" in capsys.readouterr().err


def test_sigterm_stops_the_workers_saves_and_says_how_to_resume(tmp_path, uninterrupted):
    out = tmp_path / "run"
    proc = start([*TOURNAMENT, "--out", str(out), "--workers", "2"])
    wait_for_games(proc, out / "games.csv", 2)
    workers = children(proc.pid)
    assert proc.poll() is None and len(workers) >= 2
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in err and f"--out {out} --workers 2 --resume" in err
    assert not [pid for pid in workers if Path(f"/proc/{pid}").exists()]
    saved = rows(out / "games.csv")
    assert f"stopped: {saved} of 24 games are saved" in err
    assert main([*TOURNAMENT, "--out", str(out), "--workers", "2", "--resume"]) == 0
    same_files(out, uninterrupted)


# ------------------------------------------------------------- bad or failing folders
def test_a_file_as_out_fails_before_any_game(tmp_path, capsys):
    path = tmp_path / "file"
    path.write_text("mine")
    assert main([*TOURNAMENT, "--out", str(path)]) == 2
    err = capsys.readouterr().err
    assert "exists and is not a folder" in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert path.read_text() == "mine"


def test_a_full_disk_during_the_run_keeps_the_finished_games(tmp_path, uninterrupted, monkeypatch, capsys):
    import nefertiti_env.agents.tournament as tournament

    out = tmp_path / "run"
    real = tournament.game_rows
    calls = []

    def full_after_five(results):
        calls.append(1)
        if len(calls) > 5:
            raise OSError(28, "No space left on device")
        return real(results)

    monkeypatch.setattr(tournament, "game_rows", full_after_five)
    assert main([*TOURNAMENT, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "No space left on device; 5 finished games are saved there" in err and "Traceback" not in err
    monkeypatch.setattr(tournament, "game_rows", real)
    assert main([*TOURNAMENT, "--out", str(out), "--resume"]) == 0
    same_files(out, uninterrupted)


# ------------------------------------------------------------- balance studies
def study_config(tmp_path: Path, **changes) -> str:
    import yaml

    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump({"seed": 1, "games": 5, "player_counts": [3], "lineups": {3: ["random"] * 3},
                                    "rulesets": {"default": "default"}, "workers": 1, **changes}))
    return str(path)


def test_a_tiny_study_with_a_winless_position_reaches_report_md(tmp_path, capsys):
    # seed 1, 5 games: position 3 never wins; the old Wilson low of 0 wins in 5 was 2.8e-17 (a negative error bar)
    out = tmp_path / "out"
    assert main(["balance", "--config", study_config(tmp_path), "--out", str(out), "--quiet"]) == 0
    report = (out / "report.md").read_text()
    assert "| 3 | 10 | 0.0% [0.0, 43.4] |" in report          # position 3 (10 starting Deben): no win
    assert (out / "seats.png").stat().st_size > 1000


BALANCE_FILES = ["games.csv", "seats.csv", "gifts.csv", "closings.csv", "characters.csv", "rows.jsonl",
                 "report.md", "seats.png"]


def test_a_killed_study_resumes_to_the_same_tables_and_report(tmp_path, capsys):
    import yaml

    config = study_config(tmp_path, games=16, lineups={3: ["mcts", "greedy", "random"]})   # an MCTS seat: seconds
    whole, out = tmp_path / "whole", tmp_path / "run"
    assert main(["balance", "--config", config, "--out", str(whole), "--quiet"]) == 0
    proc = start(["balance", "--config", config, "--out", str(out), "--quiet"])
    wait_for_games(proc, out / "rows.jsonl", 4)             # 3 lines: the counter takes one off for a header
    proc.kill()
    proc.communicate()
    assert 3 <= rows(out / "rows.jsonl") + 1 < 16
    with open(out / "rows.jsonl", "a") as f:
        f.write('{"games":[["main","def')
    assert main(["balance", "--config", config, "--out", str(out), "--quiet", "--resume", "--seed", "2"]) == 2
    assert "holds a study with another seed" in capsys.readouterr().err
    assert main(["balance", "--config", config, "--out", str(out), "--quiet", "--resume", "--workers", "2"]) == 0
    same_files(out, whole, BALANCE_FILES)
    assert yaml.safe_load((out / "study.yaml").read_text())["games"] == 16
    figures = json.loads((out / "run.json").read_text())      # the whole study's, not the last session's
    assert (figures["games"], figures["decisions"]) == (json.loads((whole / "run.json").read_text())["games"],
                                                         json.loads((whole / "run.json").read_text())["decisions"])
    assert figures["sessions"][-1]["games"] < figures["games"]


def test_a_study_refuses_a_folder_that_is_not_its_own(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["balance", "--config", study_config(tmp_path), "--out", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "is not empty and holds no nefertiti balance run" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "study.yaml"]
