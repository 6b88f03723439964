"""Keep cached numba code in step with the kernels it compiled in.

numba caches a kernel keyed on its own source file only, but the bots' kernels
(evaluation.py, heuristic.py, mcts.py, network.py) compile the engine's kernels into themselves, and the bot
tables' (training/bot_tables.py) compile the bots' in turn: after an edit of any of these they would
run stale machine code. `drop_stale_cache` hashes all the sources a folder's kernels compile in
(`nefertiti_env.core.engine.SOURCES`, the bots', the folder's own) and deletes that folder's cached
code when the hash changes, as the engine does for its own (docs/engine.md, "Compilation and cache").
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from nefertiti_env.core.engine import _ROOT, SOURCES

_HERE = Path(__file__).parent
KERNEL_SOURCES = ("evaluation.py", "heuristic.py", "mcts.py", "network.py")


def drop_stale_cache(engine_root: Path = _ROOT, bots: Path = _HERE, folder: Path | None = None,
                     kernels: tuple[str, ...] = ()) -> None:
    """Delete the cached numba code in `folder`/__pycache__ (default: the bots' own) if the sources
    it was compiled from changed: the engine's (under `engine_root`, the nefertiti_env package), the
    bots' (in `bots`) and `kernels` (file names in `folder`)."""
    folder = folder or bots
    sources = (sorted(p for pattern in SOURCES for p in engine_root.glob(pattern))
               + [bots / n for n in KERNEL_SOURCES] + [folder / n for n in kernels])
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
    stamp = folder / "__pycache__" / "kernels.sha256"
    if stamp.is_file() and stamp.read_text() == digest:
        return
    try:
        for cached in (folder / "__pycache__").glob("*.nb[ic]"):
            cached.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(digest)
    except OSError:          # a read-only install: numba then caches elsewhere or not at all
        pass
