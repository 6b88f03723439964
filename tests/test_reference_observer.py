"""The compiled observation encoder equals the readable reference (`encoding/reference.py`), the layout of
docs/observation.md written out block by block, on every decision of random games at every table:
2-5 players, beginner and advanced setup (docs/rules.md §1), with and without the Port of Memphis (§7,
forced at 5), tutors at 2 players (§8), base and expansion characters and each scenario (§6)."""
from __future__ import annotations

import golden
import numpy as np
import pytest

from conftest import play_random
from nefertiti_env import NefertitiGame
from nefertiti_env.core.limits import MEMPHIS
from nefertiti_env.core.phases import PH_HIGH, TUTOR
from nefertiti_env.encoding import observe, observe_v1, observe_v2
from nefertiti_env.encoding import reference
from nefertiti_env.encoding.compact import V1_SLICES
from nefertiti_env.encoding.observation import BLOCKS, GLOBAL_FEATURES, SLICES
from nefertiti_env.encoding.reference import FILLS, blocks_of, first_difference, reference_observation, \
    reference_v1, reference_v2

ORACLE_AND_BEGGAR = ["oracle", "roaming_thief", "trader", "beggar", "merchant", "thief"]
# (players, setup, memphis, characters, seeds, what the games must reach between them)
TABLES = [
    (2, "beginner", False, "base", (0, 1), {"character", "tutor", "highest bidder", "game over"}),
    (2, "advanced", True, "expansion", (3, 7), {"tutor", "memphis cards", "oracle", "face down", "roaming thief card"}),
    (2, "beginner", True, "intrigue_at_court", (0, 6), {"oracle", "oracle order", "tutor", "roaming thief card"}),
    (3, "advanced", False, "expansion", (2, 5), {"oracle", "face down", "roaming thief card", "game over"}),
    (3, "beginner", True, "curse_of_amon", (3,), {"face down", "exchanges", "memphis cards", "game over"}),
    (4, "beginner", False, "base", (0, 1), {"character", "highest bidder", "game over"}),
    (4, "advanced", True, "intrigue_at_court", (1,), {"oracle", "oracle order", "roaming thief card", "memphis cards"}),
    (4, "advanced", False, ORACLE_AND_BEGGAR, (0,), {"oracle", "face down", "exchanges", "roaming thief card"}),
    (5, "beginner", True, "race_for_the_nile", (1,), {"face down", "exchanges", "memphis cards", "game over"}),
    (5, "advanced", True, "expansion", (3,), {"oracle", "oracle order", "roaming thief card", "game over"}),
]


def reached(g: NefertitiGame) -> set[str]:
    """The rare things this position shows, so that the tables above are known to cover them."""
    seen = {"character": g.state.char_index >= 0, "tutor": (g.state.occ >= TUTOR).any(), "highest bidder": g.phase == PH_HIGH,
            "game over": g.is_terminated(), "cut short": g.is_truncated(),
            "memphis cards": (g.state.slots[MEMPHIS] >= 0).any(), "oracle": any(g.known_cards(seat) for seat in g.seats()),
            "face down": (g.state.face_down & (g.state.slots >= 0)).any(), "roaming thief card": (g.state.slots == g.kind_roaming).any(),
            "oracle order": reference.Seen(g, 0).choices["place in the new order"] != [],
            "exchanges": reference.Seen(g, 0).choices["exchanges made"] > 0}
    return {what for what, there in seen.items() if there}


def mismatch(g: NefertitiGame, seats, encoders) -> str | None:
    """The first difference between the compiled and the reference observations of `seats`, named."""
    for seat in seats:
        for compiled, written in encoders:
            problem = first_difference(compiled(g, seat), written(g, seat))
            if problem:
                return f"{compiled.__name__} of seat {seat} at decision {len(g.history)}: {problem}"
    return None


V0 = ((observe, reference_observation),)
COMPACT = ((observe_v1, reference_v1), (observe_v2, reference_v2))


