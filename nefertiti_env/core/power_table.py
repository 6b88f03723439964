"""The character powers (docs/rules.md §6), each declared once: name, parameters, named steps and
what each of its choices means.

A ruleset names a power (`power = "scribe"`, `bonus = 2`); everything else about it is derived
from its row here, so the parts that must agree cannot drift apart:
- its code, the index in `POWER_KINDS` (`r.char_power[c]`), and the kernels' `P_*` constants
  (`engine/powers.py`, each looked up here by name at import);
- its parameters: the ruleset loader's checks and messages, their order in R (`rules.py`), the
  bounds the observation needs (`Param.bounds`);
- its steps (`s.char_step` is the index of one) and the meaning of each entry of `s.char_sel`
  at that step: the step constants of its kernels, the saved-state check (`state_io`), and which
  choices the observation shows (`encoding/observation.py`).
The effects themselves are kernels in `engine/powers.py`; docs/engine.md lists every file a new
power touches.
"""
from __future__ import annotations

from typing import NamedTuple

from .limits import MAX_ORACLE_CARDS, MAX_PLAYERS, MAX_SLOTS, MEMPHIS

# What an entry of char_sel may mean. A step lists its entries in order (`Step.chosen`), and may end in
# any number of one more meaning (`Step.rest`).
CHOICES = {
    "kind": "a card kind (the gift given)",
    "owner": "an owner: a seat, or the neutral player",
    "market": "a classic market",
    "excluded market": "the market a bought Roaming Thief came from (-1: none, played as a character)",
    "exchanges made": "how many exchanges the Trader made so far",
    "exchanged place": "an Oracle's bottom place already exchanged (each at most once)",
    "place in the new order": "an Oracle's bottom place, in the order chosen",
}

# What a parameter bounds, for the observation's finite bounds (`observation.observation_high`).
BOUNDS = {
    "item points": "points per gift item scored during play, on top of its value",
    "type points": "points per gift type owned, once for each card of the character",
    "servants": "servants placed in one turn",
    "exchanges": "exchanges in one play (char_sel's `exchanges made` stays below it)",
}


class Param(NamedTuple):
    """A power's parameter, required in the ruleset. `type` is int (0..the loader's MAX_AMOUNT) or
    list (a non-empty list of integers, one per rank, cut to MAX_PLAYERS entries in R); `low`/`high`,
    when given, narrow an int further, for a reason the engine has (`why`)."""
    name: str
    type: type = int
    low: int | None = None
    high: int | None = None
    bounds: str | None = None         # a key of BOUNDS
    why: str = ""


class Step(NamedTuple):
    """A decision of the power's player: its name, what char_sel holds while it is being made
    (`chosen`, in order, then any number of `rest`)."""
    name: str
    chosen: tuple[str, ...] = ()
    rest: str | None = None


class Power(NamedTuple):
    name: str                         # the ruleset's `power = "..."`
    title: str                        # its character's name in docs/rules.md §6
    section: str                      # "6.1" base, "6.2" expansion
    params: tuple[Param, ...] = ()
    steps: tuple[Step, ...] = ()      # none: the power needs no choice (engine/powers.start does it all)

    def param(self, params: dict, bounds: str, default: int = 0) -> int:
        """The value, in a character's `params`, of this power's parameter that bounds `bounds`."""
        for p in self.params:
            if p.bounds == bounds:
                return params[p.name]
        return default


POWER_TABLE = (
    Power("scribe", "Scribe", "6.1", (Param("bonus", bounds="item points"),), (Step("type"),)),
    Power("merchant", "Merchant", "6.1", (),
          (Step("give"), Step("target", ("kind",)), Step("take", ("kind", "owner")))),
    Power("royal_servant", "Royal Servant", "6.1", (), (Step("type"),)),
    Power("treasurer", "Treasurer", "6.1", (), (Step("market"),)),
    Power("vizier", "Vizier", "6.1", (Param("points_per_type", bounds="type points"),)),
    Power("head_priest", "Head Priest", "6.1", (Param("servants", bounds="servants"),)),
    Power("thief", "Thief", "6.1", (), (Step("market"), Step("card", ("market",)))),
    Power("oracle", "Oracle", "6.2",
          (Param("cards", low=1, high=MAX_ORACLE_CARDS,
                 why=f"the observation shows the {MAX_ORACLE_CARDS} bottom cards an Oracle player can know"),),
          (Step("swap", (), "exchanged place"), Step("take", ("kind",), "exchanged place"),
           Step("order", (), "place in the new order"))),
    # the step is the classic market being visited, in board order
    Power("beggar", "Beggar", "6.2", (Param("deben"),), tuple(Step(f"market {m}") for m in range(MEMPHIS))),
    Power("merchant_of_amon", "Merchant of Amon", "6.2", (Param("points", bounds="item points"),),
          (Step("discard"),)),
    Power("priest_of_amon", "Priest of Amon", "6.2", (Param("rank_bonus", list),)),
    Power("royal_scribe", "Royal Scribe", "6.2", (Param("bonus", bounds="item points"),), (Step("discard"),)),
    Power("roaming_thief", "Roaming Thief", "6.2", (),
          (Step("market", ("excluded market",)), Step("card", ("excluded market", "market")))),
    Power("trader", "Trader", "6.2", (Param("exchanges", bounds="exchanges"),),
          (Step("give", ("exchanges made",)), Step("market", ("exchanges made", "kind")),
           Step("card", ("exchanges made", "kind", "market")))),
)
POWERS = {power.name: power for power in POWER_TABLE}
# r.char_power[c]: 0 is no power (an empty character row), then the table's order
POWER_KINDS = ("none",) + tuple(POWERS)


def power_codes(*names: str) -> tuple[int, ...]:
    """The codes of the named powers ("none" is 0): the kernels' P_* constants."""
    return tuple(POWER_KINDS.index(name) for name in names)


def step_codes(power: str, *names: str) -> tuple[int, ...]:
    """The indices of the named steps of `power`: a kernel's step constants, checked against the table."""
    steps = [step.name for step in POWERS[power].steps]
    return tuple(steps.index(name) for name in names)


def _check() -> None:
    """The table's shape the engine relies on: R holds up to MAX_PLAYERS parameter values, a list
    parameter alone (rules.py), and every meaning and bound is a declared one."""
    for power in POWER_TABLE:
        lists = [p for p in power.params if p.type is list]
        assert len(power.params) <= MAX_PLAYERS and (not lists or len(power.params) == 1), power.name
        assert all(p.type in (int, list) and (p.bounds is None or p.bounds in BOUNDS) for p in power.params)
        assert all(set(step.chosen + ((step.rest,) if step.rest else ())) <= set(CHOICES) for step in power.steps)
    assert len(POWERS) == len(POWER_TABLE)
    assert MAX_ORACLE_CARDS <= MAX_SLOTS, "an Oracle's bottom places are chosen by the card actions"


_check()
