"""numpy's `Generator(PCG64(seed))` as numba kernels over the generator words of a game's state.

Why numpy-exact: the compiled engine must deal the same game from the same seed as the Python
engine (and the recorded golden games), so every draw reproduces numpy bit for bit: the PCG64
stream (XSL-RR 128/64), its buffered 32-bit half (`has_uint32`, `uinteger`), Lemire's bounded
integers for `integers` and `choice`, the masked rejection of `random_interval` for `shuffle`,
and SeedSequence hashing for seeding. The generator is the six words of numpy's
`bit_generator.state` in the state's `rng` field, read by name as a `GENERATOR` record (state high
and low 64 bits, increment high and low, has_uint32, uinteger), so a game's state carries its own
stream (clone = copy). The public kernels take an array that begins with the words, as a state does (its
`rng` field is the record's first, at byte 0): a game's state, or a bot's generator array of the six
int64 words alone (`hidden.generator_array`).

numba has no uint128: 128-bit values are (high, low) uint64 pairs. All arithmetic stays in uint64
(uint64 mixed with int64 would give float64), so the record's words are uint64: the same bits.
"""
from __future__ import annotations

import numpy as np

from . import layout as L
from .entry import as_record, kernel, njit, shared

_U64 = np.uint64
_MULT_HI = _U64(2549297995355413924)   # numpy's PCG_DEFAULT_MULTIPLIER_128
_MULT_LO = _U64(4865540595714422341)
_MASK32 = _U64(0xFFFFFFFF)                 # also the largest 32-bit draw
_0, _1, _32, _58, _63, _64 = _U64(0), _U64(1), _U64(32), _U64(58), _U64(63), _U64(64)
_TAIL_POP, _TAIL_CUTOFF = 10000, 50    # choice: numpy's tail-shuffle heuristic (shuffle=True)

# SeedSequence constants (numpy.random.bit_generator)
_INIT_A, _MULT_A = _U64(0x43b0d7e5), _U64(0x931e8875)
_INIT_B, _MULT_B = _U64(0x8b51f9dd), _U64(0x58f38ded)
_MIX_L, _MIX_R = _U64(0xca01f9dd), _U64(0x4973f715)
_XSHIFT = _U64(16)
_POOL = 4

GENERATOR = np.dtype((np.record, [("state_hi", _U64), ("state_lo", _U64), ("inc_hi", _U64), ("inc_lo", _U64),
                                  ("has_uint32", _U64), ("uinteger", _U64)]))
assert GENERATOR.itemsize == 8 * L.RNG_WORDS and L.STATE_RECORD.fields["rng"][1] == 0


# ---------------------------------------------------------------- 128-bit arithmetic
@kernel
def _mulhi(a, b):
    """High 64 bits of the 128-bit product of two uint64."""
    a_lo, a_hi = a & _MASK32, a >> _32
    b_lo, b_hi = b & _MASK32, b >> _32
    lo_lo, hi_lo, lo_hi = a_lo * b_lo, a_hi * b_lo, a_lo * b_hi
    cross = (lo_lo >> _32) + (hi_lo & _MASK32) + lo_hi
    return a_hi * b_hi + (hi_lo >> _32) + (cross >> _32)


@kernel
def _step(s_hi, s_lo, i_hi, i_lo):
    """One LCG step: state * multiplier + increment (mod 2**128)."""
    hi = _mulhi(s_lo, _MULT_LO) + s_hi * _MULT_LO + s_lo * _MULT_HI
    lo = s_lo * _MULT_LO
    new_lo = lo + i_lo
    carry = _1 if new_lo < lo else _0
    return hi + i_hi + carry, new_lo


# ---------------------------------------------------------------- the bit generator
@kernel
def generator(S):
    """The generator words of `S` (a state, or a generator array: both begin with them) as a `GENERATOR`
    record: the same memory."""
    return as_record(S, GENERATOR)


@kernel
def _next64(g):
    """pcg64_next64: step, then XSL-RR output of the new state."""
    s_hi, s_lo = _step(g.state_hi, g.state_lo, g.inc_hi, g.inc_lo)
    g.state_hi = s_hi
    g.state_lo = s_lo
    x = s_hi ^ s_lo
    rot = s_hi >> _58
    return (x >> rot) | (x << ((_64 - rot) & _63))


