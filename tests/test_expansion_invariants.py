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

from conftest import play_random
from nefertiti_env import NefertitiGame
from nefertiti_env.core.game import DEFAULT_MAX_DECISIONS
from nefertiti_env.core.limits import MEMPHIS
from nefertiti_env.core.phases import NEUTRAL, PH_TUTOR, PH_TUTOR_DIST, PH_TUTOR_RES, TUTOR

CHARACTERS = ["base", "expansion", "curse_of_amon", "intrigue_at_court", "race_for_the_nile"]
COMBOS = [(players, memphis, characters) for players, memphis in
          [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True), (5, True)]
          for characters in CHARACTERS]
GAMES = 24                  # per combination: 840 games
MAX_DECISIONS = 1000        # random games take about 100-250


class Invariants:
    """Totals fixed at setup and rules that hold after every decision."""

    def __init__(self, g):
        rs, n = g.rules, g.num_players
        self.money = int(g.money.sum() + g.reserve.sum())
        self.cards = np.bincount(g.deck, minlength=rs.num_kinds + 1)[:rs.num_kinds]
        self.seals = int(g.seal_supply + g.seal_on.sum())
        self.servants = rs.players[n].servants
        self.tutors = rs.players[n].tutors
        self.roaming = rs.character_index("roaming_thief")
        assert self.check_cards(g) and g.deben_out == 0 and not g.seals.any()

    def check_cards(self, g) -> bool:
        """Every gift in exactly one place: undrawn deck, above a market (Memphis too), owned, discarded."""
        k = g.rules.num_kinds
        places = np.bincount(g.deck[g.deck_pos:], minlength=k + 2)[:k]
        places += np.bincount(g.slots.ravel() + 1, minlength=k + 3)[1:k + 1]
        places += g.owned.sum(axis=0) + g.discarded
        akhenaton = np.count_nonzero(g.deck[g.deck_pos:] == g.kind_akhenaton) + g.akhenaton_drawn
        return bool(np.array_equal(places, self.cards) and akhenaton == 1)

    def check(self, g):
        n = g.num_players
        held = g.tutor_left if g.phase == PH_TUTOR_DIST else 0
        assert g.money.sum() + g.reserve.sum() + g.deben_out + held == self.money, "§1: money is a closed system"
        assert min(g.money.min(), g.reserve.min(), g.seal_supply, g.owned.min()) >= 0
        assert self.check_cards(g), "every card in exactly one place"
        roaming = np.count_nonzero(g.slots == g.kind_roaming)
        assert roaming == 0 or (roaming == 1 and g.char_played[:, self.roaming].any()), \
            "the Roaming Thief card is on the board only once it was played"
        assert not (g.slots == g.kind_akhenaton).any()
        at_memphis = g.slots[MEMPHIS][g.slots[MEMPHIS] >= 0]
        assert (g.rules.kind_bonus[at_memphis] > 0).all(), "§7: only foreign gifts go to Memphis"
        assert g.seal_supply + g.seals.sum() + g.seal_on.sum() == self.seals, "§1: seals are conserved"
        assert not g.seal_on[MEMPHIS] and g.seals[NEUTRAL] == 0, "§7: no seal at Memphis; §8: none for the neutral"
        pieces = g.occ.ravel()
        servants = np.bincount(pieces[(pieces >= 0) & (pieces < TUTOR)], minlength=n)[:n]
        tutors = np.bincount(pieces[pieces >= TUTOR] - TUTOR, minlength=n)[:n]
        assert (g.servants[:n] + servants == self.servants).all(), "servants are conserved"
        assert (g.tutors[:n] + tutors == self.tutors).all(), "tutors are conserved"
        assert g.is_open[MEMPHIS] == g.options["memphis"], "§7: Memphis never closes"
        assert not g.face_down[MEMPHIS].any()
        assert (g.slots[g.face_down != 0] >= 0).all(), "§6 Beggar: only a gift lies face down (never an empty place)"
        for m in range(5):
            if m == g.res_market:
                assert list(g.res_order) == sorted(g.res_order, reverse=True), "§4: descending bid order"
                continue
            if m < MEMPHIS and not g.is_open[m] and m not in g.pending:
                assert (g.occ[m] < 0).all(), "§4: all pieces back after each resolution"
            row = g.occ[m]
            bids = np.flatnonzero((row >= 0) & (row < TUTOR))
            assert not (row[bids.max() if len(bids) else 0:] >= TUTOR).any(), "§8: a tutor is never highest"


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
            items[o][rs.kind_type[k]] += int(g.owned[o, k]) * int(rs.kind_items[k])
            bonus[o][rs.kind_type[k]] += int(g.owned[o, k]) * int(rs.kind_bonus[k])
    scores = []
    for p in range(n):
        total = int(g.money[p]) // 2 + 3 * int(g.seals[p]) + int(g.points[p])
        for t in range(types):
            count = sum(items[o][t] > 0 for o in owners)
            if items[p][t]:
                total += items[p][t] * (int(rs.type_values[t, min(count, 3) - 1]) + bonus[p][t])
        scores.append(total)
    priest = rs.character_index("priest_of_amon")
    base = list(scores)
    for p in range(n):
        if g.char_played[p, priest]:
            scores[p] += [0, 6, 9, 12, 15][sum(s > base[p] for s in base)]
    return scores


