"""The observation encoding: layout, rotation, decision context, and that it hides the deck order."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nefertiti_env import NefertitiGame
from nefertiti_env.core import phases
from nefertiti_env.encoding import OBS_SIZE, observation_dict, observation_high, observe
from nefertiti_env.core.limits import MAX_KINDS
from nefertiti_env.core.ruleset import load_ruleset
from nefertiti_env.encoding.observation import _LOWEST, _WIDTH, BLOCKS, LINEAR, SHAPES, SLICES, seat_plan, \
    _build_plan, _state, card_name, layout_markdown

DOCS = Path(__file__).resolve().parent.parent / "docs" / "observation.md"


def block(obs: np.ndarray, name: str) -> np.ndarray:
    return obs[SLICES[name]].reshape(SHAPES[name])


def play_until(predicate, players: int = 4, seeds=range(200), max_steps: int = 2000, options=None) -> NefertitiGame:
    """The first position of random play (seeded) where `predicate(game)` holds."""
    for seed in seeds:
        g = NefertitiGame(num_players=players, seed=seed, **(options or {}))
        rng = np.random.default_rng(seed)
        for _ in range(max_steps):
            if predicate(g):
                return g
            if g.is_over():
                break
            g.apply(int(rng.choice(g.legal_actions())))
    raise AssertionError("no random game reached the wanted position")


def positions(players: int, seed: int, every: int = 7):
    """Positions along one seeded random game (every few decisions, and the end)."""
    g = NefertitiGame(num_players=players, seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while not g.is_over():
        if step % every == 0:
            yield g
        g.apply(int(rng.choice(g.legal_actions())))
        step += 1
    yield g


def with_deck_permuted(g: NefertitiGame, rng, start: int | None = None, stop: int | None = None) -> NefertitiGame:
    """The same position, except that the deck cards in [start, stop) (default: all undrawn) are in another order."""
    state = json.loads(g.to_json())
    deck = state["state"]["deck"]
    start = state["state"]["deck_pos"] if start is None else start
    stop = len(deck) if stop is None else stop
    part = deck[start:stop]
    assert len(set(part)) > 1, "nothing to permute"
    while (shuffled := rng.permutation(part).tolist()) == part:
        pass
    state["state"]["deck"] = deck[:start] + shuffled + deck[stop:]
    return NefertitiGame.from_json(json.dumps(state), ruleset=g.rules)


def with_state(g: NefertitiGame, edit) -> NefertitiGame:
    """A copy of the position with `edit(state dict)` applied through the JSON state."""
    state = json.loads(g.to_json())
    edit(state["state"])
    return NefertitiGame.from_json(json.dumps(state), ruleset=g.rules)


@pytest.mark.parametrize("players", [3, 4])
def test_vector_shape_dtype_and_bounds_over_random_play(players):
    for g in positions(players, seed=players):
        for seat in range(players):
            obs = observe(g, seat)
            assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
            assert (obs >= 0).all() and (obs <= observation_high(g.rules)).all()
            assert block(obs, "phase").sum() == 1 and block(obs, "phase")[g.phase] == 1


def test_same_length_for_every_player_count_and_padding_rows_are_zero():
    obs3 = observe(NefertitiGame(num_players=3, seed=0), 0)
    obs4 = observe(NefertitiGame(num_players=4, seed=0), 0)
    assert obs3.shape == obs4.shape
    seats3 = block(obs3, "seat")
    assert seats3[:3, 0].tolist() == [1, 1, 1]
    assert not block(obs3, "seat")[3:].any() and not block(obs3, "seat_gifts")[3:].any()
    assert block(obs3, "players").tolist() == [0, 0, 1, 0, 0] and block(obs4, "players")[3] == 1


def test_deck_order_is_hidden_from_every_seat():
    """Two games that differ only in the order of the undrawn cards look identical to every seat."""
    rng = np.random.default_rng(0)
    checked = 0
    for players in (3, 4):
        for g in positions(players, seed=11, every=13):
            if len(set(g.deck[g.state.deck_pos:].tolist())) < 2:
                continue
            other = with_deck_permuted(g, rng)
            checked += 1
            for seat in range(players):
                assert np.array_equal(observe(g, seat), observe(other, seat))
                assert observation_dict(g, seat) == observation_dict(other, seat)
    assert checked >= 5


def test_a_visible_card_swapped_with_an_undrawn_one_changes_the_observation():
    """The counterpart of the deck test: the encoding does see the cards above the markets."""
    g = NefertitiGame(num_players=4, seed=3)
    market, place = next((m, k) for m in range(4) for k in range(4) if g.state.slots[m, k] >= 0)
    visible = int(g.state.slots[market, place])
    j = next(i for i in range(g.state.deck_pos, len(g.deck)) if g.deck[i] not in (visible, g.kind_akhenaton))

    def swap(s):
        s["slots"][market][place], s["deck"][j] = s["deck"][j], visible
    other = with_state(g, swap)
    assert not np.array_equal(observe(g, 0), observe(other, 0))


def test_rotation_puts_the_observer_first():
    g = NefertitiGame(num_players=4, seed=5)
    g.state.money[:4] = [3, 17, 29, 11]
    obs = observe(g, 1)
    money = block(obs, "seat")[:4, 1] * 40
    assert np.allclose(money, [17, 29, 11, 3])          # self, +1, +2, +3 to the left
    assert np.allclose(block(observe(g, 3), "seat")[:4, 1] * 40, [11, 3, 17, 29])


def test_copied_blocks_equal_the_rotated_game_arrays():
    g = play_until(lambda g: g.state.owned[:4].sum() >= 6 and g.state.char_played.any() and g.state.discarded.any())
    n, nk = g.num_players, g.rules.num_kinds
    for seat in range(n):
        obs = observe(g, seat)
        rows = [(seat + r) % n for r in range(n)]
        seats = block(obs, "seat")
        for col, (name, scale) in enumerate([("money", 40), ("seals", 12), ("points", 100), ("servants", 5),
                                              ("tutors", 2)], 1):
            assert np.allclose(seats[:n, col] * scale, getattr(g.state, name)[rows]), name
        assert np.allclose(block(obs, "seat_gifts")[:n, :nk] * 5, g.state.owned[rows, :nk])
        assert np.allclose(block(obs, "seat_characters")[:n], g.state.char_played[rows])
        markets = block(obs, "market")
        assert np.array_equal(markets[:, 0], g.state.is_open) and np.array_equal(markets[:, 1], g.state.dead)
        assert np.array_equal(markets[:, 2], g.state.side) and np.allclose(markets[:, 3] * 40, g.state.reserve)
        assert np.array_equal(markets[:, 4], g.state.seal_on)
        assert np.allclose(block(obs, "characters_available") * 3, g.state.char_avail)
        assert np.allclose(block(obs, "discarded")[:nk] * 5, g.state.discarded[:nk])
        unseen = np.bincount(g.deck[g.state.deck_pos:], minlength=nk + 1)[:nk]
        assert np.allclose(block(obs, "unseen")[:nk] * 5, unseen)


def test_cards_and_pieces_on_the_board():
    g = play_until(lambda g: (g.state.occ >= 0).sum() >= 4 and g.phase == phases.PH_TURN)
    for seat in range(g.num_players):
        obs = observe(g, seat)
        cards = block(obs, "market_cards")
        for m, k in zip(*np.nonzero(g.state.slots >= 0)):
            assert cards[m, k, g.state.slots[m, k]] == 1 and cards[m, k].sum() == 1
        assert cards.sum() == (g.state.slots >= 0).sum()
        occupants = block(obs, "market_occupants")
        for m, v in zip(*np.nonzero(g.state.occ >= 0)):
            rel = (g.state.occ[m, v] - seat) % g.num_players
            assert occupants[m, v, rel] == 1 and occupants[m, v].sum() == 1
        assert occupants.sum() == (g.state.occ >= 0).sum()
        squares = block(obs, "market_squares")
        assert np.array_equal(squares[..., 0], g.square_exists[np.arange(5), g.state.side])


def test_turn_and_deciding_flags_follow_the_resolution():
    """docs/rules.md §4: during a resolution each servant's owner decides, not the turn player."""
    g = play_until(lambda g: g.phase == phases.PH_OTHER and g.current_player != g.state.turn_player)
    for seat in range(g.num_players):
        obs = observe(g, seat)
        roles = block(obs, "seat_role")
        assert roles[(g.state.turn_player - seat) % 4, 0] == 1 and roles[:, 0].sum() == 1
        assert roles[(g.current_player - seat) % 4, 1] == 1 and roles[:, 1].sum() == 1
        assert block(obs, "global")[4] == (seat == g.current_player)       # observer decides
        assert block(obs, "market_resolving")[g.state.res_market] == 1 and block(obs, "market_resolving").sum() == 1
        assert block(obs, "bid")[g.state.res_order[g.state.res_pos]] == 1 and block(obs, "bid").sum() == 1


