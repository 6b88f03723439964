"""Games on a Ray cluster: the Ray back-end of `workers.ordered_map` (`--ray auto` or `--ray ADDRESS`).

A job's games are independent and every seed derives from the game index, so where a game runs
does not change it: the head sends the games in chunks (one Ray task each, `chunk_size`), keeps a
window of chunks in flight, and yields the results in game order, so the run writes the files of
the same command run locally and `--resume` continues across the two.

Faults. A task whose worker process or node dies runs again (`max_retries`; a lost result is
rebuilt the same way), and results are keyed by their place in the order, so no game is lost or
written twice. A lost head (nothing answers at its address) stops the run with `ClusterError` after
`HEAD_GRACE` seconds; what was written stays and `--resume` continues it. Before the first game
every node is asked for this package's version and a hash of its files (`fingerprint`), and every
task checks it again (a node may join later): a node with other code would play other games, so
it is one clear error, as are an unreachable cluster and a missing extra.

Models reach the workers by value: every model file a bot spec names (`ppo:path=...`, the
champion) is read on the head, put in Ray's object store once, and written by each worker to a
local file named by its hash (`ppo.SHIPPED` maps the spec's name for it to that file), so a path
that only the head can read still works.
"""
from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import socket
import tempfile
import time
from collections import deque
from functools import lru_cache
from itertools import islice
from pathlib import Path

EXTRA = 'pip install "nefertiti-env[cluster]"'
RETRIES = 5               # runs of a task whose worker or node died, before the run fails
CHUNKS_PER_CPU = 4        # chunks per cluster CPU at least, so that the last ones balance the load
MAX_CHUNK = 16            # games per task at most (a lost task replays at most this many)
WINDOW_PER_CPU = 3        # chunks in flight per cluster CPU: each CPU has the next chunk waiting
BUFFERED_WINDOWS = 4      # finished and running chunks at most, in windows: bounds the head's memory
RESIZE_SECONDS = 5.0      # how often the window follows the cluster's CPUs (an autoscaler adds nodes)
CLIENT_ATTEMPTS = 3       # connections of a Ray client (ray://) whose server failed to start on the head
HEAD_GRACE = 10.0         # seconds without an answer at the head's address before the run stops
PACKAGE_FILES = (".py", ".toml", ".yaml", ".pt", ".html", ".json")


class ClusterError(Exception):
    """A Ray cluster that cannot run the games (unreachable, other code, lost): one line saying what to do."""


def import_ray():
    try:
        import ray
    except ModuleNotFoundError:
        raise ClusterError(f"--ray needs the 'cluster' extra (ray is not installed): {EXTRA}") from None
    return ray


@lru_cache(maxsize=1)
def fingerprint() -> tuple[str, str]:
    """(version, sha256 of the package's files): the code a node plays games with."""
    import nefertiti_env
    from nefertiti_env import agents, balance, configs, training

    digest = hashlib.sha256()
    for package in (nefertiti_env, agents, balance, configs, training):
        root = Path(package.__file__).parent
        paths = [p for p in root.rglob("*") if p.suffix in PACKAGE_FILES and "__pycache__" not in p.parts]
        if package is nefertiti_env:      # its subpackages in the repository's layout are walked as their own
            paths = [p for p in paths if p.relative_to(root).parts[0] not in ("agents", "balance", "configs",
                                                                              "training")]
        for path in sorted(paths, key=lambda p: p.relative_to(root).as_posix()):
            digest.update(f"{package.__name__}/{path.relative_to(root).as_posix()}\0".encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return nefertiti_env.__version__, digest.hexdigest()


# ------------------------------------------------------------------ the head
def _reachable(address: str) -> bool:
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=5):
            return True
    except (OSError, ValueError):
        return False


def _bootstrap(address: str) -> str | None:
    """The host:port that `address` names (auto: the cluster this machine knows of), or None."""
    if address != "auto":
        return address.removeprefix("ray://")
    with contextlib.suppress(Exception):      # Ray's own lookup (RAY_ADDRESS, then the last `ray start`)
        from ray._private.services import canonicalize_bootstrap_address
        return canonicalize_bootstrap_address("auto")
    return None