def run_game(players, memphis, characters, seed):
    g = NefertitiGame(num_players=players, seed=seed, memphis=memphis, characters=characters,
                      setup=("beginner", "advanced")[seed % 2])
    rng = np.random.default_rng(seed + 7919 * players)
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
        assert g.akhenaton_drawn and g.dead[:MEMPHIS].sum() == 1 and not g.is_open[:MEMPHIS].any()
        assert g.scores().tolist() == recomputed_scores(g), f"seed {seed}: scores"
        assert set(g.winners()) <= set(range(players)) and g.winners()
        assert not g.legal_action_mask().any() and g.current_player == -1
        assert NefertitiGame.replay(g.record()).to_json() == g.to_json(), f"seed {seed}: replay"
        played |= {c.key for i, c in enumerate(g.rules.characters) if g.char_played[:, i].any()}
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
            neutral = int(g.owned[NEUTRAL].sum())
            phase = g.phase
            play_random(g, rng, steps=1)
            tutor_cards += int(g.owned[NEUTRAL].sum()) > neutral
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
            phase, out = g.phase, g.deben_out
            play_random(g, rng, steps=1)
            assert g.deben_out == out or phase == PH_TUTOR, f"seed {seed}: Deben left the game in {phase=}"


# ----------------------------------------------------------------------------- PettingZoo

ENV_ID = "nefertiti/Nefertiti-v0"


def make(**kwargs):
    return pettingzoo.make("aec", ENV_ID, **kwargs)


@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoo_api_test_with_memphis_and_expansion_characters(players):
    """Issue 3: pettingzoo.test.api_test for 2 and 5 players with the Port of Memphis and expansion characters."""
    env = make(num_players=players, memphis=True, characters="expansion")
    assert env.unwrapped.game.options == dict(num_players=players, setup="beginner", memphis=True,
                                              characters="expansion", max_decisions=DEFAULT_MAX_DECISIONS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # Dict observations draw advisory warnings only
        api_test(env, num_cycles=300)


@pytest.mark.parametrize("players", [2, 5])
def test_pettingzoo_seed_test_with_memphis_and_expansion_characters(players):
    """Issue 3: pettingzoo.test.seed_test for 2 and 5 players with the Port of Memphis and expansion characters."""
    seed_test(lambda: make(num_players=players, memphis=True, characters="expansion"), num_cycles=100)


@pytest.mark.parametrize("players, memphis, characters", [c for c in COMBOS if c[2] in ("base", "expansion")] +
                         [(players, True, scenario) for players, scenario in
                          itertools.product([2, 5], CHARACTERS[2:])])
def test_every_combination_plays_to_the_end_through_the_env(players, memphis, characters):
    """Issue 3: every player count and option combination plays to the end through pettingzoo.make."""
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

