"""The compiled observation (docs/observation.md): the batch kernel gives, as its rows, the single
observations (v0 and v1) of every seat at every decision of random games of every kind of table
(docs/rules.md §7-§8 player counts, the Port of Memphis, the expansion characters and scenarios, the
Oracle's known cards and the Beggar's face-down gifts of §6). The golden games (tests/golden) hold the
single observations themselves to the values recorded from the Python engine."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import play_random
from nefertiti_env import NefertitiGame
from nefertiti_env.core.engine import layout as L
from nefertiti_env.encoding import OBSERVATIONS
from nefertiti_env.encoding.observation import SLICES, VECTOR_SIZE, make_plan, observe_rows, state_vector

ORACLE_AND_BEGGAR = ["oracle", "beggar", "roaming_thief", "trader", "merchant", "thief"]
# (players, memphis, characters, setup, max_decisions, what the games must show)
TABLES = [(2, False, "base", "beginner", 2000, ()), (3, True, "base", "advanced", 2000, ()),
          (4, False, "base", "beginner", 2000, ()), (5, None, "base", "advanced", 2000, ()),
          (2, True, "expansion", "advanced", 2000, ()), (3, False, "expansion", "beginner", 2000, ()),
          (4, True, "expansion", "beginner", 2000, ()), (5, True, "expansion", "advanced", 2000, ()),
          (3, True, "curse_of_amon", "beginner", 2000, ()), (5, True, "race_for_the_nile", "advanced", 2000, ()),
          (2, True, "intrigue_at_court", "beginner", 2000, ("known",)),
          (4, True, "intrigue_at_court", "advanced", 2000, ("known",)),
          (3, False, ORACLE_AND_BEGGAR, "beginner", 2000, ("known", "face down")),
          (4, True, "expansion", "beginner", 40, ("truncated",))]
SEEDS = range(3)


@pytest.mark.parametrize("players, memphis, characters, setup, max_decisions, shows", TABLES)
def test_batch_rows_are_the_single_observations(players, memphis, characters, setup, max_decisions, shows):
    seen = set()
    for seed in SEEDS:
        g = NefertitiGame(num_players=players, seed=seed, memphis=memphis, characters=characters, setup=setup,
                          max_decisions=max_decisions)
        rng = np.random.default_rng(seed)
        rows, seats, expected = [], [], {name: [] for name in OBSERVATIONS}
        while True:
            for seat in range(players):
                for name, version in OBSERVATIONS.items():
                    expected[name].append(version.observe(g, seat))
                rows.append(g.S.copy())
                seats.append(seat)
                seen.update({"known"} if expected["v0"][-1][SLICES["known_cards"]].any() else ())
                seen.update({"face down"} if g.state.face_down.any() else ())
            if g.is_over():
                break
            play_random(g, rng, steps=1)
        seen.update({"truncated"} if g.is_truncated() else ())
        for name, version in OBSERVATIONS.items():                # the batch kernel: rows in any seat order
            order = np.random.default_rng(seed).permutation(len(rows))
            out = observe_rows(g.R, np.stack(rows)[order], np.array(seats)[order], version.batch_plan(g))
            assert out.dtype == np.float32 and np.array_equal(out, np.stack(expected[name])[order]), name
    assert seen >= set(shows)


def test_state_vector_counts_only_the_cards_the_observer_has_not_seen():
    """docs/rules.md §6 (Oracle): the seat that saw the bottom cards does not count them as unseen; others do."""
    g = NefertitiGame(num_players=3, seed=0, characters=ORACLE_AND_BEGGAR)
    rng = np.random.default_rng(0)
    def oracle_known():
        return g.state.oracle_seat >= 0 and g.state.char_index < 0 and max(g.state.deck_pos, g.state.oracle_from) < len(g.deck)

    while not (oracle_known() or g.is_over()):
        play_random(g, rng, steps=1)
    assert oracle_known(), "no Oracle played in this game: choose another seed"
    R, S = g.R, g.S
    vec = np.empty(VECTOR_SIZE, dtype=np.int64)
    known = g.deck[max(g.state.deck_pos, g.state.oracle_from):]
    gifts = known[known < g.rules.num_kinds]
    for seat in range(3):
        state_vector(R, S, seat, vec)
        unseen = vec[L.STATE_WORDS:L.STATE_WORDS + g.rules.num_kinds]
        undrawn = np.bincount(g.deck[g.state.deck_pos:][g.deck[g.state.deck_pos:] < g.rules.num_kinds],
                              minlength=g.rules.num_kinds)
        expected = undrawn - np.bincount(gifts, minlength=g.rules.num_kinds) if seat == g.state.oracle_seat else undrawn
        assert np.array_equal(unseen, expected) and (seat != g.state.oracle_seat or gifts.size)


def test_batch_rejects_seats_outside_the_plan():
    g = NefertitiGame(num_players=3, seed=0)
    plan = OBSERVATIONS["v0"].batch_plan(g)
    with pytest.raises(ValueError, match="seats must lie in 0..2"):
        observe_rows(g.R, g.S[None], np.array([3]), plan)
    with pytest.raises(ValueError, match="one seat each"):
        observe_rows(g.R, g.S[None], np.array([0, 1]), plan)


def test_a_plan_packs_its_tables_and_gives_them_back():
    """`make_plan` packs the eleven tables into two arrays (what the compiled call takes); the Plan's
    tables are those arrays' views, equal to what went in; tables of unequal lengths are refused."""
    src, a, b = np.array([3, 1]), np.array([0.5, 0.0]), np.array([1.0, 2.0])
    ind_src, ind_offset = np.array([7]), np.array([-2])
    lit, lit_value, face_down = np.array([4, 9, 5]), np.array([1.0, 0.25, 1.0]), np.array([6, 8])
    plan = make_plan(src, a, b, ind_src, ind_offset, lit, lit_value, face_down, 10, np.arange(6))
    assert (plan.ints.dtype, plan.floats.dtype, plan.size) == (np.int64, np.float32, 10)
    for got, sent in zip((plan.src, plan.a, plan.b, plan.ind_src, plan.ind_offset, plan.lit, plan.lit_value,
                          plan.face_down), (src, a, b, ind_src, ind_offset, lit, lit_value, face_down)):
        assert np.array_equal(got, sent)
    assert np.shares_memory(plan.lit, plan.ints) and np.shares_memory(plan.lit_value, plan.floats)
    with pytest.raises(ValueError, match="same lengths"):
        make_plan(src, a[:1], b, ind_src, ind_offset, lit, lit_value, face_down, 10, np.arange(6))
