"""One-step lookahead bots: greedy and the archetypes (collector, banker), compiled.

Each legal action is applied to a determinised copy of the state (hidden deck order and dice
re-sampled: `engine.hidden.determinize`), the market resolution it may trigger is played
out with `evaluation.quick_action`, and the resulting position is scored by
`evaluation.seat_value_in` under the bot's `Weights`. An action that draws cards or
rolls dice is averaged over `samples` determinisations. A character is valued by
the position after its choices (each looking `power_depth` choices ahead) plus the
gain of the best placement, since a character is always followed by a placement; a
character that grants more placements this turn (the Head Priest) is also credited
with the best of each further placement, played one after the other.
The archetypes differ only in their weights, i.e. in what they think a position is
worth, which makes their plans differ. The lookahead is numba kernels over the engine's
arrays (docs/bots.md, "Compiled bots"); `HeuristicBot` is their Python face.
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.engine import hidden, layout as L, step
from nefertiti_env.core.engine.closing import ClosingKind
from nefertiti_env.core.engine.entry import borrow, njit, typed_entry
from nefertiti_env.core.engine.rng import rng_shuffle, rng_state, rng_words
from nefertiti_env.core.limits import NUM_BIDS
from nefertiti_env.core.phases import PH_CHARACTER, PH_SECOND, TURN_PHASES

from .base import Agent
from .evaluation import Weights, borrowed, clone_into, hot, legal_row, prefixes_into, scratch, seat_value_in, \
    seat_value_near, settle_in


class HeuristicBot(Agent):
    """Picks the action whose resulting position `seat_value_in` rates highest.

    weights: the evaluation weights (see `evaluation.Weights`).
    samples: determinisations averaged for an action that draws cards or rolls dice.
    power_depth: choices of a character's power searched ahead before valuing.
    """

    name = "heuristic"
    weights = Weights()
    bounds = {"samples": ">= 1", "power_depth": ">= 0"}

    def __init__(self, seed: int | None = None, samples: int = 2, power_depth: int = 3, **weights):
        self._G = np.zeros(L.RNG_WORDS, dtype=np.int64)    # the generator, as the kernels draw from it
        super().__init__(seed)
        self.samples, self.power_depth = samples, power_depth
        if weights:
            self.weights = Weights(**{**self.weights.__dict__, **weights})
        self._w = self.weights.array()
        self._keys = np.empty(A.NUM_ACTIONS, dtype=np.int64)
        self._values = np.empty(A.NUM_ACTIONS, dtype=np.float64)
        self._scratch = scratch(levels(power_depth))      # the work space of `action_values` and `power_choice`

    @property
    def rng(self) -> np.random.Generator:
        """The bot's numpy generator. The kernels draw from a copy of its words (`_G`), written
        back only when `rng` is read, so a game of decisions costs no conversions: read `rng`
        again after a decision rather than keep the object from before it."""
        if self._G_ahead:
            self._rng.bit_generator.state = rng_state(self._G)
            self._G_ahead = False
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng, self._G_ahead = value, False

    def act(self, game, seat: int) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return int(_best_action(game.R, game.S, seat, self.generator(), self._w, self.samples, self.power_depth,
                                self._keys, self._values))

    def action_values(self, game, seat: int) -> dict[int, float]:
        """The one-step value of every legal action for `seat` (in random order, for tie-breaks)."""
        n = self._run(game, seat)
        return dict(zip(self._keys[:n].tolist(), self._values[:n].tolist()))

    def power_choice(self, game, seat: int) -> int:
        """The choice the bot makes inside a character's power when it values playing it."""
        return int(_best_choice(game.R, game.S, seat, self.power_depth, self._w, self._scratch))

    def generator(self) -> np.ndarray:
        """The generator array the kernels draw from, current; drawing from it advances `rng`."""
        if not self._G_ahead:
            self._G[:] = rng_words(self._rng.bit_generator.state)
            self._G_ahead = True
        return self._G

    def _run(self, game, seat: int) -> int:
        """`action_values` into the bot's buffers, drawing from (and advancing) its generator."""
        return action_values(game.R, game.S, seat, self.generator(), self._w, self.samples, self.power_depth,
                             self._keys, self._values, self._scratch)


