"""How kernels are compiled: `njit` for every kernel (numba's, with a cache that is never stale), `kernel`
for those only kernels call, `typed_entry` for hot calls from Python, `borrow` for the arrays a kernel
Python calls hands down, `as_record` for an array read as a record (`layout.state`), `prefetch` to ask
for a batch's next row ahead of its use, `compile_notice` and `first_call_notice` to say so when a first
run compiles.
Under `NUMBA_DISABLE_JIT=1` each of them hands back the plain Python function (or array), so the same
engine runs as Python a debugger can step through (docs/engine.md "Debugging")."""
from __future__ import annotations

import functools
import sys
import threading
import types
from contextlib import contextmanager, nullcontext

import numba
import numpy as np
from llvmlite import ir
from numba.core import types as nbtypes
from numba.core.compiler_lock import global_compiler_lock
from numba.core.types import unliteral
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic

from .cache import SourcesCache

PLAIN_PYTHON = numba.config.DISABLE_JIT     # NUMBA_DISABLE_JIT=1: `njit` returns the function itself


class _Cached(CPUDispatcher):
    """numba's dispatcher with `SourcesCache` (cache.py) instead of numba's own cache, which would keep a
    kernel's machine code after an edit of a kernel it compiled in. The cache is made at the first compile
    (`compile` is where numba loads or compiles every kernel, for a call from Python or from a kernel):
    numba makes its own when the kernel is decorated, which creates the cache folder at import."""

    _wants_cache = False

    def enable_caching(self):
        self._wants_cache = True

    def compile(self, sig):
        if self._wants_cache:
            with global_compiler_lock:          # the batched env's threads may compile at once
                if self._wants_cache:
                    self._cache = SourcesCache(self.py_func)
                    self._wants_cache = False
        return super().compile(sig)


def njit(**options):
    """`numba.njit(**options)` for the project's kernels, whose `cache=True` is `_Cached`'s: cached code
    is dropped when any source it compiles in changes, not only its own file. Decorate kernels with this
    one, never numba's (tests/test_engine_cache.py finds any that are not)."""
    cache = options.pop("cache", False)
    return lambda fn: _dispatch(_Cached, fn, cache, {"nopython": True, "boundscheck": None, **options})


def _dispatch(cls, fn, cache: bool, targetoptions: dict):
    """`fn` compiled by the dispatcher class `cls` (its cache made at the first compile if `cache`), or `fn`
    itself under NUMBA_DISABLE_JIT: the one place `njit`, `shared` and `kernel` make their dispatchers."""
    if PLAIN_PYTHON:
        return fn
    dispatcher = cls(py_func=fn, locals={}, targetoptions=targetoptions)
    if cache:
        dispatcher.enable_caching()
    return dispatcher


class _Shared(_Cached):
    """A dispatcher that compiles one machine code for the types of a compiled caller's arguments,
    whatever constants it passes: numba types a constant argument as its value (`f(S, -1)` and
    `f(S, m)` were two compiles of f, and of everything f calls with its arguments), which lengthened
    the first run's compile (docs/engine.md "Compile time")."""

    def get_call_template(self, args, kws):
        return super().get_call_template([unliteral(a) for a in args],
                                         {k: unliteral(v) for k, v in kws.items()})


def shared(fn):
    """`@njit(cache=True)` for a kernel that both Python and kernels call, with `_Shared`'s one compile
    per argument types."""
    return _dispatch(_Shared, fn, True, {"nopython": True})


class _Kernel(_Shared):
    """A dispatcher whose machine code has no CPython wrapper (numba's argument unboxing and boxing,
    a large share of a small kernel's compile time, docs/engine.md "Compile time"), since only
    compiled callers, which call the machine code directly, use it. A call from Python, which would
    jump to the missing wrapper, goes to a twin instead: the same function compiled with a wrapper,
    on that first call, and cached apart (its own name)."""

    _twin = None

    def add_overload(self, cres):
        # not in the table Python calls are dispatched through: those miss and reach _compile_for_args
        self.overloads[tuple(cres.signature.args)] = cres

    def _compile_for_args(self, *args, **kws):
        if self._twin is None:
            fn = self.py_func
            twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
            twin.__qualname__ = f"{fn.__qualname__}_from_python"
            self._twin = njit(cache=True)(twin)
        entry = self._twin._compile_for_args(*args, **kws)
        for cres in self._twin.overloads.values():      # later calls of these types: straight to the twin's code
            if cres.entry_point is entry:
                self._insert([a._code for a in cres.signature.args], entry, cres.objectmode)
        return entry


