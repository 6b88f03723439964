"""Random-play invariants for every player count and option combination (docs/rules.md §1-§8), and the PettingZoo
API checks for 2 and 5 players with the Port of Memphis and expansion characters.

After every decision of seeded random games: money, cards, seals, servants and tutors are conserved, pieces
are back after each resolution, tutors stand below a servant, Memphis never closes. At the end: the game ended,
the scores equal a recomputation written here from the ruleset tables (foreign bonuses, neutral owner, Priest
of Amon), the neutral player never wins, and replaying the record gives the identical state.
"""
import itertools
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import invariants_kernel as kernel
from conftest import play_random
from nefertiti_env import NefertitiGame
from nefertiti_env.core.game import DEFAULT_MAX_DECISIONS
from nefertiti_env.core.limits import MEMPHIS
from nefertiti_env.core.phases import NEUTRAL, PH_TUTOR, PH_TUTOR_RES, TUTOR
from nefertiti_env.core.state_io import set_list

CHARACTERS = ["base", "expansion", "curse_of_amon", "intrigue_at_court", "race_for_the_nile"]
COMBOS = [(players, memphis, characters) for players, memphis in
          [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True), (5, True)]
          for characters in CHARACTERS]
GAMES = 24                  # per combination: 840 games
MAX_DECISIONS = 1000        # random games take about 100-250


class Invariants:
    """Totals fixed at setup and rules that hold after every decision: the kernels of `invariants_kernel`."""

    def __init__(self, g):
        self.totals = kernel.totals(g.R, g.S)
        self.check(g)

    def check(self, g):
        code = kernel.check(g.R, g.S, self.totals)
        assert code == kernel.OK, kernel.MESSAGES[code]


def recomputed_scores(g) -> list[int]:
    """docs/rules.md §5/§7/§8 by hand: items and foreign bonuses per type for every owner (the neutral player counts
    as an owner), value by owner count, 1 per 2 Deben, 3 per seal, points in play, then Priest of Amon ranks."""
    rs, n = g.rules, g.num_players
    owners = list(range(n)) + ([NEUTRAL] if n == 2 else [])
    types = len(rs.type_names)
    items = {o: [0] * types for o in owners}
    bonus = {o: [0] * types for o in owners}
    for o in owners:
        for k in range(rs.num_kinds):
            items[o][rs.kind_type[k]] += int(g.state.owned[o, k]) * int(rs.kind_items[k])
            bonus[o][rs.kind_type[k]] += int(g.state.owned[o, k]) * int(rs.kind_bonus[k])
    scores = []
    for p in range(n):
        total = int(g.state.money[p]) // 2 + 3 * int(g.state.seals[p]) + int(g.state.points[p])
        for t in range(types):
            count = sum(items[o][t] > 0 for o in owners)
            if items[p][t]:
                total += items[p][t] * (int(rs.type_values[t, min(count, 3) - 1]) + bonus[p][t])
        scores.append(total)
    priest = rs.character_index("priest_of_amon")
    base = list(scores)
    for p in range(n):
        if g.state.char_played[p, priest]:
            scores[p] += [0, 6, 9, 12, 15][sum(s > base[p] for s in base)]
    return scores


def new_game(players, memphis, characters, seed) -> NefertitiGame:
    """Game `seed` of an option set (the setup alternates with the seed), as `benchmarks/fuzz.py` deals it too."""
    return NefertitiGame(num_players=players, seed=seed, memphis=memphis, characters=characters,
                         setup=("beginner", "advanced")[seed % 2])


def policy_seed(players, seed) -> int:
    """The seed of the random moves of game `seed` (`run_game`, and the fuzz run's compiled loop)."""
    return seed + 7919 * players


def run_game(players, memphis, characters, seed):
    g = new_game(players, memphis, characters, seed)
    rng = np.random.default_rng(policy_seed(players, seed))
    invariants = Invariants(g)
    for _ in range(MAX_DECISIONS):
        if g.is_over():
            break
        play_random(g, rng, steps=1)
        invariants.check(g)
    assert g.is_over(), f"seed {seed}: the game did not end within {MAX_DECISIONS} decisions"
    return g


