"""Keep cached numba code in step with the kernels it compiled in.

numba caches a kernel keyed on its own source file only, but the bots' kernels
(evaluation.py, heuristic.py, mcts.py, network.py) compile the engine's kernels into themselves, and the bot
tables' (training/bot_tables.py) compile the bots' in turn: after an edit of any of these they would
run stale machine code. `drop_stale_cache` hashes all the sources a folder's kernels compile in
(`nefertiti_env.core.engine.SOURCES`, the bots', the folder's own) and deletes that folder's cached
code when the hash changes, as the engine does for its own (docs/engine.md, "Compilation and cache").
"""
from __future__ import annotations

from pathlib import Path

from nefertiti_env.core.engine import _ROOT, drop_if_changed, engine_sources, sources_digest

_HERE = Path(__file__).parent
KERNEL_SOURCES = ("evaluation.py", "heuristic.py", "mcts.py", "network.py")


def drop_stale_cache(engine_root: Path = _ROOT, bots: Path = _HERE, folder: Path | None = None,
                     kernels: tuple[str, ...] = ()) -> None:
    """Delete the cached numba code in `folder`/__pycache__ (default: the bots' own) if the sources
    it was compiled from changed: the engine's (under `engine_root`, the nefertiti_env package), the
    bots' (in `bots`) and `kernels` (file names in `folder`)."""
    folder = folder or bots
    sources = engine_sources(engine_root) + [bots / n for n in KERNEL_SOURCES] + [folder / n for n in kernels]
    drop_if_changed(sources_digest(sources), [folder / "__pycache__"], folder / "__pycache__" / "kernels.sha256")
