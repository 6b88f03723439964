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


STOPS = {signal.SIGINT, signal.SIGTERM}


def _quiet_worker() -> None:
    """Ctrl-C reaches the whole process group: only the main process handles it. SIGTERM
    (what `terminate` sends) ends a worker at once, whatever handler the main process set.
    Both arrive blocked (`ordered_map`) and are let in only once these are set."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPS)


@contextlib.contextmanager
def ordered_map(workers: int, chunksize: int = 1, ray: str | None = None, bots=()):
    """Yield a `map(func, items)` that runs in `workers` processes (in this one if workers <= 1)
    and returns results in order; the processes are terminated when the block is left. The `bots`
    are compiled here before the processes fork (`base.compile_here`).

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
    if bots:
        from . import make_bot
        from .base import compile_here

        compile_here([make_bot(spec, 0) for spec in sorted(bots)])
    # A fork copies the main process's handlers: a SIGTERM that reached a worker before `_quiet_worker`
    # ran (a run that ends as it starts) met `stop_on_sigterm`'s and raised KeyboardInterrupt there, a
    # stray traceback, once a worker hung on a lock. Workers are forked with both signals blocked (the
    # pool's own threads, started here, keep them blocked, so the workers they fork later too); the
    # main process lets in what arrived meanwhile once the pool stands.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, STOPS)
    try:
        # fork named: another library may have set the default start method (torchrl sets spawn at import)
        pool = multiprocessing.get_context("fork").Pool(workers, initializer=_quiet_worker)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    try:
        yield lambda func, items: pool.imap(func, items, chunksize)
    finally:
        pool.terminate()
        pool.join()
