"""The shipped champion (docs/champion.md): its weights are in the package, load without
unpickling, stay small, and play legal games under the bot name "champion" everywhere bots are made."""
import json
import time

import numpy as np
import pytest
import torch

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import BOTS, LADDER_BOTS, MCTSBot, make_bot, policy_file
from nefertiti_env.agents.champion import (CHAMPION_4P_FILE, CHAMPION_FILE, CHAMPION_FILES, CHAMPION_STAGE1_FILE,
                                           CHAMPION_VALUE_FILE, ChampionBot)
from nefertiti_env.encoding.versions import version_of_size


@pytest.mark.parametrize("path, version", [(CHAMPION_FILE, "v2"), (CHAMPION_STAGE1_FILE, "v2"),
                                           (CHAMPION_FILES[2], "v2"), (CHAMPION_VALUE_FILE, "v2"),
                                           (CHAMPION_4P_FILE, "v1")])
def test_the_weights_ship_small_and_load_without_unpickling(path, version):
    """The whole-game champion reads v2 (the table it sits at); the previous 4-player one, kept for
    comparison, reads v1."""
    assert path.is_file() and path.stat().st_size <= 10 * 2**20
    data = torch.load(path, map_location="cpu", weights_only=True)    # torch's restricted loader
    assert data["format"] == policy_file.FORMAT and "optimizer" not in data
    meta, _ = policy_file.read(path)
    assert version_of_size(meta["obs_size"]) == version and meta["num_actions"] == 147


def test_the_shipped_weights_together_stay_within_10_mb():
    """Every weights file the package ships (pyproject's package data) adds to a user's install."""
    shipped = sorted(CHAMPION_FILE.parent.glob("*.pt"))
    assert CHAMPION_STAGE1_FILE in shipped and sum(p.stat().st_size for p in shipped) <= 10 * 2**20


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


def test_the_second_run_is_another_agent_of_the_same_shape():
    """champion:run=2 loads the second training run's weights: the same network shape, other weights, so it
    is an independent population for the balance atlas; a run that was not shipped is refused by name."""
    first, second = (make_bot(f"champion:run={run}") for run in (1, 2))
    a = dict(first.policy.state_dict())
    b = dict(second.policy.state_dict())
    assert a.keys() == b.keys() and all(a[k].shape == b[k].shape for k in a)
    assert any(not torch.equal(a[k], b[k]) for k in a)
    with pytest.raises(ValueError, match="run must be one of"):
        make_bot("champion:run=3")


def test_a_cluster_ships_each_run_by_its_own_name():
    from nefertiti_env.agents.cluster import model_files
    files = model_files(["champion", "champion:run=2:deterministic=0", "banker", "champion:search=8:leaf_value=1"])
    assert files == {"champion": CHAMPION_FILES[1], "champion:run=2": CHAMPION_FILES[2],
                     "champion:value": CHAMPION_VALUE_FILE}


def test_the_leaves_critic_ships_beside_the_champions_own_actor():
    """champion_value.pt is the champion's actor, bit for bit (the policy and the search's prior are the
    champion's), with the small critic fitted to outcomes; a search with leaf_value plays it."""
    champion, value = (policy_file.load_policy(path).state_dict() for path in (CHAMPION_FILE, CHAMPION_VALUE_FILE))
    actor = [k for k in champion if k.startswith(("mlp_extractor.policy_net", "action_net"))]
    assert actor and all(torch.equal(champion[k], value[k]) for k in actor)
    assert value["mlp_extractor.value_net.0.weight"].shape[0] < champion["mlp_extractor.value_net.0.weight"].shape[0]
    searching = make_bot("champion:search=20:leaf_value=1", seed=0)
    assert searching.path == str(CHAMPION_VALUE_FILE) and make_bot("champion:search=20").path == str(CHAMPION_FILE)
    game = NefertitiGame(num_players=3, seed=2, characters="expansion", memphis=True)
    assert searching.act(game, game.current_player) in game.legal_actions()


