"""The mixture bot (agents/mixture.py): one member per game, drawn from its seed, playing that member's moves;
its spec checked, its weights recorded member by member and shipped to a cluster's workers."""
from __future__ import annotations

import hashlib

import pytest

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot, play_game
from nefertiti_env.agents.champion import CHAMPION_4P_FILE, CHAMPION_FILE, CHAMPION_STAGE1_FILE
from nefertiti_env.agents.cluster import model_files
from nefertiti_env.agents.weights import digests

MEMBERS = [str(CHAMPION_FILE), str(CHAMPION_STAGE1_FILE)]
SPEC = f"mixture:paths={'+'.join(MEMBERS)}"


def test_each_game_plays_one_member_drawn_from_the_seed_and_both_are_drawn():
    drawn = []
    for seed in range(12):
        bot = make_bot(SPEC, seed=seed)
        member = MEMBERS.index(bot.member.path)
        drawn.append(member)
        again = make_bot(SPEC, seed=seed)
        assert again.member.path == bot.member.path                      # the same seed, the same member
        alone = make_bot(f"ppo:path={MEMBERS[member]}", seed=seed)
        game, reference = NefertitiGame(3, seed=seed), NefertitiGame(3, seed=seed)
        for _ in range(40):                                               # the member's own decisions
            seat = game.current_player
            action = bot.act(game, seat)
            assert action == alone.act(reference, seat)
            game.apply(action)
            reference.apply(action)
    assert set(drawn) == {0, 1}


def test_reset_draws_again_so_one_bot_plays_a_new_member_per_game():
    bot = make_bot(SPEC, seed=0)
    members = set()
    for seed in range(12):
        bot.reset(seed)
        members.add(bot.member.path)
        assert bot.member.path == make_bot(SPEC, seed=seed).member.path
    assert members == set(MEMBERS)


@pytest.mark.parametrize("paths, problem", [
    (str(CHAMPION_FILE), "at least two different model files"),
    (f"{CHAMPION_FILE}+{CHAMPION_FILE}", "at least two different model files"),
    (f"{CHAMPION_FILE}+{CHAMPION_4P_FILE}", "observations of different sizes"),
])
def test_a_bad_mixture_is_named(paths, problem):
    with pytest.raises(ValueError, match=problem):
        make_bot(f"mixture:paths={paths}", seed=0)


def test_its_weights_are_recorded_member_by_member_and_shipped_to_workers():
    sha = [hashlib.sha256(open(path, "rb").read()).hexdigest() for path in MEMBERS]
    assert digests([SPEC, f"ppo:path={MEMBERS[0]}"]) == {SPEC: "+".join(sha), f"ppo:path={MEMBERS[0]}": sha[0]}
    files = model_files([SPEC, "banker"])
    assert {name: str(path) for name, path in files.items()} == {path: path for path in MEMBERS}


def test_a_table_of_mixtures_plays_legal_reproducible_games():
    def game(seed):
        return play_game(NefertitiGame(3, seed=seed), [make_bot(SPEC, seed=seed * 8 + s) for s in range(3)]).history
    first = game(4)
    assert first == game(4) and len(first) > 50
