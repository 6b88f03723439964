"""Nefertiti-v1's compact observation: no information lost or added against v0, bounded, in the
env under its own id. Hidden information is checked for v1 too in tests/test_hidden_information.py."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test

import nefertiti_env  # noqa: F401  (registers the envs)
from conftest import play_random
from nefertiti_env import NefertitiGame, load_ruleset
from nefertiti_env.encoding import OBS_SIZE, V1_SIZE, observation_version, observe, observe_v1
from nefertiti_env.core.limits import MAX_SLOTS, NUM_MARKETS
from nefertiti_env.encoding.compact import V1_BLOCKS, V1_SLICES, expand, observation_v1_high
from nefertiti_env.encoding.observation import layout_markdown
from nefertiti_env.env import raw_env

DOCS = Path(__file__).resolve().parent.parent / "docs" / "observation.md"
RULES = load_ruleset("default")
# every option set: 2-5 players, with and without Memphis, base and expansion characters, each scenario
TABLES = [(2, False, "base"), (2, True, "expansion"), (3, False, "expansion"), (3, True, "curse_of_amon"),
          (4, False, "base"), (4, True, "intrigue_at_court"), (5, True, "race_for_the_nile"), (5, True, "expansion"),
          (2, True, "intrigue_at_court"), (4, True, "race_for_the_nile"), (3, False, "curse_of_amon")]


def decisions(players, memphis, characters, seed):
    """Every decision point of a seeded random game (then its final position)."""
    g = NefertitiGame(num_players=players, seed=seed, memphis=memphis, characters=characters,
                      setup=("beginner", "advanced")[seed % 2])
    rng = np.random.default_rng(seed)
    while not g.is_over():
        yield g
        play_random(g, rng, steps=1)
    yield g


def test_v1_is_compact():
    assert V1_SIZE <= 700 < OBS_SIZE
    assert observation_version("v1").size == V1_SIZE and observation_version("v0").size == OBS_SIZE


@pytest.mark.parametrize("players, memphis, characters", TABLES)
def test_v0_is_rebuilt_from_v1_on_every_decision(players, memphis, characters):
    """No information lost: `expand(v1, ruleset)` is the v0 vector exactly, for every seat at every decision
    (and v1 adds none: it is built from v0's entries, and tests/test_hidden_information.py checks it hides the
    deck order like v0)."""
    high = observation_v1_high(RULES)
    checked, lit = 0, set()
    for seed in range(8):
        for g in decisions(players, memphis, characters, seed):
            for seat in range(players):
                v1 = observe_v1(g, seat)
                assert v1.dtype == np.float32 and v1.shape == (V1_SIZE,)
                assert np.array_equal(expand(v1, g.rules), observe(g, seat)), \
                    f"seed {seed}, seat {seat}, decision {len(g.history)}"
                assert (v1 >= 0).all() and (v1 <= high).all()
                lit.update(np.flatnonzero(v1).tolist())
                checked += 1
    assert checked > 1000
    assert len(lit) > 150                  # the games reach varied positions, not one repeated state


def test_face_down_gift_and_roaming_thief_card_survive_the_round_trip():
    """The rare entries: a gift turned face down (its kind stays shown) and the Roaming Thief card."""
    g = NefertitiGame(num_players=4, seed=3, characters="expansion")
    m, k = np.argwhere(g.state.slots[:, 1:] >= 0)[0] + (0, 1)
    g.state.face_down[m, k] = True
    g.state.slots[1, 2] = g.kind_roaming
    for seat in range(4):
        v1 = observe_v1(g, seat)
        assert np.array_equal(expand(v1, g.rules), observe(g, seat))
        assert v1[V1_SLICES["market_face_down"]].reshape(NUM_MARKETS, MAX_SLOTS)[m, k] == 1
        assert v1[V1_SLICES["market_cards"]].reshape(NUM_MARKETS, MAX_SLOTS)[1, 2] == 1     # Roaming Thief: 26 / 26


def test_v1_high_is_finite_and_v0s_for_the_numbers():
    high = observation_v1_high(RULES)
    assert high.shape == (V1_SIZE,) and np.isfinite(high).all() and (high > 0).all()
    assert high.max() > 1                  # money, points: v0's bounds, not flags


def test_docs_show_the_v1_layout():
    assert layout_markdown(V1_BLOCKS) in DOCS.read_text()
    assert f"| total | | {V1_SIZE} | | |" in layout_markdown(V1_BLOCKS)


def test_nefertiti_v1_env_observes_v1_and_passes_the_api_test():
    env = pettingzoo.make("aec", "nefertiti/Nefertiti-v1", num_players=3)
    env.reset(seed=5)
    agent = env.agent_selection
    obs = env.observe(agent)["observation"]
    assert np.array_equal(obs, observe_v1(env.unwrapped.game, int(agent[-1])))
    assert env.observation_space(agent)["observation"].shape == (V1_SIZE,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # Dict observations draw advisory warnings only
        api_test(pettingzoo.make("aec", "nefertiti/Nefertiti-v1", num_players=4), num_cycles=200)


def test_unknown_observation_version_is_named():
    with pytest.raises(ValueError, match="observation must be one of v0, v1, v2; got 'v9'"):
        raw_env(observation="v9")
