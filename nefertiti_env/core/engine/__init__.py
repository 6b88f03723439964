"""The compiled rules engine: numba kernels over one state array and one rules array (layout.py).

numba caches each compiled function on disk, keyed on its own source file only; but a kernel
compiles the kernels it calls into itself, so editing one file (or layout.py's constants)
would leave stale machine code cached for the files that did not change. `drop_stale_cache`
therefore hashes the sources of every package with compiled code together and, when the hash
changes (an edit, a checkout, an upgrade), deletes their cached code before anything loads it.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]          # nefertiti_env/
# the sources of compiled code (numba kernels, and the constants they freeze), and where it is cached
SOURCES = ("core/engine/*.py", "core/limits.py", "core/actions.py", "core/phases.py", "core/power_table.py",
           "encoding/*.py", "vector.py")
CACHES = ("core/engine", "encoding", ".")
_STAMP = Path(__file__).parent / "__pycache__" / "sources.sha256"


def sources_digest(sources: list[Path]) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()


def engine_sources(root: Path = _ROOT) -> list[Path]:
    """The files whose code or constants the engine's kernels compile in (kernels elsewhere add theirs)."""
    return sorted(p for pattern in SOURCES for p in root.glob(pattern))


def drop_if_changed(digest: str, caches: list[Path], stamp: Path, pattern: str = "*.nb[ic]") -> None:
    """Delete numba's cached code (`pattern`) in each cache folder unless `stamp` already holds `digest`,
    then write it there: the one check every package with kernels makes of its sources."""
    if stamp.is_file() and stamp.read_text() == digest:
        return
    try:
        for cache in caches:
            for cached in cache.glob(pattern):
                cached.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:          # a read-only install: numba then caches elsewhere or not at all
        pass


def drop_stale_cache(root: Path = _ROOT, stamp: Path = _STAMP) -> None:
    """Delete the cached numba code of the package's kernels if any of their sources changed."""
    drop_if_changed(sources_digest(engine_sources(root)), [root / folder / "__pycache__" for folder in CACHES],
                    stamp)

drop_stale_cache()
