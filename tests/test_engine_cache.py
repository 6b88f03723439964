"""The kernels' cache is never stale and is not touched at import (docs/engine.md "Compilation and cache"):
numba keys a cached kernel on its own file only, but a kernel compiles the kernels it calls into itself,
so our dispatchers stamp the cached code with every source it compiles in (engine/cache.py)."""
import ast
import importlib
import importlib.util
import inspect
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

import nefertiti_env
from nefertiti_env.core.engine import cache
from nefertiti_env.core.engine.entry import PLAIN_PYTHON, _Cached

REPO = Path(__file__).resolve().parents[1]
PACKAGE = Path(nefertiti_env.__file__).resolve().parent
# the installed package's subpackages that live in top-level folders here (pyproject's package-dir)
TOP_LEVEL = {"agents": "agents", "training": "training", "balance": "balance", "configs": "configs"}
KERNEL_MODULES = ("nefertiti_env.core.engine.step", "nefertiti_env.core.engine.hidden", "nefertiti_env.vector",
                  "nefertiti_env.encoding.observation", "nefertiti_env.agents.mcts", "nefertiti_env.agents.network",
                  "nefertiti_env.training.bot_tables", "nefertiti_env.training.snapshot_tables", "invariants_kernel")

pytestmark = pytest.mark.skipif(PLAIN_PYTHON, reason="no compiled code under NUMBA_DISABLE_JIT=1")


