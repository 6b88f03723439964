"""The Ray back-end (agents/cluster.py, docs/cluster.md) on a real cluster on loopback: a head and a
second node, each with one CPU. A tournament and a balance study run there write the files of the
local run byte for byte, also when a worker process or the whole second node is killed mid-run,
and a run started locally finishes there with --resume. An unreachable cluster, a missing extra
and a node with other code are one line before the first game.

`ray stop` would stop every Ray process on the machine (other users' too), so the fixture kills
the processes of the sessions it started instead."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml

from conftest import import_extra

ray = import_extra("ray", "cluster")

from nefertiti_env.agents import cluster as ray_cluster  # noqa: E402
from nefertiti_env.agents.champion import CHAMPION_FILE  # noqa: E402
from nefertiti_env.agents.tournament import finished_games, play_job, schedule  # noqa: E402
from nefertiti_env.agents.workers import ordered_map  # noqa: E402
from nefertiti_env.balance import config, runner, tables  # noqa: E402
from nefertiti_env.training.evaluation import evaluate  # noqa: E402
from nefertiti_cli import main  # noqa: E402

RAY = Path(sys.executable).with_name("ray")
NEFERTITI = Path(sys.executable).with_name("nefertiti")
# Ray replaces 127.0.0.1 (and localhost) by the machine's network address, so a cluster "on 127.0.0.1"
# would talk over that interface; other loopback addresses it keeps as they are: the head on HEAD_IP,
# the second node on NODE_IP, all traffic on loopback.
HEAD_IP, NODE_IP = "127.0.0.2", "127.0.0.3"
# Token authentication off, said explicitly: with RAY_AUTH_MODE unset, Ray turns it on for a head when
# ~/.ray/auth_token exists (a local ray.init() writes one, as the RLlib tests' does), and a second
# node or a driver without the token is then refused ("InvalidAuthToken"). The cluster is on loopback.
AUTH = {"RAY_AUTH_MODE": "disabled"}
# A Ray client's server is a new process on the head; its proxy gives it 30 s to answer by default, which
# a loaded 2-core runner can exceed ("Initialization failure from server"): the proxy waits longer here.
ENV = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "RAY_memory_monitor_refresh_ms": "0",
       "RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S": "240", **AUTH}


@pytest.fixture(autouse=True, scope="module")
def _drivers_without_token():
    """This process connects to the test clusters as a driver: the same mode as their nodes."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in AUTH.items():
            patch.setenv(name, value)
        yield
LINEUP = "banker,greedy,collector,random"
TOURNAMENT_FILES = ["games.csv", "records.jsonl", "summary.csv", "tournament.json"]
STUDY = {"seed": 5, "games": 48, "player_counts": [3, 4],
         "lineups": {3: ["banker", "greedy", "random"], 4: ["banker", "greedy", "collector", "random"]},
         "rulesets": {"default": "default"}, "workers": 1}


def _free_ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def _session_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rpartition(")")[2].split()[3])


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


