"""Stopping `nefertiti train` (SIGTERM, as Ctrl-C takes the same path) during an evaluation with
worker processes: the run exits promptly, no process of its group survives, and --resume continues
from the saved checkpoint."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

CONFIG = {       # one PPO iteration (256 steps), then the checkpoint and the final evaluation
    "total_timesteps": 256, "seed": 3, "checkpoint_every": 256,
    "env": {"num_players": 3, "n_envs": 2},
    "opponents": {"weights": {"random": 1.0}, "snapshot_every": 256},
    "ppo": {"n_steps": 128, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
    "evaluation": {"every_steps": 10**6, "games": 2, "final_games": 20, "baselines": ["random"], "workers": 2},
}


def group(pgid: int) -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every live process in the process group."""
    out = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if fields[0] != "Z" and int(fields[2]) == pgid:
            out[int(entry.name)] = (int(fields[1]), cmdline)
    return out


def wait_for(condition, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


def train(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "nefertiti_cli", "train", "--quiet", *args],
                            start_new_session=True, stderr=subprocess.PIPE, text=True)


def test_sigterm_during_evaluation_stops_every_worker_and_resume_continues(tmp_path):
    out = tmp_path / "run"
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**CONFIG, "out": str(out)}))
    proc = train("--config", str(config))
    pgid = proc.pid                                   # a new session: its group is the run and its children

    def evaluating_after_a_checkpoint():
        """2 evaluation workers under the forkserver, a checkpoint saved."""
        procs = group(pgid)
        servers = [pid for pid, (_, cmd) in procs.items() if "forkserver" in cmd]
        workers = [pid for pid, (parent, _) in procs.items() if parent in servers]
        return (out / "checkpoints" / "latest").is_file() and len(workers) >= 2

    try:
        assert wait_for(evaluating_after_a_checkpoint, 240), "the run never reached an evaluation"
        assert len(group(pgid)) >= 4                  # main, forkserver, resource tracker, 2 workers
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        err = proc.stderr.read()
    finally:
        if proc.poll() is None:
            os.killpg(pgid, signal.SIGKILL)
    assert proc.returncode == 130, err
    assert wait_for(lambda: not group(pgid), 10), f"left running: {group(pgid)}"
    assert "nefertiti train: stopped (every worker process ended); the checkpoint at step 256 is saved; " \
           f"continue with `nefertiti train --resume --out {out}`" in err
    assert "Traceback" not in err

    resumed = train("--resume", "--out", str(out), "--total-timesteps", "512")
    assert resumed.wait(timeout=300) == 0, resumed.stderr.read()
    summary = json.loads((out / "summary.json").read_text())
    state = json.loads((out / "checkpoints" / "step_0000000512" / "state.json").read_text())
    assert summary["timesteps"] == 512 and state["session_seeds"] == [3, 3 + 256]


def test_a_stopped_evaluation_leaves_no_pool_thread_to_race_the_interpreters_exit(monkeypatch):
    """Ctrl-C mid-evaluation: when the interrupt leaves `evaluate`, the worker pool's manager thread has ended.
    Left running, it closes its wake-up pipe while the exiting interpreter writes to it, and the run ends with
    a `Bad file descriptor` traceback after its clean stop message."""
    import concurrent.futures.process as futures_process
    import threading

    from nefertiti_env.training import evaluation

    def interrupted(futures, first_result=evaluation.as_completed):
        yield next(first_result(futures))
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation, "as_completed", interrupted)
    with pytest.raises(KeyboardInterrupt):
        evaluation.evaluate(None, ["random"], 40, {"num_players": 2}, seed=0, workers=2, progress=False,
                            bot="random")
    managers = [t for t in threading.enumerate() if isinstance(t, futures_process._ExecutorManagerThread)]
    assert managers == []
