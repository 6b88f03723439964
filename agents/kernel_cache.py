"""Keep the bots' cached numba code in step with the engine's.

numba caches a kernel keyed on its own source file only, but the bots' kernels
(evaluation.py, heuristic.py, mcts.py) compile the engine's kernels into themselves: after an edit of
the engine they would run stale machine code. `drop_stale_cache` hashes the engine's sources
(`nefertiti_env.core.engine.SOURCES`) with the bots' and deletes the bots' cached code when the
hash changes, as the engine does for its own (docs/engine.md, "Compilation and cache").
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from nefertiti_env.core.engine import _ROOT, SOURCES

_HERE = Path(__file__).parent
KERNEL_SOURCES = ("evaluation.py", "heuristic.py", "mcts.py")
_STAMP = _HERE / "__pycache__" / "kernels.sha256"


def drop_stale_cache(engine_root: Path = _ROOT, bots: Path = _HERE, stamp: Path = _STAMP) -> None:
    """Delete the bots' cached numba code (in `bots`/__pycache__) if their sources or the engine's
    (under `engine_root`, the nefertiti_env package) changed."""
    sources = sorted(p for pattern in SOURCES for p in engine_root.glob(pattern)) + [bots / n for n in KERNEL_SOURCES]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
    if stamp.is_file() and stamp.read_text() == digest:
        return
    try:
        for cached in (bots / "__pycache__").glob("*.nb[ic]"):
            cached.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:          # a read-only install: numba then caches elsewhere or not at all
        pass
