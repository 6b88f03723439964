"""The turn (docs/rules.md §2): placing servants and tutors, closing markets, playing a
character, passing the turn; compiled.

Every step returns the status of resolution.py (RES_DECIDE: a decision is set up; RES_DONE:
the action and its resolutions are over, the turn goes on; RES_OVER: the game ended), and
`settle` runs what follows until the next decision, in a loop rather than by recursion. The kernels
read R and S as records (`layout.rules`, `layout.state`).
"""
from __future__ import annotations

import numpy as np

from .. import actions as A
from ..limits import COIN, MEMPHIS, NUM_BIDS, NUM_MARKETS
from . import layout as L
from . import powers
from .closing import closes
from .board import append, clear, contains, is_free, occ_bits
from .resolution import RES_DECIDE, RES_DONE, RES_OVER, next_step, resume_after_roam
from .entry import kernel, njit


@njit(cache=True, inline="always")
def settle(R, S, status) -> None:
    """Carry on after a step until a decision is set up or the game is over."""
    while status == RES_DONE:
        status = after_action(R, S)
    if status == RES_OVER:
        s = L.state(S)
        s.phase, s.actor = L.PH_OVER, -1


@kernel
def any_free(R, S, markets) -> bool:
    """Is there an empty square on the visible stall of an open market among the first `markets`?"""
    s = L.state(S)
    for m in range(markets):
        if s.is_open[m] != 0:
            for v in range(NUM_BIDS):
                if is_free(R, S, m, v):
                    return True
    return False


@kernel
def closable(S, p, out) -> int:
    """Open classic markets seat p may close, having a servant there (into `out`; how many)."""
    s = L.state(S)
    n = 0
    for m in range(MEMPHIS):
        if s.is_open[m] != 0:
            for v in range(NUM_BIDS):
                if s.occ[m, v] == p:
                    out[n] = m
                    n += 1
                    break
    return n


@kernel
def can_act(R, S, p) -> bool:
    """With a servant in supply: an empty square anywhere; without: a market it may close."""
    if L.state(S).servants[p] > 0:
        return any_free(R, S, NUM_MARKETS)
    return closable(S, p, np.empty(MEMPHIS, np.int64)) > 0


@kernel
def tutor_squares(R, S, out) -> int:
    """Squares (market * NUM_BIDS + value) a tutor may take: empty, below a servant's bid in that
    market, not used this turn (2 players, §8). Into `out`; how many."""
    s = L.state(S)
    n = 0
    for m in range(NUM_MARKETS):
        top = -1
        for v in range(NUM_BIDS):
            piece = s.occ[m, v]
            if 0 <= piece < L.TUTOR:
                top = v
        for v in range(max(top, 0)):
            square = m * NUM_BIDS + v
            if is_free(R, S, m, v) and not contains(s.placed, s.placed_n, square):
                out[n] = square
                n += 1
    return n


@kernel
def legal(R, S, mask) -> None:
    """Legal actions of PH_TURN, PH_PLACE, PH_SECOND and PH_TUTOR into `mask`."""
    r, s = L.rules(R), L.state(S)
    ph, p = s.phase, s.actor
    if ph == L.PH_TURN or ph == L.PH_PLACE:
        if s.servants[p] > 0:        # every square written, 0 or 1: a branch per square mispredicted often
            for m in range(NUM_MARKETS):
                for v in range(NUM_BIDS):
                    mask[A.PLACE + m * NUM_BIDS + v] = is_free(R, S, m, v)
        else:
            markets = np.empty(MEMPHIS, np.int64)
            for i in range(closable(S, p, markets)):
                mask[A.CLOSE + markets[i]] = 1
        if ph == L.PH_TURN and s.seals[p] > 0:
            for c in range(r.num_chars):
                if s.char_avail[c] > 0 and powers.playable(R, S, p, c):
                    mask[A.CHARACTER + c] = 1
    elif ph == L.PH_SECOND:          # the Head Priest's extra servant never goes to Memphis
        for m in range(MEMPHIS):
            for v in range(NUM_BIDS):
                mask[A.PLACE + m * NUM_BIDS + v] = is_free(R, S, m, v)
    else:                            # PH_TUTOR
        squares = np.empty(NUM_MARKETS * NUM_BIDS, np.int64)
        for i in range(tutor_squares(R, S, squares)):
            mask[A.PLACE + squares[i]] = 1
        mask[A.DONE] = 1


