"""Market resolution, closing and refill (docs/rules.md §4 and §7), compiled.

Pieces are resolved in descending bid order. Each owner's choice is a decision of that
owner, so the deciding seat can differ from the seat whose turn it is. Automatic steps
(paying, returning pieces, flipping stalls, refilling, seals) run here between decisions.
The turn flow (flow.py) calls in and acts on the status returned: RES_DECIDE (a decision
is needed: phase and actor are set), RES_DONE (nothing left to resolve: the turn goes on),
RES_OVER (the game ended).
"""
from __future__ import annotations

import numpy as np

from .. import actions as A
from ..limits import EXTRA, MAX_KINDS, MAX_SLOTS, MEMPHIS, NUM_BIDS, NUM_MARKETS, SINGLE
from . import layout as L
from .board import append, card_places, clear, contains, discard, gift_places, occ_bits, owns_any, pop_front, take_card
from .powers import roam_possible
from .entry import kernel, njit

RES_DECIDE, RES_DONE, RES_OVER = range(3)


@njit(cache=True, inline="always")
def game_over(S) -> bool:
    """docs/rules.md §5.2: the game ends when the Akhenaton card has come up and no classic market is open
    any more (Memphis does not count). `next_step` asks once nothing is left to resolve, so the last
    closings, and the Port's last resolution (§7.3), are played out first."""
    if S[L.AKHENATON_DRAWN] == 0:
        return False
    for m in range(MEMPHIS):
        if S[L.IS_OPEN + m] != 0:
            return False
    return True


@kernel
def next_step(R, S) -> int:
    """Run resolutions until a decision is needed (RES_DECIDE), nothing is pending (RES_DONE)
    or the game is over (RES_OVER: `game_over`)."""
    while True:
        if S[L.RES_MARKET] < 0:
            if S[L.PENDING_N] == 0:
                return RES_OVER if game_over(S) else RES_DONE
            m = pop_front(S, L.PENDING, L.PENDING_N)
            S[L.RES_MARKET] = m
            bits, k = occ_bits(S, m), 0
            for v in range(NUM_BIDS - 1, -1, -1):
                if bits >> v & 1:
                    S[L.RES_ORDER + k] = v
                    k += 1
            S[L.RES_ORDER_N] = k
            S[L.RES_POS] = 0
        if S[L.RES_POS] >= S[L.RES_ORDER_N]:
            _finish(R, S)
            continue
        m, v = S[L.RES_MARKET], S[L.RES_ORDER + S[L.RES_POS]]
        piece = S[L.OCC + m * NUM_BIDS + v]
        if piece >= L.TUTOR:
            S[L.ACTOR], S[L.PHASE] = piece - L.TUTOR, L.PH_TUTOR_RES
            return RES_DECIDE
        S[L.ACTOR] = piece
        if S[L.RES_POS] > 0:
            S[L.PHASE] = L.PH_OTHER
            return RES_DECIDE
        # the highest bidder pays its bid, or shames (discards a gift) when it cannot
        if S[L.MONEY + piece] < v:
            if owns_any(S, piece):
                S[L.PHASE] = L.PH_SHAME
                return RES_DECIDE
            _remove(S)
            continue
        S[L.MONEY + piece] -= v
        S[L.RESERVE + m] += v
        S[L.RES_STAGE] = L.STAGE_MAIN
        S[L.RES_PICKS] = R[L.MEMPHIS_HIGHEST_TAKES] if m == MEMPHIS else 1
        if _high_options(R, S, np.empty(MAX_SLOTS, np.int64)) > 0:
            S[L.PHASE] = L.PH_HIGH
            return RES_DECIDE
        _remove(S)


@kernel
def _remove(S) -> None:
    """Return the piece just resolved to its owner's supply and move to the next one."""
    m, v = S[L.RES_MARKET], S[L.RES_ORDER + S[L.RES_POS]]
    piece = S[L.OCC + m * NUM_BIDS + v]
    if piece >= L.TUTOR:
        S[L.TUTORS + piece - L.TUTOR] += 1
    else:
        S[L.SERVANTS + piece] += 1
    S[L.OCC + m * NUM_BIDS + v] = -1
    S[L.RES_POS] += 1