@kernel
def _next32(g):
    """pcg64_next32: the high half of a 64-bit draw is kept (has_uint32) for the next call."""
    if g.has_uint32:
        g.has_uint32 = 0
        return g.uinteger
    x = _next64(g)
    g.has_uint32 = 1
    g.uinteger = x >> _32
    return x & _MASK32


# ---------------------------------------------------------------- bounded draws
@kernel
def _bounded(g, rng):
    """random_bounded_uint64(off=0, rng, use_masked=False): uniform in [0, rng], Lemire's method.

    Ranges below 2**32 draw 32-bit halves (numpy's 32-bit path), so they use the buffer."""
    if rng == _0:
        return _0
    if rng <= _MASK32:
        if rng == _MASK32:
            return _next32(g)
        excl = rng + _1
        m = _next32(g) * excl
        left = m & _MASK32
        if left < excl:
            threshold = (_MASK32 - rng) % excl
            while left < threshold:
                m = _next32(g) * excl
                left = m & _MASK32
        return m >> _32
    excl = rng + _1                    # rng < 2**64 - 1: integers' and choice's ranges are below
    x = _next64(g)
    left = x * excl
    if left < excl:
        threshold = (_0 - excl) % excl     # (2**64 - 1 - rng) mod excl
        while left < threshold:
            x = _next64(g)
            left = x * excl
    return _mulhi(x, excl)


@kernel
def _interval(g, top):
    """random_interval: uniform in [0, top] by masked rejection (what `shuffle` uses)."""
    if top == _0:
        return _0
    mask = top
    mask |= mask >> _1
    mask |= mask >> _U64(2)
    mask |= mask >> _U64(4)
    mask |= mask >> _U64(8)
    mask |= mask >> _U64(16)
    mask |= mask >> _32
    if top <= _MASK32:
        value = _next32(g) & mask
        while value > top:
            value = _next32(g) & mask
    else:                                  # arrays of over 2**32 items
        value = _next64(g) & mask
        while value > top:
            value = _next64(g) & mask
    return value


@shared
def rng_integers(S, low, high):
    """`Generator.integers(low, high)` (int64 scalar): uniform in [low, high)."""
    if low >= high:
        raise ValueError("rng_integers: low >= high")
    rng = _U64(high) - _U64(low) - _1
    return np.int64(_U64(low) + _bounded(generator(S), rng))


@njit(cache=True)
def rng_shuffle(S, arr):
    """`Generator.shuffle(arr)` for a 1-D int64 array, in place (Fisher-Yates from the end)."""
    g = generator(S)
    for i in range(arr.shape[0] - 1, 0, -1):
        j = np.int64(_interval(g, _U64(i)))
        arr[i], arr[j] = arr[j], arr[i]


@kernel
def _shuffle_int(g, arr, n, first):
    """numpy's `_shuffle_int` (choice's shuffles): like shuffle but with Lemire's bounded draws."""
    for i in range(n - 1, first - 1, -1):
        j = np.int64(_bounded(g, _U64(i)))
        arr[i], arr[j] = arr[j], arr[i]


@shared
def rng_choice(S, pop_size, size, out):
    """`Generator.choice(pop_size, size=size, replace=False)` written into out[:size].

    Small draws use numpy's Floyd sampling then a shuffle of the sample; a large share of a
    population over 10,000 uses its tail shuffle of the whole range (which allocates)."""
    if size < 0 or size > pop_size:
        raise ValueError("rng_choice: size must be 0..pop_size")
    g = generator(S)
    if pop_size > _TAIL_POP and size > pop_size // _TAIL_CUTOFF:
        idx = np.arange(pop_size)
        _shuffle_int(g, idx, pop_size, max(pop_size - size, 1))
        for k in range(size):
            out[k] = idx[pop_size - size + k]
        return
    for k in range(size):                  # Floyd: numpy keeps a hash set, a scan finds the same
        j = pop_size - size + k
        val = np.int64(_bounded(g, _U64(j)))
        for t in range(k):
            if out[t] == val:
                val = j
                break
        out[k] = val
    _shuffle_int(g, out, size, 1)


