"""Random-play invariants over thousands of seeded 3- and 4-player games (docs/rules.md §1-§5).

After every decision: money, cards, seals and servants are conserved, a closed
market holds no servant once resolved, resolutions go in descending bid order, the
turn passes to the left, and the legal placements are exactly the empty visible
squares of open markets. At the end: the game ended within a bounded
number of decisions, and the scores equal a recomputation written here from the
ruleset tables (independent of scoring.py).
"""
import numpy as np
import pytest

from conftest import play_random
from nefertiti_env import NefertitiGame
from nefertiti_env.core import actions as A
from nefertiti_env.core.limits import NUM_MARKETS
from nefertiti_env.core.phases import PH_PLACE, PH_SECOND, PH_TURN

PLACING = (PH_TURN, PH_PLACE, PH_SECOND)

GAMES = 750                 # per player count: 1500 games
MAX_DECISIONS = 1000        # longest random games take about 200


def initial_counts(g) -> np.ndarray:
    """Cards per kind at setup, from the ruleset tables; the last entry is Akhenaton."""
    rs, n = g.rules, g.num_players
    counts = np.where(rs.kind_memphis, 0, rs.kind_count)
    for name in rs.players[n].remove_cards:
        counts[rs.kind_names.index(name)] = 0
    for name, extra in rs.players[n].add_cards.items():
        counts[rs.kind_names.index(name)] += extra
    return np.append(counts, 1)


def card_places(g) -> np.ndarray:
    """Cards per kind (then Akhenaton): undrawn deck + above the markets + owned + discarded (+ Akhenaton drawn)."""
    k = g.rules.num_kinds
    places = np.bincount(g.deck[g.state.deck_pos:], minlength=k + 1)
    places += np.bincount(g.state.slots.ravel() + 1, minlength=k + 2)[1:]      # +1: empty places (-1) in bin 0
    places[:k] += np.add.reduce(g.state.owned[:, :k], axis=0) + g.state.discarded[:k]
    places[k] += g.state.akhenaton_drawn
    return places


def recomputed_scores(g) -> list[int]:
    """docs/rules.md §5 by hand: items per type, value by owner count (1, 2, 3+), 1 per 2 Deben, 3 per seal, points."""
    rs, n = g.rules, g.num_players
    items = np.zeros((n, len(rs.type_names)), dtype=int)
    for p in range(n):
        for k in range(rs.num_kinds):
            items[p, rs.kind_type[k]] += int(g.state.owned[p, k]) * int(rs.kind_items[k])
    scores = []
    for p in range(n):
        total = 0
        for t in range(len(rs.type_names)):
            owners = int((items[:, t] > 0).sum())
            if items[p, t]:
                total += items[p, t] * int(rs.type_values[t, min(owners, 3) - 1])
        scores.append(total + int(g.state.money[p]) // 2 + 3 * int(g.state.seals[p]) + int(g.state.points[p]))
    return scores


class Invariants:
    """Totals fixed at setup and rules that hold after every decision of any game."""

    def __init__(self, g):
        self.money = int(g.state.money.sum() + g.state.reserve.sum() + g.state.deben_out)
        self.cards = initial_counts(g)
        self.seals = g.rules.setup["seals"]
        self.servants = np.full(g.num_players, g.rules.players[g.num_players].servants)
        assert (card_places(g) == self.cards).all()
        self.resolutions = 0
        self.turn_player = g.state.turn_player

    def check(self, g, was_resolving: int):
        money, reserve, seals = g.state.money.tolist(), g.state.reserve.tolist(), g.state.seals.tolist()
        assert sum(money) + sum(reserve) + g.state.deben_out == self.money, "§1: money is a closed system"
        assert g.state.seal_supply + sum(seals) + np.count_nonzero(g.state.seal_on) == self.seals, "§1: seals are conserved"
        assert min(money + reserve + seals + [g.state.seal_supply]) >= 0 and g.state.owned.min() >= 0
        assert np.array_equal(card_places(g), self.cards), "every card is in exactly one place"
        n = g.num_players
        on_board = np.bincount(g.state.occ.ravel() + 1, minlength=n + 1)[1:n + 1]
        assert np.array_equal(g.state.servants[:n] + on_board, self.servants), "servants are conserved"
        if g.state.res_market < 0:
            assert not (g.state.occ[:4] >= 0)[g.state.is_open[:4] == 0].any(), "§4: all servants back after each resolution"
        else:
            order = g.state.res_order[:g.state.res_order_n].tolist()
            assert order == sorted(order, reverse=True), "§4: descending bid order"
        if was_resolving >= 0 and g.state.res_market != was_resolving:
            self.resolutions += 1
            assert (g.state.occ[was_resolving] < 0).all()
        if g.state.turn_player != self.turn_player and not g.is_over():
            assert g.state.turn_player == (self.turn_player + 1) % n, "§2: the turn passes to the left"
            self.turn_player = g.state.turn_player
        if g.phase in PLACING:
            self.check_placements(g)

    @staticmethod
    def check_placements(g):
        """§2: a servant goes on any empty visible square of an open market; without one, close a market of yours."""
        mask = g.legal_action_mask()
        if g.state.servants[g.state.actor] > 0:
            visible = g.square_exists[np.arange(NUM_MARKETS), g.state.side]
            free = visible & (g.state.occ < 0) & (g.state.is_open[:, None] != 0)
            assert np.array_equal(mask[A.PLACE:A.CLOSE].reshape(NUM_MARKETS, -1) > 0, free)
            assert not mask[A.CLOSE:A.CHARACTER].any()
        elif g.phase != PH_SECOND:
            mine = (g.state.occ == g.state.actor).any(axis=1) & (g.state.is_open != 0)
            assert np.array_equal(mask[A.CLOSE:A.CHARACTER] > 0, mine) and not mask[A.PLACE:A.CLOSE].any()


def run_game(players: int, seed: int) -> tuple[NefertitiGame, int]:
    """One random game, beginner or advanced setup (all eight stalls), checked after every decision."""
    g = NefertitiGame(num_players=players, seed=seed, setup=("beginner", "advanced")[seed % 2])
    rng = np.random.default_rng(seed + 1000 * players)
    invariants = Invariants(g)
    for _ in range(MAX_DECISIONS):
        if g.is_over():
            break
        resolving = g.state.res_market
        play_random(g, rng, steps=1)
        invariants.check(g, resolving)
    assert g.is_over(), f"seed {seed}: the game did not end within {MAX_DECISIONS} decisions"
    return g, invariants.resolutions


@pytest.mark.parametrize("players", [3, 4])
def test_random_games_keep_every_invariant_and_end(players):
    """docs/rules.md §1-§5: conservation after every decision, bounded length, scores recomputed from the final state."""
    lengths, resolutions, akhenaton_ends = [], 0, 0
    for seed in range(GAMES):
        g, closed = run_game(players, seed)
        lengths.append(len(g.history))
        resolutions += closed
        akhenaton_ends += bool(g.state.akhenaton_drawn and g.state.dead[:4].sum() == 1)
        assert g.scores().tolist() == recomputed_scores(g), f"seed {seed}: §5 scores"
        scores = np.array(recomputed_scores(g))
        best = np.flatnonzero(scores == scores.max())
        money = g.state.money[best]
        assert g.winners() == best[money == money.max()].tolist(), f"seed {seed}: §5 winners"
        assert not g.legal_action_mask().any() and g.current_player == -1
    assert akhenaton_ends == GAMES, "every game ends through the Akhenaton card"
    assert resolutions >= 4 * GAMES
    assert max(lengths) < MAX_DECISIONS
