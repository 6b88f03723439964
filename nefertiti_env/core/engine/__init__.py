"""The compiled rules engine: numba kernels over one state array and one rules array (docs/engine.md)."""