def connect(address: str):
    """Connect this process to the cluster at `address` and check every node's code; returns (ray,
    the host:port that answers for the head)."""
    ray = import_ray()
    target = _bootstrap(address)
    if target is None:
        raise ClusterError("--ray auto found no running Ray cluster on this machine (RAY_ADDRESS unset, no "
                           "`ray start` here): start one, or give its address, e.g. --ray head:6379")
    if not _reachable(target):
        raise ClusterError(f"cannot reach the Ray cluster at {target} (nothing answers there): start it "
                           "(`ray start --head`) or check the address")
    for attempt in range(1, CLIENT_ATTEMPTS + 1):
        try:
            ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False,
                     configure_logging=False)
            break
        except Exception as err:              # noqa: BLE001  Ray raises many kinds: each is one line here
            with contextlib.suppress(Exception):  # a half-made connection would refuse the next ray.init
                ray.shutdown()
            # the head starts a server process per Ray client, racily on a loaded head: try it again
            if not (isinstance(err, ConnectionAbortedError) and attempt < CLIENT_ATTEMPTS):
                raise ClusterError(f"cannot connect to the Ray cluster at {target}: {_first_line(err)}") from None
    try:
        check_nodes(ray)
    except BaseException:
        ray.shutdown()
        raise
    return ray, target


def check_nodes(ray) -> None:
    """Every alive node plays with this package's version and files, or ClusterError names the node."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    mine = fingerprint()
    probe = ray.remote(num_cpus=0, max_retries=0)(node_fingerprint)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    refs = [probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote()
            for n in nodes]
    for node, ref in zip(nodes, refs):
        where = node.get("NodeManagerAddress", node["NodeID"])
        try:
            theirs = tuple(ray.get(ref, timeout=120))
        except Exception as err:              # noqa: BLE001
            raise ClusterError(f"node {where} of the Ray cluster cannot run this package's games "
                               f"({_first_line(err)}): install nefertiti-env {mine[0]} there") from None
        if theirs != mine:
            raise ClusterError(f"node {where} of the Ray cluster runs nefertiti-env {theirs[0]} (files "
                               f"{theirs[1][:12]}), this head {mine[0]} (files {mine[1][:12]}): install the same "
                               "version on every node (pip install of the same wheel or source)")


def model_files(specs) -> dict[str, Path]:
    """{the name a spec gives a model: its file on the head} for every bot spec with weights."""
    from . import parse_spec
    from .champion import CHAMPION_FILES, weights
    from .mixture import SEPARATOR
    from .ppo import model_file

    files = {}
    for spec in dict.fromkeys(specs):
        name, params = parse_spec(spec)
        if name == "ppo":
            files[params["path"]] = model_file(params["path"])
        elif name == "mixture":
            files.update({path: model_file(path) for path in params["paths"].split(SEPARATOR)})
        elif name == "champion":
            run = params.get("run", 1)
            if run in CHAMPION_FILES:
                files.update(weights(run, params.get("leaf_value", 0), params.get("league", False)))
    return files


def ship_models(ray, specs) -> dict[str, tuple[str, list]]:
    """{name: (sha256, [object ref of the bytes])}: each model file once in the object store (the ref
    in a list, so a task gets the small reference and fetches the bytes only the first time)."""
    shipped = {}
    for name, path in model_files(specs).items():
        data = Path(path).read_bytes()
        shipped[name] = (hashlib.sha256(data).hexdigest(), [ray.put(data)])
    return shipped


def chunk_size(games: int, cpus: int) -> int:
    """Games per task: at least CHUNKS_PER_CPU chunks per CPU (the load balances at the end), at most
    MAX_CHUNK games (a task's scheduling is a small share of its games: docs/cluster.md)."""
    return max(1, min(MAX_CHUNK, games // (CHUNKS_PER_CPU * max(cpus, 1))))


@contextlib.contextmanager
def ray_map(address: str, bots=(), chunk: int | None = None):
    """Yield a `map(func, items)` whose calls run as Ray tasks on the cluster at `address`, results in
    order; `bots` are the specs the games use (their models are shipped by value). Pending tasks are
    cancelled and the connection closed when the block is left."""
    ray, head = connect(address)
    try:
        models = ship_models(ray, bots)
        cpus = _cpus(ray)
        # SPREAD: by default a node's leased workers take the next tasks too, and one CPU does most games
        task = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False,
                          scheduling_strategy="SPREAD")(run_chunk)

        def map_(func, items):
            items = list(items)
            return _ordered(ray, task, head, func, items, models, chunk or chunk_size(len(items), cpus))

        yield map_
    finally:
        with contextlib.suppress(Exception):
            ray.shutdown()


def _cpus(ray) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def _ordered(ray, task, head, func, items, models, chunk):
    """Results of `func` on `items` in order. A chunk is sent whenever one in flight ends, not only the
    oldest (a CPU whose chunks end early would otherwise wait for a slower one's); finished chunks
    wait for the earlier ones, at most BUFFERED_WINDOWS windows of them. The window (WINDOW_PER_CPU
    chunks per cluster CPU) follows the cluster's size."""
    chunks = (items[start:start + chunk] for start in range(0, len(items), chunk))
    order, running = deque(), set()
    window, resized = WINDOW_PER_CPU * _cpus(ray), time.monotonic()

    def send():
        nonlocal window, resized
        if time.monotonic() - resized > RESIZE_SECONDS:
            window, resized = WINDOW_PER_CPU * _cpus(ray), time.monotonic()
        while len(running) < window and len(order) < BUFFERED_WINDOWS * window:
            c = next(chunks, None)
            if c is None:
                return
            ref = task.remote(func, c, models, fingerprint())
            order.append(ref)
            running.add(ref)

    try:
        send()
        while order:
            if order[0] in running:
                running.difference_update(_wait(ray, list(running), head))
                send()
                continue
            results = _results(ray, order.popleft())
            send()
            yield from results
    finally:
        for ref in running:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)


def _wait(ray, refs: list, head: str) -> list:
    """The refs that finished, at least one; ClusterError once the head has not answered for
    HEAD_GRACE seconds (Ray's own wait for it ends the process)."""
    lost_since = None
    while True:
        ready, _ = ray.wait(refs, num_returns=1, timeout=1.0)
        if ready:
            return ready
        if _reachable(head):
            lost_since = None
        elif lost_since is None:
            lost_since = time.monotonic()
        elif time.monotonic() - lost_since > HEAD_GRACE:
            raise ClusterError(f"lost the Ray cluster's head at {head}")


def _results(ray, ref):
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as err:
        if isinstance(err.cause, ClusterError):      # a node that joined after the check, with other code
            raise ClusterError(str(err.cause)) from None
        raise
    except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError, ray.exceptions.ObjectLostError,
            ray.exceptions.RaySystemError) as err:
        raise ClusterError(f"a task failed {RETRIES + 1} times on the Ray cluster: {_first_line(err)}") from None


