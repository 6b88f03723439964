"""Nefertiti-v2 (docs/observation.md): v1 exactly, then the table the observer sits at, right at every table of
docs/rules.md §1 (setup, beginner and advanced), §7 (the Port of Memphis, forced at 5), §8 (two players: tutors)
and the expansion characters and scenarios, and the same at every decision of the game."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from conftest import play_random
from nefertiti_env import NefertitiGame, load_ruleset
from nefertiti_env.encoding import OBSERVATIONS, observe_v1, observe_v2
from nefertiti_env.encoding.compact import V1_SIZE
from nefertiti_env.encoding.observation import layout_markdown, observe_rows
from nefertiti_env.encoding.table import V2_BLOCKS, V2_SIZE, V2_SLICES, observation_v2_high

DOCS = Path(__file__).resolve().parent.parent / "docs" / "observation.md"
RULES = load_ruleset("default")
KEYS = [c.key for c in RULES.characters]
# (players, memphis, characters, setup)
TABLES = [(2, False, "base", "beginner"), (2, True, "expansion", "advanced"), (3, True, "curse_of_amon", "beginner"),
          (4, False, "base", "advanced"), (4, True, "intrigue_at_court", "beginner"), (5, None, "base", "beginner"),
          (5, True, "race_for_the_nile", "advanced"), (3, False, ["oracle", "beggar", "thief"], "advanced")]


def expected_table(players, memphis, setup, roster_keys) -> np.ndarray:
    """The table block written out by hand from the options and the roster's character keys."""
    block = np.zeros(V2_SIZE - V1_SIZE, np.float32)
    block[players - 2] = 1
    block[4 + ("beginner", "advanced").index(setup)] = 1
    block[6] = memphis
    for key in roster_keys:
        block[7 + KEYS.index(key)] = 1
    return block


@pytest.mark.parametrize("players, memphis, characters, setup", TABLES)
def test_v2_is_v1_then_the_table_at_every_decision(players, memphis, characters, setup):
    high = observation_v2_high(RULES)
    for seed in range(2):
        g = NefertitiGame(num_players=players, seed=seed, memphis=memphis, characters=characters, setup=setup)
        dealt = [KEYS[c] for c in np.flatnonzero(g.state.char_avail)]
        table = expected_table(players, g.options["memphis"], setup, dealt)
        rng = np.random.default_rng(seed)
        rows, seats, singles = [], [], []
        while True:
            for seat in range(players):
                v2 = observe_v2(g, seat)
                assert v2.dtype == np.float32 and v2.shape == (V2_SIZE,)
                assert np.array_equal(v2[:V1_SIZE], observe_v1(g, seat))
                assert np.array_equal(v2[V1_SIZE:], table), f"seed {seed}, decision {len(g.history)}"
                assert (v2 >= 0).all() and (v2 <= high).all()
                rows.append(g.S.copy())
                seats.append(seat)
                singles.append(v2)
            if g.is_over():
                break
            play_random(g, rng, steps=1)
        batch = observe_rows(g.R, np.stack(rows), np.array(seats), OBSERVATIONS["v2"].batch_plan(g))
        assert np.array_equal(batch, np.stack(singles))


def test_the_table_block_names_each_table():
    """Hand-checked tables: 2 players (tutors, docs/rules.md §8), 5 players (Memphis forced, §7), the expansion's
    Scribes and Merchants plus six drawn, a scenario's fixed roster, the advanced setup."""
    def block(**options):
        g = NefertitiGame(seed=4, **options)
        return {name: observe_v2(g, 0)[V2_SLICES[name]].tolist()
                for name in ("table_players", "table_setup", "table_memphis", "table_roster")}, g

    two, _ = block(num_players=2)
    assert two["table_players"] == [1, 0, 0, 0] and two["table_setup"] == [1, 0] and two["table_memphis"] == [0]
    removed = RULES.players[2].remove_characters
    assert [KEYS[c] for c in np.flatnonzero(two["table_roster"])] == [
        c.key for c in RULES.characters if c.set == "base" and c.count > removed.get(c.key, 0)]
    five, _ = block(num_players=5, setup="advanced")
    assert five["table_players"] == [0, 0, 0, 1] and five["table_setup"] == [0, 1] and five["table_memphis"] == [1]
    expansion, g = block(num_players=4, memphis=True, characters="expansion")
    in_roster = {KEYS[c] for c in np.flatnonzero(expansion["table_roster"])}
    always = {c.key for c in RULES.characters if c.always}
    assert always <= in_roster and in_roster - always and (g.state.char_avail.sum() - sum(
        c.count for c in RULES.characters if c.always)) == RULES.character_draw
    scenario, _ = block(num_players=3, characters="curse_of_amon")
    assert {KEYS[c] for c in np.flatnonzero(scenario["table_roster"])} == always | set(RULES.scenarios["curse_of_amon"])


def test_one_size_at_every_table_and_docs_show_the_layout():
    assert OBSERVATIONS["v2"].size == V2_SIZE == V1_SIZE + 23
    assert layout_markdown(V2_BLOCKS) in DOCS.read_text()


def test_nefertiti_v2_env_and_the_single_agent_view_observe_v2():
    """The registered ids: `nefertiti/Nefertiti-v2` (PettingZoo) and the Gymnasium single-agent view with
    observation="v2" observe v2 at a 3-player Memphis table (§7), and the PettingZoo env passes its API test."""
    import warnings

    import gymnasium
    import pettingzoo
    from pettingzoo.test import api_test

    env = pettingzoo.make("aec", "nefertiti/Nefertiti-v2", num_players=3, memphis=True)
    env.reset(seed=5)
    agent = env.agent_selection
    assert np.array_equal(env.observe(agent)["observation"], observe_v2(env.unwrapped.game, int(agent[-1])))
    assert env.observation_space(agent)["observation"].shape == (V2_SIZE,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # Dict observations draw advisory warnings only
        api_test(pettingzoo.make("aec", "nefertiti/Nefertiti-v2", num_players=2), num_cycles=100)
    single = gymnasium.make("nefertiti/NefertitiSingleAgent-v0", observation="v2", num_players=3, memphis=True)
    obs, _ = single.reset(seed=3)
    game = single.unwrapped.game
    assert obs.shape == (V2_SIZE,) and np.array_equal(obs, observe_v2(game, game.current_player))
