"""engine/powers.py against the Python engine (docs/rules.md §6: the base and expansion
characters' powers, when each is playable, the Oracle's private choices, the Roaming Thief bought
in a resolution (§4.1, §4.2); §5.2: the Priest of Amon's rank bonus).

Random games of every option set, and of rosters holding every character, are played with the
Python engine by a policy that plays a character whenever it may. At every turn decision each
available character's `playable` must equal the Python power's, and the end-of-game bonus the
Python final scores less base scores. At every character decision the kernel's mask must equal
the Python legal mask, `private` the Python one, and after the same action the kernel's state
must equal the Python state, packed at the moment the power hands back (`character_done`) when
the kernel says the power is over, or after the action otherwise.
"""
from __future__ import annotations

import collections
import tomllib

import numpy as np
import pytest

from engine_ref import diff, pack_state, rules_of
from golden import OPTION_SETS
from nefertiti_env import NefertitiGame
from nefertiti_env.core import actions as A
from nefertiti_env.core import scoring
from nefertiti_env.core.engine import layout as L
from nefertiti_env.core.engine import powers as P
from nefertiti_env.core.limits import MAX_CHARACTERS
from nefertiti_env.core.phases import PH_CHARACTER, PH_OVER, PH_TURN
from nefertiti_env.core.limits import MEMPHIS
from nefertiti_env.core.powers import POWERS, roam_markets
from nefertiti_env.core.ruleset import PACKAGED_RULESETS

GAMES_PER_SET = 2
# every character card of the default ruleset, so every power comes up in one game
EVERY_CARD = ["scribe_3", "scribe_2", "scribe_2", "merchant", "merchant", "royal_servant", "royal_servant", "treasurer",
              "treasurer", "vizier", "head_priest", "thief", "oracle", "beggar", "merchant_of_amon", "priest_of_amon",
              "royal_scribe", "roaming_thief", "trader"]
EVERY_CARD_SETS = [dict(num_players=n, memphis=m, characters=EVERY_CARD, setup=s)
                   for n, m, s in ((2, False, "beginner"), (2, True, "advanced"), (3, False, "advanced"),
                                   (3, True, "beginner"), (4, False, "beginner"), (4, True, "advanced"),
                                   (5, True, "beginner"), (5, True, "advanced"))]


def other_parameters() -> dict:
    """The default ruleset with every power parameter changed, the Priest of Amon's rank bonus
    shorter than the player count, and the expansion characters listed first (other indices)."""
    data = tomllib.loads((PACKAGED_RULESETS / "default.toml").read_text())
    chars = data["characters"]
    for key, changes in {"scribe_2": dict(bonus=5), "vizier": dict(points_per_type=3), "head_priest": dict(servants=3),
                         "oracle": dict(cards=3), "beggar": dict(deben=2), "merchant_of_amon": dict(points=4),
                         "priest_of_amon": dict(rank_bonus=[1, 7]), "royal_scribe": dict(bonus=2),
                         "trader": dict(exchanges=3)}.items():
        chars[key].update(changes)
    data["characters"] = dict(sorted(chars.items(), key=lambda item: item[1]["set"] == "base"))
    return data


class Hook:
    """Records the Python game's state each time a power hands back (`character_done`), then
    lets the game go on."""

    def __init__(self, g: NefertitiGame):
        self.g, self.states = g, []
        g.character_done = self

    def __call__(self):
        self.states.append(pack_state(self.g))
        NefertitiGame.character_done(self.g)


def play_character(S: np.ndarray, c: int) -> None:
    """What flow does before `powers.start`: spend the seal, phase PH_CHARACTER (§2.1)."""
    p = S[L.ACTOR]
    S[L.SEALS + p] -= 1
    S[L.SEAL_SUPPLY] += 1
    S[L.CHAR_AVAIL + c] -= 1
    S[L.CHAR_PLAYED + p * MAX_CHARACTERS + c] += 1
    S[L.CHARACTER_USED] = 1
    S[L.CHAR_INDEX], S[L.CHAR_STEP], S[L.CHAR_SEL_N] = c, 0, 0
    S[L.PHASE] = PH_CHARACTER


def check_after(R, S, done: bool, g: NefertitiGame, hook: Hook, before: int, where: str) -> None:
    """The kernel's state after a power's start or step equals the Python one."""
    handed_back = len(hook.states) > before
    assert done == handed_back, f"{where}: kernel says over={done}, Python character_done called={handed_back}"
    expected = hook.states[before] if handed_back else pack_state(g)
    problems = diff(S, expected)
    assert not problems, f"{where}: " + "; ".join(problems)


def check_turn(R, S, g: NefertitiGame, stats: collections.Counter) -> None:
    """§6 playable for every character left, where a Roaming Thief bought at each market could
    go, and §5.2 end bonus, at a turn decision."""
    p = g.actor
    for c in np.flatnonzero(g.char_avail).tolist():
        char = g.rules.characters[c]
        assert P.playable(R, S, p, c) == POWERS[char.power].playable(g, p, char), \
            f"playable({char.key}) for seat {p}"
    for exclude in range(-1, MEMPHIS):
        possible = P.roam_possible(R, S, exclude)
        assert possible == bool(roam_markets(g, exclude)), f"roam_possible(exclude={exclude})"
        stats["roaming thief possible", possible] += 1
    check_end_bonus(R, S, g)