def test_highest_bidder_stage_is_encoded():
    """docs/rules.md §4: the highest bidder's picks are a sequence of decisions."""
    g = play_until(lambda g: g.phase == phases.PH_HIGH)
    stage = block(observe(g, g.current_player), "high_stage")
    assert stage[g.state.res_stage] == 1 and stage.sum() == 1


def test_character_in_progress_and_its_selections():
    """docs/rules.md §6: the Merchant's give and target choices are visible while it is played."""
    merchant = [c.power for c in NefertitiGame(seed=0).rules.characters].index("merchant")
    g = play_until(lambda g: g.state.char_index == merchant and g.state.char_step == 2, seeds=range(600))
    seat = g.current_player
    obs = observe(g, seat)
    assert block(obs, "character")[merchant] == 1
    assert block(obs, "character_step")[2] == 1
    assert block(obs, "character_kind")[g.state.char_sel[0]] == 1
    assert block(obs, "character_owner")[(g.state.char_sel[1] - seat) % g.num_players] == 1
    view = observation_dict(g, seat)["character"]
    assert view["name"] == "Merchant" and view["selections"][1]["owner"] == g.state.char_sel[1]


def test_observation_dict_is_readable_and_matches_the_game():
    g = play_until(lambda g: g.phase == phases.PH_OTHER)
    for seat in range(g.num_players):
        view = observation_dict(g, seat)
        json.dumps(view)                                                  # plain data only
        assert [s["seat"] for s in view["seats"]] == [(seat + r) % 4 for r in range(4)]
        assert view["seats"][0]["money"] == g.state.money[seat]
        assert view["phase"] == "buy or take half" and view["deciding_seat"] == g.current_player
        assert [m["name"] for m in view["markets"]] == ["Gizeh", "Akhet-Aton", "Abou Simbel", "Louqsor"]
        assert view["resolution"]["bid"] == g.state.res_order[g.state.res_pos]
        if seat == g.current_player:
            assert view["legal_actions"] == {a: g.action_to_string(a) for a in g.legal_actions()}
            assert "take half" in view["legal_actions"].values()
        else:
            assert view["legal_actions"] == {}