def run(script: str, cwd: Path, **env: str) -> str:
    """`script`'s output in a fresh Python process (no bytecode written: only the kernels' cache counts)."""
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], cwd=cwd, capture_output=True, text=True,
                            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env}, timeout=600)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def listing(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*")}


def test_importing_the_package_writes_and_deletes_nothing(tmp_path):
    """An installed copy of the package, with no cache yet, and every module with kernels imported: no file
    or folder appears, changes or goes, in the package or in numba's cache folders."""
    site, numba_cache = tmp_path / "site", tmp_path / "numba-cache"
    shutil.copytree(PACKAGE, site / "nefertiti_env", ignore=shutil.ignore_patterns("__pycache__", "*.pt"))
    for name, folder in TOP_LEVEL.items():
        shutil.copytree(REPO / folder, site / "nefertiti_env" / name, ignore=shutil.ignore_patterns("__pycache__", "*.pt"))
    shutil.copy(REPO / "tests" / "invariants_kernel.py", site)
    numba_cache.mkdir()
    before = listing(tmp_path)
    imported = run(f"""
        import importlib
        for name in {KERNEL_MODULES!r}:
            print(importlib.import_module(name).__file__)
        """, site, PYTHONPATH=str(site), NUMBA_CACHE_DIR=str(numba_cache), XDG_CACHE_HOME=str(numba_cache))
    assert all(Path(f).is_relative_to(site) for f in imported.splitlines())      # the copy, not the repository
    assert listing(tmp_path) == before


CALLEE = "from nefertiti_env.core.engine.entry import kernel\n\n@kernel\ndef value():\n    return {}\n"
CALLER = """
import sys
from pathlib import Path

from nefertiti_env.core.engine.cache import compiled_in
from nefertiti_env.core.engine.entry import njit
from callee import value

{declaration}

@njit(cache=True)
def twice():
    return 2 * value()

print(twice(), "loaded" if twice.stats.cache_hits else "compiled", twice.stats.cache_path)
"""


def kernels_calling_a_kernel(folder: Path) -> None:
    """callee.py's kernel, called by a kernel in declared.py (which declares it compiles callee.py in)
    and by one in undeclared.py (which does not)."""
    folder.mkdir(exist_ok=True)
    (folder / "callee.py").write_text(CALLEE.format(1))
    (folder / "declared.py").write_text(CALLER.format(
        declaration='compiled_in([__file__], [Path(__file__).with_name("callee.py")])'))
    (folder / "undeclared.py").write_text(CALLER.format(declaration=""))


def test_a_kernel_is_compiled_afresh_when_a_kernel_it_compiles_in_changes(tmp_path):
    kernels_calling_a_kernel(tmp_path)

    def twice(module: str) -> list[str]:
        return run(f"import {module}", tmp_path).split()[:2]

    assert twice("declared") == ["2", "compiled"] and twice("undeclared") == ["2", "compiled"]
    assert twice("declared") == ["2", "loaded"] and twice("undeclared") == ["2", "loaded"]
    (tmp_path / "callee.py").write_text(CALLEE.format(5))     # the caller's file did not change
    assert twice("declared") == ["10", "compiled"]
    assert twice("declared") == ["10", "loaded"]
    assert twice("undeclared") == ["2", "loaded"]             # numba's own stamp: stale machine code


SHAPES = "from typing import NamedTuple\n\nclass {0}(NamedTuple):\n    a: int\n    b: int\n"
USER = """
from nefertiti_env.core.engine.entry import njit
from shapes import {0}

@njit(cache=True)
def total(pair):
    return pair.a + pair.b

print(total({0}(2, 3)), "loaded" if total.stats.cache_hits else "compiled")
"""


def test_a_cache_naming_a_type_the_code_no_longer_has_is_compiled_afresh(tmp_path):
    """numba unpickles a kernel's cache index, whose signatures name their argument types, before it checks
    the stamp: once a NamedTuple is renamed, the old index named a class that is gone and the import failed
    (AttributeError) instead of compiling afresh."""
    seen = []
    for name in ("Pair", "Pair", "Couple", "Couple"):
        (tmp_path / "shapes.py").write_text(SHAPES.format(name))
        (tmp_path / "user.py").write_text(USER.format(name))
        seen.append(run("import user", tmp_path).split())
    assert seen == [["5", "compiled"], ["5", "loaded"], ["5", "compiled"], ["5", "loaded"]]


def test_a_package_whose_cache_folder_cannot_be_written_caches_elsewhere(tmp_path):
    """A read-only install: numba caches in the user's cache folder, stamped all the same; nothing else
    is written."""
    package, user_cache = tmp_path / "package", tmp_path / "user-cache"
    kernels_calling_a_kernel(package)
    (package / "__pycache__").write_text("not a folder: numba cannot cache here")
    env = {"XDG_CACHE_HOME": str(user_cache), "NUMBA_CACHE_DIR": ""}
    first, where = run("import declared", package, **env).split()[1:]
    assert first == "compiled" and Path(where).is_relative_to(user_cache)
    assert run("import declared", package, **env).split()[:2] == ["2", "loaded"]
    (package / "callee.py").write_text(CALLEE.format(5))
    assert run("import declared", package, **env).split()[:2] == ["10", "compiled"]


def project_kernels() -> list[tuple[str, Dispatcher]]:
    """Every compiled function in the project's modules, by qualified name."""
    sys.path.insert(0, str(REPO / "tests"))
    try:
        modules = [importlib.import_module(name) for name in KERNEL_MODULES]
    finally:
        sys.path.remove(str(REPO / "tests"))
    roots = [PACKAGE, REPO / "tests", *(REPO / folder for folder in TOP_LEVEL.values())]
    modules = [m for m in list(sys.modules.values()) if getattr(m, "__file__", None) and not
               Path(m.__file__).name.startswith("test_") and any(Path(m.__file__).resolve().is_relative_to(r) for r in roots)]
    assert {m.__name__ for m in modules} >= set(KERNEL_MODULES)
    return [(f"{m.__name__}.{name}", value) for m in modules for name, value in vars(m).items()
            if isinstance(value, Dispatcher) and value.py_func.__module__ == m.__name__]


def test_every_kernel_of_the_project_has_the_cache_that_is_never_stale():
    """A kernel decorated with numba's own `njit` would keep stale code after an edit of a kernel it
    compiles in: every kernel goes through entry.py's decorators, caching through `SourcesCache`."""
    kernels = project_kernels()
    assert len(kernels) > 150
    plain = [name for name, k in kernels if not isinstance(k, _Cached)]
    uncached = [name for name, k in kernels if not (k._wants_cache or isinstance(k._cache, cache.SourcesCache))]
    assert plain == [] and uncached == []


def imported_files(path: Path, module: str) -> set[Path]:
    """The files of the modules that `path` (module `module`) imports names from."""
    package = module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
                else node.module
            for name in [base] + [f"{base}.{alias.name}" for alias in node.names]:
                try:
                    spec = importlib.util.find_spec(name) if name.partition(".")[0] == "nefertiti_env" else None
                except ModuleNotFoundError:         # a name that is not a module
                    spec = None
                if spec and spec.origin:
                    found.add(Path(spec.origin).resolve())
    return found


def test_every_module_a_kernel_file_imports_is_hashed():
    """A kernel compiles in the kernels and constants of the modules its file imports: each such module is
    among the sources its cache is stamped with (the engine's `SOURCES`, what its file declares with
    `compiled_in`), or one whose values no kernel compiles (the package's re-exports, the ruleset loader,
    scoring and the facade, the bots' classes, read by Python code only)."""
    python_only = {PACKAGE / "__init__.py", PACKAGE / "core" / "__init__.py", PACKAGE / "core" / "ruleset.py",
                   PACKAGE / "core" / "scoring.py", PACKAGE / "core" / "game.py", PACKAGE / "encoding" / "__init__.py",
                   *(REPO / "agents" / name for name in ("__init__.py", "base.py", "kernel_cache.py")),
                   *(REPO / "agents" / name for name in ("champion.py", "hidden.py", "policy_file.py", "ppo.py",
                                                          "random_bot.py"))}
    files = {Path(inspect.getfile(k.py_func)).resolve(): k.py_func.__module__ for _, k in project_kernels()}
    assert len(files) >= 15
    for path, module in files.items():
        stamped = set(cache.engine_sources()) | cache._COMPILED_IN.get(path, frozenset()) | {path}
        assert imported_files(path, module) - stamped - python_only == set(), path
