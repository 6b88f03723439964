"""Worker processes that stop with the run: a finished run, an error, Ctrl-C or SIGTERM
all terminate them, so no orphan keeps a CPU busy after the command has returned.

Results come back in job order (`Pool.imap`), so a run can append each finished game
to its files as soon as every earlier game is in: the files are always a prefix of the
uninterrupted run's, which is what makes `--resume` give the same bytes. With `ray` the
same map runs on a Ray cluster instead (`agents.cluster`), results in the same order.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import signal


def _quiet_worker() -> None:
    """Ctrl-C reaches the whole process group: only the main process handles it. SIGTERM
    (what `terminate` sends) ends a worker at once, whatever handler the main process set."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


@contextlib.contextmanager
def ordered_map(workers: int, chunksize: int = 1, ray: str | None = None, bots=()):
    """Yield a `map(func, items)` that runs in `workers` processes (in this one if workers <= 1)
    and returns results in order; the processes are terminated when the block is left.

    ray: the address of a Ray cluster (or "auto") to run on instead of `workers` processes; `bots`
    are the specs the games use, so that their models reach the cluster's workers by value."""
    if ray:
        from .cluster import ray_map

        with ray_map(ray, bots) as map_:
            yield map_
        return
    if workers <= 1:
        yield map
        return
    pool = multiprocessing.Pool(workers, initializer=_quiet_worker)
    try:
        yield lambda func, items: pool.imap(func, items, chunksize)
    finally:
        pool.terminate()
        pool.join()
