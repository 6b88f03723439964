"""Hidden information (docs/rules.md §1 deck, expansion Oracle): what a seat may know of the undrawn deck.

Two states that differ only in the order of undrawn cards a seat has not seen must look the same to that
seat: identical observation vectors (v0 and the compact v1), readable views and legal actions. The Oracle's player knows the bottom
cards from then on (`known_cards`), and no other player does. `resample_hidden` reshuffles exactly the
cards a seat has not seen, keeping the Akhenaton card among the last five places.
"""
from collections import Counter

import numpy as np
import pytest

from conftest import act, card_code, give, play_random, position, refresh
from nefertiti_env import NefertitiGame
from nefertiti_env.encoding import observation_dict, observe, observe_v1

SETTINGS = [(2, True, "intrigue_at_court"), (3, False, "expansion"), (4, True, "intrigue_at_court"),
            (5, True, "expansion"), (3, True, "base")]
AMONG_LAST = 5


def unseen_places(g, seat) -> list[int]:
    """Undrawn deck places whose card `seat` has not seen."""
    known = g.known_cards(seat)
    return [pos for pos in range(g.state.deck_pos, len(g.deck)) if pos not in known]


def reordered(g, places: list[int], rng) -> NefertitiGame:
    """A copy of g whose cards in `places` are permuted so that the order visibly changes."""
    h = g.clone()
    cards = h.deck[places]
    for _ in range(20):
        order = rng.permutation(len(places))
        if not np.array_equal(cards[order], cards):
            break
    h.deck[places] = cards[order]
    refresh(h)
    return h


def looks_the_same(g, h, seat) -> bool:
    same = all(np.array_equal(encoder(g, seat), encoder(h, seat)) for encoder in (observe, observe_v1)) \
        and observation_dict(g, seat) == observation_dict(h, seat)
    if g.current_player == seat:
        same = same and g.legal_actions() == h.legal_actions()
    return same


def positions(players, memphis, characters, seed, every=7):
    """Positions along a seeded random game (the game goes on after each)."""
    g = NefertitiGame(num_players=players, seed=seed, memphis=memphis, characters=characters,
                      setup=("beginner", "advanced")[seed % 2])
    rng = np.random.default_rng(seed)
    while not g.is_over():
        yield g
        play_random(g, rng, steps=every)


@pytest.mark.parametrize("players, memphis, characters", SETTINGS)
def test_unseen_deck_order_changes_no_observation_or_legal_action(players, memphis, characters):
    """docs/rules.md §1: the deck order is hidden: permuting the undrawn cards a seat has not seen (all of them, or all
    but the Oracle player's known bottom cards) changes nothing that seat observes or may do."""
    rng = np.random.default_rng(players)
    checked = oracle_positions = 0
    for seed in range(6):
        for g in positions(players, memphis, characters, seed):
            for seat in range(players):
                places = unseen_places(g, seat)
                if len(set(g.deck[places].tolist())) < 2:
                    continue
                h = reordered(g, places, rng)
                assert looks_the_same(g, h, seat), f"seed {seed}, seat {seat}, decision {len(g.history)}"
                checked += 1
                oracle_positions += seat == g.state.oracle_seat
    assert checked > 100
    if characters == "intrigue_at_court":
        assert oracle_positions > 0, "random play reaches the Oracle"


# ---------------------------------------------------------------------------------- Oracle

def after_oracle(players=3):
    """Seat 0 has played the Oracle (no swap, bottom order unchanged) and is placing its servant."""
    g = position(players, seals=[1] + [0] * (players - 1), characters=["oracle"])
    g.deck[-5:] = [card_code(g, name) for name in ["mirror", "harp", "akhenaton", "chair", "gold"]]
    refresh(g)
    act(g, "character Oracle", "done", "card 0", "card 1", "card 2", "card 3")
    return g