# ---------------------------------------------------------------- seeding
@kernel
def _hashmix(value, hash_const):
    """SeedSequence's hashmix on 32-bit words held in uint64; returns (value, new hash_const)."""
    value = (value ^ hash_const) & _MASK32
    hash_const = (hash_const * _MULT_A) & _MASK32
    value = (value * hash_const) & _MASK32
    return value ^ (value >> _XSHIFT), hash_const


@kernel
def _mix(x, y):
    result = (_MIX_L * x - _MIX_R * y) & _MASK32
    return result ^ (result >> _XSHIFT)


@njit(cache=True)
def rng_seed(S, seed):
    """The words of `np.random.PCG64(seed)` for 0 <= seed < 2**63, without Python.

    SeedSequence(seed) hashes the seed's 32-bit words into a pool of four and draws four 64-bit
    words (state, increment); PCG64 then seeds as pcg_setseq_128_srandom_r."""
    if seed < 0:
        raise ValueError("rng_seed: seed must be >= 0")
    useed = _U64(seed)
    entropy = np.empty(2, dtype=np.uint64)
    entropy[0] = useed & _MASK32
    entropy[1] = useed >> _32
    n_entropy = 2 if entropy[1] else 1
    pool = np.empty(_POOL, dtype=np.uint64)
    hash_const = _INIT_A
    for i in range(_POOL):
        pool[i], hash_const = _hashmix(entropy[i] if i < n_entropy else _0, hash_const)
    for i_src in range(_POOL):
        for i_dst in range(_POOL):
            if i_src != i_dst:
                h, hash_const = _hashmix(pool[i_src], hash_const)
                pool[i_dst] = _mix(pool[i_dst], h)
    words = np.empty(4, dtype=np.uint64)   # generate_state(4, np.uint64)
    hash_const = _INIT_B
    for i in range(2 * 4):
        v = pool[i % _POOL] ^ hash_const
        hash_const = (hash_const * _MULT_B) & _MASK32
        v = (v * hash_const) & _MASK32
        v ^= v >> _XSHIFT
        if i % 2:
            words[i // 2] |= v << _32
        else:
            words[i // 2] = v
    i_hi = (words[2] << _1) | (words[3] >> _63)           # inc = (initseq << 1) | 1
    i_lo = (words[3] << _1) | _1
    s_hi, s_lo = _step(_0, _0, i_hi, i_lo)
    s_lo2 = s_lo + words[1]                                 # state += initstate
    s_hi = s_hi + words[0] + (_1 if s_lo2 < s_lo else _0)
    s_hi, s_lo = _step(s_hi, s_lo2, i_hi, i_lo)
    g = generator(S)
    g.state_hi = s_hi
    g.state_lo = s_lo
    g.inc_hi = i_hi
    g.inc_lo = i_lo
    g.has_uint32 = 0
    g.uinteger = 0


# ---------------------------------------------------------------- Python helpers (the facade)
def rng_words(state: dict) -> np.ndarray:
    """numpy's PCG64 `bit_generator.state` dict -> the six words of S's `rng` as int64 (a generator array)."""
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"expected a PCG64 generator state, got {state.get('bit_generator')!r}")
    s, inc = int(state["state"]["state"]), int(state["state"]["inc"])
    mask = (1 << 64) - 1
    words = np.zeros(1, dtype=GENERATOR)
    words[0] = (s >> 64, s & mask, inc >> 64, inc & mask, int(state["has_uint32"]), int(state["uinteger"]))
    return words.view(np.int64)


def rng_state(words: np.ndarray) -> dict:
    """The six words of S's `rng` (or a generator array's) -> numpy's PCG64 `bit_generator.state` dict."""
    g = np.ascontiguousarray(words, dtype=np.int64).view(GENERATOR)[0]
    return {"bit_generator": "PCG64",
            "state": {"state": int(g.state_hi) << 64 | int(g.state_lo), "inc": int(g.inc_hi) << 64 | int(g.inc_lo)},
            "has_uint32": int(g.has_uint32), "uinteger": int(g.uinteger)}