@kernel
def _high_options(R, S, out) -> int:
    """Places the highest bidder may take a card from at the current stage (into `out`)."""
    if S[L.RES_STAGE] == L.STAGE_DONE:
        return 0
    m = S[L.RES_MARKET]
    n = card_places(R, S, m, -1, out)
    if m != MEMPHIS and S[L.RES_STAGE] > L.STAGE_MAIN:      # second and extra cards: the lower row
        j = 0
        for i in range(n):
            if out[i] > 0:
                out[j] = out[i]
                j += 1
        n = j
    return n


@kernel
def legal(R, S, mask) -> None:
    """Legal actions of the resolution phases (PH_HIGH .. PH_TUTOR_DIST) into `mask`."""
    ph, m, p = S[L.PHASE], S[L.RES_MARKET], S[L.ACTOR]
    places = np.empty(MAX_SLOTS, np.int64)
    if ph == L.PH_HIGH:
        for i in range(_high_options(R, S, places)):
            mask[A.CARD + places[i]] = 1
    elif ph == L.PH_SHAME:
        for k in range(MAX_KINDS):
            if S[L.OWNED + p * MAX_KINDS + k] != 0:
                mask[A.KIND + k] = 1
    elif ph == L.PH_OTHER:
        if S[L.MONEY + p] >= S[L.RES_ORDER + S[L.RES_POS]]:
            for i in range(card_places(R, S, m, -1, places)):
                mask[A.CARD + places[i]] = 1
        mask[A.TAKE_HALF] = 1
    elif ph == L.PH_TUTOR_RES:       # [R] a tutor cannot take the Roaming Thief for the neutral player
        for i in range(gift_places(R, S, m, places)):
            mask[A.CARD + places[i]] = 1
        mask[A.TAKE_DEBEN] = 1
    else:
        targets = np.empty(NUM_MARKETS, np.int64)
        for i in range(_tutor_targets(R, S, targets)):
            mask[A.MARKET + targets[i]] = 1


@kernel
def apply(R, S, action) -> int:
    """Apply a decision of a resolution phase; the status of what follows."""
    ph, m, p = S[L.PHASE], S[L.RES_MARKET], S[L.ACTOR]
    if ph == L.PH_HIGH:
        k = action - A.CARD
        if take_card(R, S, p, m, k):
            return _start_roam(R, S, p, ph, k)
        _advance_high(R, S, k)
        if S[L.RES_STAGE] != L.STAGE_DONE:
            return RES_DECIDE
    elif ph == L.PH_SHAME:
        discard(R, S, p, action - A.KIND)
    elif ph == L.PH_OTHER:
        if action == A.TAKE_HALF:
            half = (S[L.RESERVE + m] + 1) // 2
            S[L.RESERVE + m] -= half
            S[L.MONEY + p] += half
        else:
            bid = S[L.RES_ORDER + S[L.RES_POS]]
            S[L.MONEY + p] -= bid
            S[L.RESERVE + m] += bid
            if take_card(R, S, p, m, action - A.CARD):
                return _start_roam(R, S, p, ph, action - A.CARD)
    elif ph == L.PH_TUTOR_RES:
        if action == A.TAKE_DEBEN:
            if _tutor_take_deben(R, S):
                return RES_DECIDE
        else:
            take_card(R, S, L.NEUTRAL, m, action - A.CARD)
    else:                            # PH_TUTOR_DIST
        t = action - A.MARKET
        S[L.RESERVE + t] += 1
        append(S, L.TUTOR_GIVEN, L.TUTOR_GIVEN_N, t)
        S[L.TUTOR_LEFT] -= 1
        if S[L.TUTOR_LEFT] > 0:
            return RES_DECIDE
    _remove(S)
    return next_step(R, S)