def test_the_search_below_the_root_takes_its_exploration_constant():
    """c is the UCB constant of the search inside the tree; the default is the search bot's."""
    assert make_bot("champion:search=8:c=0.2").searcher.c == 0.2
    assert make_bot("champion:search=8").searcher.c == MCTSBot().c == 0.7


def test_sampling_champion_follows_its_seed():
    """champion:deterministic=0 samples from its own seeded generator: the same seed, the same game."""
    def play(seed):
        game = NefertitiGame(num_players=4, seed=5)
        bot = make_bot("champion:deterministic=0", seed=seed)
        while not game.is_over():
            game.apply(bot.act(game, game.current_player))
        return game.history
    assert play(9) == play(9)


def test_a_sampled_action_is_numpys_choice_from_the_same_state():
    """`ppo.sample` draws as `Generator.choice(n, p=...)` does: the same action, the generator left alike,
    for probabilities with zeros (illegal actions) anywhere."""
    from nefertiti_env.agents.ppo import sample
    source, ours, numpys = np.random.default_rng(1), np.random.default_rng(2), np.random.default_rng(2)
    for _ in range(2000):
        n = int(source.integers(2, 150))
        p = source.random(n) * (source.random(n) < 0.4)
        p[source.integers(n)] += 0.01
        p /= p.sum()
        assert sample(ours, p) == int(numpys.choice(n, p=p))
        assert ours.bit_generator.state == numpys.bit_generator.state



TABLES = [dict(num_players=2, setup="advanced", characters="expansion", memphis=True),
          dict(num_players=3, setup="beginner", characters="curse_of_amon", memphis=False),
          dict(num_players=4, setup="advanced", characters="intrigue_at_court", memphis=True),
          dict(num_players=5, setup="advanced", characters="race_for_the_nile", memphis=True)]


@pytest.mark.parametrize("table", TABLES, ids=lambda t: f"{t['num_players']}p-{t['setup']}-{t['characters']}")
def test_champion_plays_legal_reproducible_games_at_every_kind_of_table(table):
    """The whole-game champion at every seat of tables unlike the 4-player beginner one (the tutors at 2
    players, the scenarios, Memphis; docs/rules.md §1.1, §6.3, §7, §8): only legal actions, and the sampling champion
    replays the same game from the same seeds."""
    def play(seed):
        game = NefertitiGame(seed=21, **table)
        bots = [make_bot("champion:deterministic=0", seed=seed + s) for s in range(table["num_players"])]
        while not game.is_over():
            p = game.current_player
            action = bots[p].act(game, p)
            assert game.legal_action_mask()[action]
            game.apply(action)
        return game.history, game.scores().tolist()
    first = play(4)
    assert len(first[0]) > 10 * table["num_players"] and first == play(4)

# ---------------------------------------------------------------- with search at play time
def test_champion_with_search_loads_without_unpickling(monkeypatch):
    """champion:search=N reads the same safe file: every torch.load while it is made is weights_only."""
    from nefertiti_env.agents import ppo

    calls = []
    load = torch.load

    def spy(*args, **kwargs):
        calls.append(kwargs.get("weights_only"))
        return load(*args, **kwargs)
    monkeypatch.setattr(torch, "load", spy)
    ppo._load.cache_clear()                         # read the file now, not from an earlier test
    bot = make_bot("champion:search=20", seed=0)
    assert calls == [True]
    assert bot.searcher is not None and bot.searcher.prior == bot.probabilities


def _game_with_search(seed):
    """A 4-player game, champion:search at seats 0 and 2; (its moves, the game's history)."""
    bots = [make_bot(spec, seed=s) for s, spec in enumerate(["champion:search=30", "banker", "champion:search=30",
                                                             "mcts:iterations=30"])]
    game = NefertitiGame(num_players=4, seed=seed)
    moves = []
    while not game.is_over():
        p = game.current_player
        action = bots[p].act(game, p)
        assert game.legal_action_mask()[action]
        if p % 2 == 0:
            moves.append(action)
        game.apply(action)
    return moves, game.history


def test_champion_with_search_plays_legal_reproducible_games():
    moves, history = _game_with_search(11)
    assert len(moves) > 20 and (moves, history) == _game_with_search(11)


