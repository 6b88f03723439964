"""The compiled bots play their recorded decisions (tests/golden_bots.py).

Every game of `tests/golden/bots.npz` (the heuristic bots), `tests/golden/mcts.npz` (the
search bot, recorded from its Python implementation) and `tests/golden/agents.npz` (the shipped
agent's policy alone, recorded when its actor ran in torch) is replayed; at each decision where the
bot chose among two or more actions, its generator is restored to the recorded state and it
must pick the recorded action (and, for MCTS, draw as many random numbers). Re-record with
`python tests/golden_bots.py --write [--corpus NAME]` only for an intended change of play, and
say so in the commit.
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


@pytest.fixture(scope="module")
def mcts_corpus():
    return golden_bots.load(golden_bots.MCTS)


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


def test_mcts_corpus_covers_its_bots_and_option_sets(mcts_corpus):
    assert mcts_corpus["choices"].sum() == len(mcts_corpus["index"]) == len(mcts_corpus["after"]) > 1000
    assert sorted(set(mcts_corpus["bot"].tolist())) == list(range(len(golden_bots.MCTS.bots)))
    assert sorted(set(mcts_corpus["option_set"].tolist())) == list(range(len(golden_bots.OPTION_SETS)))


@pytest.mark.parametrize("bot", range(len(golden_bots.MCTS.bots)), ids=golden_bots.MCTS.bots)
def test_mcts_chooses_and_draws_as_recorded(mcts_corpus, bot):
    games = np.flatnonzero(mcts_corpus["bot"] == bot).tolist()
    problems = [p for n in games for p in golden_bots.check_game(mcts_corpus, n)]
    assert not problems, f"{len(problems)} decisions differ; first: {problems[0]}"


@pytest.fixture(scope="module")
def agents_corpus():
    return golden_bots.load(golden_bots.AGENTS)


@pytest.mark.parametrize("bot", range(len(golden_bots.AGENTS.bots)), ids=golden_bots.AGENTS.bots)
def test_agents_choose_and_draw_as_recorded(agents_corpus, bot):
    """The compiled actor plays the torch actor's decisions (docs/champion.md, "The actor runs compiled")."""
    games = np.flatnonzero(agents_corpus["bot"] == bot).tolist()
    assert len(games) == 2 * len(golden_bots.OPTION_SETS)
    assert agents_corpus["choices"][games].sum() > 1000
    problems = [p for n in games for p in golden_bots.check_game(agents_corpus, n)]
    assert not problems, f"{len(problems)} decisions differ; first: {problems[0]}"


class Wrapped:
    """A recorded bot with its generator, whose `act` a test changes."""

    def __init__(self, spec):
        self.bot = make_bot(spec)

    @property
    def rng(self):
        return self.bot.rng


def test_a_changed_choice_is_found(corpus):
    """The check can fail: a bot that picks another legal action is reported at that decision."""
    class Contrary(Wrapped):
        def act(self, game, seat):
            legal, chosen = game.legal_actions(), self.bot.act(game, seat)
            return next(a for a in legal if a != chosen)

    problems = golden_bots.check_game(corpus, 0, Contrary)
    assert len(problems) == corpus["choices"][0]
    assert "decision" in problems[0] and "recorded" in problems[0]


def test_a_changed_draw_is_found(mcts_corpus):
    """A search that chooses alike but draws one more random number is reported too."""
    class Wasteful(Wrapped):
        def act(self, game, seat):
            action = self.bot.act(game, seat)
            self.bot.rng.integers(2)
            return action

    problems = golden_bots.check_game(mcts_corpus, 0, Wasteful)
    assert len(problems) == mcts_corpus["choices"][0]
    assert "drew another amount of random numbers" in problems[0]