@kernel
def _advance_high(R, S, k) -> None:
    """Move the highest bidder to the next card to take, skipping stages with no card."""
    m = S[L.RES_MARKET]
    places = np.empty(MAX_SLOTS, np.int64)
    if m == MEMPHIS:
        S[L.RES_PICKS] -= 1
        if S[L.RES_PICKS] <= 0 or _high_options(R, S, places) == 0:
            S[L.RES_STAGE] = L.STAGE_DONE
        return
    symbol = R[L.SQUARE_SYMBOL + (m * 2 + S[L.SIDE + m]) * NUM_BIDS + S[L.RES_ORDER + S[L.RES_POS]]]
    stage = S[L.RES_STAGE]
    if stage == L.STAGE_MAIN and k != 0 and symbol != SINGLE:
        stage = L.STAGE_SECOND
    elif stage < L.STAGE_EXTRA and symbol == EXTRA:
        stage = L.STAGE_EXTRA
    else:
        stage = L.STAGE_DONE
    S[L.RES_STAGE] = stage
    while S[L.RES_STAGE] != L.STAGE_DONE and _high_options(R, S, places) == 0:
        S[L.RES_STAGE] = L.STAGE_EXTRA if (S[L.RES_STAGE] == L.STAGE_SECOND and symbol == EXTRA) else L.STAGE_DONE


@kernel
def _start_roam(R, S, p, resume, k) -> int:
    """p bought the Roaming Thief card from place k: it uses it now on another market (§6), and
    the resolution resumes afterwards; with no market to use it on, the card leaves the game [R]."""
    S[L.ROAM_RESUME], S[L.ROAM_SLOT] = resume, k
    exclude = S[L.RES_MARKET]
    S[L.CHAR_INDEX], S[L.CHAR_STEP] = R[L.ROAMING_CHAR], 0
    clear(S, L.CHAR_SEL, L.CHAR_SEL_N)
    append(S, L.CHAR_SEL, L.CHAR_SEL_N, exclude)
    S[L.PHASE], S[L.ACTOR] = L.PH_CHARACTER, p
    if roam_possible(R, S, exclude):
        return RES_DECIDE
    S[L.CHAR_INDEX] = -1
    clear(S, L.CHAR_SEL, L.CHAR_SEL_N)
    return resume_after_roam(R, S)


@kernel
def resume_after_roam(R, S) -> int:
    """Continue the resolution where the Roaming Thief interrupted it."""
    ph = S[L.ROAM_RESUME]
    S[L.ROAM_RESUME] = -1
    S[L.PHASE] = ph
    S[L.ACTOR] = S[L.OCC + S[L.RES_MARKET] * NUM_BIDS + S[L.RES_ORDER + S[L.RES_POS]]]
    if ph == L.PH_HIGH:
        _advance_high(R, S, S[L.ROAM_SLOT])
        if S[L.RES_STAGE] != L.STAGE_DONE:
            return RES_DECIDE
    _remove(S)
    return next_step(R, S)


@kernel
def _tutor_targets(R, S, out) -> int:
    """Reserves (other than the resolving market's) that may still receive a tutor Deben (into `out`)."""
    n = 0
    for t in range(NUM_MARKETS if R[L.R_MEMPHIS] != 0 else MEMPHIS):
        if t != S[L.RES_MARKET] and not contains(S, L.TUTOR_GIVEN, L.TUTOR_GIVEN_N, t):
            out[n] = t
            n += 1
    return n


@kernel
def _tutor_take_deben(R, S) -> bool:
    """The tutor takes Deben and puts one on each other Reserve; True if its owner must choose where."""
    m = S[L.RES_MARKET]
    clear(S, L.TUTOR_GIVEN, L.TUTOR_GIVEN_N)
    others = np.empty(NUM_MARKETS, np.int64)
    n = _tutor_targets(R, S, others)
    want = R[L.MEMPHIS_TUTOR_DEBEN] if R[L.R_MEMPHIS] != 0 else n
    taken = min(want, S[L.RESERVE + m])
    S[L.RESERVE + m] -= taken
    if taken >= n:
        for i in range(n):
            S[L.RESERVE + others[i]] += 1
        S[L.DEBEN_OUT] += taken - n
        return False
    if taken == 0:
        return False
    S[L.TUTOR_LEFT] = taken
    S[L.PHASE] = L.PH_TUTOR_DIST
    return True


