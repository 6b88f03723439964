"""The heuristic bots play their recorded decisions (issue #21 §1; tests/golden_bots.py).

Every game of `tests/golden/bots.npz` is replayed; at each decision where the bot chose among
two or more actions, its generator is restored to the recorded state and it must pick the
recorded action. Re-record with `python tests/golden_bots.py --write` only for an intended
change of play, and say so in the commit.
"""
import numpy as np
import pytest

import golden_bots
from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot
from nefertiti_env.core import actions as A
from nefertiti_env.core.phases import PH_CHARACTER, PH_HIGH, PH_OTHER, PH_SECOND


@pytest.fixture(scope="module")
def corpus():
    return golden_bots.load()


def test_corpus_covers_the_bots_and_option_sets(corpus):
    assert corpus["length"].sum() == len(corpus["actions"])
    assert corpus["choices"].sum() == len(corpus["index"]) == len(corpus["words"]) == len(corpus["chosen"]) > 5000
    assert sorted(set(corpus["bot"].tolist())) == list(range(len(golden_bots.BOTS)))
    assert sorted(set(corpus["option_set"].tolist())) == list(range(len(golden_bots.OPTION_SETS)))


def test_corpus_covers_every_kind_of_decision(corpus):
    """Turn actions, characters and their powers, extra placements, market resolutions."""
    phases, characters = set(), set()
    for number in range(0, len(corpus["seed"]), 3):
        start = int(corpus["length"][:number].sum())
        g = NefertitiGame(seed=int(corpus["seed"][number]),
                          **golden_bots.OPTION_SETS[int(corpus["option_set"][number])])
        for action in corpus["actions"][start:start + int(corpus["length"][number])].tolist():
            if len(g.legal_actions()) >= 2:
                phases.add(g.phase)
            if A.CHARACTER <= action < A.MARKET:
                characters.add(action)
            g.apply(action)
    assert {PH_CHARACTER, PH_HIGH, PH_OTHER, PH_SECOND} <= phases
    assert len(characters) >= 6


@pytest.mark.parametrize("bot", range(len(golden_bots.BOTS)), ids=golden_bots.BOTS)
def test_bots_choose_as_recorded(corpus, bot):
    games = np.flatnonzero(corpus["bot"] == bot).tolist()
    problems = [p for n in games for p in golden_bots.check_game(corpus, n)]
    assert not problems, f"{len(problems)} decisions differ; first: {problems[0]}"


def test_a_changed_choice_is_found(corpus):
    """The check can fail: a bot that picks another legal action is reported at that decision."""
    class Contrary:
        def __init__(self, spec):
            self.bot = make_bot(spec)

        @property
        def rng(self):
            return self.bot.rng

        def act(self, game, seat):
            legal, chosen = game.legal_actions(), self.bot.act(game, seat)
            return next(a for a in legal if a != chosen)

    problems = golden_bots.check_game(corpus, 0, Contrary)
    assert len(problems) == corpus["choices"][0]
    assert "decision" in problems[0] and "recorded" in problems[0]
