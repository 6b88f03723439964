"""The compiled engine's stale-cache guard (docs/engine.md): numba keys a cached kernel on its own
file only, so a change to any kernel source must drop every cached kernel."""
import ast
from pathlib import Path

import nefertiti_env
from nefertiti_env.core.engine import SOURCES, drop_stale_cache


def test_cached_kernels_are_dropped_when_any_source_changes(tmp_path):
    engine = tmp_path / "core" / "engine"
    (engine / "__pycache__").mkdir(parents=True)
    (engine / "flow.py").write_text("x = 1\n")
    (tmp_path / "core" / "limits.py").write_text("y = 1\n")
    (tmp_path / "core" / "game.py").write_text("z = 1\n")
    stamp = engine / "__pycache__" / "sources.sha256"
    cached = engine / "__pycache__" / "step.apply-10.py311.nbi"

    def cache_after_check() -> bool:
        drop_stale_cache(tmp_path, stamp)
        return cached.exists()

    cached.write_text("stale")
    assert not cache_after_check()                 # no stamp yet: nothing cached can be trusted
    cached.write_text("fresh")
    assert cache_after_check()                     # sources unchanged: the cache is kept
    (engine / "flow.py").write_text("x = 2\n")     # a callee changed, step.py did not
    assert not cache_after_check()
    cached.write_text("fresh")
    (tmp_path / "core" / "limits.py").write_text("y = 2\n")    # constants the kernels freeze
    assert not cache_after_check()
    cached.write_text("fresh")
    (tmp_path / "core" / "game.py").write_text("z = 2\n")      # Python only: the cache stays
    assert cache_after_check()


def imported_files(path: Path, package_root: Path) -> set[Path]:
    """The package's source files that `path` imports from (relative imports)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = path.parent
            for _ in range(node.level - 1):
                base = base.parent
            module = base.joinpath(*node.module.split(".")) if node.module else base
            modules = [module.with_suffix(".py"), module / "__init__.py"] if node.module else []
            for candidate in modules + [(module / alias.name).with_suffix(".py") for alias in node.names]:
                if candidate.is_file() and package_root in candidate.parents:
                    found.add(candidate.resolve())
    return found


def test_every_module_a_kernel_file_imports_is_hashed():
    """A constant a kernel compiles in can come from any module its file imports (the power codes from
    core/power_table.py, the limits, the phases): each such module is among the hashed SOURCES, or is one
    whose values no kernel compiles (the package's re-exports, the ruleset loader, scoring and the facade, read
    by Python code only)."""
    root = Path(nefertiti_env.__file__).resolve().parent
    hashed = {p.resolve() for pattern in SOURCES for p in root.glob(pattern)}
    python_only = {root / "core" / name for name in ("__init__.py", "ruleset.py", "scoring.py", "game.py")}
    imported = set().union(*(imported_files(p, root) for p in hashed))
    assert imported - hashed - python_only == set()
