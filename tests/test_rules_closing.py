"""docs/rules.md §3: every closing kind of the default stalls, positive and negative, and close_when_full."""
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from conftest import (ABOU_SIMBEL, AKHET_ATON, GIZEH, LEFT, LOUQSOR, MARKET_NAMES, RIGHT, act, legal, position,
                      put, refresh)
from nefertiti_env import load_ruleset
from nefertiti_env.core.engine.closing import CLOSING_KINDS, Closing, ClosingKind
from nefertiti_env.core.limits import NUM_BIDS
from nefertiti_env.core.ruleset import DEFAULT_RULESET


def place_last(market, side, occupied, value, players=4, seed=0, ruleset="default"):
    """Open `market` on `side`, put servants of seats 1.. on `occupied`, then seat 0 places on `value`.

    Returns the game; the market has closed at once iff it is resolving (or already resolved).
    """
    g = position(players, seed, money=[20] * players, ruleset=ruleset)
    g.state.side[market] = side
    g.state.is_open[market] = True
    refresh(g)
    for i, v in enumerate(occupied):
        put(g, market, v, 1 + i % (players - 1))
    act(g, f"place {MARKET_NAMES[market]} {value}")
    return g


def closed(g, market) -> bool:
    return g.state.res_market == market or not g.state.is_open[market]


def test_s3_default_stall_kinds():
    """docs/rules.md §3: the table of stalls and closing kinds as the default ruleset loads it."""
    rs = load_ruleset()
    kinds = [(m.stalls[LEFT].closing.kind, m.stalls[RIGHT].closing.kind) for m in rs.markets]
    assert kinds == [("connected_group", "colours_or_count"), ("dice_match", "line"),
                     ("diagonal", "bid_sum"), ("count", "square_or_count")]
    assert rs.markets[ABOU_SIMBEL].stalls[RIGHT].grid == [[0, 1, 2, 3, 4, 5, 6, 7, 8]]
    assert rs.markets[ABOU_SIMBEL].stalls[LEFT].grid == [[1, 6, 11], [4, 7, 2], [9, 3, 5]]


@pytest.mark.parametrize("occupied, value, closes", [
    ([7, 6], 4, True),          # 17
    ([7, 6], 3, False),         # 16
    ([8, 7], 2, True),          # 17, three servants
    ([1, 2, 3, 4], 5, False),   # 15, five servants
])
def test_s3_bid_sum(occupied, value, closes):
    """docs/rules.md §3: Abou Simbel right closes when the occupied bids add up to 17 or more."""
    g = place_last(ABOU_SIMBEL, RIGHT, occupied, value)
    assert closed(g, ABOU_SIMBEL) == closes


@pytest.mark.parametrize("occupant_seats, closes", [
    ([1, 2], True),             # three colours
    ([1, 1, 1], True),          # four servants, two colours
    ([1, 1], False),            # three servants, two colours
    ([0], False),               # two servants, one colour
])
def test_s3_colours_or_count(occupant_seats, closes):
    """docs/rules.md §3: Gizeh right closes with servants of 3 different colours, or 4 servants."""
    g = position(4, money=[20] * 4)
    for v, seat in zip([0, 2, 4], occupant_seats):
        put(g, GIZEH, v, seat)
    act(g, "place Gizeh 6")
    assert closed(g, GIZEH) == closes


@pytest.mark.parametrize("occupied, value, closes", [
    ([2, 4, 6], 1, True),       # 1 lies under 2: a connected string of four
    ([2, 4, 3], 1, True),       # a 2x2 block
    ([2, 3, 6], 7, False),      # zig-zag: only diagonal contacts
    ([2, 4, 10, 9], 8, False),  # groups of 2 and 3
    ([10, 9, 7], 8, True),      # 8-10 above, 7-9 below
])
def test_s3_connected_group(occupied, value, closes):
    """docs/rules.md §3: Gizeh left closes when 4 occupied squares are orthogonally connected."""
    g = place_last(GIZEH, LEFT, occupied, value)
    assert closed(g, GIZEH) == closes


@pytest.mark.parametrize("occupied, value, closes", [
    ([3, 4], 5, True),
    ([7, 8], 6, True),
    ([0, 2, 4], 6, False),      # four servants, no three in a row
    ([1, 3], 5, False),
])
def test_s3_line(occupied, value, closes):
    """docs/rules.md §3: Akhet-Aton right closes with 3 occupied squares in a row."""
    g = place_last(AKHET_ATON, RIGHT, occupied, value)
    assert closed(g, AKHET_ATON) == closes


@pytest.mark.parametrize("occupied, value, closes", [
    ([1, 7], 5, True),          # main diagonal 1-7-5
    ([11, 9], 7, True),         # anti-diagonal 11-7-9
    ([1, 6, 11, 4], 2, False),  # a full row and more, no diagonal
    ([1, 5], 3, False),
])
def test_s3_diagonal(occupied, value, closes):
    """docs/rules.md §3: Abou Simbel left closes when either diagonal of its 3x3 grid is fully occupied."""
    g = place_last(ABOU_SIMBEL, LEFT, occupied, value)
    assert closed(g, ABOU_SIMBEL) == closes


def _copy_rng(g) -> np.random.Generator:
    rng = np.random.Generator(np.random.PCG64())
    rng.bit_generator.state = g.rng_state
    return rng