def check_end_bonus(R, S, g: NefertitiGame) -> None:
    scores = scoring.base_scores(g).astype(np.int64)
    P.end_bonus(R, S, scores)
    n = g.num_players
    assert scores[:n].tolist() == scoring.final_scores(g)[:n].tolist()


def play(options: dict, seed: int, stats: collections.Counter) -> None:
    """One random game (characters played whenever possible), checked at every decision."""
    g = NefertitiGame(seed=seed, **options)
    R = rules_of(g)
    hook = Hook(g)
    rng = np.random.default_rng(seed)
    n_chars = len(g.rules.characters)
    while not g.is_over():
        legal = g.legal_actions()
        phase, before = g.phase, len(hook.states)
        S = pack_state(g)
        if phase == PH_TURN:
            check_turn(R, S, g, stats)
        chars = [a for a in legal if A.CHARACTER <= a < A.CHARACTER + n_chars]
        action = int(rng.choice(chars if chars and rng.random() < 0.7 else legal))
        where = f"seed {seed} {options} decision {len(g.history)} {g.action_to_string(action)}"
        if phase == PH_CHARACTER:
            mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
            P.legal(R, S, mask)
            assert np.flatnonzero(mask).tolist() == legal, where
            kind = L.POWER_KINDS[R[L.CHAR_POWER + g.char_index]]
            stats[kind, "step", g.char_step] += 1
            if g.roam_resume >= 0:
                stats["bought roaming thief"] += 1
            private = P.private(R, S)
            S[L.DECISIONS] += 1
            done = P.apply(R, S, action)
            g.apply(action)
            assert private == (g.private_to[-1] >= 0), where
            check_after(R, S, done, g, hook, before, where)
        elif phase == PH_TURN and action in chars:
            c = action - A.CHARACTER
            stats[L.POWER_KINDS[R[L.CHAR_POWER + c]]] += 1
            S[L.DECISIONS] += 1
            play_character(S, c)
            done = P.start(R, S)
            g.apply(action)
            check_after(R, S, done, g, hook, before, where)
        else:
            g.apply(action)
            for T in hook.states[before:]:      # a Roaming Thief bought where it cannot go (§6.2)
                assert T[L.CHAR_INDEX] == R[L.ROAMING_CHAR] and T[L.CHAR_SEL_N] == 1, where
                assert not P.roam_possible(R, T, T[L.CHAR_SEL]), where
                stats["roaming thief left the game"] += 1
            if g.phase == PH_CHARACTER:         # bought in a resolution: it must have a market
                assert g.roam_resume >= 0 and g.char_step == 0 and len(g.char_sel) == 1, where
                assert P.roam_possible(R, pack_state(g), g.char_sel[0]), where
    if g.phase == PH_OVER:
        check_end_bonus(R, pack_state(g), g)
        stats["games over"] += 1


@pytest.mark.parametrize("index", range(len(OPTION_SETS)))
def test_powers_match_python_engine(index):
    """§6: every option set of the golden corpus (2-5 players, Memphis on and off, base,
    expansion and scenario characters, both setups)."""
    stats = collections.Counter()
    for game in range(GAMES_PER_SET):
        play(OPTION_SETS[index], 1000 * index + game, stats)
    assert stats["games over"] > 0


def test_every_power_comes_up_and_matches():
    """§6.1, §6.2: rosters holding every card play each of the 14 powers, the Oracle's three
    steps, the Roaming Thief bought in a resolution, and the Priest of Amon's bonus (§5.2)."""
    stats = collections.Counter()
    for i, options in enumerate(EVERY_CARD_SETS):
        for game in range(6):
            play(options, 77_000 + 100 * i + game, stats)
    missing = [kind for kind in L.POWER_KINDS[1:] if not stats[kind]]
    assert not missing, f"powers never played: {missing}"
    for step in (P.ORACLE_SWAP, P.ORACLE_TAKE, P.ORACLE_ORDER):
        assert stats["oracle", "step", step] > 0
    assert stats["bought roaming thief"] > 0
    assert stats["roaming thief possible", False] > 0 and stats["roaming thief possible", True] > 0


def test_power_parameters_come_from_the_ruleset():
    """§6: a ruleset with other parameters for every power (Scribe +5, Oracle 3 cards, Trader 3
    exchanges, a 2-entry rank bonus, ...) and other character indices plays the same."""
    stats = collections.Counter()
    for i, options in enumerate(EVERY_CARD_SETS):
        for game in range(3):
            play(dict(options, ruleset=other_parameters()), 88_000 + 100 * i + game, stats)
    missing = [kind for kind in L.POWER_KINDS[1:] if not stats[kind]]
    assert not missing, f"powers never played: {missing}"
    assert stats["oracle", "step", P.ORACLE_ORDER] > 0 and stats["games over"] > 0
    assert stats["games over"] > 0