def check_game(players, setup, memphis, characters, seed, **options) -> set[str]:
    """Play a seeded random game, comparing at every decision (and the end) v0 for every seat and v1 and v2
    for the deciding seat and the one after; return what it reached."""
    g = NefertitiGame(num_players=players, seed=seed, setup=setup, memphis=memphis, characters=characters, **options)
    rng, found = np.random.default_rng(seed), set()
    while True:
        deciding = max(g.current_player, 0)
        problem = mismatch(g, g.seats(), V0) or mismatch(g, (deciding, (deciding + 1) % players), COMPACT)
        assert problem is None, f"{players} players, {setup}, memphis {memphis}, {characters}, seed {seed}: {problem}"
        found |= reached(g)
        if g.is_over():
            return found
        play_random(g, rng, steps=1)


@pytest.mark.parametrize("players, setup, memphis, characters, seeds, reaches", TABLES)
def test_the_compiled_encoder_equals_the_reference_on_every_decision(players, setup, memphis, characters, seeds,
                                                                      reaches):
    found = set()
    for seed in seeds:
        found |= check_game(players, setup, memphis, characters, seed)
    assert reaches <= found, f"the games never reached {reaches - found}"


@pytest.mark.parametrize("players", (2, 3, 4, 5))
def test_the_compiled_encoder_equals_the_reference_at_every_option_set(players):
    """One random game of every option set of the golden corpus at `players` players (each Memphis choice,
    character option and setup: tests/golden.py), the deciding seat's v0 and v1 compared at every decision
    and at the end, so no option set is left to the tables above (v2 adds to v1 only the table's blocks,
    which the tables above check for every value of every option)."""
    for index, options in enumerate(golden.OPTION_SETS):
        if options["num_players"] != players:
            continue

        def compare(g, legal=None, action=None):
            problem = mismatch(g, (max(g.current_player, 0),), (*V0, (observe_v1, reference_v1)))
            assert problem is None, f"{options}: {problem}"
        compare(golden.play(options, golden.game_seed(index, 0), compare))


def test_a_game_cut_short_equals_the_reference_to_its_last_position():
    """A game cut short by max_decisions has no turn player and no deciding seat, though its phase is not
    game over."""
    assert "cut short" in check_game(3, "advanced", True, "expansion", seed=2, max_decisions=70)


def test_every_block_has_its_fill_in_the_docs_order():
    """A block added to the layout needs its readable fill (docs/engine.md, a new observation feature)."""
    assert list(FILLS) == [name for name, *_ in BLOCKS]


def test_the_reference_reads_the_game_not_the_compiled_tables():
    """Two independent implementations: the reference never goes through the encoder's plan or state vector."""
    used = set(vars(reference))
    assert not used & {"state_vector", "seat_plan", "encode", "Plan", "L", "SCALARS", "_build_plan"}


def test_a_wrong_entry_is_named_by_block_and_feature():
    """The comparison can fail, and says where: one entry of the compiled vector perturbed."""
    g = NefertitiGame(num_players=3, seed=4)
    play_random(g, np.random.default_rng(4), steps=12)
    obs = observe(g, 1)
    assert first_difference(obs, reference_observation(g, 1)) is None
    column = [feature for feature, _ in GLOBAL_FEATURES].index("seal supply")
    blocks_of(obs)["global"][column] += 1
    problem = first_difference(obs, reference_observation(g, 1))
    assert problem.startswith(f"global[{column}] (seal supply) (entry {SLICES['global'].start + column}): got")
    assert problem.endswith("1 entries differ")
    v1 = observe_v1(g, 1)
    v1[V1_SLICES["market_face_down"].start] = 1
    assert first_difference(v1, reference_v1(g, 1)).startswith("market_face_down[0, 0] (entry ")


def test_a_reference_that_forgets_the_rotation_fails_the_check(monkeypatch):
    """A plausible slip in a fill (the seat rows not rotated to the observer) is caught and named."""
    def unrotated_money(out, s):
        for r in range(s.game.num_players):
            out[r, 1] = reference.scaled(s.game.state.money[r], 40)

    def seat(out, s):
        fills["seat"](out, s)
        unrotated_money(out, s)
    fills = dict(FILLS)
    monkeypatch.setitem(FILLS, "seat", seat)
    with pytest.raises(AssertionError, match=r"observe of seat \d at decision \d+: seat\[[0-3], 1\] \(money\)"):
        check_game(4, "beginner", False, "base", seed=0)