def _position(seed, moves=6):
    game = NefertitiGame(num_players=4, seed=seed)
    banker = make_bot("banker", seed=seed)
    for _ in range(moves):
        game.apply(banker.act(game, game.current_player))
    return game


def test_the_search_roots_follow_the_policy():
    """The root searches the policy's `width` most likely actions, not the heuristic's: on positions
    where the two differ, the searched actions are exactly the policy's."""
    differ = 0
    for seed in range(6):
        game = _position(seed)
        seat = game.current_player
        bot = make_bot("champion:search=40:width=3", seed=0)
        p = bot.probabilities(game, seat)
        values = bot.searcher.guide.action_values(game, seat)
        by_policy = set(sorted(game.legal_actions(), key=lambda a: p[a])[-3:])
        by_heuristic = set(sorted(values, key=values.get, reverse=True)[:3])
        assert set(bot.searcher.search(game, seat)) == by_policy
        differ += by_policy != by_heuristic
    assert differ >= 2


def test_the_puct_term_spends_visits_where_the_prior_points():
    """With every legal action at the root, a prior on the heuristic's worst action draws most of the
    visits to it; without the PUCT term it gets far fewer."""
    game = _position(3)
    seat = game.current_player
    values = make_bot("mcts", seed=0).guide.action_values(game, seat)
    worst = min(values, key=values.get)
    prior = np.zeros(len(game.legal_action_mask()))
    prior[worst] = 1.0

    def visits(puct):
        bot = MCTSBot(seed=0, iterations=400, width=0, prior=lambda g, s: prior, puct=puct)
        stats = bot.search(game, seat)
        return stats[worst][0] / sum(n for n, _ in stats.values())
    assert visits(5.0) > 0.5 and visits(5.0) > 3 * visits(0.0)


def _tampered(tmp_path, name, change):
    """A copy of the champion's file with `change` (a function of its dict) applied."""
    data = torch.load(CHAMPION_FILE, map_location="cpu", weights_only=True)
    change(data)
    path = tmp_path / name
    torch.save(data, path)
    return path


def _meta(**edit):
    def change(data):
        data["meta"] = json.dumps({**json.loads(data["meta"]), **edit})
    return change


@pytest.mark.parametrize("name, change, words", [
    ("huge.pt", _meta(net_arch=[8000, 8000]), "meta.net_arch must list 1..8 layer sizes of 1..4096"),
    ("deep.pt", _meta(net_arch=[4] * 9), "meta.net_arch must list"),
    ("claims.pt", _meta(net_arch=[4096, 4096]), "the weights do not fit meta.net_arch [4096, 4096]"),
    ("actions.pt", _meta(num_actions=10), "meta.num_actions must be 147"),
    ("size.pt", _meta(obs_size="657"), "meta.obs_size must be a positive integer"),
    ("notjson.pt", lambda d: d.update(meta="{"), "meta is not the model's JSON description"),
    ("nometa.pt", lambda d: d.pop("meta"), "meta is not the model's JSON description"),
    ("list.pt", lambda d: d.update(meta="[1]"), "meta must be a JSON object"),
    ("noweights.pt", lambda d: d.update(policy=[1, 2]), "policy must be the network's state dict"),
    ("missing.pt", lambda d: d["policy"].pop("value_net.bias"), "value_net.bias is missing"),
])
def test_a_model_file_whose_description_does_not_fit_is_refused_before_building(tmp_path, name, change, words):
    """Its meta and the shapes of its weights are checked before any network is built: one line naming
    the file and the field."""
    path = _tampered(tmp_path, name, change)
    start = time.perf_counter()
    with pytest.raises(policy_file.ModelFileError) as info:
        policy_file.load_policy(path)
    assert time.perf_counter() - start < 5 and str(path) in str(info.value) and words in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("content", [b"", b"garbage", b"PK\x03\x04broken zip", b"\x80\x02}q\x00."])
def test_a_file_that_is_no_model_is_one_error(tmp_path, content):
    path = tmp_path / "model.pt"
    path.write_bytes(content)
    with pytest.raises(policy_file.ModelFileError, match=str(path)):
        policy_file.load_policy(path)
