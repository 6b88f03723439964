"""The state and rules as numpy records (docs/engine.md "The state as a record"): one declaration, the state's
fields at their natural widths in under a kilobyte, the rules' int64 words, so saved states, records and the
golden files read the same whichever way a kernel reads the fields."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from nefertiti_env import NefertitiGame
from nefertiti_env.core.engine import layout as L
from nefertiti_env.encoding.observation import state_vector, VECTOR_SIZE


def test_the_state_is_a_record_of_natural_widths_under_a_kilobyte():
    """docs/engine.md "Natural widths": every field at its declared width and shape, naturally aligned, the
    generator first at byte 0, no two fields sharing a byte, the whole at most 1,024 bytes (8,024 as int64)."""
    record = L.STATE_RECORD
    assert L.STATE_BYTES == record.itemsize == 976 <= 1024 and record.isalignedstruct
    assert record.fields["rng"][1] == 0 and record.fields["rng"][0].base == np.uint64
    names = [(name, width, shape) for name, shape, what, width in L.STATE_FIELDS] + \
            [(name + "_n", L.COUNT, ()) for name, _, what, _ in L.STATE_FIELDS if what == "list"]
    assert sorted(record.names) == sorted(name for name, _, _ in names)
    taken = np.zeros(record.itemsize, np.int64)
    for name, width, shape in names:
        dtype, offset = record.fields[name][:2]
        assert dtype.base == width and dtype.shape == shape and offset % np.dtype(width).itemsize == 0, name
        taken[offset:offset + dtype.itemsize] += 1
    assert taken.max() == 1 and record.itemsize - taken.sum() < 8      # padding only at the tail


def test_the_rules_record_is_int64_words_at_the_layouts_offsets():
    record = L.RULES_RECORD
    assert record.itemsize == L.RULES_SIZE * 8
    for name, (where, shape, what) in L.field_slices(L.RULE_FIELDS).items():
        dtype, offset = record.fields[name][:2]
        assert offset == where.start * 8 and dtype.shape == shape and dtype.base == np.int64
        if what == "list":
            assert record.fields[name + "_n"][1] == where.stop * 8
    assert len(record.names) == len(L.RULE_FIELDS) + sum(what == "list" for _, _, what, _ in L.RULE_FIELDS)


def _fields(S: np.ndarray) -> dict:
    """Every field of the state S read from its bytes at the record's offset (numpy's view, not the record)."""
    out = {}
    for name in L.STATE_RECORD.names:
        dtype, offset = L.STATE_RECORD.fields[name][:2]
        out[name] = S[offset:offset + dtype.itemsize].view(dtype.base).reshape(dtype.shape)
    return out


def test_record_is_a_view_of_the_games_arrays():
    """The records read and write the game's own memory: no copy, every field where the layout has it (Python
    views the arrays itself; the kernels' `state`/`rules` return a copy to Python, numba boxing a record by value)."""
    g = NefertitiGame(num_players=3, seed=4)
    for _ in range(30):
        g.apply(g.legal_actions()[0])
    assert g.S.dtype == np.uint8 and g.S.shape == (L.STATE_BYTES,)
    s, r = g.S.view(L.STATE_RECORD)[0], g.R.view(L.RULES_RECORD)[0]
    for name, value in _fields(g.S).items():
        assert np.array_equal(getattr(s, name), value), name
    assert s.num_players == r.r_num_players == 3
    s.owned[1, 2] += 5
    assert g.state.owned[1, 2] == s.owned[1, 2]
    s.phase = L.PH_OVER
    assert g.phase == L.PH_OVER


def test_the_observations_words_are_the_fields_in_the_declarations_order():
    """`state_vector` copies the record into one word per value in the declaration's order (`STATE_WORDS`,
    `layout.WORDS_OF_I8`...), every value once, the generator's words as int64 bits: the observation plan
    reads them by name, so the widths change no observation."""
    g = NefertitiGame(num_players=4, seed=9, characters="expansion")
    for _ in range(60):
        g.apply(g.legal_actions()[-1])
    tables = (L.WORDS_OF_I8, L.WORDS_OF_I16, L.WORDS_OF_I32, L.WORDS_OF_I64)
    assert np.array_equal(np.sort(np.concatenate([t[1] for t in tables])), np.arange(L.STATE_WORDS))
    s, words = L.state_view(g.S), []
    for name, _, what, _ in L.STATE_FIELDS:
        words.append(np.asarray(getattr(s, name)).ravel().astype(np.int64))
        if what == "list":
            words.append(np.array([getattr(s, name + "_n")], np.int64))
    vec = np.empty(VECTOR_SIZE, np.int64)
    state_vector(g.R, g.S, 0, vec)
    assert np.array_equal(vec[:L.STATE_WORDS], np.concatenate(words))
    assert np.array_equal(vec[L.field_slices()["rng"][0]], s.rng.view(np.int64))


