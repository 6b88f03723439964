"""Hot kernels called from Python without numba's per-call dispatch on argument types."""
from __future__ import annotations

import numba


def typed_entry(kernel, *args):
    """`kernel` compiled (or loaded from the cache) for the types of `args`, as a function that skips
    numba's dispatch: a dispatcher checks the type of every argument on every call, about 0.1 us
    each, which cost the facade's per-decision calls more than their Python around them. The caller
    must pass arguments of exactly these types ever after: a wrong one is not detected (an int64
    array is read as one whatever it is), so use it only where the caller made the arrays."""
    return kernel.compile(tuple(numba.typeof(arg) for arg in args))
