"""The turn (docs/rules.md §2): placing servants and tutors, closing markets, playing a
character, passing the turn; compiled.

Every step returns the status of resolution.py (RES_DECIDE: a decision is set up; RES_DONE:
the action and its resolutions are over, the turn goes on; RES_OVER: the game ended), and
`settle` runs what follows until the next decision, in a loop rather than by recursion.
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
        S[L.PHASE], S[L.ACTOR] = L.PH_OVER, -1


@kernel
def any_free(R, S, markets) -> bool:
    """Is there an empty square on the visible stall of an open market among the first `markets`?"""
    for m in range(markets):
        if S[L.IS_OPEN + m] != 0:
            for v in range(NUM_BIDS):
                if is_free(R, S, m, v):
                    return True
    return False


@kernel
def closable(S, p, out) -> int:
    """Open classic markets seat p may close, having a servant there (into `out`; how many)."""
    n = 0
    for m in range(MEMPHIS):
        if S[L.IS_OPEN + m] != 0:
            for v in range(NUM_BIDS):
                if S[L.OCC + m * NUM_BIDS + v] == p:
                    out[n] = m
                    n += 1
                    break
    return n


@kernel
def can_act(R, S, p) -> bool:
    """With a servant in supply: an empty square anywhere; without: a market it may close."""
    if S[L.SERVANTS + p] > 0:
        return any_free(R, S, NUM_MARKETS)
    return closable(S, p, np.empty(MEMPHIS, np.int64)) > 0


@kernel
def tutor_squares(R, S, out) -> int:
    """Squares (market * NUM_BIDS + value) a tutor may take: empty, below a servant's bid in that
    market, not used this turn (2 players, §8). Into `out`; how many."""
    n = 0
    for m in range(NUM_MARKETS):
        top = -1
        for v in range(NUM_BIDS):
            piece = S[L.OCC + m * NUM_BIDS + v]
            if 0 <= piece < L.TUTOR:
                top = v
        for v in range(max(top, 0)):
            square = m * NUM_BIDS + v
            if is_free(R, S, m, v) and not contains(S, L.PLACED, L.PLACED_N, square):
                out[n] = square
                n += 1
    return n


@kernel
def legal(R, S, mask) -> None:
    """Legal actions of PH_TURN, PH_PLACE, PH_SECOND and PH_TUTOR into `mask`."""
    ph, p = S[L.PHASE], S[L.ACTOR]
    if ph == L.PH_TURN or ph == L.PH_PLACE:
        if S[L.SERVANTS + p] > 0:        # every square written, 0 or 1: a branch per square mispredicted often
            for m in range(NUM_MARKETS):
                for v in range(NUM_BIDS):
                    mask[A.PLACE + m * NUM_BIDS + v] = is_free(R, S, m, v)
        else:
            markets = np.empty(MEMPHIS, np.int64)
            for i in range(closable(S, p, markets)):
                mask[A.CLOSE + markets[i]] = 1
        if ph == L.PH_TURN and S[L.SEALS + p] > 0:
            for c in range(R[L.NUM_CHARS]):
                if S[L.CHAR_AVAIL + c] > 0 and powers.playable(R, S, p, c):
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
    if S[L.PHASE] == L.PH_TUTOR and action == A.DONE:
        return end_turn(R, S)
    if action >= A.CHARACTER:
        return play_character(R, S, action - A.CHARACTER)
    if action >= A.CLOSE:
        return close_market(R, S, action - A.CLOSE)
    square = action - A.PLACE
    return place(R, S, square // NUM_BIDS, square % NUM_BIDS, S[L.ACTOR], S[L.PHASE] == L.PH_TUTOR)


@kernel
def play_character(R, S, c) -> int:
    """Spend a seal on character c (§6); its power runs, then the turn goes on to a placement."""
    p = S[L.ACTOR]
    S[L.SEALS + p] -= 1
    S[L.SEAL_SUPPLY] += 1
    S[L.CHAR_AVAIL + c] -= 1
    S[L.CHAR_PLAYED + p * L.MAX_CHARACTERS + c] += 1
    S[L.CHARACTER_USED] = 1
    S[L.CHAR_INDEX], S[L.CHAR_STEP] = c, 0
    clear(S, L.CHAR_SEL, L.CHAR_SEL_N)
    S[L.PHASE] = L.PH_CHARACTER
    if powers.start(R, S):
        return character_done(R, S)
    return RES_DECIDE


@kernel
def character_done(R, S) -> int:
    """A power's last choice was made: the turn goes on to placement (or, for a Roaming Thief
    bought in a resolution, the resolution goes on)."""
    S[L.CHAR_INDEX] = -1
    clear(S, L.CHAR_SEL, L.CHAR_SEL_N)
    if S[L.ROAM_RESUME] >= 0:
        return resume_after_roam(R, S)
    S[L.PHASE] = L.PH_PLACE
    S[L.ACTOR] = S[L.TURN_PLAYER]
    if not can_act(R, S, S[L.ACTOR]):
        return end_turn(R, S)
    return RES_DECIDE


@kernel
def place(R, S, m, v, p, tutor) -> int:
    """Put a servant (or tutor) on square v of market m: first-piece and coin bonuses, then the
    closing check (§2, §3, §8)."""
    bits = occ_bits(S, m)
    S[L.OCC + m * NUM_BIDS + v] = L.TUTOR + p if tutor else p
    symbol = R[L.SQUARE_SYMBOL + (m * 2 + S[L.SIDE + m]) * NUM_BIDS + v]
    bonus = (1 if bits == 0 else 0) + (1 if symbol == COIN else 0)
    take = min(bonus, S[L.RESERVE + m]) if bonus else 0
    S[L.RESERVE + m] -= take
    if tutor:            # [R] a tutor's bonus goes to the neutral player: it leaves the game
        S[L.TUTORS + p] -= 1
        S[L.DEBEN_OUT] += take
    else:
        S[L.SERVANTS + p] -= 1
        S[L.MONEY + p] += take
        S[L.TUTOR_READY] = 1 if S[L.TUTORS + p] > 0 else 0
    append(S, L.PLACED, L.PLACED_N, m * NUM_BIDS + v)
    if closes(R, S, m, v, bits | 1 << v):
        return close_market(R, S, m)
    return RES_DONE


@njit(cache=True, inline="always")
def close_market(R, S, m) -> int:
    append(S, L.PENDING, L.PENDING_N, m)
    return next_step(R, S)


@njit(cache=True, inline="always")
def after_action(R, S) -> int:
    """The active player's action (and any resolution) is done: continue the turn."""
    p = S[L.TURN_PLAYER]
    S[L.ACTOR] = p
    if S[L.EXTRA_PLACEMENTS] > 0:
        S[L.EXTRA_PLACEMENTS] -= 1
        if S[L.SERVANTS + p] > 0 and any_free(R, S, MEMPHIS):
            S[L.PHASE] = L.PH_SECOND
            return RES_DECIDE
    if S[L.TUTOR_READY] != 0:
        S[L.TUTOR_READY] = 0
        if tutor_squares(R, S, np.empty(NUM_MARKETS * NUM_BIDS, np.int64)) > 0:
            S[L.PHASE] = L.PH_TUTOR
            return RES_DECIDE
    return end_turn(R, S)


@njit(cache=True, inline="always")
def end_turn(R, S) -> int:
    return begin_turn(R, S, (S[L.TURN_PLAYER] + 1) % S[L.NUM_PLAYERS])


@njit(cache=True, inline="always")
def begin_turn(R, S, p) -> int:
    """Seat p's turn, or the next seat's that can act; if none can, every servant is stuck at the
    Port of Memphis and it is distributed [R]."""
    n = S[L.NUM_PLAYERS]
    for _ in range(n):
        S[L.TURN_PLAYER] = S[L.ACTOR] = p
        S[L.CHARACTER_USED] = S[L.EXTRA_PLACEMENTS] = S[L.TUTOR_READY] = 0
        clear(S, L.PLACED, L.PLACED_N)
        if can_act(R, S, p):
            S[L.PHASE] = L.PH_TURN
            return RES_DECIDE
        p = (p + 1) % n
    for v in range(NUM_BIDS):
        if S[L.OCC + MEMPHIS * NUM_BIDS + v] >= 0:
            return close_market(R, S, MEMPHIS)
    raise ValueError("no player can act: the ruleset allows a stalemate")
