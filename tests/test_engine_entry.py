"""`engine.entry.kernel`: a kernel compiled without numba's CPython wrapper still answers a call from Python."""
import numpy as np
from numba import njit

from nefertiti_env import NefertitiGame
from nefertiti_env.core.engine import board, entry


@entry.kernel
def _bump(S, i):
    S[i] += 1
    return S[i] * 3


@njit(cache=True)
def _bump_twice(S):
    return _bump(S, 0) + _bump(S, 0)


def test_a_kernel_serves_compiled_callers_and_python_alike():
    S = np.zeros(2, np.int64)
    assert _bump_twice(S) == 3 + 6 and S.tolist() == [2, 0]      # compiled: the wrapperless code
    assert _bump(S, 1) == 3 and _bump(S, 1) == 6 and S.tolist() == [2, 2]   # Python: the twin, then its fast path
    assert _bump._twin is not None                                # the twin answered Python


@njit(cache=True)
def _kind_value_compiled(R, S, p, kind):
    return board.kind_value(R, S, p, kind)


def test_an_engine_kernel_called_from_python_gives_the_compiled_answer():
    g = NefertitiGame(4, seed=3)
    while len(g.history) < 60 and not g.is_over():      # owners hold gifts by now
        g.apply(g.legal_actions()[0])
    assert isinstance(board.kind_value, entry._Kernel)
    values = [[board.kind_value(g.R, g.S, p, k) for k in range(g.rules.num_kinds)] for p in range(4)]
    assert values == [[_kind_value_compiled(g.R, g.S, p, k) for k in range(g.rules.num_kinds)] for p in range(4)]
    assert any(v > 0 for row in values for v in row)


def test_a_long_compile_is_announced_on_stderr_and_a_short_one_is_not(capsys, monkeypatch):
    """A first run compiles for a minute or so: past `after` seconds, stderr says what compiles."""
    import time

    monkeypatch.setitem(entry.NOTICE, "said", False)
    with entry.compile_notice("the slow part", after=0.05):
        time.sleep(0.3)
    with entry.compile_notice("the quick part", after=0.3):
        pass
    time.sleep(0.4)                        # the quick part's timer would have fired by now
    err = capsys.readouterr().err
    assert "nefertiti: compiling the slow part, then what else this job needs" in err and "quick part" not in err, err


def test_a_process_says_one_compile_notice_whatever_it_compiles(capsys, monkeypatch):
    """A job compiles the engine, the bots and the batched engine in turn: one line tells it."""
    import time

    monkeypatch.setitem(entry.NOTICE, "said", False)
    for part in ("the engine", "the bots", "the batched engine"):
        with entry.compile_notice(part, after=0.01):
            time.sleep(0.1)
    err = capsys.readouterr().err
    assert err.count("nefertiti: compiling") == 1 and "the engine, then" in err, err


def test_only_a_kernels_first_call_is_watched_for_a_compile():
    from contextlib import nullcontext

    @njit
    def double(x):
        return 2 * x

    assert not isinstance(entry.first_call_notice(double, "double"), nullcontext)    # no machine code yet
    assert double(3) == 6
    assert isinstance(entry.first_call_notice(double, "double"), nullcontext)


@njit(cache=True)
def _bump_borrowed(S, i):
    """`_bump` (a kernel not inlined) on a borrowed view, then a read through the view and a slice of it."""
    view = entry.borrow(S)
    return _bump(view, i), view[i], view[i:][0]


def test_a_borrowed_array_is_a_view_of_the_same_data():
    S = np.arange(4, dtype=np.int64)
    assert _bump_borrowed(S, 2) == (9, 3, 3) and S.tolist() == [0, 1, 3, 3]   # written through to the caller's
    assert _bump_borrowed(S, 3) == (12, 4, 4) and S.tolist() == [0, 1, 3, 4]
