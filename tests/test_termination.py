"""Every game ends, terminated or truncated, and no character's power runs longer than its
rules allow, under the two fixed-order policies (first legal action; last legal action other than
`done`) over every option set; and the heuristic bots never loop (the reporter's tournament)."""
import itertools

import numpy as np
import pytest

from nefertiti_env.agents.heuristic import BankerBot, CollectorBot, GreedyBot
from conftest import last_legal
from nefertiti_env import NefertitiGame
from nefertiti_env.core import actions as A
from nefertiti_env.core.game import DEFAULT_MAX_DECISIONS
from nefertiti_env.core.limits import MEMPHIS
from nefertiti_env.core.phases import PH_CHARACTER

PLAYERS_MEMPHIS = [(2, False), (2, True), (3, False), (3, True), (4, False), (4, True), (5, True)]
CHARACTERS = ["base", "expansion", "curse_of_amon", "intrigue_at_court", "race_for_the_nile"]
OPTION_SETS = [dict(num_players=p, memphis=m, characters=c, setup=s) for (p, m), c, s in
               itertools.product(PLAYERS_MEMPHIS, CHARACTERS, ["beginner", "advanced"])]
POLICIES = {"first": lambda legal: legal[0], "last": last_legal}


def power_bound(g: NefertitiGame, char, seat: int) -> int:
    """The most decisions the power of `char` may take for `seat`, from its parameters and the position
    when it was played (docs/rules.md §6): one per own card for the discarding powers, `cards` exchanges of two
    decisions plus `done` plus the order of the seen cards for the Oracle, `exchanges` exchanges of three
    decisions plus `done` for the Trader, one choice per classic market for the Beggar."""
    params, owned = char.params, int(g.state.owned[seat].sum())
    fixed = {"scribe": 1, "royal_servant": 1, "treasurer": 1, "vizier": 0, "head_priest": 0, "priest_of_amon": 0,
             "thief": 2, "roaming_thief": 2, "merchant": 3, "beggar": MEMPHIS,
             "merchant_of_amon": owned + 1, "royal_scribe": owned + 1}
    if char.power == "oracle":
        return 2 * params["cards"] + 1 + params["cards"] - 1
    if char.power == "trader":
        return 3 * params["exchanges"] + 1
    return fixed[char.power]


def play_checking_powers(g: NefertitiGame, choose) -> dict[str, int]:
    """Play `g` to its end with `choose(legal)`, asserting each power's length; returns the longest per power."""
    longest: dict[str, int] = {}
    run = None                                   # (character, bound, decisions so far) of the power in play
    while not g.is_over():
        if g.phase == PH_CHARACTER:
            char = g.rules.characters[g.state.char_index]
            if run is None:
                run = [char, power_bound(g, char, g.state.actor), 0]
            run[2] += 1
            assert run[2] <= run[1], f"{char.key} took more than {run[1]} decisions (seed {g.seed}, {g.options})"
            longest[char.power] = max(longest.get(char.power, 0), run[2])
        else:
            run = None
        g.apply(choose(g.legal_actions()))
    return longest


@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(map(str, o.values())))
def test_fixed_order_policies_end_every_game_and_bound_every_power(policy, options):
    for seed in range(2):
        g = NefertitiGame(seed=seed, **options)
        play_checking_powers(g, POLICIES[policy])
        assert g.is_terminated() != g.is_truncated()
        assert len(g.history) <= DEFAULT_MAX_DECISIONS


def test_the_last_legal_policy_reaches_the_repeatable_powers():
    """The bound above is exercised: the repeatable powers (Oracle, Trader, discarding powers) are played."""
    longest: dict[str, int] = {}
    for options, seed in itertools.product(OPTION_SETS, range(2)):
        if options["characters"] != "base":
            for power, n in play_checking_powers(NefertitiGame(seed=seed, **options), last_legal).items():
                longest[power] = max(longest.get(power, 0), n)
    assert {"oracle", "trader", "merchant_of_amon", "royal_scribe", "beggar"} <= set(longest), longest
    assert longest["oracle"] >= 3 and longest["beggar"] == MEMPHIS


def oracle_turn(seed: int) -> NefertitiGame:
    """A 3-player game with Memphis and expansion characters, played at random (no character) up to the first
    turn where its player may play the Oracle."""
    g = NefertitiGame(num_players=3, seed=seed, memphis=True, characters="expansion")
    oracle = g.string_to_action("character Oracle")
    rng = np.random.default_rng(seed)
    while oracle not in g.legal_actions():
        legal = [a for a in g.legal_actions() if not A.CHARACTER <= a < A.MARKET]
        g.apply(legal[int(rng.integers(len(legal)))])
    return g


@pytest.mark.parametrize("bot", [GreedyBot, BankerBot, CollectorBot], ids=lambda b: b.name)
@pytest.mark.parametrize("seed", [5, 14, 21])
def test_heuristic_power_choices_stop(bot, seed):
    """The bots' choice loop over a power (as when they value playing a character) ends within the power's
    bound: with the Oracle they used to give a gift and take the same card back for ever."""
    g = oracle_turn(seed)
    seat, chooser = g.current_player, bot(seed=0)
    g.apply(g.string_to_action("character Oracle"))
    bound, steps = power_bound(g, g.rules.characters[g.state.char_index], seat), 0
    while g.phase == PH_CHARACTER:
        g.apply(chooser.power_choice(g, seat))
        steps += 1
        assert steps <= bound, [g.action_to_string(a) for a in g.history[-8:]]


@pytest.mark.parametrize("characters, seed", [("expansion", 5), ("intrigue_at_court", 2)])
def test_heuristic_bots_never_loop(characters, seed):
    """The reporter's tournament (greedy, banker, collector at 3 players with Memphis and expansion characters;
    seed 5 deals the Oracle) and the intrigue_at_court scenario: each game ends by the rules."""
    g = NefertitiGame(num_players=3, seed=seed, memphis=True, characters=characters, max_decisions=600)
    bots = [GreedyBot(seed=seed), BankerBot(seed=seed + 1), CollectorBot(seed=seed + 2)]
    while not g.is_over():
        g.apply(bots[g.current_player].act(g, g.current_player))
    assert g.is_terminated(), f"not ended after {len(g.history)} decisions"
