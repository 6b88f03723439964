"""The state and rules as numpy records (docs/engine.md "The state as a record"): one declaration, the same
bytes as the int64 arrays, so saved states, records and the golden files read the same whichever way a
kernel reads the fields."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from nefertiti_env import NefertitiGame
from nefertiti_env.core.engine import layout as L


@pytest.mark.parametrize("fields, record, size", [(L.STATE_FIELDS, L.STATE_RECORD, L.STATE_SIZE),
                                                   (L.RULE_FIELDS, L.RULES_RECORD, L.RULES_SIZE)])
def test_record_has_the_layouts_offsets_and_size(fields, record, size):
    assert record.itemsize == size * 8
    for name, (where, shape, what) in L.field_slices(fields).items():
        dtype, offset = record.fields[name][:2]
        assert offset == where.start * 8 and dtype.shape == shape and dtype.base == np.int64
        if what == "list":
            assert record.fields[name + "_n"][1] == where.stop * 8
    assert len(record.names) == len(fields) + sum(what == "list" for _, _, what in fields)


def test_record_is_a_view_of_the_games_arrays():
    """The records read and write the game's own memory: no copy, every field where the layout has it (Python
    views the arrays itself; the kernels' `state`/`rules` return a copy to Python, numba boxing a record by value)."""
    g = NefertitiGame(num_players=3, seed=4)
    for _ in range(30):
        g.apply(g.legal_actions()[0])
    s, r = g.S.view(L.STATE_RECORD)[0], g.R.view(L.RULES_RECORD)[0]
    for name, (where, shape, what) in L.field_slices().items():
        assert np.array_equal(getattr(s, name), g.S[where].reshape(shape)), name
        if what == "list":
            assert getattr(s, name + "_n") == g.S[where.stop], name
    assert s.num_players == r.r_num_players == 3
    s.owned[1, 2] += 5
    assert g.state.owned[1, 2] == s.owned[1, 2]
    s.phase = L.PH_OVER
    assert g.phase == L.PH_OVER



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
CONVERTED = tuple(f"nefertiti_env/core/engine/{module}.py"
                  for module in ("rng", "hidden", "closing", "board", "setup", "step", "flow", "resolution",
                                  "powers")) + (
    "nefertiti_env/core/power_table.py", "nefertiti_env/core/engine/rules.py", "nefertiti_env/core/state_io.py",
    "nefertiti_env/core/game.py",
    "nefertiti_env/vector.py", "nefertiti_env/encoding/observation.py", "agents/evaluation.py",
    "agents/heuristic.py", "agents/mcts.py")


@pytest.mark.parametrize("path", CONVERTED)
def test_a_converted_module_reads_no_field_by_offset(path):
    """A module read by name reads no field by offset as well (docs/engine.md "Converting the next module"):
    only a generator array's words, which the bots' arrays hold at the state's `rng` offset, are found by it."""
    source = (ROOT / path).read_text()
    offsets = [hit for hit in re.findall(r"[\]\w)]\[L\.([A-Z][A-Z_0-9]*)", source) if hit != "RNG"]
    assert not offsets, f"{path} reads {offsets} by offset"
