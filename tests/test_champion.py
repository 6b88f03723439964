"""The shipped champion (issue #21 §4, docs/champion.md): its weights are in the package, load without
unpickling, stay small, and play legal games under the bot name "champion" everywhere bots are made."""
import numpy as np
import torch

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import BOTS, LADDER_BOTS, make_bot, policy_file
from nefertiti_env.agents.champion import CHAMPION_FILE, ChampionBot


def test_the_weights_ship_small_and_load_without_unpickling():
    assert CHAMPION_FILE.is_file() and CHAMPION_FILE.stat().st_size <= 10 * 2**20
    data = torch.load(CHAMPION_FILE, map_location="cpu", weights_only=True)    # torch's restricted loader
    assert data["format"] == policy_file.FORMAT and "optimizer" not in data
    meta, _ = policy_file.read(CHAMPION_FILE)
    assert meta["obs_size"] == 657 and meta["num_actions"] == 147          # the compact v1 observation


def test_champion_is_a_bot_name_and_plays_legal_games():
    """A 4-player game to the end with the champion at two seats: every action it picks is legal, and
    the deterministic champion picks the same action again on the same position."""
    assert BOTS["champion"] is ChampionBot and "champion" in LADDER_BOTS
    bots = [make_bot(spec, seed=s) for s, spec in enumerate(["champion", "banker", "champion", "random"])]
    game = NefertitiGame(num_players=4, seed=3)
    picked = 0
    while not game.is_over():
        p = game.current_player
        action = bots[p].act(game, p)
        assert game.legal_action_mask()[action]
        if bots[p].name == "champion":
            assert bots[p].act(game.clone(), p) == action
            picked += 1
        game.apply(action)
    assert picked > 20 and np.isfinite(game.scores()).all()


def test_sampling_champion_follows_its_seed():
    """champion:deterministic=0 samples from its own seeded generator: the same seed, the same game."""
    def play(seed):
        game = NefertitiGame(num_players=4, seed=5)
        bot = make_bot("champion:deterministic=0", seed=seed)
        while not game.is_over():
            game.apply(bot.act(game, game.current_player))
        return game.history
    assert play(9) == play(9)