def _first_line(err: BaseException) -> str:
    """The error in one line; a heading that ends in ':' (Ray's server-side failures, a traceback
    below) gets the traceback's last line, which names the cause."""
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    if not lines:
        return type(err).__name__
    return f"{lines[0]} {lines[-1]}" if lines[0].endswith(":") and len(lines) > 1 else lines[0]


# ------------------------------------------------------------------ a worker
def node_fingerprint() -> tuple[str, str]:
    """`fingerprint` as a task (a plain function: Ray wraps no cached one)."""
    return fingerprint()


def run_chunk(func, items, models, code: tuple[str, str]):
    """A task: the head's `fingerprint` checked (a node may join the cluster after `check_nodes`), the
    models written where this worker's bots load them, then `func` on each item."""
    if fingerprint() != tuple(code):
        raise ClusterError(f"node {_node_name()} of the Ray cluster runs other nefertiti-env code (files "
                           f"{fingerprint()[1][:12]}) than this head ({code[1][:12]}): install the same "
                           "version on every node")
    _install(models)
    return [func(item) for item in items]


def _node_name() -> str:
    import ray

    return ray.util.get_node_ip_address()


def _install(models) -> None:
    from . import ppo

    for name, (sha, (ref,)) in models.items():
        path = Path(tempfile.gettempdir()) / "nefertiti-models" / f"{sha}.pt"
        if ppo.SHIPPED.get(name) == path and path.is_file():
            continue
        if not path.is_file():
            import ray

            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}")
            tmp.write_bytes(ray.get(ref))
            tmp.replace(path)
        ppo.SHIPPED[name] = path