# ---------------------------------------------------------------- kernels
# Work space: one `evaluation.scratch` a decision (the bot's own, or the one `best_action` makes). Its
# legal row 0 belongs to the resolution policy (`settle_in`); a lookahead frame at level k copies states
# into state row k and lists legal actions in legal row k, so nested frames never share a row and nothing
# is allocated per move weighed.
@njit(cache=True)
def levels(depth) -> int:
    """Rows of the work space for a lookahead searching powers `depth` choices ahead."""
    return depth + 3


@njit(cache=True)
def rolls_dice(R, S, action) -> bool:
    """True if `action` places a piece on a stall whose closing check rolls dice."""
    if not A.PLACE <= action < A.CLOSE:
        return False
    m = (action - A.PLACE) // NUM_BIDS
    return L.rules(R).close_kind[m, L.state(S).side[m]] == ClosingKind.DICE_MATCH


@njit(cache=True)
def _deciding(R, S, seat, phase) -> bool:
    s = L.state(S)
    return s.phase == phase and not step.is_over(R, S) and s.actor == seat


@njit(cache=True)
def action_value(R, base, action, seat, G, w, samples, near, X, level) -> float:
    """Value after `action` and the market resolution it may trigger (`settle`), averaged over
    `samples` determinisations when it drew cards or rolled dice (near: valued by `seat_value_near`
    from the work space's prefixes, those of base; else in full, as when every move changes the
    scoring state; X: the work space, state row `level`)."""
    g = X.states[level]
    clone_into(g, base)
    step.apply(R, g, action)
    settle_in(R, g, G, X)
    value = _value(R, g, seat, w, near, base, X)
    if L.state(g).deck_pos == L.state(base).deck_pos and not rolls_dice(R, base, action):
        return value
    for _ in range(samples - 1):                   # chance happened: average over other draws
        clone_into(g, base)
        hidden.determinize(R, g, seat, G, X.hidden_work)
        step.apply(R, g, action)
        settle_in(R, g, G, X)
        value += _value(R, g, seat, w, near, base, X)
    return value / samples


@njit(cache=True, inline="always")
def _value(R, S, seat, w, near, base, X) -> float:
    """`seat_value_in` of S (by `seat_value_near` from the work space's prefixes of `base` if `near`), on
    the work space's position: the same value either way, to the last bit."""
    if near:
        return seat_value_near(R, S, seat, w, base, X.prefixes)
    return seat_value_in(R, S, seat, w, X.position[0])


@njit(cache=True)
def power_value(R, S, seat, depth, w, X, level):
    """(value, cut): the value of S for `seat`, its power's next choices (up to `depth`) made at
    their best; cut if the depth ran out below S with the power still choosing. `done` wins ties,
    so repeatable choices (Oracle swaps, Trader exchanges) stop when they no longer strictly help.
    The best line of choices from S goes into the work space's lines[level] (`follow`)."""
    lines = X.lines
    lines[level, 0] = 0
    if not _deciding(R, S, seat, PH_CHARACTER):
        return seat_value_in(R, S, seat, w, X.position[0]), False
    if depth <= 0:
        return seat_value_in(R, S, seat, w, X.position[0]), True
    legals, g = X.legals, X.states[level]
    best, cut = -np.inf, False
    for i in range(legal_row(R, S, X, level)):
        clone_into(g, S)
        step.apply(R, g, legals[level, i])
        v, below = power_value(R, g, seat, depth - 1, w, X, level + 1)
        v += 1e-6 if legals[level, i] == A.DONE else 0.0
        cut = cut or below
        if v > best:
            best = v
            follow(lines, level, legals[level, i])
    return best, cut