@njit(cache=True, inline="always")
def _finish(R, S) -> None:
    """All pieces resolved: close the market, reopen the previous one and refill it."""
    m = S[L.RES_MARKET]
    S[L.RES_MARKET], S[L.RES_POS] = -1, 0
    clear(S, L.RES_ORDER, L.RES_ORDER_N)
    if m != MEMPHIS:
        S[L.SIDE + m] ^= 1
        S[L.IS_OPEN + m] = 0
        if S[L.AKHENATON_DRAWN] == 0:
            _reopen_previous(R, S, m)


@njit(cache=True, inline="always")
def _reopen_previous(R, S, m) -> None:
    """The market closed before m reopens and is refilled (Akhenaton may close it for good)."""
    closed = np.empty(MEMPHIS, np.int64)
    n = 0
    for c in range(MEMPHIS):
        if c != m and S[L.IS_OPEN + c] == 0 and S[L.DEAD + c] == 0:
            closed[n] = c
            n += 1
    for i in range(n):
        c = closed[i]
        S[L.IS_OPEN + c] = 1
        S[L.FACE_DOWN + c * MAX_SLOTS:L.FACE_DOWN + (c + 1) * MAX_SLOTS] = 0
        foreign = refill(R, S, c)
        if S[L.AKHENATON_DRAWN] != 0:
            S[L.IS_OPEN + c] = 0
            S[L.DEAD + c] = 1
            if R[L.R_MEMPHIS] != 0:
                append(S, L.PENDING, L.PENDING_N, MEMPHIS)
        elif foreign > 0 and _count_cards(S, MEMPHIS) >= R[L.MEMPHIS_DISTRIBUTE_AT]:
            append(S, L.PENDING, L.PENDING_N, MEMPHIS)


@kernel
def _count_cards(S, m) -> int:
    n = 0
    for k in range(MAX_SLOTS):
        if S[L.SLOTS + m * MAX_SLOTS + k] >= 0:
            n += 1
    return n


@kernel
def refill(R, S, m) -> int:
    """Slide the cards of market m up and left, draw to full, seal the upper card.

    Foreign gifts drawn go to the Port of Memphis and drawing continues. Drawing the Akhenaton
    card stops the refill and marks it drawn. Returns the number of foreign gifts added to Memphis.
    """
    row = L.SLOTS + m * MAX_SLOTS
    n = 0
    for k in range(MAX_SLOTS):
        card = S[row + k]
        if card >= 0:
            S[row + n] = card
            n += 1
    full, akhenaton, foreign = R[L.CARDS_PER_MARKET], R[L.NUM_KINDS], 0
    while n < full and S[L.DECK_POS] < S[L.DECK_LEN]:
        card = S[L.DECK + S[L.DECK_POS]]
        S[L.DECK_POS] += 1
        if card == akhenaton:
            S[L.AKHENATON_DRAWN] = 1
            break
        if R[L.R_MEMPHIS] != 0 and R[L.KIND_BONUS + card] > 0:
            place = 0
            while S[L.SLOTS + MEMPHIS * MAX_SLOTS + place] >= 0:
                place += 1
                if place == MAX_SLOTS:
                    raise ValueError("the Port of Memphis has no free card place")
            S[L.SLOTS + MEMPHIS * MAX_SLOTS + place] = card
            foreign += 1
            continue
        S[row + n] = card
        n += 1
    for k in range(n, MAX_SLOTS):
        S[row + k] = -1
    if S[L.AKHENATON_DRAWN] == 0 and n > 0 and S[L.SEAL_ON + m] == 0 and S[L.SEAL_SUPPLY] > 0:
        S[L.SEAL_ON + m] = 1
        S[L.SEAL_SUPPLY] -= 1
    return foreign
