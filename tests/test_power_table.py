"""docs/rules.md §6: the table of character powers (`core/power_table.py`) and what must follow each row.

Each test fails when a step of docs/engine.md's checklist "A new character power" is forgotten: the kernels'
code and dispatch, the rules text, a rules test, a character in the default ruleset, the observation's view
of each choice and bound, the saved-state check of each choice.
"""
from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from nefertiti_env import NefertitiGame
from nefertiti_env.core import power_table as T
from nefertiti_env.core import state_io
from nefertiti_env.core.engine import powers
from nefertiti_env.core.ruleset import DEFAULT_RULESET, RulesetError, load_ruleset
from nefertiti_env.encoding import observation

ROOT = Path(__file__).resolve().parents[1]
NAMES = [power.name for power in T.POWER_TABLE]


def names_read_by(function: str) -> set[str]:
    """The names a function of engine/powers.py reads (its dispatch compares the power code with P_* names)."""
    tree = ast.parse((ROOT / "nefertiti_env" / "core" / "engine" / "powers.py").read_text(encoding="utf-8"))
    found = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function)
    return {n.id for n in ast.walk(found) if isinstance(n, ast.Name)}


def default_data() -> dict:
    return tomllib.loads(DEFAULT_RULESET.read_text(encoding="utf-8"))


@pytest.mark.parametrize("power", T.POWER_TABLE, ids=NAMES)
def test_s6_every_power_has_its_code_and_its_dispatch(power):
    """docs/rules.md §6: engine/powers.py's P_<NAME> is the power's code, and the dispatch runs it: `legal` and
    `apply` for a power with steps, `start` (which does it all) for one without."""
    constant = "P_" + power.name.upper()
    assert getattr(powers, constant) == T.POWER_KINDS.index(power.name)
    if power.steps:
        assert constant in names_read_by("legal") and constant in names_read_by("apply")
    else:
        assert constant in names_read_by("start")


def rules_rows(section: str) -> list[str]:
    """The first cells of the table of docs/rules.md §<section>."""
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    part = text[text.index(f"### {section} "):]
    part = part[:part.index("\n#", 1)]
    return [line.split("|")[1].strip() for line in part.splitlines()
            if line.startswith("| ") and not line.startswith("| character")]


def names_power(cell: str, power) -> bool:
    """Is the rules table's first cell `cell` the row of `power`: its title, then its parameters or nothing?"""
    return re.fullmatch(re.escape(power.title) + r"( \+N)?( \(.*\))?", cell) is not None


@pytest.mark.parametrize("section", ["6.1", "6.2"])
def test_s6_the_rules_tables_have_a_row_per_power_naming_its_parameters(section):
    """docs/rules.md §6.1/§6.2: one row per power of the section, titled by its character and naming each
    parameter in backticks, and no row for a power the table lacks."""
    rows, table = rules_rows(section), [p for p in T.POWER_TABLE if p.section == section]
    for power in table:
        cells = [cell for cell in rows if names_power(cell, power)]
        assert len(cells) == 1, (power.name, rows)
        assert all(f"`{p.name}`" in cells[0] for p in power.params), (power.name, cells[0])
    assert all(any(names_power(cell, power) for power in table) for cell in rows), rows


def test_s6_every_power_has_a_rules_test_naming_it():
    """docs/rules.md §6: each power has a test named test_s6_<power>_... (the longest power name a test name
    starts with is the power it tests: merchant_of_amon's are not the merchant's)."""
    tests = set()
    for path in (ROOT / "tests").glob("test_*.py"):
        tests |= set(re.findall(r"def test_s6_(\w+)", path.read_text(encoding="utf-8")))
    tested = {max((n for n in NAMES if name.startswith(n + "_")), key=len, default=None) for name in tests}
    assert set(NAMES) <= tested, sorted(set(NAMES) - tested)


def test_s6_the_default_ruleset_has_a_character_of_every_power():
    """docs/rules.md §6: every power is dealt in some option set of the default ruleset, so the games of the
    golden corpus, the fuzz and the invariant tests play it."""
    assert {c.power for c in load_ruleset().characters} == set(NAMES)


def test_s6_a_parameter_beyond_the_engines_range_is_refused_naming_it():
    """docs/rules.md §6.2: the Oracle player knows the bottom cards it saw, and the observation has a row for
    each of at most MAX_ORACLE_CARDS (a ninth would be in neither `known_cards` nor `unseen`): `cards` is
    1..MAX_ORACLE_CARDS, and the loader says why."""
    data = default_data()
    data["characters"]["oracle"]["cards"] = 9
    with pytest.raises(RulesetError) as err:
        load_ruleset(data)
    assert err.value.problems == [("characters.oracle.cards",
                                   "must be 1..8 (the observation shows the 8 bottom cards an Oracle player can know)")]


def test_every_choice_meaning_is_shown_or_left_out_by_the_observation():
    """Each meaning a step's choices can have is either encoded (`SHOWN_CHOICES`, into a number of the state
    vector) or deliberately left out (`HIDDEN_CHOICES`)."""
    shown, hidden = set(observation.SHOWN_CHOICES), set(observation.HIDDEN_CHOICES)
    assert not shown & hidden and shown | hidden == set(T.CHOICES)
    assert all(number in observation.SCALARS for number in observation.SHOWN_CHOICES.values())


def test_every_choice_meaning_has_its_range_in_saved_states():
    """A saved state's choices are checked by meaning (`state_io._choice_fits`), each refusing a value beyond
    its range; the Oracle's places, which depend on the deck, by `_oracle_problems`."""
    g = NefertitiGame(num_players=3, seed=0)
    for power in T.POWER_TABLE:
        if power.name != "oracle":
            for step in power.steps:
                for what in step.chosen:
                    assert not state_io._choice_fits(g, 2, what, 99), (power.name, what)
                    assert not state_io._choice_fits(g, 2, what, -2), (power.name, what)


@pytest.mark.parametrize("power,param", [(power, p) for power in T.POWER_TABLE for p in power.params if p.bounds],
                         ids=lambda x: x.name)
def test_a_bounding_parameter_raises_the_observation_bound(power, param):
    """A parameter that bounds an observed number (`Param.bounds`) raises `observation_high` when it grows."""
    data = default_data()
    key = next(key for key, c in data["characters"].items() if c["power"] == power.name)
    data["characters"][key][param.name] = 100
    assert (observation.observation_high(load_ruleset(data)) > observation.observation_high(load_ruleset())).any()

