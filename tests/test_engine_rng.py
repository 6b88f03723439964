"""engine/rng.py against numpy itself: the compiled engine must deal the same game from the
same seed as the Python engine, so every draw and the generator state after it must equal
`np.random.Generator(np.random.PCG64(seed))` bit for bit (docs/rules.md §1.3 and §9.22: the
game's seeded generator deals the deck and picks the first player; §3.3 `dice_match` rolls with
it; §6.3 draws the expansion characters with it)."""
import numpy as np
import pytest

from nefertiti_env.core.engine import layout as L
from nefertiti_env.core.engine.rng import rng_choice, rng_integers, rng_seed, rng_shuffle, rng_state, rng_words

# ranges around numpy's branches: no draw (1), 32-bit Lemire, the full 32-bit draw (2**32),
# the first 64-bit range (2**32 + 1), 64-bit Lemire, the widest int64 range
RANGES = [(0, 1), (0, 2), (1, 7), (0, 6), (5, 17), (-3, 4), (0, 2**32 - 1), (0, 2**32), (0, 2**32 + 1),
          (0, 2**40), (-2**40, 2**41), (0, 3 * 2**61), (-2**63, 2**63 - 1)]
SEEDS = [0, 1, 2, 41, 2**32 - 1, 2**32, 2**63 - 1]
SHUFFLE_SIZES = [0, 1, 2, 3, 7, 52, 300]
CHOICES = [(0, 0), (1, 0), (1, 1), (2, 2), (5, 5), (30, 5), (52, 1), (52, 52), (1000, 40),
           (2**33, 3),             # Floyd with 64-bit draws
           (20000, 100),           # Floyd: under numpy's tail-shuffle cutoff (pop // 50)
           (20000, 401), (10001, 10001)]  # numpy's tail shuffle


def words_of(seed):
    """A state whose generator (its first bytes) is numpy's PCG64(seed)."""
    S = np.zeros(L.STATE_BYTES, dtype=np.uint8)
    L.state_view(S).rng[:] = rng_words(np.random.PCG64(seed).state)
    return S


def state_of(S):
    return rng_state(L.state_view(S).rng)


def random_seeds(count, salt):
    return [int(s) for s in np.random.default_rng(salt).integers(0, 2**63 - 1, size=count)]


@pytest.mark.parametrize("seed", SEEDS + random_seeds(200, 1) + list(range(3, 40)))
def test_seed_gives_numpy_pcg64_state(seed):
    S = np.zeros(L.STATE_BYTES, dtype=np.uint8)
    rng_seed(S, seed)
    assert state_of(S) == np.random.PCG64(seed).state
    assert np.array_equal(S, words_of(seed))


def test_state_dict_round_trips_with_a_buffered_half():
    gen = np.random.Generator(np.random.PCG64(7))
    gen.integers(0, 6)                       # leaves has_uint32 = 1 and a uinteger
    state = gen.bit_generator.state
    assert state["has_uint32"] == 1
    assert rng_state(rng_words(state)) == state
    with pytest.raises(ValueError, match="PCG64"):
        rng_words(np.random.MT19937(1).state)


@pytest.mark.parametrize("low,high", RANGES)
def test_integers_match_numpy(low, high):
    for seed in SEEDS + random_seeds(10, 2):
        gen, S = np.random.Generator(np.random.PCG64(seed)), words_of(seed)
        want = [int(gen.integers(low, high)) for _ in range(40)]
        assert [rng_integers(S, low, high) for _ in range(40)] == want
        assert state_of(S) == gen.bit_generator.state


def test_integers_refuse_an_empty_range():
    with pytest.raises(ValueError, match="low >= high"):
        rng_integers(words_of(0), 3, 3)


@pytest.mark.parametrize("n", SHUFFLE_SIZES)
def test_shuffle_matches_numpy(n):
    for seed in SEEDS + random_seeds(10, 3):
        gen, S = np.random.Generator(np.random.PCG64(seed)), words_of(seed)
        gen.integers(0, 6)                   # start with a buffered half, which shuffle uses
        rng_integers(S, 0, 6)
        want, got = np.arange(n, dtype=np.int64) * 3, np.arange(n, dtype=np.int64) * 3
        gen.shuffle(want)
        rng_shuffle(S, got)
        assert np.array_equal(got, want)
        assert state_of(S) == gen.bit_generator.state


def test_shuffle_of_a_strided_view():
    gen, S = np.random.Generator(np.random.PCG64(5)), words_of(5)
    want, got = np.arange(40, dtype=np.int64), np.arange(40, dtype=np.int64)
    gen.shuffle(want[1::3])
    rng_shuffle(S, got[1::3])
    assert np.array_equal(got, want)
    assert state_of(S) == gen.bit_generator.state


@pytest.mark.parametrize("pop,size", CHOICES)
def test_choice_matches_numpy(pop, size):
    for seed in SEEDS[:4] + random_seeds(4, 4):
        gen, S = np.random.Generator(np.random.PCG64(seed)), words_of(seed)
        want = gen.choice(pop, size=size, replace=False)
        out = np.full(size + 2, -7, dtype=np.int64)
        rng_choice(S, pop, size, out)
        assert np.array_equal(out[:size], want)
        assert np.all(out[size:] == -7)
        assert state_of(S) == gen.bit_generator.state


def test_choice_refuses_more_than_the_population():
    with pytest.raises(ValueError, match="size"):
        rng_choice(words_of(0), 3, 4, np.zeros(4, dtype=np.int64))


def test_mixed_sequences_match_numpy():
    """Interleaved calls share the 32-bit buffer (integers below 2**32, shuffle) and the
    64-bit draws (wide ranges): the values and the state after each call must agree."""
    plan = np.random.default_rng(9)
    for seed in SEEDS + random_seeds(60, 5):
        gen, S = np.random.Generator(np.random.PCG64(seed)), words_of(seed)
        for _ in range(60):
            kind = plan.integers(3)
            if kind == 0:
                low, high = RANGES[plan.integers(len(RANGES))]
                assert rng_integers(S, low, high) == gen.integers(low, high)
            elif kind == 1:
                n = int(plan.integers(0, 30))
                want, got = np.arange(n, dtype=np.int64), np.arange(n, dtype=np.int64)
                gen.shuffle(want)
                rng_shuffle(S, got)
                assert np.array_equal(got, want)
            else:
                pop = int(plan.integers(0, 60))
                size = int(plan.integers(0, pop + 1))
                out = np.empty(size, dtype=np.int64)
                rng_choice(S, pop, size, out)
                assert np.array_equal(out, gen.choice(pop, size=size, replace=False))
            assert state_of(S) == gen.bit_generator.state