@pytest.mark.parametrize("players, memphis, characters", COMBOS)
def test_random_games_keep_every_invariant_and_end(players, memphis, characters):
    """docs/rules.md §1-§8: conservation after every decision; every game ends through the Akhenaton card; scores
    recomputed by hand; the neutral player never wins; the record replays to the identical state."""
    played = set()
    for seed in range(GAMES):
        g = run_game(players, memphis, characters, seed)
        assert g.state.akhenaton_drawn and g.state.dead[:MEMPHIS].sum() == 1 and not g.state.is_open[:MEMPHIS].any()
        assert g.scores().tolist() == recomputed_scores(g), f"seed {seed}: scores"
        assert set(g.winners()) <= set(range(players)) and g.winners()
        assert not g.legal_action_mask().any() and g.current_player == -1
        assert NefertitiGame.replay(g.record()).to_json() == g.to_json(), f"seed {seed}: replay"
        played |= {c.key for i, c in enumerate(g.rules.characters) if g.state.char_played[:, i].any()}
    if characters != "base":
        assert played & {"oracle", "beggar", "merchant_of_amon", "priest_of_amon", "royal_scribe", "roaming_thief",
                         "trader"}, "random play reaches the expansion characters"


@pytest.mark.parametrize("memphis", [False, True])
def test_two_player_games_use_tutors_and_the_neutral_player(memphis):
    """docs/rules.md §8: random 2-player games place tutors, resolve them both ways and give the neutral player gifts."""
    tutor_cards = tutor_deben = 0
    for seed in range(GAMES):
        g = NefertitiGame(num_players=2, seed=seed, memphis=memphis)
        rng = np.random.default_rng(seed)
        while not g.is_over():
            neutral = int(g.state.owned[NEUTRAL].sum())
            phase = g.phase
            play_random(g, rng, steps=1)
            tutor_cards += int(g.state.owned[NEUTRAL].sum()) > neutral
            tutor_deben += phase == PH_TUTOR_RES and g.history[-1] == g.string_to_action("take deben")
    assert tutor_cards > 10 and tutor_deben > 10


@pytest.mark.parametrize("memphis", [False, True])
def test_s8_deben_leave_the_game_only_as_a_tutor_placement_bonus(memphis):
    """docs/rules.md §1/§8: money only moves between players and Reserves; the one way out of the game is a tutor's
    placement bonus given to the neutral player [R]. A tutor taking Deben puts them all on Reserves."""
    for seed in range(GAMES):
        g = NefertitiGame(num_players=2, seed=seed, memphis=memphis)
        rng = np.random.default_rng(seed)
        while not g.is_over():
            phase, out = g.phase, g.state.deben_out
            play_random(g, rng, steps=1)
            assert g.state.deben_out == out or phase == PH_TUTOR, f"seed {seed}: Deben left the game in {phase=}"


def _add(array, index, delta):
    array[index] += delta


def _local_gift_to_memphis(g):
    """Move the first gift above Gizeh with no foreign bonus to Memphis: every count still right."""
    s = next(s for s in range(g.state.slots.shape[1]) if g.state.slots[0, s] >= 0 and g.rules.kind_bonus[g.state.slots[0, s]] == 0)
    g.state.slots[MEMPHIS, 0], g.state.slots[0, s] = g.state.slots[0, s], -1


def _akhenaton_onto_the_board(g):
    """Swap the Akhenaton card in the deck with the first gift above Gizeh: every count still right."""
    p = int(np.flatnonzero(g.deck == g.kind_akhenaton)[0])
    g.deck[p], g.state.slots[0, 0] = g.state.slots[0, 0], g.kind_akhenaton


def _second_akhenaton(g):
    g.deck[g.state.deck_pos + int(g.deck[g.state.deck_pos] == g.kind_akhenaton)] = g.kind_akhenaton


