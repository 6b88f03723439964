"""Run folders: a user's files are never touched, problems show at start."""
import os
import signal
import subprocess
import sys

import pytest

from nefertiti_env.agents.run_folder import (LOCK, MARKER, RunFolderError, complete_lines, prepare, run_kind,
                                             stop_on_sigterm)


def test_new_folder_gets_marker(tmp_path):
    out = prepare(tmp_path / "a" / "b", "tournament")
    assert out.is_dir() and run_kind(out) == "tournament"
    assert sorted(p.name for p in out.iterdir()) == [LOCK, MARKER]


def test_user_folder_refused_and_untouched(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "mine.txt").write_text("keep")
    (tmp_path / "evaluations.csv").write_text("keep")
    for force in (False, True):
        with pytest.raises(RunFolderError, match="not empty"):
            prepare(tmp_path, "train", force=force)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evaluations.csv", "logs"]
    assert (tmp_path / "logs" / "mine.txt").read_text() == "keep"


def test_same_kind_needs_resume_or_force(tmp_path):
    prepare(tmp_path, "balance")
    (tmp_path / "games.csv").write_text("x")
    with pytest.raises(RunFolderError, match="--resume"):
        prepare(tmp_path, "balance")
    assert prepare(tmp_path, "balance", resume=True) == tmp_path
    assert prepare(tmp_path, "balance", force=True) == tmp_path
    with pytest.raises(RunFolderError, match="holds a nefertiti balance run"):
        prepare(tmp_path, "tournament", resume=True)


def test_resume_needs_a_run(tmp_path):
    with pytest.raises(RunFolderError, match="no tournament run to resume"):
        prepare(tmp_path / "new", "tournament", resume=True)


def test_file_in_the_way(tmp_path):
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(RunFolderError, match="not a folder"):
        prepare(path, "tournament")
    with pytest.raises(RunFolderError, match="cannot create"):
        prepare(path / "sub", "tournament")


@pytest.mark.parametrize("errno, text", [(28, "No space left on device"), (30, "Read-only file system")])
def test_unwritable_folder_is_one_line(tmp_path, monkeypatch, errno, text):
    """A full or read-only file system fails the probe at start, with the folder's name."""
    real_open = open

    def failing(path, mode="r", *a, **k):
        if "nefertiti-probe" in str(path):
            raise OSError(errno, text)
        return real_open(path, mode, *a, **k)

    monkeypatch.setattr("builtins.open", failing)
    with pytest.raises(RunFolderError, match=f"cannot write into .*x: {text}"):
        prepare(tmp_path / "x", "tournament")
    assert not (tmp_path / "x" / MARKER).exists()


def test_sigterm_becomes_keyboard_interrupt():
    """...and the handler before it is back afterwards (SIG_DFL, or whatever a library set: ray.init sets one)."""
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        with stop_on_sigterm():
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(10_000_000):     # the handler runs at the next bytecode boundary
                pass
    assert signal.getsignal(signal.SIGTERM) == before


def test_complete_lines_cuts_a_half_written_last_line(tmp_path):
    path = tmp_path / "games.csv"
    path.write_bytes(b"head\r\n1,a\r\n2,b\r\n3,")
    assert complete_lines(path) == 3 and path.read_bytes() == b"head\r\n1,a\r\n2,b\r\n"
    assert complete_lines(path, keep=2) == 2 and path.read_bytes() == b"head\r\n1,a\r\n"
    assert complete_lines(path, keep=5) == 2
    assert complete_lines(tmp_path / "missing") == 0


def test_workers_stopped_as_they_start_leave_no_traceback():
    """A pool ended as soon as it starts (a finished run resumed), under the SIGTERM handler: a worker
    forked with the main process's handler raised KeyboardInterrupt if SIGTERM came before its
    initializer, and once a worker hung (without the fix, one run of this test in three failed)."""
    code = ("from nefertiti_env.agents.run_folder import stop_on_sigterm\n"
            "from nefertiti_env.agents.workers import ordered_map\n"
            "for _ in range(100):\n"
            "    with stop_on_sigterm(), ordered_map(2) as run:\n"
            "        list(run(abs, []))\n")
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:               # hung: end it and its workers
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0 and err == "", err


def _holder(folder, kind="tournament"):
    """Another process that prepares `folder` (taking its lock), says so and waits."""
    code = (f"from nefertiti_env.agents.run_folder import prepare; prepare({str(folder)!r}, {kind!r}, force=True); "
            "print('ready', flush=True); import time; time.sleep(60)")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    return process


def test_one_run_per_folder_and_a_killed_run_leaves_no_lock(tmp_path):
    """A second run on the folder of a live one is refused, with --force too, naming the folder and the
    process; once the first dies (kill -9), the folder is free again."""
    out = tmp_path / "run"
    holder = _holder(out)
    try:
        (out / "games.csv").write_text("x")
        for options in ({"resume": True}, {"force": True}, {}):
            with pytest.raises(RunFolderError, match=f"{out} is in use by another nefertiti run "
                                                     f"\\(process {holder.pid}\\)"):
                prepare(out, "tournament", **options)
    finally:
        holder.kill()
        holder.wait()
    assert prepare(out, "tournament", force=True) == out
    assert (out / "games.csv").read_text() == "x"


def test_a_forked_worker_does_not_keep_the_folder_locked(tmp_path):
    """Workers forked by a run (tournament and balance pools) drop their copy of its lock: when the run
    is killed, a worker still finishing its game does not hold the folder."""
    out = tmp_path / "run"
    code = ("import os, time; from nefertiti_env.agents.run_folder import prepare\n"
            f"prepare({str(out)!r}, 'tournament')\n"
            "if os.fork() == 0:\n    print(os.getpid(), flush=True); time.sleep(60); os._exit(0)\n"
            "time.sleep(60)")
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = int(process.stdout.readline())
    process.kill()
    process.wait()
    try:
        assert prepare(out, "tournament", force=True) == out
    finally:
        os.kill(child, signal.SIGKILL)


def test_the_pool_forks_whatever_start_method_another_library_set():
    """torchrl sets the spawn start method when imported; the pool's workers are still forked, so a job's
    function need not be importable by name (here one defined in the `-c` script)."""
    code = ("import multiprocessing\nmultiprocessing.set_start_method('spawn')\n"
            "from nefertiti_env.agents.workers import ordered_map\n"
            "def square(x):\n    return x * x\n"
            "with ordered_map(2) as map_:\n    print(list(map_(square, range(5))))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.split("\n")[0] == "[0, 1, 4, 9, 16]", done.stderr[-2000:]