def test_game_state_is_the_games_own_memory():
    """`game.state` is the record of the game's S: an edit through it is the game's position (its saved state,
    its legal actions) and no other game's (a clone's S is a copy)."""
    g = NefertitiGame(num_players=3, seed=4)
    clone = g.clone()
    assert np.shares_memory(g.state.money, g.S) and not np.shares_memory(clone.state.money, g.S)
    g.state.money[1] = 3
    assert g.saved_state()["money"][1] == 3 and clone.saved_state()["money"][1] != 3
    assert g.legal_actions()
    g.state.phase, g.state.actor = L.PH_OVER, -1       # taking the record forgets the legal actions known
    assert g.legal_actions() == [] and g.is_over() and not clone.is_over()


def test_an_unknown_attribute_raises_attribute_error_naming_it():
    """The fields are read through `game.state` only; a name that is neither a field nor the facade's is an error."""
    g = NefertitiGame(num_players=3, seed=4)
    for name in ("money", "no_such_field"):
        with pytest.raises(AttributeError, match=name):
            getattr(g, name)
    with pytest.raises(AttributeError, match="no_such_field"):
        g.state.no_such_field = 1
    with pytest.raises(AttributeError, match="no_such_field"):
        g.state.no_such_field


def test_python_record_reads_what_numpys_record_reads():
    """`layout.state_view` (the facade's record type, faster by name) and numpy's own record read and write the
    same bytes for every field."""
    g = NefertitiGame(num_players=4, seed=9, characters="expansion")
    for _ in range(40):
        g.apply(g.legal_actions()[-1])
    fast, numpys = L.state_view(g.S), g.S.view(L.STATE_RECORD)[0]
    for name in L.STATE_RECORD.names:
        assert np.array_equal(getattr(fast, name), getattr(numpys, name)), name
    fast.owned[2, 1] += 4
    fast.res_pos = 7
    assert numpys.owned[2, 1] == fast.owned[2, 1] and numpys.res_pos == 7
    r = L.rules_view(g.R)
    assert r.r_num_players == 4 and np.array_equal(r.kind_type, g.R.view(L.RULES_RECORD)[0].kind_type)


ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("nefertiti_env", "agents", "training", "balance", "nefertiti_cli")


def test_no_module_reads_a_field_by_offset():
    """Every module of the product reads the state by name (docs/engine.md "The state as a record"): no index
    by a layout constant (`S[L.X]`) is left, in the kernels or the Python around them."""
    paths = [path for folder in PRODUCT for path in sorted((ROOT / folder).rglob("*.py"))]
    assert len(paths) > 100                   # the walk finds the product's modules
    found = {str(path.relative_to(ROOT)): offsets for path in paths
             if (offsets := re.findall(r"[\]\w)]\[L\.([A-Z][A-Z_0-9]*)", path.read_text()))}
    assert found == {}


def test_python_reads_a_narrow_field_as_int64():
    """A field read from Python (`game.state`, and every kernel under NUMBA_DISABLE_JIT) hands out its values as
    int64, as numba computes with them and as the int64 state did: numpy would keep an int8 and overflow
    (`seat * 200` raised for an int8 seat). The memory stays narrow; stores go to the field's width."""
    g = NefertitiGame(num_players=4, seed=2)
    s = g.state
    assert s.owned.dtype == np.int8 and s.money.dtype == np.int16 and np.shares_memory(s.owned, g.S)
    for value in (s.actor, s.deck_pos, s.owned[1, 2], s.money[0], s.money.max(), s.occ[0][3], next(iter(s.deck))):
        assert type(value) is np.int64
    assert s.actor * 200 + 100_000 == int(s.actor) * 200 + 100_000
    assert type(s.rng[0]) is np.uint64                     # the generator's words keep their wrap-around