# a hand edit of a fresh 2-player game with Memphis -> the one failure code it must be named by
CORRUPTIONS = {
    "one Deben more": (lambda g: _add(g.state.money, 0, 1), kernel.MONEY),
    "negative Deben": (lambda g: (_add(g.state.reserve, 0, g.state.money[0] + 1), _add(g.state.money, 0, -g.state.money[0] - 1)),
                       kernel.NEGATIVE),
    "a duplicated card": (lambda g: _add(g.state.owned, (0, 0), 1), kernel.CARDS),
    "a second Akhenaton card": (_second_akhenaton, kernel.CARDS),
    "the Roaming Thief card unplayed": (lambda g: _add(g.state.slots, (MEMPHIS, 0), 1 + g.kind_roaming),
                                        kernel.ROAMING_THIEF),
    "the Akhenaton card on the board": (_akhenaton_onto_the_board, kernel.AKHENATON_ON_BOARD),
    "a gift without bonus at Memphis": (_local_gift_to_memphis, kernel.MEMPHIS_GIFT),
    "a seal dropped": (lambda g: setattr(g.state, "seal_supply", g.state.seal_supply - 1), kernel.SEALS),
    "a seal for the neutral player": (lambda g: (setattr(g.state, "seal_supply", g.state.seal_supply - 1),
                                                 _add(g.state.seals, NEUTRAL, 1)), kernel.SEAL_PLACE),
    "a servant lost": (lambda g: _add(g.state.servants, 1, -1), kernel.SERVANTS),
    "a tutor lost": (lambda g: _add(g.state.tutors, 1, -1), kernel.TUTORS),
    "Memphis closed": (lambda g: _add(g.state.is_open, MEMPHIS, -g.state.is_open[MEMPHIS]), kernel.MEMPHIS_CLOSED),
    "face down at Memphis": (lambda g: _add(g.state.face_down, (MEMPHIS, 0), 1), kernel.MEMPHIS_FACE_DOWN),
    "an empty place face down": (lambda g: _add(g.state.face_down, (0, -1), 1), kernel.FACE_DOWN),
    "bids resolved upwards": (lambda g: (setattr(g.state, "res_market", 0), set_list(g.state, "res_order", [3, 7])),
                              kernel.BID_ORDER),
    "a servant left on a closed market": (lambda g: (_add(g.state.is_open, 1, -g.state.is_open[1]), _add(g.state.occ, (1, 4), 1),
                                                     _add(g.state.servants, 0, -1)), kernel.PIECES_BACK),
    "a tutor above the servants": (lambda g: (_add(g.state.occ, (1, 3), 1), _add(g.state.occ, (1, 5), 1 + TUTOR),
                                              _add(g.state.servants, 0, -1), _add(g.state.tutors, 0, -1)), kernel.TUTOR_HIGHEST),
}


def test_every_check_of_the_kernel_can_fail():
    """Each code of the invariant kernel has a corruption below (NOT_ENDED, the compiled loop's, in test_fuzz.py)."""
    assert {code for _, code in CORRUPTIONS.values()} == set(range(1, kernel.NOT_ENDED))


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_a_corrupted_state_fails_the_check_that_names_it(name):
    """A fresh game passes the invariant kernel; the same state with one rule broken by hand fails it with
    that rule's code (and message), not another."""
    corrupt, code = CORRUPTIONS[name]
    g = NefertitiGame(num_players=2, memphis=True, characters="expansion", seed=3)
    totals = kernel.totals(g.R, g.S)
    assert kernel.check(g.R, g.S, totals) == kernel.OK
    corrupt(g)
    found = kernel.check(g.R, g.S, totals)
    assert found == code, f"{kernel.MESSAGES[found]!r} instead of {kernel.MESSAGES[code]!r}"


# ----------------------------------------------------------------------------- PettingZoo

ENV_ID = "nefertiti/Nefertiti-v0"


def make(**kwargs):
    return pettingzoo.make("aec", ENV_ID, **kwargs)


@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoo_api_test_with_memphis_and_expansion_characters(players):
    """pettingzoo.test.api_test for 2 and 5 players with the Port of Memphis and expansion characters."""
    env = make(num_players=players, memphis=True, characters="expansion")
    assert env.unwrapped.game.options == dict(num_players=players, setup="beginner", memphis=True,
                                              characters="expansion", max_decisions=DEFAULT_MAX_DECISIONS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # Dict observations draw advisory warnings only
        api_test(env, num_cycles=300)


@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoo_seed_test_with_memphis_and_expansion_characters(players):
    """pettingzoo.test.seed_test for 2 and 5 players with the Port of Memphis and expansion characters."""
    seed_test(lambda: make(num_players=players, memphis=True, characters="expansion"), num_cycles=100)


@pytest.mark.parametrize("players, memphis, characters", [c for c in COMBOS if c[2] in ("base", "expansion")] +
                         [(players, True, scenario) for players, scenario in
                          itertools.product([2, 5], CHARACTERS[2:])])
def test_every_combination_plays_to_the_end_through_the_env(players, memphis, characters):
    """Every player count and option combination plays to the end through pettingzoo.make."""
    env = make(num_players=players, memphis=memphis, characters=characters, setup="advanced")
    env.reset(seed=players)
    rng = np.random.default_rng(players)
    steps, rewards = 0, {}
    for agent in env.agent_iter():
        obs, rewards[agent], terminated, truncated, _ = env.last()
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        steps += 1
    game = env.unwrapped.game
    assert game.is_over() and steps < MAX_DECISIONS
    assert game.options["characters"] == characters and game.options["memphis"] == memphis
    assert [rewards[f"player_{i}"] for i in range(players)] == game.returns().tolist()

