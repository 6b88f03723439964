"""What the bots' kernels compile in besides the engine's: each other's. evaluation.py, heuristic.py,
mcts.py and network.py call each other's kernels, which numba compiles into the caller's machine code, so
an edit of any of them must drop the cached code of all four (the engine's cache does so through
`compiled_in`, docs/engine.md "Compilation and cache"). The bot tables (training/bot_tables.py) compile
them in too."""
from __future__ import annotations

from pathlib import Path

from nefertiti_env.core.engine.cache import compiled_in

KERNEL_SOURCES = tuple(Path(__file__).parent / name for name in ("evaluation.py", "heuristic.py", "mcts.py", "network.py"))

compiled_in(KERNEL_SOURCES, KERNEL_SOURCES)