@hot
def follow(lines, level, choice) -> None:
    """lines[level] = `choice`, then the best line below it (lines[level + 1]): how many, then the
    choices."""
    m = lines[level + 1, 0]
    lines[level, 1] = choice
    for j in range(m):
        lines[level, 2 + j] = lines[level + 1, 1 + j]
    lines[level, 0] = m + 1


@njit(cache=True)
def choice_value(R, S, action, seat, depth, w, X, level):
    """(value, cut) of a power's choice: the best outcome of the power's next `depth` choices (a
    Merchant's give, target and take are three; `power_value`)."""
    g = X.states[level]
    clone_into(g, S)
    step.apply(R, g, action)
    v, cut = power_value(R, g, seat, depth - 1, w, X, level + 1)
    return v + (1e-6 if action == A.DONE else 0.0), cut


@njit(cache=True)
def best_choice(R, S, seat, depth, w, X, level):
    """(choice, complete): the power's choice of highest `choice_value` (the first, ascending, among
    equals), and whether the search below it reached the power's end everywhere (no cut). Then its
    best line (lines[level]) is exactly the choices the searches after it would make one by one:
    each would find the same values, deeper or not."""
    legals, lines = X.legals, X.lines
    best, best_v, complete = -1, -np.inf, False
    for i in range(legal_row(R, S, X, level)):
        v, cut = choice_value(R, S, legals[level, i], seat, depth, w, X, level)
        if best < 0 or v > best_v:
            best, best_v, complete = legals[level, i], v, not cut
            follow(lines, level, best)
    return best, complete


@njit(cache=True)
def _best_choice(R, S, seat, depth, w, X) -> int:
    """`best_choice` on borrowed arrays (the caller holds them, the work space X `scratch(levels(depth))`):
    `HeuristicBot.power_choice`."""
    return best_choice(borrow(R), borrow(S), seat, depth, borrow(w), borrowed(X), 1)[0]


@njit(cache=True)
def extra_placements_gain(R, g, first, seat, G, w, samples, X, level) -> float:
    """Gain of the placements a character grants beyond the usual one (as many as its power's
    parameter gives): after the `first` placement, the best of each further one. The work space's
    prefixes become g's (the lookahead no longer needs its base's once it values characters)."""
    step.apply(R, g, first)
    settle_in(R, g, G, X)
    gain = 0.0
    legals, P = X.legals, X.prefixes
    while _deciding(R, g, seat, PH_SECOND):
        prefixes_into(R, g, w, P)
        before = seat_value_near(R, g, seat, w, g, P)
        best, best_v = -1, -np.inf
        for i in range(legal_row(R, g, X, level)):
            v = action_value(R, g, legals[level, i], seat, G, w, samples, True, X, level)
            if best < 0 or v > best_v:
                best, best_v = legals[level, i], v
        gain += best_v - before
        step.apply(R, g, best)
        settle_in(R, g, G, X)
    return gain


@njit(cache=True)
def character_value(R, base, action, seat, best, G, w, samples, depth, X) -> float:
    """Value after playing the character with its choices made by `best_choice`, plus the gain
    of the extra placements it grants, if any, after the `best` placement. A search that reached
    the power's end is not repeated for the choices after the first: its best line is played."""
    g = X.states[1]
    clone_into(g, base)
    step.apply(R, g, action)
    lines = X.lines
    while _deciding(R, g, seat, PH_CHARACTER):
        choice, complete = best_choice(R, g, seat, depth, w, X, 2)
        if not complete:
            step.apply(R, g, choice)
            continue
        for j in range(lines[2, 0]):
            step.apply(R, g, lines[2, 1 + j])
    settle_in(R, g, G, X)
    value = seat_value_in(R, g, seat, w, X.position[0])
    if L.state(g).extra_placements != 0:
        legals = X.legals
        for i in range(legal_row(R, g, X, 2)):
            if legals[2, i] == best:
                value += extra_placements_gain(R, g, best, seat, G, w, samples, X, 2)
                break
    return value


