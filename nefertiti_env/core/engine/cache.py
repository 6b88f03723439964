"""Cached machine code that is never stale.

numba caches a kernel's machine code (`__pycache__/*.nbi, *.nbc`, or under NUMBA_CACHE_DIR) stamped
with its own source file only; but a kernel compiles the kernels it calls, and the constants it reads,
into itself, so an edit of a callee's file (or of layout.py's constants) would leave its callers'
cached code stale. `SourcesCache`, the cache of our dispatchers (entry.py), stamps each kernel's
cached code with the digest of every source it compiles in as well: the engine's (`SOURCES`) and
what a module declares with `compiled_in`. numba reads a cache whose stamp differs as empty, so the
kernel is compiled afresh and its cache overwritten; nothing is deleted. The digest is made once per
process, when numba first looks up a kernel's cache (its first load or compile); importing the package
reads and writes no cache file (docs/engine.md "Compilation and cache").
"""
from __future__ import annotations

import functools
import hashlib
import pickle
from collections.abc import Iterable
from pathlib import Path

from numba.core.caching import CompileResultCacheImpl, FunctionCache, IndexDataCacheFile

_ROOT = Path(__file__).resolve().parents[2]          # nefertiti_env/
# the sources of the engine's compiled code: its kernels and the constants they freeze
SOURCES = ("core/engine/*.py", "core/limits.py", "core/actions.py", "core/phases.py", "core/power_table.py",
           "encoding/*.py", "vector.py")
_COMPILED_IN: dict[Path, frozenset[Path]] = {}       # a kernel file -> what it compiles in besides the engine


@functools.cache
def engine_sources() -> tuple[Path, ...]:
    """The files whose code or constants the engine's kernels compile in: every kernel compiles them in."""
    return tuple(sorted(p for pattern in SOURCES for p in _ROOT.glob(pattern)))


def compiled_in(kernel_files: Iterable[Path | str], sources: Iterable[Path | str]) -> None:
    """Declare that the kernels in `kernel_files` compile the kernels of `sources` in, besides the engine's
    (the bots' kernels compile each other's, the bot tables' the bots'): their cached code is then stale
    when any of these changes too. A module declares it when it is imported, before any kernel compiles."""
    extra = frozenset(Path(s).resolve() for s in sources)
    for kernel_file in kernel_files:
        _COMPILED_IN[Path(kernel_file).resolve()] = extra
    sources_digest.cache_clear()


@functools.cache
def _file_digest(source: Path) -> bytes:
    return hashlib.sha256(source.read_bytes()).digest()


@functools.cache
def sources_digest(kernel_file: Path) -> str:
    """The digest of every source `kernel_file`'s kernels compile in besides their own file (which numba
    hashes itself); each source is read once per process."""
    sources = sorted(set(engine_sources()) | _COMPILED_IN.get(kernel_file.resolve(), frozenset()))
    return hashlib.sha256(b"".join(_file_digest(p) for p in sources)).hexdigest()


def _stamped(locator: type) -> type:
    """numba's cache `locator`, whose stamp of a kernel's source adds the digest of what it compiles in."""
    class Stamped(locator):
        def get_source_stamp(self):
            return super().get_source_stamp(), sources_digest(Path(self._py_file))

    Stamped.__name__ = Stamped.__qualname__ = f"Stamped{locator.__name__}"
    return Stamped


class _SourcesCacheImpl(CompileResultCacheImpl):
    _locator_classes = [_stamped(locator) for locator in CompileResultCacheImpl._locator_classes]


class _IndexFile(IndexDataCacheFile):
    """numba unpickles a cache index before it compares the stamps, so an index whose signatures name a
    type the code no longer has (a record or NamedTuple renamed or removed) raised instead of reading as
    stale. Such an index is stale, so it reads as empty and is overwritten."""

    def _load_index(self):
        try:
            return super()._load_index()
        except (AttributeError, ImportError, EOFError, pickle.UnpicklingError):
            return {}


class SourcesCache(FunctionCache):
    """numba's cache of a kernel's machine code, stamped with all the sources it compiles in. Making one
    finds the cache folder (numba creates it if it can) and stamps the kernel: a dispatcher makes its
    cache on its first compile, not at import."""
    _impl_class = _SourcesCacheImpl

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file.__class__ = _IndexFile        # the same file and stamp, read by `_IndexFile`
