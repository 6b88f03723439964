"""Per-seat history: `history_for(seat)` is what that seat saw, like OpenSpiel's
information state. The Oracle player's choices of bottom places (which card it took, the new order)
are private: every other seat sees `HIDDEN` there; every public action is the same in every view."""
import numpy as np

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot
from nefertiti_env.core import HIDDEN
from nefertiti_env.core import actions as A
from nefertiti_env.encoding import observe

ORACLE_GAME = dict(num_players=3, characters="intrigue_at_court")


def oracle_game(seed: int, take: int = 0, order_first: int = 0) -> tuple[NefertitiGame, list[int]]:
    """A seeded random game in which a seat plays the Oracle as soon as it can, swaps one gift (taking
    the takeable place `take`, counted among those offered) and starts the new order with the offered
    place `order_first`; returns the game just after the Oracle and the history indices of its choices."""
    g = NefertitiGame(seed=seed, **ORACLE_GAME)
    rng = np.random.default_rng(seed)
    oracle = g.rules.characters.index(next(c for c in g.rules.characters if c.power == "oracle"))
    private, swapped = [], False
    while not g.is_over():
        legal = g.legal_actions()
        if A.CHARACTER + oracle in legal:
            g.apply(A.CHARACTER + oracle)
            break
        g.apply(legal[rng.integers(len(legal))])
    else:
        raise AssertionError(f"seed {seed}: nobody could play the Oracle")
    while g.state.char_index == oracle:
        legal, step = g.legal_actions(), g.state.char_step
        if step == 0:           # swap one gift if any can be, then stop
            a = legal[0] if not swapped and len(legal) > 1 else A.DONE
            swapped = swapped or a != A.DONE
        else:
            a = legal[min(take if step == 1 else order_first, len(legal) - 1)]
            private.append(len(g.history))
        g.apply(a)
    return g, private


def test_only_the_oracle_player_sees_its_private_choices():
    g, private = oracle_game(seed=3)
    oracle = g.state.oracle_seat
    assert len(private) >= 3, "the Oracle took a card and chose an order"
    for seat in g.seats():
        view = g.history_for(seat)
        assert len(view) == len(g.history)
        for i, (seen, real) in enumerate(zip(view, g.history)):
            if i in private:
                assert seen == (real if seat == oracle else HIDDEN)
            else:
                assert seen == real
        text = g.information_state_string(seat)
        assert ("?" in text) == (seat != oracle)
    assert g.record()["actions"] == g.history, "a record keeps every action (the referee's log)"


def test_the_view_survives_clone_replay_and_save():
    g, _ = oracle_game(seed=3)
    for copy in (g.clone(), NefertitiGame.replay(g.record()), NefertitiGame.from_json(g.to_json())):
        assert all(copy.history_for(s) == g.history_for(s) for s in g.seats())


def test_other_seats_cannot_tell_two_private_choices_apart():
    """Two games that differ only in the Oracle's order: every other seat's view, observation and
    bot decision are the same; the Oracle player's view differs."""
    g, _ = oracle_game(seed=3, order_first=0)
    h, _ = oracle_game(seed=3, order_first=1)
    oracle = g.state.oracle_seat
    assert g.history != h.history and g.history_for(oracle) != h.history_for(oracle)
    while not g.is_over() and g.current_player == oracle:        # the Oracle player's own turn goes on
        a = g.legal_actions()[0]
        g.apply(a)
        h.apply(a)
    seat = g.current_player
    assert seat != oracle
    for other in g.seats():
        if other != oracle:
            assert g.history_for(other) == h.history_for(other)
            assert np.array_equal(observe(g, other), observe(h, other))
    for spec in ("random", "greedy", "mcts:iterations=20"):
        assert make_bot(spec, seed=1).act(g, seat) == make_bot(spec, seed=1).act(h, seat), spec
