"""Restricted play (docs/balance.md, "Restricted play"; docs/engine.md, "Restricted play"): the engine
keeps a seat's forbidden actions out of its legal moves, for every bot kind, and lifts the restriction
only in counted forced decisions."""
from __future__ import annotations

import json

import numpy as np
import pytest

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import BOTS, make_bot
from nefertiti_env.agents.champion import CHAMPION_FILE, CHAMPION_STAGE1_FILE
from nefertiti_env.balance import runner, tables
from nefertiti_env.balance.restrict import Restriction
from nefertiti_env.core import IllegalActionError
from nefertiti_env.core import actions as A
from nefertiti_env.core.engine import layout as L
from nefertiti_env.core.phases import PH_TURN
from nefertiti_env.vector import NefertitiVectorEnv

# one spec per bot kind `agents.make_bot` knows (small search budgets: the restriction, not the play, is tested)
SPECS = {"random": "random", "greedy": "greedy", "collector": "collector", "banker": "banker",
         "mcts": "mcts:iterations=30", "ppo": f"ppo:path={CHAMPION_FILE}:deterministic=0", "champion": "champion",
         "mixture": f"mixture:paths={CHAMPION_FILE}+{CHAMPION_STAGE1_FILE}:deterministic=0"}
SEARCHING = ["champion:search=30"]       # the policy as the search's prior: the atlas's searching agent
LEAGUE = ["champion:league=1:deterministic=0"]      # the champion's league, one of four policies per game
LOUQSOR, THIEF = Restriction("market", "Louqsor"), Restriction("character", "Thief")


def test_every_bot_kind_is_covered():
    assert set(SPECS) == set(BOTS)


def _play(spec: str, seed: int, restriction: Restriction, seat: int) -> tuple[int, int, int]:
    """A full 4-player game with `spec` in every seat, `seat` restricted. Returns (forbidden actions
    taken by `seat` outside forced decisions, forbidden actions in forced ones, forced decisions)."""
    rules = NefertitiGame(4, seed=seed).rules
    forbidden = set(restriction.actions(rules))
    game = NefertitiGame(4, seed=seed, forbidden=restriction.forbidden(rules, seat, 4))
    bots = [make_bot(spec, seed=seed * 10 + s) for s in range(4)]
    free = forced_taken = forced = 0
    while not game.is_over():
        s = game.current_player
        lifted = game.is_forced()
        action = bots[s].act(game, s)
        if s == seat:
            forced += lifted
            if action in forbidden:
                forced_taken += lifted
                free += not lifted
        game.apply(action)
    return free, forced_taken, forced


def _taken_unrestricted(spec: str, seed: int, restriction: Restriction, seat: int) -> int:
    """How often `seat` takes the restriction's actions in the same game played without it."""
    rules = NefertitiGame(4, seed=seed).rules
    forbidden = set(restriction.actions(rules))
    game = NefertitiGame(4, seed=seed)
    bots = [make_bot(spec, seed=seed * 10 + s) for s in range(4)]
    taken = 0
    while not game.is_over():
        s = game.current_player
        action = bots[s].act(game, s)
        taken += s == seat and action in forbidden
        game.apply(action)
    return taken


@pytest.mark.parametrize("spec", [SPECS[kind] for kind in sorted(SPECS)] + SEARCHING + LEAGUE)
def test_restricted_seat_never_takes_a_forbidden_action_outside_forced_decisions(spec):
    """Every bot kind and the searching agent, four full games per restriction (the restricted seat
    rotating): the seat takes a forbidden action only in a decision the engine counts as forced; the same
    games unrestricted show the bot does place on Louqsor, so without the restriction this test fails."""
    unrestricted = 0
    for restriction in (LOUQSOR, THIEF):
        for seed in range(4):
            free, forced_taken, forced = _play(spec, seed, restriction, seat=seed % 4)
            assert free == 0, f"{spec}, {restriction.label}, seed {seed}: took a forbidden action {free} times"
            assert forced_taken <= forced
            if restriction is LOUQSOR:
                unrestricted += _taken_unrestricted(spec, seed, restriction, seed % 4)
    assert unrestricted > 0, f"{spec} never placed on Louqsor: the test could not fail"


def test_forced_decisions_offer_only_forbidden_actions_or_characters_besides():
    """A market restriction is lifted when that market holds the only free squares (random play reaches it
    with seeds 4, 8, 16): the decision is forced, its legal actions hold forbidden ones, and nothing but
    characters besides; every other decision of the seat holds none."""
    forced = 0
    for seed in (4, 8, 16):
        rules = NefertitiGame(4, seed=seed).rules
        forbidden = set(LOUQSOR.actions(rules))
        game = NefertitiGame(4, seed=seed, forbidden=[sorted(forbidden)] * 4)
        bots = [make_bot("random", seed=seed * 10 + s) for s in range(4)]
        while not game.is_over():
            s, legal = game.current_player, game.legal_actions()
            if game.is_forced():
                forced += 1
                assert forbidden & set(legal)
                assert all(a in forbidden or A.CHARACTER <= a < A.MARKET for a in legal)
            else:
                assert not forbidden & set(legal)
            if game.phase == PH_TURN:
                assert not all(A.CHARACTER <= a < A.MARKET for a in legal), "only characters offered"
            game.apply(bots[s].act(game, s))
    assert forced > 0