def test_oracle_player_observation_shows_the_known_bottom_cards():
    """Expansion, Oracle: from then on that player's observation includes the bottom cards: a different order
    of them is a different observation for that player, for the other players it is not."""
    g = after_oracle()
    h = g.clone()
    h.deck[-5:] = h.deck[-5:][[1, 0, 2, 4, 3]]
    refresh(h)
    assert g.known_cards(0) != h.known_cards(0)
    assert not np.array_equal(observe(g, 0), observe(h, 0))
    assert not np.array_equal(observe_v1(g, 0), observe_v1(h, 0))
    assert observation_dict(g, 0) != observation_dict(h, 0)
    for seat in (1, 2):
        assert h.known_cards(seat) == {}
        assert looks_the_same(g, h, seat)


def test_oracle_player_does_not_see_the_rest_of_the_deck():
    """Expansion, Oracle: only the bottom five are seen; the order above them stays hidden from that player too."""
    g = after_oracle()
    rng = np.random.default_rng(0)
    places = unseen_places(g, 0)
    assert places == list(range(g.state.deck_pos, len(g.deck) - AMONG_LAST))
    assert looks_the_same(g, reordered(g, places, rng), 0)


def test_only_the_oracle_player_knows_the_bottom_cards():
    """Expansion, Oracle: `known_cards` is the Oracle player's alone (and nobody's before the Oracle)."""
    g = position(4, seals=[0, 0, 1, 0], turn=2, characters=["oracle"])
    assert all(g.known_cards(seat) == {} for seat in range(4))
    give(g, 2, harp=1)
    act(g, "character Oracle", "done", "card 4", "card 3", "card 2", "card 1")
    n = len(g.deck)
    assert sorted(g.known_cards(2)) == list(range(n - 5, n))
    assert all(g.known_cards(seat) == {} for seat in (0, 1, 3))


# ------------------------------------------------------------------------- resample_hidden

def test_resample_hidden_keeps_known_cards_akhenaton_low_and_the_multiset():
    """`resample_hidden`: the seen cards stay in place (drawn ones and the Oracle's), the Akhenaton card stays
    among the last five places, the undrawn multiset is kept, and the hidden order does change."""
    g = after_oracle()
    for seat in range(3):
        orders = set()
        for seed in range(20):
            h = g.clone()
            h.resample_hidden(seat, np.random.default_rng(seed))
            assert Counter(h.deck.tolist()) == Counter(g.deck.tolist())
            assert np.array_equal(h.deck[:g.state.deck_pos], g.deck[:g.state.deck_pos])
            assert all(h.deck[pos] == card for pos, card in g.known_cards(seat).items())
            assert len(h.deck) - list(h.deck).index(h.kind_akhenaton) <= AMONG_LAST
            orders.add(tuple(h.deck.tolist()))
        assert len(orders) > 10
        if seat != 0:
            bottoms = {order[-AMONG_LAST:] for order in orders}
            assert len(bottoms) > 1, "the bottom cards are hidden from the other players"


@pytest.mark.parametrize("players, memphis, characters", SETTINGS)
def test_resample_hidden_along_random_games(players, memphis, characters):
    """`resample_hidden` at random positions: the seat sees the same game afterwards, the multiset is kept."""
    rng = np.random.default_rng(1)
    for seed in range(3):
        for g in positions(players, memphis, characters, seed, every=11):
            seat = int(rng.integers(players))
            h = g.clone()
            h.resample_hidden(seat, rng)
            assert Counter(h.deck[g.state.deck_pos:].tolist()) == Counter(g.deck[g.state.deck_pos:].tolist())
            assert h.known_cards(seat) == g.known_cards(seat)
            if not g.state.akhenaton_drawn:
                assert len(h.deck) - list(h.deck).index(h.kind_akhenaton) <= AMONG_LAST
            assert looks_the_same(g, h, seat)


def test_resample_hidden_is_seeded():
    """Same generator seed, same determinisation."""
    g = position(4)
    a, b = g.clone(), g.clone()
    a.resample_hidden(1, np.random.default_rng(5))
    b.resample_hidden(1, np.random.default_rng(5))
    assert np.array_equal(a.deck, b.deck) and not np.array_equal(a.deck, g.deck)