def test_docs_table_matches_the_layout():
    assert layout_markdown() in DOCS.read_text()


EXPANSION_ROSTER = ["oracle", "roaming_thief", "trader", "beggar", "merchant", "thief"]


@pytest.mark.parametrize("players, options", [(2, {}), (5, {}), (4, {"memphis": True}),
                                              (3, {"characters": EXPANSION_ROSTER})])
def test_every_table_and_option_set_fits_the_same_vector(players, options):
    """docs/rules.md §7-§8 and the expansion characters: same length, in bounds, one phase.
    Every number an indicator block looks at lies in the range of the encoder's lookup table."""
    g = NefertitiGame(num_players=players, seed=1, **options)
    rng = np.random.default_rng(1)
    while not g.is_over():
        for seat in range(players):
            numbers = _state(g, seat).take(seat_plan(g, seat).ind_src)
            assert ((numbers >= _LOWEST) & (numbers < _LOWEST + _WIDTH)).all()
            obs = observe(g, seat)
            assert obs.shape == (OBS_SIZE,) and (obs >= 0).all() and (obs <= observation_high(g.rules)).all()
            assert block(obs, "phase").sum() == 1
            assert block(obs, "seat")[5, 0] == (players == 2)                  # the neutral player's row
            json.dumps(observation_dict(g, seat))
        g.apply(int(rng.choice(g.legal_actions())))


def test_oracle_player_sees_the_bottom_cards_and_nobody_else_does():
    """docs/rules.md §6 (Oracle): the cards seen stay known to that seat only."""
    g = play_until(lambda g: g.state.oracle_seat >= 0 and g.state.char_index < 0
                   and len(set(g.deck[max(g.state.deck_pos, g.state.oracle_from):].tolist())) > 1
                   and len(set(g.deck[g.state.deck_pos:g.state.oracle_from].tolist())) > 1,
                   players=4, seeds=range(300), options={"characters": EXPANSION_ROSTER})
    rng = np.random.default_rng(0)
    oracle, known_from = g.state.oracle_seat, max(g.state.deck_pos, g.state.oracle_from)
    known = g.deck[known_from:][::-1]
    obs = block(observe(g, oracle), "known_cards")
    for i, code in enumerate(known.tolist()):
        assert obs[i, code if code < g.rules.num_kinds else -1] == 1 and obs[i].sum() == 1
    assert not obs[len(known):].any()
    hidden_unseen = block(observe(g, oracle), "unseen")[:g.rules.num_kinds] * 5
    assert np.allclose(hidden_unseen, np.bincount(g.deck[g.state.deck_pos:known_from], minlength=g.rules.num_kinds + 1)
                       [:g.rules.num_kinds])

    unknown_shuffled = with_deck_permuted(g, rng, stop=known_from)
    known_shuffled = with_deck_permuted(g, rng, start=known_from)
    for seat in range(4):
        assert np.array_equal(observe(g, seat), observe(unknown_shuffled, seat))
        same = np.array_equal(observe(g, seat), observe(known_shuffled, seat))
        assert same == (seat != oracle)
        assert not block(observe(g, seat), "known_cards").any() or seat == oracle
    assert observation_dict(g, oracle)["deck"]["known_from_bottom"] == [card_name(g, c) for c in known]