def test_a_forbidden_action_is_illegal_for_the_restricted_seat_only():
    """Both games take the first placement on Gizeh they can, the same actions, until the restricted seat
    would: other seats see the unrestricted legal actions, the restricted seat does not see the placement."""
    gizeh = Restriction("market", "Gizeh")
    rules = NefertitiGame(4, seed=1).rules
    forbidden = gizeh.actions(rules)
    for seat in range(4):
        game = NefertitiGame(4, seed=1, forbidden=gizeh.forbidden(rules, seat, 4))
        free = NefertitiGame(4, seed=1)
        while True:
            legal = free.legal_actions()
            action = next((a for a in legal if a in forbidden), legal[0])
            if game.current_player == seat and action in forbidden:
                break
            assert game.legal_actions() == legal
            game.apply(action)
            free.apply(action)
        assert action not in game.legal_actions() and not game.legal_action_mask()[action]
        assert not set(forbidden) & set(game.legal_actions()) and not game.is_forced()
        with pytest.raises(IllegalActionError):
            game.apply(action)


def test_no_restriction_is_the_unrestricted_game():
    """Empty lists are no option at all: the same rules array, options and records as without it."""
    a, b = NefertitiGame(4, seed=5), NefertitiGame(4, seed=5, forbidden=[[], [], [], []])
    assert a.R is b.R and a.options == b.options and "forbidden" not in a.options
    assert not a.R[L.RESTRICTED:].any()                  # the restriction fields (last in R) are zero
    with pytest.raises(ValueError, match="forbidden"):
        NefertitiGame(4, seed=5, forbidden=[[1000], [], [], []])
    with pytest.raises(ValueError, match="one list of action ids per seat"):
        NefertitiGame(4, seed=5, forbidden=[[1]])


def test_a_restricted_game_saves_and_replays():
    rules = NefertitiGame(4, seed=2).rules
    game = NefertitiGame(4, seed=2, forbidden=THIEF.forbidden(rules, 2, 4))
    bots = [make_bot("greedy", seed=s) for s in range(4)]
    for _ in range(60):
        game.apply(bots[game.current_player].act(game, game.current_player))
    loaded = NefertitiGame.from_json(game.to_json())
    assert loaded.options == game.options and np.array_equal(loaded.R, game.R)
    assert np.array_equal(loaded.S, game.S) and loaded.legal_actions() == game.legal_actions()
    replayed = NefertitiGame.replay(json.loads(json.dumps(game.record())))
    assert np.array_equal(replayed.S, game.S) and replayed.options["forbidden"] == game.options["forbidden"]


def test_the_batched_env_keeps_the_restriction():
    """The vector env shares the template's rules array: the restricted seat's masks hold a forbidden action
    only when nothing but characters would be left without it."""
    rules = NefertitiGame(4, seed=0).rules
    forbidden = np.array(LOUQSOR.actions(rules))
    env = NefertitiVectorEnv(16, seed=3, forbidden=LOUQSOR.forbidden(rules, 0, 4))
    _, masks, seats, *_ = env.reset()
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(300):
        for mask, seat in zip(masks, seats):
            if seat == 0 and mask[forbidden].any():
                others = mask.copy()
                others[forbidden] = 0
                others[A.CHARACTER:A.MARKET] = 0
                assert not others.any()
            seen += seat == 0
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, masks, seats, *_ = env.step(actions)
    assert seen > 100


def test_restricted_arms_differ_from_the_control():
    """docs/balance.md, "Restricted play": the same deals with greedy bots come out different once one seat
    may not place on Louqsor (with the old bot-side view, compiled bots played the control game for game)."""
    cfg_games = 6
    columns = tables.COLUMNS["games"]
    outcome = [columns.index(c) for c in ("turns", "decisions", "winners", *(f"score_{s}" for s in range(4)))]
    differ = 0
    for i in range(cfg_games):
        seed = 100 + i
        common = dict(ruleset="default", ruleset_file="default", players=4, index=i, seed=seed,
                      bots=("greedy",) * 4, bot_seeds=(1, 2, 3, 4))
        control = runner.play_job(runner.Job("control", **common))
        restricted = runner.play_job(runner.Job("no market Louqsor", **common, restricted_seat=i % 4,
                                                restriction=LOUQSOR))
        differ += [control["games"][0][c] for c in outcome] != [restricted["games"][0][c] for c in outcome]
        forced = [row[-1] for row in restricted["seats"]]
        assert all(f == 0 for s, f in enumerate(forced) if s != i % 4)
    assert differ >= cfg_games - 1
