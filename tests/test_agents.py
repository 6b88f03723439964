"""Bots: the interface on the core and in the PettingZoo env, legality to the end of a game,
seeding, the evaluation's scoring, hidden information, the terminal player."""
from __future__ import annotations

import copy
import io
import math
import tomllib

import numpy as np
import pytest

import nefertiti_env
from conftest import ABOU_SIMBEL, GIZEH, character, position, put, refresh
from nefertiti_env.agents import BOTS, MCTSBot, act_in_env, agent_for_env, make_bot, parse_spec, play_game
from nefertiti_env.agents import evaluation
from nefertiti_env.agents.champion import CHAMPION_FILE, CHAMPION_STAGE1_FILE
from nefertiti_env.agents.evaluation import settle
from nefertiti_env.agents.hidden import determinize
from nefertiti_env.agents.human import HumanBot, QuitGame
from nefertiti_env import NefertitiGame, load_ruleset
from nefertiti_env.core.ruleset import DEFAULT_RULESET
from nefertiti_env.core.scoring import final_scores

DEFAULT_RULES = tomllib.loads(DEFAULT_RULESET.read_text(encoding="utf-8"))
FAST = {"mcts": "mcts:iterations=8", "greedy": "greedy:samples=1",
        "mixture": f"mixture:paths={CHAMPION_FILE}+{CHAMPION_STAGE1_FILE}"}