def test_a_face_down_card_shows_its_kind_and_the_face_down_flag():
    """Beggar (expansion, docs/rules.md §6): every seat saw the gift face up before it was turned face down, so it
    keeps its kind, gains the face-down flag and is not among the unseen cards; its identity matters (a
    different kind face down gives another observation)."""
    g = play_until(lambda g: (g.state.face_down & (g.state.slots >= 0)).any() and g.state.oracle_seat < 0, players=4,
                   seeds=range(300), options={"characters": EXPANSION_ROSTER})
    m, k = map(int, np.argwhere(g.state.face_down & (g.state.slots >= 0))[0])
    kind = int(g.state.slots[m, k])
    obs = observe(g, 0)
    expected = [0] * (MAX_KINDS + 2)
    expected[kind] = expected[MAX_KINDS] = 1
    assert block(obs, "market_cards")[m, k].tolist() == expected
    undrawn = np.bincount(g.deck[g.state.deck_pos:], minlength=g.rules.num_kinds + 1)[:g.rules.num_kinds]
    assert np.allclose(block(obs, "unseen")[:g.rules.num_kinds] * 5, undrawn)
    card = observation_dict(g, 0)["markets"][m]["cards"]
    assert {"place": "upper" if k == 0 else k, "card": card_name(g, kind), "face_down": True} in card
    j = next((i for i in range(g.state.deck_pos, len(g.deck)) if g.deck[i] not in (kind, g.kind_akhenaton)), None)
    assert j is not None

    def swap(s):                                          # the face-down card and an undrawn one swap kinds
        s["slots"][m][k], s["deck"][j] = s["deck"][j], kind
    other = with_state(g, swap)
    for seat in range(4):
        assert not np.array_equal(observe(g, seat), observe(other, seat))


def test_the_roaming_thief_card_on_the_board_has_its_own_column():
    """Roaming Thief (expansion): the card left in a market is shown as such, not as a gift."""
    g = play_until(lambda g: (g.state.slots == g.kind_roaming).any(), players=4, seeds=range(300),
                   options={"characters": EXPANSION_ROSTER})
    m, k = map(int, np.argwhere(g.state.slots == g.kind_roaming)[0])
    cards = block(observe(g, 0), "market_cards")
    assert cards[m, k].tolist() == [0] * (MAX_KINDS + 1) + [1]
    assert any(c["card"] == "Roaming Thief" for c in observation_dict(g, 0)["markets"][m]["cards"])


def test_bounds_hold_to_the_last_float32_bit():
    """A bound is the encoder's own float32 value for the most a number can be: computed in float64
    instead, 7/6 rounded below the encoder's 1.1666667 and this 2-player Memphis game broke it."""
    g = NefertitiGame(num_players=2, memphis=True, characters="expansion", seed=88)
    high, rng = observation_high(g.rules), np.random.default_rng(88)
    while not g.is_over():
        for seat in range(2):
            assert (observe(g, seat) <= high).all(), f"decision {len(g.history)}, seat {seat}"
        legal = g.legal_actions()
        g.apply(legal[rng.integers(len(legal))])


def test_every_block_is_filled_by_the_plan():
    """Each block of BLOCKS has entries the encoder's tables write (a linear entry with a slope or an offset,
    an indicator entry some value lights), at some table: a block declared but left out of `_build_plan`
    would stay zero in every observation."""
    written = np.zeros(OBS_SIZE, dtype=bool)
    for players in range(2, 6):
        plan = _build_plan(load_ruleset(), players, 0)
        written[:LINEAR] |= (plan.a != 0) | (plan.b != 0)
        written[plan.lit[plan.lit < OBS_SIZE]] = True
    assert [name for name, *_ in BLOCKS if not written[SLICES[name]].any()] == []
