"""Output folders of long runs (tournament, balance study, training): never touch a user's
files, and fail before the work rather than after it.

A run folder carries a marker file, `nefertiti-run.json` (`{"kind": "tournament"}`), written
when the run starts. A command writes only into a new or empty folder, or into a folder
whose marker names its own kind (to resume it, or with `force` to start it over, replacing
only its own files). Before the first game the folder is created and a probe file written
and removed, so a file in the way, a read-only or a full file system is one clear line at
start, not a traceback after hours of play.

One run per folder at a time: `prepare` takes an exclusive lock (`flock`) on the folder's
`.nefertiti-lock` before looking at it, held until the process ends; the kernel releases it when a
run dies, even by `kill -9`, so a lock is never left stuck, and a second run (`--force` too) is
refused while the first lives instead of writing into the same files.

A long run appends each finished game to its files and flushes it; `complete_lines` cuts
what a kill left half-written, so `--resume` continues from the last whole game.

`stop_on_sigterm()` turns SIGTERM into KeyboardInterrupt in the main process, so Ctrl-C and
`kill` take the same path: workers stopped, finished work saved, a line on how to resume.
"""
from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import signal
from pathlib import Path

MARKER = "nefertiti-run.json"
LOCK = ".nefertiti-lock"
_HELD: dict[Path, int] = {}      # folder -> the open lock file of this process (kept until it ends)


class RunFolderError(Exception):
    """A problem with an output folder, in one line that names the folder and what to do."""


def prepare(folder: str | Path, kind: str, *, resume: bool = False, force: bool = False) -> Path:
    """Create (if needed) and check `folder` for a run of `kind`; returns it as a Path.

    resume: the folder must hold a run of this kind (its files are kept and continued).
    force: a folder holding a run of this kind may be started over (its own files replaced).
    A non-empty folder that is not a run of this kind is always refused: nothing in it is touched.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise RunFolderError(f"{folder} exists and is not a folder: choose another --out")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise RunFolderError(f"cannot create the output folder {folder}: {err.strerror or err}") from None
    for locked in (False, True):         # a user's folder is refused before the lock file is made in it
        if locked:
            lock(folder)
        found = run_kind(folder)
        others = [p.name for p in folder.iterdir() if p.name not in (MARKER, LOCK)]
        if found is None and others:
            break
    if found is None and others:
        raise RunFolderError(f"{folder} is not empty and holds no nefertiti {kind} run "
                             f"({', '.join(sorted(others)[:3])}{', ...' if len(others) > 3 else ''}): "
                             "choose a new or empty --out; nothing in it was touched")
    if found is not None and found != kind:
        raise RunFolderError(f"{folder} holds a nefertiti {found} run, not a {kind}: choose another --out")
    if resume and found is None:
        raise RunFolderError(f"{folder} holds no {kind} run to resume: run without --resume to start one")
    if not resume and found is not None and others and not force:
        raise RunFolderError(f"{folder} already holds a {kind} run: pass --resume to continue it, "
                             f"--force to start it over (only its own files are replaced), or choose another --out")
    probe(folder)
    if found is None:
        write_text(folder / MARKER, json.dumps({"kind": kind}) + "\n")
    return folder


def lock(folder: Path) -> None:
    """Hold `folder`'s run lock for the rest of this process; RunFolderError if another process holds it."""
    key = folder.resolve()
    if key in _HELD:
        return
    try:
        fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise RunFolderError(f"cannot write into {folder}: {err.strerror or err}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as err:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
        os.close(fd)
        if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise RunFolderError(f"{folder} is in use by another nefertiti run (process {holder}): wait for it to "
                                 "end or stop it, or choose another --out; nothing in it was touched") from None
        raise RunFolderError(f"cannot lock {folder / LOCK}: {err.strerror or err}") from None
    os.ftruncate(fd, 0)
    os.write(fd, f"{os.getpid()}\n".encode())
    _HELD[key] = fd


def _forget_locks_in_child() -> None:
    """A forked worker closes its copies of the lock files (the parent's locks stay): otherwise workers
    left running a moment after their run was killed would keep its folder locked."""
    for fd in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_forget_locks_in_child)


def run_kind(folder: str | Path) -> str | None:
    """The kind of run a folder holds (its marker), or None."""
    try:
        return json.loads((Path(folder) / MARKER).read_text(encoding="utf-8"))["kind"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def probe(folder: Path) -> None:
    """Write, flush and remove a small file: a read-only or full file system fails here, at start."""
    test = folder / f".nefertiti-probe-{os.getpid()}"
    try:
        with open(test, "wb") as f:
            f.write(b"\0" * 4096)
            f.flush()
            os.fsync(f.fileno())
    except OSError as err:
        raise RunFolderError(f"cannot write into {folder}: {err.strerror or err}") from None
    finally:
        with contextlib.suppress(OSError):
            test.unlink()


def write_text(path: Path, text: str) -> None:
    """Replace `path` atomically (write a temporary file, then rename), so a kill or a full disk
    never leaves half a file where a whole one stood."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def line_numbers(numbers: list[int], most: int = 10) -> str:
    """Damaged lines of a run file, as a message names them: the first `most` numbers, then "..."."""
    return ", ".join(map(str, numbers[:most])) + (" ..." if len(numbers) > most else "")


def complete_lines(path: Path, keep: int | None = None) -> int:
    """Cut `path` after its last complete line (or after its first `keep` lines, if fewer);
    returns the number of lines left. A missing file has 0 lines."""
    try:
        with open(path, "rb+") as f:
            data = f.read()
            lines = data.count(b"\n") if keep is None else min(keep, data.count(b"\n"))
            end = 0
            for _ in range(lines):
                end = data.index(b"\n", end) + 1
            f.truncate(end)
    except FileNotFoundError:
        return 0
    return lines


@contextlib.contextmanager
def stop_on_sigterm():
    """Within the block, SIGTERM raises KeyboardInterrupt in the main thread (as Ctrl-C does)."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