@njit(cache=True, nogil=True)        # the MCTS root valuation, in the training env's search threads
def action_values(R, S, seat, G, w, samples, depth, keys, values, X) -> int:
    """The one-step value of every legal action for `seat` into keys[:n], values[:n] (return n),
    in a random order drawn from G (ties go to the first): the legal actions permuted, then on
    a determinisation of S each turn action valued by `action_value` and each character by
    `character_value` plus the best placement's gain, since a character is always followed by
    a placement; inside a power, each choice by `choice_value`. X: the work space, a `scratch` of at
    least `levels(depth)` (the bot's own, or the one `best_action` makes)."""
    R, S, G, w, keys, values, X = borrow(R), borrow(S), borrow(G), borrow(w), borrow(keys), borrow(values), borrowed(X)
    n = legal_row(R, S, X, 1)
    perm = np.arange(n)
    rng_shuffle(G, perm)
    order = X.legals[1][perm]
    base = X.states[0]
    clone_into(base, S)
    hidden.determinize(R, base, seat, G, X.hidden_work)
    s = L.state(S)
    if s.phase == PH_CHARACTER:
        for i in range(n):
            keys[i] = order[i]
            values[i] = choice_value(R, base, order[i], seat, depth, w, X, 1)[0]
        return n
    near = s.phase in TURN_PHASES     # a move of a market resolution changes the scoring state: no prefixes
    if near:
        prefixes_into(R, base, w, X.prefixes)
    k = 0
    best = -1
    for i in range(n):
        a = order[i]
        if not A.CHARACTER <= a < A.MARKET:
            keys[k] = a
            values[k] = action_value(R, base, a, seat, G, w, samples, near, X, 1)
            if best < 0 or values[k] > values[best]:
                best = k
            k += 1
    if k < n and best >= 0:
        best_move = values[best] - _value(R, base, seat, w, near, base, X)
        for i in range(n):
            a = order[i]
            if A.CHARACTER <= a < A.MARKET:
                keys[k] = a
                values[k] = character_value(R, base, a, seat, keys[best], G, w, samples, depth, X) + best_move
                k += 1
    return k


@njit(cache=True, nogil=True)
def best_action(R, S, seat, G, w, samples, depth, keys, values) -> int:
    """The action of highest `action_values` value (the first among equals): `HeuristicBot.act`
    in one call. It makes the work space itself: made in compiled code, a decision's scratch costs less
    than one handed in from Python, whose nine arrays numba unboxes at every call."""
    X = scratch(levels(depth))
    best = 0
    for i in range(1, action_values(R, S, seat, G, w, samples, depth, keys, values, X)):
        if values[i] > values[best]:
            best = i
    return keys[best]


def _best_action(*args) -> int:
    """`best_action`; the first call rebinds `_best_action` to its `typed_entry` (numba's dispatch checks its nine
    arguments' types on every decision). Only `HeuristicBot.act` calls it, with a game's arrays
    and the bot's own."""
    global _best_action
    _best_action = typed_entry(best_action, *args, what="the heuristic bots")
    return _best_action(*args)


class GreedyBot(HeuristicBot):
    """Plain points and money: the score as the game counts it (Deben 0.5, seal 3)."""

    name = "greedy"


class CollectorBot(HeuristicBot):
    """Chases monopolies and rare types and pays for them: money is only a means.

    Defaults: money 0.35 (spends freely), monopoly +3 per item of a type it alone owns,
    rarity +2 per item at the highest 1-owner value (necklace, gold), scaled down for
    cheaper types, projection 0.7 (trusts its bids).
    """

    name = "collector"
    weights = Weights(money=0.35, monopoly=3.0, rarity=2.0, projection=0.7)


class BankerBot(HeuristicBot):
    """Money and seals: takes half-Reserves, bids low, collects seals and plays characters.

    Defaults: money 0.9 (so a bid must buy a lot more than it costs), seal 4
    (upper cards are worth chasing), character +3 per character played (a seal
    spent on a character costs it 1 point, not 3), projection 0.5.
    """

    name = "banker"
    weights = Weights(money=0.9, seal=4.0, character=3.0, projection=0.5)