@kernel
def apply(R, S, action) -> int:
    """Apply a decision of the turn phases; the status of what follows."""
    s = L.state(S)
    if s.phase == L.PH_TUTOR and action == A.DONE:
        return end_turn(R, S)
    if action >= A.CHARACTER:
        return play_character(R, S, action - A.CHARACTER)
    if action >= A.CLOSE:
        return close_market(R, S, action - A.CLOSE)
    square = action - A.PLACE
    return place(R, S, square // NUM_BIDS, square % NUM_BIDS, s.actor, s.phase == L.PH_TUTOR)


@kernel
def play_character(R, S, c) -> int:
    """Spend a seal on character c (§6); its power runs, then the turn goes on to a placement."""
    s = L.state(S)
    p = s.actor
    s.seals[p] -= 1
    s.seal_supply += 1
    s.char_avail[c] -= 1
    s.char_played[p, c] += 1
    s.character_used = 1
    s.char_index, s.char_step = c, 0
    clear(s.char_sel, s.char_sel_n)
    s.char_sel_n = 0
    s.phase = L.PH_CHARACTER
    if powers.start(R, S):
        return character_done(R, S)
    return RES_DECIDE


@kernel
def character_done(R, S) -> int:
    """A power's last choice was made: the turn goes on to placement (or, for a Roaming Thief
    bought in a resolution, the resolution goes on)."""
    s = L.state(S)
    s.char_index = -1
    clear(s.char_sel, s.char_sel_n)
    s.char_sel_n = 0
    if s.roam_resume >= 0:
        return resume_after_roam(R, S)
    s.phase = L.PH_PLACE
    s.actor = s.turn_player
    if not can_act(R, S, s.actor):
        return end_turn(R, S)
    return RES_DECIDE


@kernel
def place(R, S, m, v, p, tutor) -> int:
    """Put a servant (or tutor) on square v of market m: first-piece and coin bonuses, then the
    closing check (§2, §3, §8)."""
    r, s = L.rules(R), L.state(S)
    bits = occ_bits(S, m)
    s.occ[m, v] = L.TUTOR + p if tutor else p
    symbol = r.square_symbol[m, s.side[m], v]
    bonus = (1 if bits == 0 else 0) + (1 if symbol == COIN else 0)
    take = min(bonus, s.reserve[m]) if bonus else 0
    s.reserve[m] -= take
    if tutor:            # [R] a tutor's bonus goes to the neutral player: it leaves the game
        s.tutors[p] -= 1
        s.deben_out += take
    else:
        s.servants[p] -= 1
        s.money[p] += take
        s.tutor_ready = 1 if s.tutors[p] > 0 else 0
    s.placed_n = append(s.placed, s.placed_n, m * NUM_BIDS + v)
    if closes(R, S, m, v, bits | 1 << v):
        return close_market(R, S, m)
    return RES_DONE


@njit(cache=True, inline="always")
def close_market(R, S, m) -> int:
    s = L.state(S)
    s.pending_n = append(s.pending, s.pending_n, m)
    return next_step(R, S)


@njit(cache=True, inline="always")
def after_action(R, S) -> int:
    """The active player's action (and any resolution) is done: continue the turn."""
    s = L.state(S)
    p = s.turn_player
    s.actor = p
    if s.extra_placements > 0:
        s.extra_placements -= 1
        if s.servants[p] > 0 and any_free(R, S, MEMPHIS):
            s.phase = L.PH_SECOND
            return RES_DECIDE
    if s.tutor_ready != 0:
        s.tutor_ready = 0
        if tutor_squares(R, S, np.empty(NUM_MARKETS * NUM_BIDS, np.int64)) > 0:
            s.phase = L.PH_TUTOR
            return RES_DECIDE
    return end_turn(R, S)


@njit(cache=True, inline="always")
def end_turn(R, S) -> int:
    s = L.state(S)
    return begin_turn(R, S, (s.turn_player + 1) % s.num_players)


@njit(cache=True, inline="always")
def begin_turn(R, S, p) -> int:
    """Seat p's turn, or the next seat's that can act; if none can, every servant is stuck at the
    Port of Memphis and it is distributed [R]."""
    s = L.state(S)
    n = s.num_players
    for _ in range(n):
        s.turn_player = s.actor = p
        s.character_used = s.extra_placements = s.tutor_ready = 0
        clear(s.placed, s.placed_n)
        s.placed_n = 0
        if can_act(R, S, p):
            s.phase = L.PH_TURN
            return RES_DECIDE
        p = (p + 1) % n
    for v in range(NUM_BIDS):
        if s.occ[MEMPHIS, v] >= 0:
            return close_market(R, S, MEMPHIS)
    raise ValueError("no player can act: the ruleset allows a stalemate")