def kernel(fn):
    """`@njit(cache=True)` for a kernel that only other kernels call (a call from Python still works,
    through `_Kernel`'s twin), one compile per argument types (`_Shared`); a kernel Python calls keeps
    `@njit(cache=True)`, or `shared` if kernels call it with constants."""
    return _dispatch(_Kernel, fn, True, {"nopython": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True})


@intrinsic
def _borrow(typingctx, array):
    """`array` as a view that counts no references (its meminfo NULL). numba counts a reference in and
    out of every compiled call an array is passed to that it does not inline, each an atomic operation:
    with R and S handed down through the engine's calls, those counts were a large share of random
    play's and the bots' time (docs/engine.md "Reference counts"). A kernel that Python calls borrows its array arguments once at its top; never
    an array it allocates itself, and never one it returns or stores: only the caller, which holds them
    for the call, keeps their data alive."""
    if not isinstance(array, nbtypes.Array):
        return None

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        view.meminfo = context.get_constant_null(nbtypes.MemInfoPointer(nbtypes.voidptr))
        view.parent = context.get_constant_null(nbtypes.pyobject)
        return view._getvalue()

    return array(array), codegen


def _borrow_in_python(array):
    """`borrow` as plain Python: Python counts its own references, so the array itself."""
    return array


borrow = _borrow_in_python if PLAIN_PYTHON else _borrow


@intrinsic
def _as_record(typingctx, array, dtype):
    """The record of numpy type `dtype` that begins at `array`'s first element: the array's data pointer
    read as a record's (numba passes a record as a pointer to its bytes), with no check and no copy. numba's
    own way, `array.view(dtype)[0]`, checks the sizes and the contiguity at every call, which made a read by
    name cost more than a read by offset; this one costs no more than the offsets (docs/results.md
    "Named state, stage 1"). The caller passes an array at least a record long."""
    if not isinstance(array, nbtypes.Array) or not isinstance(dtype, nbtypes.DType):
        return None
    record = dtype.dtype

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        return builder.bitcast(view.data, context.get_value_type(record))

    return record(array, dtype), codegen