class LocalCluster:
    """Ray nodes started on loopback (HEAD_IP, then NODE_IP), each `ray start` in a session of its own (its daemons stay in
    it), so that `processes` finds exactly what this cluster runs."""

    def __init__(self):
        self.temp = tempfile.mkdtemp(prefix="nr", dir="/tmp")     # short: Ray's socket paths are limited
        self.sessions: list[int] = []
        self.port = self.client_port = None

    def start(self, head: bool) -> int:
        ports = _free_ports(9)
        ip = HEAD_IP if head else NODE_IP
        words = [str(RAY), "start", "--node-ip-address", ip, "--num-cpus", "1", "--disable-usage-stats",
                 "--object-store-memory", "100000000", "--node-manager-port", str(ports[0]),
                 "--object-manager-port", str(ports[1]), "--metrics-export-port", str(ports[2]),
                 "--dashboard-agent-listen-port", str(ports[3]), "--dashboard-agent-grpc-port", str(ports[4]),
                 "--runtime-env-agent-port", str(ports[5])]
        if head:
            self.port, self.client_port = ports[6], ports[8]
            words += ["--head", "--port", str(self.port), "--temp-dir", self.temp, "--include-dashboard", "false",
                      "--dashboard-port", str(ports[7]), "--ray-client-server-port", str(ports[8])]
        else:
            words += ["--address", self.address]
        process = subprocess.Popen(words, env=ENV, start_new_session=True, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        self.sessions.append(process.pid)
        _, err = process.communicate(timeout=120)
        assert process.returncode == 0, err[-2000:]
        return process.pid

    @property
    def address(self) -> str:
        return f"{HEAD_IP}:{self.port}"

    def processes(self, session: int | None = None) -> list[int]:
        """Pids of this cluster's processes (of one node's session if given)."""
        sessions = self.sessions if session is None else [session]
        return [int(p) for p in os.listdir("/proc") if p.isdigit() and _session_of(int(p)) in sessions
                and int(p) != os.getpid()]

    def find(self, name: str, session: int | None = None) -> list[int]:
        return [pid for pid in self.processes(session) if name in _cmdline(pid)]

    def stop(self) -> None:
        for _ in range(3):
            pids = self.processes() + [int(p) for p in os.listdir("/proc")
                                       if p.isdigit() and self.temp in _cmdline(int(p))]
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.5)
        shutil.rmtree(self.temp, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster():
    nodes = LocalCluster()
    try:
        nodes.start(head=True)
        nodes.start(head=False)
        yield nodes
    finally:
        nodes.stop()


def _rows(path: Path) -> int:
    try:
        return max(0, path.read_bytes().count(b"\n") - 1)
    except OSError:
        return 0


def _run_and_kill(words: list[str], progress: Path, after: int, kill) -> subprocess.CompletedProcess:
    """Run `nefertiti words` and call `kill()` once `progress` has `after` rows, while it still runs."""
    process = subprocess.Popen([str(NEFERTITI), *words], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        while process.poll() is None and _rows(progress) < after:
            time.sleep(0.05)
        assert process.poll() is None, "the run ended before the kill"
        kill()
        out, err = process.communicate(timeout=300)
    finally:
        process.kill()
    assert process.returncode == 0, err[-3000:]
    return subprocess.CompletedProcess(words, process.returncode, out, err)


def test_tournament_on_the_cluster_writes_the_local_files_though_a_worker_is_killed(cluster, tmp_path):
    games = 480
    words = ["tournament", "--bots", LINEUP, "--games", str(games), "--seed", "3", "--quiet"]
    assert main([*words, "--out", str(tmp_path / "local")]) == 0
    killed = []

    def kill_a_worker():
        for _ in range(1000):
            busy = cluster.find("ray::run_chunk")
            if busy:
                os.kill(busy[0], signal.SIGKILL)
                killed.append(busy[0])
                return
            time.sleep(0.01)

    out = tmp_path / "ray"
    _run_and_kill([*words, "--out", str(out), "--ray", cluster.address], out / "games.csv", 20, kill_a_worker)
    assert killed, "no worker was running a chunk"
    for name in TOURNAMENT_FILES:
        assert (out / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name


def test_a_run_started_locally_finishes_on_the_cluster_with_resume(cluster, tmp_path):
    words = ["tournament", "--bots", LINEUP, "--games", "24", "--seed", "4", "--quiet"]
    assert main([*words, "--out", str(tmp_path / "whole")]) == 0
    part = tmp_path / "part"
    assert main([*words, "--games", "24", "--out", str(part)]) == 0
    for name, keep in (("games.csv", 10), ("records.jsonl", 9)):     # a run killed after game 8
        lines = (part / name).read_bytes().splitlines(keepends=True)
        (part / name).write_bytes(b"".join(lines[:keep]))
    assert main([*words, "--out", str(part), "--resume", "--ray", cluster.address]) == 0
    for name in TOURNAMENT_FILES:
        assert (part / name).read_bytes() == (tmp_path / "whole" / name).read_bytes(), name


def test_ray_client_addresses_work_too(cluster, tmp_path):
    words = ["tournament", "--bots", LINEUP, "--games", "16", "--seed", "6", "--quiet"]
    assert main([*words, "--out", str(tmp_path / "local")]) == 0
    assert main([*words, "--out", str(tmp_path / "client"), "--ray", f"ray://{HEAD_IP}:{cluster.client_port}"]) == 0
    for name in TOURNAMENT_FILES:
        assert (tmp_path / "client" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name


def test_a_client_server_that_fails_to_start_is_tried_again_then_named(cluster, monkeypatch):
    """The head's server for a Ray client failing to start (racy on a loaded head) is tried again; when
    it keeps failing, one line names the cause and no half-made connection is left behind (the next
    ray.init in this process would otherwise be refused)."""
    from ray.util.client import worker

    real, calls = worker.Worker._server_init, []

    def fails_first(times):
        def server_init(self, *args, **kwargs):
            if len(calls) < times:
                calls.append("injected")
                raise ConnectionAbortedError("Initialization failure from server:\nTraceback (most recent call "
                                             "last):\n  File proxier.py\nRuntimeError: Proxy failed to Connect")
            try:
                out = real(self, *args, **kwargs)
            except ConnectionAbortedError:      # the race itself, on a loaded head: tried again too
                calls.append("failed")
                raise
            calls.append("ok")
            return out
        return server_init

    client = f"ray://{HEAD_IP}:{cluster.client_port}"
    with monkeypatch.context() as patch:
        patch.setattr(worker.Worker, "_server_init", fails_first(1))
        with ray_cluster.ray_map(client) as map_:
            assert list(map_(abs, [-1, -2])) == [1, 2]
        real_failures = calls.count("failed")           # zero on an idle head
        assert calls == ["injected", *["failed"] * real_failures, "ok"]
        assert len(calls) <= ray_cluster.CLIENT_ATTEMPTS
        calls.clear()
        patch.setattr(worker.Worker, "_server_init", fails_first(ray_cluster.CLIENT_ATTEMPTS))
        with pytest.raises(ray_cluster.ClusterError, match="from server: RuntimeError: Proxy failed to Connect$"):
            ray_cluster.connect(client)
        assert calls == ["injected"] * ray_cluster.CLIENT_ATTEMPTS
    with ray_cluster.ray_map(cluster.address) as map_:
        assert list(map_(abs, [-3])) == [3]


def test_a_model_reaches_the_workers_by_value(cluster, tmp_path):
    model = tmp_path / "only-here" / "model.pt"
    model.parent.mkdir()
    shutil.copy(CHAMPION_FILE, model)
    spec = f"ppo:path={model}"
    bots = [spec, "banker", "champion:league=1", "random"]         # the champion's own file and its league's
    jobs = schedule(bots, 8, seed=2)
    local = [play_job(job) for job in jobs]
    with ordered_map(1, ray=cluster.address, bots=bots) as map_:
        shutil.rmtree(model.parent)                       # shipped: no worker reads the head's path
        remote = list(map_(play_job, jobs))
    assert [r.record for r in remote] == [r.record for r in local]


def test_training_evaluation_on_the_cluster_plays_the_local_games(cluster, tmp_path):
    model = tmp_path / "eval_policy.pt"
    shutil.copy(CHAMPION_FILE, model)
    table = dict(num_players=4, setup="beginner", memphis=False, characters="base")
    local = evaluate(str(model), ["random", "banker"], 6, table, seed=9, progress=False)
    remote = evaluate(str(model), ["random", "banker"], 6, table, seed=9, progress=False, ray=cluster.address)
    for a, b in zip(local, remote):
        assert (a.baseline, a.games, a.wins, a.score_sum) == (b.baseline, b.games, b.wins, b.score_sum)
        assert sorted(a.records, key=lambda r: r["index"]) == sorted(b.records, key=lambda r: r["index"])


def test_search_self_play_on_the_cluster_gives_the_local_rows(cluster, tmp_path):
    """Expert iteration's search games (training/search_games.py) through the same pool, the model by value."""
    import numpy as np

    from nefertiti_env import NUM_ACTIONS
    from nefertiti_env.agents import policy_file
    from nefertiti_env.encoding.table import V2_SIZE
    from nefertiti_env.training.search_games import search_games

    model = tmp_path / "model.pt"
    policy_file.save(model, policy_file.build_policy({"obs_size": V2_SIZE, "num_actions": NUM_ACTIONS,
                                                      "net_arch": [16]}))
    tables = [{"num_players": 2}, {"num_players": 3, "memphis": True}]
    local = search_games(str(model), tables, games=1, seed=4, iterations=4)
    remote = search_games(str(model), tables, games=1, seed=4, iterations=4, ray=cluster.address)
    assert len(local.obs) > 20 and all(np.array_equal(a, b) for a, b in zip(local, remote))


def test_a_node_with_other_code_is_refused_before_the_first_game(cluster, monkeypatch):
    monkeypatch.setattr(ray_cluster, "fingerprint", lambda: ("0.0.0", "0" * 64))     # the head's view only
    with pytest.raises(ray_cluster.ClusterError, match=r"runs nefertiti-env .* this head 0\.0\.0.*same version"):
        with ordered_map(1, ray=cluster.address):
            pass
    monkeypatch.undo()
    with ordered_map(1, ray=cluster.address) as map_:        # every task checks again: a node may join later
        monkeypatch.setattr(ray_cluster, "fingerprint", lambda: ("0.0.0", "0" * 64))
        with pytest.raises(ray_cluster.ClusterError, match=r"runs other nefertiti-env code .* same version"):
            list(map_(play_job, schedule(["random"] * 3, 6, seed=0)))


def test_an_unreachable_cluster_and_a_missing_extra_are_one_line(tmp_path, capsys, monkeypatch):
    port, = _free_ports(1)
    out = tmp_path / "t"
    assert main(["tournament", "--bots", LINEUP, "--games", "4", "--out", str(out), "--ray",
                 f"127.0.0.1:{port}", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot reach the Ray cluster at 127.0.0.1:{port}" in err
    assert finished_games(out) == 0
    monkeypatch.setitem(sys.modules, "ray", None)
    assert main(["tournament", "--bots", LINEUP, "--games", "4", "--out", str(out), "--force", "--ray", "auto",
                 "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "nefertiti-env[cluster]"' in err


def test_a_lost_head_stops_the_run_with_the_command_that_resumes_it(tmp_path):
    alone = LocalCluster()                               # a cluster of its own: its head is killed
    try:
        alone.start(head=True)
        out = tmp_path / "t"
        words = ["tournament", "--bots", LINEUP, "--games", "5000", "--out", str(out), "--quiet"]
        process = subprocess.Popen([str(NEFERTITI), *words, "--ray", alone.address], env=ENV,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            while process.poll() is None and _rows(out / "games.csv") < 20:
                time.sleep(0.05)
            for pid in alone.processes():
                os.kill(pid, signal.SIGKILL)
            _, err = process.communicate(timeout=120)
        finally:
            process.kill()
    finally:
        alone.stop()
    saved = finished_games(out)
    assert process.returncode == 2 and 20 <= saved < 5000
    line = err.strip().splitlines()[-1]
    assert f"lost the Ray cluster's head at {alone.address}; {saved} of 5000 games are saved" in line
    resume = line.partition("continue with: ")[2].split()
    assert resume[-1] == "--resume" and resume[1:-1] == [*words, "--ray", alone.address]


def test_balance_on_the_cluster_writes_the_local_tables_though_the_second_node_dies(cluster, tmp_path):
    """After every other test of the module's cluster: the second node stays dead."""
    local = tmp_path / "local"
    runner.run(config.parse({**STUDY, "out": str(local)}), progress=False)
    second = cluster.sessions[1]

    def kill_the_node():
        raylet, = cluster.find("raylet/raylet", second)
        os.kill(raylet, signal.SIGKILL)

    study = tmp_path / "study.yaml"
    study.write_text(yaml.safe_dump(STUDY))
    out = tmp_path / "ray"
    _run_and_kill(["balance", "--config", str(study), "--out", str(out), "--ray", cluster.address, "--quiet"],
                  out / runner.JOURNAL, 12, kill_the_node)
    for name in [runner.JOURNAL, *(f"{t}.csv" for t in tables.COLUMNS)]:
        assert (out / name).read_bytes() == (local / name).read_bytes(), name


def test_a_wheel_install_has_the_source_trees_fingerprint_and_an_edit_changes_it(tmp_path):
    """A head run from a clone and nodes with the wheel installed agree; one changed byte does not."""
    root = Path(__file__).resolve().parent.parent
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
                            str(tmp_path / "dist"), str(root)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel, = (tmp_path / "dist").glob("*.whl")
    install = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                              str(tmp_path / "site"), str(wheel)], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr[-2000:]
    code = "from nefertiti_env.agents.cluster import fingerprint; print(*fingerprint())"

    def fingerprint_there():
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(tmp_path / "site")}, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        return tuple(done.stdout.split())

    assert fingerprint_there() == ray_cluster.fingerprint()
    with open(tmp_path / "site" / "nefertiti_env" / "agents" / "random_bot.py", "a") as f:
        f.write("\n")
    assert fingerprint_there()[1] != ray_cluster.fingerprint()[1]
