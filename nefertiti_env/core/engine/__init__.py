"""The compiled rules engine: numba kernels over one state array and one rules array (layout.py),
compiled and cached through entry.py's decorators (cache.py keeps their cached code in step with
every source they compile in)."""