def _as_record_in_python(array, dtype):
    """`as_record` as plain Python: a view of the same memory as `python_record(dtype)`, whose reads hand out
    what numba's do."""
    if dtype not in _PYTHON_RECORDS:
        _PYTHON_RECORDS[dtype] = python_record(dtype)
    return array[:dtype.itemsize // array.itemsize].view(_PYTHON_RECORDS[dtype])[0]


@intrinsic
def _prefetch(typingctx, array, index):
    """A hint that the cache line holding byte `index` of `array`'s data is wanted soon (LLVM's prefetch:
    a read, kept in every cache level). A batch's kernels walk their rows in turn, one decision each, and
    a row of 8,192 is no longer in the cache when its turn comes: asking for the next row's lines while
    deciding in this one hides that wait (docs/engine.md "The next row, asked for ahead"). A hint, never a
    load: it cannot fault, even past the array's end, and changes no value."""
    if not isinstance(array, nbtypes.Array) or not isinstance(index, nbtypes.Integer):
        return None

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        byte = ir.IntType(8).as_pointer()
        at = builder.gep(builder.bitcast(view.data, byte), [args[1]])
        word = ir.IntType(32)
        name = "llvm.prefetch.p0"
        hint = (builder.module.globals.get(name)
                or ir.Function(builder.module, ir.FunctionType(ir.VoidType(), [byte, word, word, word]), name))
        builder.call(hint, [at, word(0), word(3), word(1)])       # read, keep in every level, data
        return context.get_dummy_value()

    return nbtypes.none(array, index), codegen


def _prefetch_in_python(array, index):
    """`prefetch` as plain Python: a hint with nothing to hint to."""


prefetch = _prefetch_in_python if PLAIN_PYTHON else _prefetch


_PYTHON_RECORDS: dict = {}      # a record dtype -> its Python type


def _widen(value):
    """A value read from a record as numba reads it: numba computes with a narrow signed integer (int8, int16,
    int32) as int64, where numpy would keep its type and overflow (int8 + 200 raises, int8 + int8 wraps), so
    a narrow scalar becomes an int64 and an array a `_Widened` view; anything else is unchanged (the
    generator's uint64 words keep their wrap-around arithmetic)."""
    if isinstance(value, np.ndarray):
        return value.view(_Widened)
    if isinstance(value, np.signedinteger) and value.itemsize < 8:
        return np.int64(value)
    return value


class _Widened(np.ndarray):
    """An array field of a plain-Python record: its elements, iterated or indexed, and its reductions
    (`max`, `min`) read as int64 (`_widen`). Stores are numpy's (out of a field's width: an error)."""

    def __getitem__(self, index):
        return _widen(super().__getitem__(index))

    def __iter__(self):
        return map(_widen, super().__iter__())

    def __array_wrap__(self, array, context=None, return_scalar=False):
        return _widen(array[()]) if return_scalar else super().__array_wrap__(array, context, return_scalar)


def python_record(record: np.dtype) -> np.dtype:
    """`record` read from Python (the facade's `game.state`, `layout.state_view`, and every kernel under
    NUMBA_DISABLE_JIT): the same memory, the same fields, at a fraction of `np.record`'s cost, since
    numpy builds the dtype's dict of fields at every attribute (over a hundred fields here) and this type
    looks the name up in a set made once; each value reads as numba reads it, a narrow
    integer as int64 (`_widen`), so Python code computes with the state's values as the kernels do."""
    names, get, put = frozenset(record.names), np.void.__getitem__, np.void.__setitem__

    class Record(np.record):
        __slots__ = ()

        def __getattribute__(self, name):
            return _widen(get(self, name)) if name in names else np.record.__getattribute__(self, name)

        def __setattr__(self, name, value):
            if name not in names:
                raise AttributeError(f"the record has no field {name!r}")
            put(self, name, value)

    return np.dtype((Record, record))


as_record = _as_record_in_python if PLAIN_PYTHON else _as_record


NOTICE = {"said": False}     # one compile notice per process: a job compiles several parts in turn


def _say(message: str) -> None:
    """`message` on stderr, on a line of its own even when a progress bar is being drawn there (the
    training's evaluation draws one while its worker processes compile); only the process's first
    notice is said, since the parts a job compiles come one after the other and one line tells it."""
    if NOTICE["said"]:
        return
    NOTICE["said"] = True
    print(f"\n{message}", file=sys.stderr, flush=True)


@contextmanager
def compile_notice(what: str, after: float = 3.0):
    """Say on stderr that `what` is being compiled if the block still runs `after` seconds on: numba
    compiles the engine on its first use after an install or an edit (a minute or so of CPU) without a word, and later runs load it from its cache in seconds."""
    timer = threading.Timer(after, _say, [f"nefertiti: compiling {what}, then what else this job needs, for this "
                                          "machine (numba; the first run after an install or an edit takes a "
                                          "minute or a few, later runs load it from the cache)"])
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def first_call_notice(dispatcher, what: str):
    """`compile_notice(what)` around a call of `dispatcher` that may be its first (no machine code yet,
    neither compiled nor loaded from the cache); nothing around the later ones."""
    return nullcontext() if PLAIN_PYTHON or dispatcher.overloads else compile_notice(what)


def _boxed_like_numba(fn):
    """`fn` returning what its compiled code returns to Python: numba boxes a numpy scalar result as a
    Python int, float or bool (tuples item by item), and callers store those as they come (a game's
    `private_to`, saved as JSON, must hold Python ints)."""
    def box(value):
        if isinstance(value, tuple):
            return tuple(box(v) for v in value)
        return value.item() if isinstance(value, np.generic) else value

    @functools.wraps(fn)
    def call(*args):
        return box(fn(*args))
    return call


def typed_entry(dispatcher, *args, what: str):
    """`dispatcher` (an `@njit` kernel) compiled (or loaded from the cache) for the types of `args`, as
    a function that skips numba's dispatch: a dispatcher checks the type of every argument on every
    call, which costs the facade's per-decision calls more than their Python around them. The caller
    must pass arguments of exactly these types ever after: a wrong one is not detected (an int64
    array is read as one whatever it is), so use it only where the caller made the arrays.
    `what` names the compiled code in `compile_notice`'s message."""
    if PLAIN_PYTHON:
        return _boxed_like_numba(dispatcher)
    with compile_notice(what):
        return dispatcher.compile(tuple(numba.typeof(arg) for arg in args))
