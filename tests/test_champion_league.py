"""The champion's league (agents/champion.py, docs/champion.md "Exploitability"): the league's three policies
ship as actor-only float16 files, and `champion:league=1` plays the mixture of the champion and them at 2 and 3
players, one drawn per game, each member's moves exactly as that policy alone plays them; at 4 and 5 players,
the champion alone."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot, play_game, policy_file
from nefertiti_env.agents.champion import CHAMPION_FILE, CHAMPION_LEAGUE_FILES, LEAGUE_PLAYERS
from nefertiti_env.agents.cluster import model_files
from nefertiti_env.encoding.versions import version_of_size
from nefertiti_env.training.snapshot_tables import fixed_policies, plays_at_snapshot_tables

MEMBERS = [CHAMPION_FILE, *CHAMPION_LEAGUE_FILES]
LEAGUE = "champion:league=1"


@pytest.mark.parametrize("path", CHAMPION_LEAGUE_FILES, ids=lambda p: p.name)
def test_the_league_ships_actors_alone_in_float16_reading_v2(path):
    data = torch.load(path, map_location="cpu", weights_only=True)
    meta, _ = policy_file.read(path)
    assert meta[policy_file.ACTOR_ONLY] is True and version_of_size(meta["obs_size"]) == "v2"
    assert set(data["policy"]) == set(policy_file.weight_shapes(meta)) and "value_net.bias" not in data["policy"]
    assert {t.dtype for t in data["policy"].values()} == {torch.float16} and "optimizer" not in data
    assert policy_file.load_policy(path).actor_only and not policy_file.load_policy(CHAMPION_FILE).actor_only


def test_each_game_plays_one_of_the_four_drawn_from_the_seed_with_that_policys_own_moves():
    drawn = set()
    for seed in range(16):
        bot = make_bot(LEAGUE, seed=seed)
        member = MEMBERS.index(Path(bot.mixture.member.path))
        drawn.add(member)
        assert make_bot(LEAGUE, seed=seed).mixture.member.path == bot.mixture.member.path
        alone = make_bot(f"ppo:path={MEMBERS[member]}", seed=seed)
        game, reference = NefertitiGame(3, seed=seed), NefertitiGame(3, seed=seed)
        for _ in range(30):
            seat = game.current_player
            action = bot.act(game, seat)
            assert action == alone.act(reference, seat)
            game.apply(action)
            reference.apply(action)
    assert drawn == {0, 1, 2, 3}


def test_without_the_league_the_champion_plays_its_own_policy_alone():
    """league=0 (the default) is the champion unchanged: at every decision of a game the bankers play, the
    move its file played by `ppo` makes."""
    champion = make_bot("champion:deterministic=0", seed=3)
    alone = make_bot(f"ppo:path={CHAMPION_FILE}:deterministic=0", seed=3)
    game, bots = NefertitiGame(4, seed=3), [make_bot("banker", seed=s) for s in range(4)]
    assert champion.mixture is None
    while not game.is_over():
        seat = game.current_player
        assert champion.act(game, seat) == alone.act(game, seat)
        game.apply(bots[seat].act(game, seat))


@pytest.mark.parametrize("spec, words", [
    ("champion:league=1:run=2", "league=1 plays run 1's league"),
    ("champion:league=1:search=5:leaf_value=1", "league=1 plays run 1's league"),
    (f"ppo:path={CHAMPION_LEAGUE_FILES[0]}:search=5:leaf_value=1", "holds the actor alone"),
])
def test_a_critic_is_never_read_from_an_actor_only_file(spec, words):
    with pytest.raises(ValueError, match=words):
        make_bot(spec, seed=0)


def test_its_four_files_are_recorded_and_shipped_to_a_clusters_workers_and_the_batched_env_plays_them():
    assert make_bot(LEAGUE, seed=0).weights_files == MEMBERS
    files = model_files([LEAGUE])
    assert list(files.values()) == MEMBERS and len(set(files)) == 4
    assert plays_at_snapshot_tables(LEAGUE) and not plays_at_snapshot_tables(f"{LEAGUE}:search=5")
    # the batched env's opponent seats draw among the policies the bot plays at each player count
    played = {n: fixed_policies(LEAGUE, n)[0] for n in (2, 3, 4, 5)}
    assert [len(policies) for policies in played.values()] == [4, 4, 1, 1] == [
        4 if n in LEAGUE_PLAYERS else 1 for n in played]
    champion = make_bot("champion", seed=0).policy.state_dict()
    for policies in played.values():
        assert all(torch.equal(v, policies[0].state_dict()[k]) for k, v in champion.items())


def test_a_table_of_leagues_plays_legal_reproducible_games_at_two_players():
    def game(seed):
        bots = [make_bot(f"{LEAGUE}:deterministic=0", seed=seed * 8 + s) for s in range(2)]
        return play_game(NefertitiGame(2, seed=seed, characters="expansion", setup="advanced"), bots).history
    first = game(2)
    assert first == game(2) and len(first) > 50


@pytest.mark.parametrize("players", [4, 5])
def test_at_four_and_five_players_it_plays_the_champion_alone(players):
    """The league plays at the tables it was trained for (LEAGUE_PLAYERS); here every member drawn leaves the
    move to the champion's policy."""
    assert players not in LEAGUE_PLAYERS
    for seed in range(4):
        bot, alone = make_bot(LEAGUE, seed=seed), make_bot("champion", seed=seed)
        game, bots = NefertitiGame(players, seed=seed), [make_bot("banker", seed=s) for s in range(players)]
        while not game.is_over():
            seat = game.current_player
            assert bot.act(game, seat) == alone.act(game, seat)
            game.apply(bots[seat].act(game, seat))


def test_save_actor_keeps_the_moves_up_to_float16_rounding(tmp_path):
    """The champion's own actor written as the league's files are: its logits within float16's rounding of the
    source's, at positions of a played game."""
    path = tmp_path / "actor.pt"
    policy_file.save_actor(CHAMPION_FILE, path)
    full, half = make_bot(f"ppo:path={CHAMPION_FILE}"), make_bot(f"ppo:path={path}")
    assert path.stat().st_size < CHAMPION_FILE.stat().st_size / 3
    game = NefertitiGame(4, seed=5)
    bots = [make_bot("banker", seed=s) for s in range(4)]
    gaps = []
    while not game.is_over():
        seat = game.current_player
        gaps.append(np.abs(full.logits(game, seat) - half.logits(game, seat)).max())
        game.apply(bots[seat].act(game, seat))
    assert 0 < max(gaps) < 0.05


def test_loading_an_actor_only_file_sets_the_actor_and_leaves_the_critic_as_it_was():
    """What `init_from` an actor-only file does: the actor widened to float32, the critic left to train."""
    meta, data = policy_file.read(CHAMPION_LEAGUE_FILES[0])
    policy = policy_file.build_policy(meta)
    before = {k: v.clone() for k, v in policy.state_dict().items()}
    policy_file.load_into(policy, CHAMPION_LEAGUE_FILES[0], optimizer=False)
    after = policy.state_dict()
    assert all(torch.equal(after[k], data["policy"][k].float()) for k in data["policy"])
    critic = [k for k in after if k not in data["policy"]]
    assert critic and all(torch.equal(after[k], before[k]) for k in critic)
