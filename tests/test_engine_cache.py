"""The compiled engine's stale-cache guard (docs/engine.md): numba keys a cached kernel on its own
file only, so a change to any kernel source must drop every cached kernel."""
from nefertiti_env.core.engine import drop_stale_cache


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