def test_s3_dice_match_rolls_the_games_generator():
    """docs/rules.md §3: after each placement on Akhet-Aton left roll 2d6 (the game's rng); close on an occupied value."""
    outcomes = set()
    for seed in range(60):
        g = position(4, seed, money=[20] * 4)
        g.state.side[AKHET_ATON] = LEFT
        refresh(g)
        put(g, AKHET_ATON, 5, 1)
        put(g, AKHET_ATON, 8, 2)
        reference = _copy_rng(g)
        roll = int(reference.integers(1, 7, size=2).sum())
        act(g, "place Akhet-Aton 7")
        expected = roll in (5, 7, 8)
        assert closed(g, AKHET_ATON) == expected, f"seed {seed}: roll {roll}"
        # the same draws as one size=2 roll, so every seeded game (and published result) stays the same
        assert g.rng_state == reference.bit_generator.state
        outcomes.add(expected)
    assert outcomes == {True, False}


def test_s3_dice_are_rolled_only_for_the_dice_stall():
    """docs/rules.md §3: placing elsewhere rolls no dice; placing on the dice stall draws from the game's rng."""
    g = position(4)
    g.state.side[AKHET_ATON] = LEFT
    refresh(g)
    before = g.rng_state
    act(g, "place Gizeh 2")
    assert g.rng_state == before
    act(g, "place Akhet-Aton 3")
    assert g.rng_state != before


@pytest.mark.parametrize("occupied, value, closes", [
    ([0, 1, 2, 3], 4, True),
    ([0, 1, 2], 4, False),
])
def test_s3_count(occupied, value, closes):
    """docs/rules.md §3: Louqsor left closes with 5 servants."""
    g = place_last(LOUQSOR, LEFT, occupied, value)
    assert closed(g, LOUQSOR) == closes


@pytest.mark.parametrize("occupied, value, closes", [
    ([], 12, True),             # the 12 square, alone
    ([1, 2, 3], 4, True),       # four servants
    ([1, 2], 3, False),
    ([8, 5], 6, False),         # three servants, no 12
])
def test_s3_square_or_count(occupied, value, closes):
    """docs/rules.md §3: Louqsor right closes when its 12 square is occupied, or with 4 servants."""
    g = place_last(LOUQSOR, RIGHT, occupied, value)
    assert closed(g, LOUQSOR) == closes


def _unreachable_bid_sum(close_when_full: bool):
    data = tomllib.loads(DEFAULT_RULESET.read_text())
    data["markets"][ABOU_SIMBEL]["right"]["closing"]["total"] = 100
    data["setup"]["close_when_full"] = close_when_full
    return load_ruleset(data)


@pytest.mark.parametrize("close_when_full", [True, False])
def test_s3_close_when_full(close_when_full):
    """docs/rules.md §3 / ruleset setup.close_when_full: a stall whose every square is occupied closes."""
    rules = _unreachable_bid_sum(close_when_full)
    g = place_last(ABOU_SIMBEL, RIGHT, [0, 1, 2, 3, 4, 5, 6, 7], 8, ruleset=rules)
    assert closed(g, ABOU_SIMBEL) == close_when_full
    if not close_when_full:
        assert not any(s.startswith("place Abou Simbel") for s in legal(g))


def test_s3_close_when_full_not_before_full():
    """docs/rules.md §3: one empty square left: an unreachable condition keeps the stall open."""
    rules = _unreachable_bid_sum(True)
    g = place_last(ABOU_SIMBEL, RIGHT, [0, 1, 2, 3, 4, 5, 6], 8, ruleset=rules)
    assert not closed(g, ABOU_SIMBEL)
    assert legal(g) >= {"place Abou Simbel 7"}


def test_s3_3_the_rules_table_lists_every_closing_kind_with_its_parameters():
    """docs/rules.md §3.3: the table of closing kinds has a row for each kind of `closing.ClosingKind`, naming
    each of its parameters, and no other."""
    text = (Path(__file__).parents[1] / "docs" / "rules.md").read_text()
    section = text[text.index("### 3.3 Closing kinds"):text.index("## 4. Market resolution")]
    rows = dict(re.findall(r"^\| `(\w+)` \| (.*) \|$", section, flags=re.M))
    assert set(rows) == set(CLOSING_KINDS)
    for kind, params in CLOSING_KINDS.items():
        assert all(f"`{name}`" in rows[kind] for name in params), (kind, params)


@pytest.mark.parametrize("kind", [k for k in ClosingKind if k not in (ClosingKind.NEVER, ClosingKind.DICE_MATCH)],
                         ids=lambda k: k.name.lower())
def test_s3_3_every_closing_kind_has_its_check(kind):
    """docs/rules.md §3.3: each kind's compiled check (`closing.holds`; dice are rolled by `closes`) holds on a
    stall full of one seat's servants, with every parameter at its least, and not on an empty stall: a kind
    declared without its case there would never close."""
    grid = [[1, 6, 11], [4, 7, 2], [9, 3, 5]]
    name = kind.name.lower()
    closing = Closing(name, {p: 7 if p == "square" else 1 for p in CLOSING_KINDS[name]}, grid)
    assert closing.code == kind
    row = np.full(NUM_BIDS, -1)
    row[[v for r in grid for v in r]] = 0
    assert closing.holds(closing.all_squares, 5, row)
    assert not closing.holds(0, 5, np.full(NUM_BIDS, -1))