def random_position(seed: int, decisions: int, players: int = 4) -> NefertitiGame:
    g = NefertitiGame(players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        legal = g.legal_actions()
        g.apply(legal[rng.integers(len(legal))])
    return g


def test_every_bot_plays_legal_moves_to_the_end_on_the_core():
    specs = [FAST.get(name, name) for name in BOTS]
    for players, seed in ((4, 1), (3, 2)):
        lineup = [specs[(i + seed) % len(specs)] for i in range(players)]
        game = play_game(NefertitiGame(players, seed=seed), [make_bot(s, seed=i) for i, s in enumerate(lineup)])
        assert game.is_over() and len(game.winners()) >= 1


def test_bots_play_in_the_pettingzoo_env():
    env = nefertiti_env.env(num_players=4)
    env.reset(seed=5)
    bots = dict(zip(env.possible_agents, [make_bot(s, seed=i) for i, s in
                                          enumerate(["random", "mcts:iterations=5", "collector", "banker"])]))
    policies = {agent: agent_for_env(env, bot) for agent, bot in bots.items()}
    steps = 0
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        action = policies[agent](observation, agent)
        if action is not None:
            assert observation["action_mask"][action] == 1
            steps += 1
        env.step(action)
    game = env.unwrapped.game
    assert game.is_over() and steps == len(game.history)


def test_act_in_env_returns_none_for_a_finished_agent():
    env = nefertiti_env.env(num_players=3)
    env.reset(seed=2)
    bot = make_bot("random", seed=0)
    while env.agents:
        env.step(act_in_env(env, bot))
    assert env.unwrapped.game.is_over()


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:iterations=10"])
def test_same_seed_same_decisions(spec):
    def decisions(seed):
        game, bot = random_position(3, 30), make_bot(spec, seed=seed)
        for _ in range(6):
            game.apply(bot.act(game, game.current_player))
        return game.history

    assert decisions(7) == decisions(7)


def test_make_bot_parses_parameters_and_names_errors():
    assert parse_spec("mcts:iterations=40:c=1.5") == ("mcts", {"iterations": 40, "c": 1.5})
    bot = make_bot("mcts:iterations=40", seed=1)
    assert isinstance(bot, MCTSBot) and bot.iterations == 40 and bot.name == "mcts:iterations=40"
    with pytest.raises(ValueError, match="unknown bot 'alphazero'.*known: random, greedy"):
        make_bot("alphazero")
    with pytest.raises(ValueError, match="greedy: unknown parameter 'depth'"):
        make_bot("greedy:depth=3")
    with pytest.raises(ValueError, match="must be key=value"):
        parse_spec("mcts:400")


def test_heuristics_beat_three_random_bots():
    """A real strength check, small: each heuristic wins most of 4 games against random."""
    for name in ("greedy", "collector", "banker"):
        wins = 0
        for seed in range(4):
            bots = [make_bot("random", seed=seed * 10 + s) for s in range(4)]
            bots[seed % 4] = make_bot(f"{name}:samples=1", seed=seed)
            game = play_game(NefertitiGame(4, seed=seed), bots)
            wins += (seed % 4) in game.winners()
        assert wins >= 3, name



def head_priest_position(servants: int = 2) -> NefertitiGame:
    """Seat 0 holds a seal, the Head Priest is the only character left, and each of two
    markets closes on seat 0's next servant there, seat 0 the highest bidder for gold or a
    necklace: two valuable placements, worth more than the seal together, not one alone.
    `servants`: the Head Priest's parameter (placements it grants) in the ruleset."""
    rules = copy.deepcopy(DEFAULT_RULES)
    rules["characters"]["head_priest"]["servants"] = servants
    g = position(4, seals=[1, 0, 0, 0], money=[20, 5, 5, 5], ruleset=load_ruleset(rules),
                 cards={GIZEH: ["gold", "chair", "harp"], ABOU_SIMBEL: ["necklace", "statuette", "harp"]})
    for market, value, seat in ((GIZEH, 8, 0), (GIZEH, 0, 1), (GIZEH, 2, 1),   # a 4th piece closes Gizeh
                                (ABOU_SIMBEL, 7, 0), (ABOU_SIMBEL, 6, 0)):     # a bid of 4 or more closes it
        put(g, market, value, seat)
    g.state.servants[0] = 3
    g.state.char_avail[:] = 0
    g.state.char_avail[character(g, "head_priest")] = 1
    refresh(g)
    return g


@pytest.mark.parametrize("name", ["greedy", "collector", "banker"])
def test_heuristics_play_the_head_priest_for_two_valuable_placements(name):
    """The Head Priest is credited with the placements its parameter grants: with two it is
    the best action here; granting one (a seal for nothing) it is not."""
    for servants, wanted in ((2, True), (1, False)):
        g = head_priest_position(servants)
        head_priest = g.string_to_action("character Head Priest")
        assert head_priest in g.legal_actions()
        action = make_bot(name, seed=0).act(g, 0)
        assert (action == head_priest) == wanted, (servants, g.action_to_string(action))


def test_heuristics_play_the_head_priest_in_games():
    """Over a few seeded all-heuristic games the Head Priest gets played (it never was before)."""
    bots = ["greedy", "collector", "banker", "greedy"]
    played = 0
    for seed in range(3):
        game = play_game(NefertitiGame(4, seed=seed), [make_bot(f"{b}:samples=1", seed=seed) for b in bots])
        played += int(game.state.char_played[:4, character(game, "head_priest")].sum())
    assert played >= 1


# ---------------------------------------------------------------- evaluation
def _position(g):
    """The evaluation's position of g (a `POSITION` record)."""
    pos = np.zeros(1, evaluation.POSITION)[0]
    evaluation.position_into(g.R, g.S, pos)
    return pos


def test_position_scores_match_the_core_scoring():
    """docs/rules.md §5: the evaluation's score is the core's, with Deben counted as 0.5 each."""
    for seed in range(6):
        g = random_position(seed, 40 + 20 * seed)
        score = _position(g).score
        core = final_scores(g)[: g.num_players]
        for p in range(g.num_players):
            assert score[p] - g.state.money[p] / 2 + g.state.money[p] // 2 == pytest.approx(core[p])


def test_position_fields_read_by_name_in_plain_python():
    """Under NUMBA_DISABLE_JIT=1 the kernels read a position's and the weights' fields as attributes of a numpy
    record, where a numpy scalar's method of the same name (`take`, `sum`, ...) would win over the field."""
    for record in (evaluation.POSITION, evaluation.WEIGHTS):
        value = np.zeros(1, record)[0]
        for name in record.names:
            assert isinstance(getattr(value, name), (np.ndarray, np.integer, np.floating)), name


def test_the_kernels_read_each_weight_by_its_name():
    """`evaluation.weights` views a bot's weights array as the `WEIGHTS` record: each field is the weight of
    that name (distinct values, so a field read from another's word fails)."""
    chosen = evaluation.Weights(*(0.25 + i for i in range(len(evaluation.WEIGHTS.names))))
    record = evaluation.weights(chosen.array())
    for name in evaluation.WEIGHTS.names:
        assert getattr(record, name) == getattr(chosen, name), name


def test_a_position_made_on_a_used_record_equals_one_made_on_a_fresh_one():
    """`position_into` clears every field of the record first (its scratch too), so a work space reused from
    position to position gives the same position as a fresh one: a field left out of the clearing fails."""
    g = random_position(2, 70)
    fresh = _position(g)
    used = np.zeros(1, evaluation.POSITION)
    for name in evaluation.POSITION.names:
        used[name] = 7
    evaluation.position_into(g.R, g.S, used[0])
    for name in evaluation.POSITION.names:
        assert np.array_equal(used[0][name], fresh[name]), name


def test_card_deltas_match_rescoring():
    """Giving a card in the evaluation changes every score as the core would rescore it."""
    g = random_position(4, 90)
    pos = _position(g)
    for kind in range(g.rules.num_kinds):
        if not g.rules.kind_count[kind]:
            continue
        evaluation.deltas_into(g.R, pos, 1, kind, 1)
        deltas = pos.deltas[:pos.rows].tolist()
        h = g.clone()
        h.state.owned[1, kind] += 1
        after = final_scores(h)[:4] - final_scores(g)[:4]
        assert deltas[:4] == pytest.approx(after.tolist()), g.rules.kind_names[kind]


# ------------------------------------------------------------ hidden info
def test_determinize_resamples_only_the_undrawn_order():
    g = random_position(6, 50)
    rng = np.random.default_rng(0)
    among_last = g.rules.setup["akhenaton_among_last"]
    orders = set()
    for _ in range(20):
        d = determinize(g, g.current_player, rng)
        assert (d.deck[: g.state.deck_pos] == g.deck[: g.state.deck_pos]).all()
        assert sorted(d.deck[g.state.deck_pos:]) == sorted(g.deck[g.state.deck_pos:])
        assert np.flatnonzero(d.deck == g.kind_akhenaton)[0] >= len(d.deck) - among_last
        assert (d.state.money == g.state.money).all() and (d.state.slots == g.state.slots).all()
        orders.add(tuple(d.deck[g.state.deck_pos:]))
    assert len(orders) > 15


def test_determinize_keeps_what_the_oracle_seat_saw():
    g = random_position(7, 30)
    g.state.oracle_seat, g.state.oracle_from = 2, len(g.deck) - 5
    rng = np.random.default_rng(1)
    bottoms = {tuple(determinize(g, 0, rng).deck[-5:]) for _ in range(10)}
    assert all((determinize(g, 2, rng).deck[-5:] == g.deck[-5:]).all() for _ in range(10))
    assert len(bottoms) > 1


def _other_hidden_order(g: NefertitiGame, seed: int) -> NefertitiGame:
    """The same public position with a different undrawn deck order and different future dice."""
    h = g.clone()
    rng = np.random.default_rng(seed)
    while (h.deck == g.deck).all():
        h.resample_hidden(g.current_player, rng)
    h.rng_state = np.random.PCG64(seed).state
    return h


def closing_position(seed: int) -> NefertitiGame:
    """A random position at a turn where some placement closes a market (so cards are drawn next)."""
    g = random_position(seed, 20)
    while True:
        legal = g.legal_actions()
        drawing = 0
        for a in legal:
            h = g.clone()
            h.apply(a)
            settle(h, np.random.default_rng(0))
            drawing += h.state.deck_pos > g.state.deck_pos
        if len(legal) >= 5 and drawing:
            return g
        g.apply(legal[seed % len(legal)])


def test_determinisation_depends_only_on_public_information():
    for seed in (8, 9, 10):
        g = closing_position(seed)
        h = _other_hidden_order(g, seed)
        seat = g.current_player
        d, e = determinize(g, seat, np.random.default_rng(1)), determinize(h, seat, np.random.default_rng(1))
        assert (d.deck == e.deck).all() and d.rng_state == e.rng_state


@pytest.mark.parametrize("spec", ["mcts:iterations=40", "greedy", "banker"])
def test_decisions_ignore_the_hidden_deck_order(spec):
    """Two games differing only in what no seat can know get the same action values (heuristics)
    or root statistics (search) from the same bot seed, hence the same decision."""
    for seed in (8, 9, 10):
        g = closing_position(seed)
        h = _other_hidden_order(g, seed)
        assert (g.deck[g.state.deck_pos:] != h.deck[h.state.deck_pos:]).any()
        look = "search" if spec.startswith("mcts") else "action_values"
        seat = g.current_player
        assert getattr(make_bot(spec, seed=3), look)(g, seat) == getattr(make_bot(spec, seed=3), look)(h, seat)


def test_mcts_time_budget_searches_in_whole_chunks_and_grows_its_tree():
    """`seconds` runs the compiled search in chunks until the deadline; the tree's arrays grow
    between chunks and keep the nodes made so far."""
    from nefertiti_env.agents.mcts import CHUNK, Tree

    g = random_position(4, 6)
    seat = g.current_player
    bot = make_bot("mcts:seconds=0.02", seed=0)
    bot._tree = Tree(1 + len(g.legal_actions()))              # as small as a search may start
    stats = bot.search(g, seat)
    iterations = sum(n for n, _ in stats.values()) - bot.prior_visits * len(stats)
    assert iterations >= CHUNK and iterations % CHUNK == 0
    assert bot._tree.used > len(stats) + 1 and len(bot._tree.total) >= bot._tree.used
    assert set(stats) <= set(g.legal_actions()) and all(0 < mean < 1 for _, mean in stats.values())


def test_mcts_without_prior_visits_tries_every_root_action_first():
    g = random_position(5, 6)
    stats = make_bot("mcts:iterations=30:prior_visits=0", seed=0).search(g, g.current_player)
    assert len(stats) == 8 and sum(n for n, _ in stats.values()) == 30
    assert all(n >= 1 for n, _ in stats.values())


def _children_and_depth(nodes, used):
    """{node: its children} below the root, and the deepest node's depth, of a search's tree."""
    from nefertiti_env.agents.mcts import CHILD, SIBLING

    children, depth, frontier = {}, 0, [(0, 0)]
    while frontier:
        node, d = frontier.pop()
        depth = max(depth, d)
        x, kids = nodes[node, CHILD], []
        while x >= 0:
            kids.append(x)
            x = nodes[x, SIBLING]
        if node:
            children[node] = kids
        frontier += [(x, d + 1) for x in kids]
    return children, depth


def test_mcts_widening_bounds_the_children_below_the_root_and_deepens_the_tree():
    """widen=0.5: a node visited N times has at most about sqrt(N + 1) children (legality varies between
    determinisations, hence the slack), where without it every reply is tried once; the same budget then
    reaches deeper."""
    from nefertiti_env.agents.mcts import VISITS

    g = random_position(4, 10)
    trees = {}
    for widen in (0.0, 0.5):
        bot = make_bot(f"mcts:iterations=1500:widen={widen}", seed=0)
        bot.search(g, g.current_player)
        trees[widen] = (*_children_and_depth(bot._tree.nodes, bot._tree.used), bot._tree.nodes)
    def busy(children, nodes):
        return [len(kids) for x, kids in children.items() if kids and nodes[x, VISITS] >= 20]

    (wide, wide_depth, wide_nodes), (narrow, narrow_depth, nodes) = trees[0.0], trees[0.5]
    assert all(len(kids) <= 2 * math.ceil((nodes[x, VISITS] + 1) ** 0.5) for x, kids in narrow.items())
    assert np.mean(busy(narrow, nodes)) < np.mean(busy(wide, wide_nodes)) / 2
    assert narrow_depth > wide_depth
    with pytest.raises(ValueError, match="widen must be in"):
        make_bot("mcts:widen=1")


# ------------------------------------------------------------------- human
def test_human_reads_numbers_and_text_and_answers_bad_input():
    g = NefertitiGame(4, seed=2)
    legal = g.legal_actions()
    out = io.StringIO()
    human = HumanBot(stdin=io.StringIO("foo\n99\nplace Nowhere 3\nmoves\n2\n"), stdout=out)
    assert human.act(g, g.current_player) == legal[1]
    text = out.getvalue()
    assert "cannot read 'foo'" in text and "no move number 99" in text and "unknown market 'nowhere'" in text
    assert f"2) {g.action_to_string(legal[1])}" in text

    name = g.action_to_string(legal[-1])
    human = HumanBot(stdin=io.StringIO(f"take half\n{name.upper()}\n"), stdout=io.StringIO())
    assert human.act(g, g.current_player) == legal[-1]


def test_human_quits_on_quit_or_end_of_input():
    g = NefertitiGame(3, seed=1)
    for text in ("quit\n", ""):
        with pytest.raises(QuitGame):
            HumanBot(stdin=io.StringIO(text), stdout=io.StringIO()).act(g, g.current_player)


# ------------------------------------------------------------ compiled code
def test_a_search_clone_copies_every_field_but_the_unused_tails():
    """`evaluation.clone_into` skips only the deck past `deck_len` and `oracle_given` past its length
    (docs/bots.md, "Compiled bots"): checked field by field, so a layout change that moves a field into
    a skipped range fails here."""
    from nefertiti_env.core.engine import layout as L

    g = NefertitiGame(num_players=4, seed=3)
    s = g.state
    s.oracle_given[:2], s.oracle_given_n = (1, 4), 2            # as if an Oracle had given two gifts
    copy_ = np.full(L.STATE_BYTES, 0xA7, dtype=np.uint8)
    evaluation.clone_into(copy_, g.S)
    c = L.state_view(copy_)
    assert {name for name in L.STATE_RECORD.names
            if not np.array_equal(getattr(c, name), getattr(s, name))} == {"deck", "oracle_given"}
    assert np.array_equal(c.deck[:s.deck_len], s.deck[:s.deck_len]) and (c.deck[s.deck_len:] == -89).all()
    assert np.array_equal(c.oracle_given[:2], s.oracle_given[:2]) and (c.oracle_given[2:] == -89).all()
