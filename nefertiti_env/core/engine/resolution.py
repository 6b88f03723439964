"""Market resolution, closing and refill (docs/rules.md §4 and §7), compiled.

Pieces are resolved in descending bid order. Each owner's choice is a decision of that
owner, so the deciding seat can differ from the seat whose turn it is. Automatic steps
(paying, returning pieces, flipping stalls, refilling, seals) run here between decisions.
The turn flow (flow.py) calls in and acts on the status returned: RES_DECIDE (a decision
is needed: phase and actor are set), RES_DONE (nothing left to resolve: the turn goes on),
RES_OVER (the game ended). The kernels read R and S as records (`layout.rules`, `layout.state`).
"""
from __future__ import annotations

import numpy as np

from .. import actions as A
from ..limits import EXTRA, MAX_KINDS, MAX_SLOTS, MEMPHIS, NUM_BIDS, NUM_MARKETS, SINGLE
from . import layout as L
from .board import append, card_places, clear, contains, discard, gift_places, occ_bits, owns_any, pop_first, take_card
from .powers import roam_possible
from .entry import kernel, njit

RES_DECIDE, RES_DONE, RES_OVER = range(3)


@njit(cache=True, inline="always")
def game_over(S) -> bool:
    """docs/rules.md §5.2: the game ends when the Akhenaton card has come up and no classic market is open
    any more (Memphis does not count). `next_step` asks once nothing is left to resolve, so the last
    closings, and the Port's last resolution (§7.3), are played out first."""
    s = L.state(S)
    if s.akhenaton_drawn == 0:
        return False
    for m in range(MEMPHIS):
        if s.is_open[m] != 0:
            return False
    return True


@kernel
def next_step(R, S) -> int:
    """Run resolutions until a decision is needed (RES_DECIDE), nothing is pending (RES_DONE)
    or the game is over (RES_OVER: `game_over`)."""
    r, s = L.rules(R), L.state(S)
    while True:
        if s.res_market < 0:
            n = s.pending_n
            if n == 0:
                return RES_OVER if game_over(S) else RES_DONE
            m = pop_first(s.pending, n)
            s.pending_n = n - 1
            s.res_market = m
            bits, k = occ_bits(S, m), 0
            for v in range(NUM_BIDS - 1, -1, -1):
                if bits >> v & 1:
                    s.res_order[k] = v
                    k += 1
            s.res_order_n = k
            s.res_pos = 0
        if s.res_pos >= s.res_order_n:
            _finish(R, S)
            continue
        m, v = s.res_market, s.res_order[s.res_pos]
        piece = s.occ[m, v]
        if piece >= L.TUTOR:
            s.actor, s.phase = piece - L.TUTOR, L.PH_TUTOR_RES
            return RES_DECIDE
        s.actor = piece
        if s.res_pos > 0:
            s.phase = L.PH_OTHER
            return RES_DECIDE
        # the highest bidder pays its bid, or shames (discards a gift) when it cannot
        if s.money[piece] < v:
            if owns_any(S, piece):
                s.phase = L.PH_SHAME
                return RES_DECIDE
            _remove(S)
            continue
        s.money[piece] -= v
        s.reserve[m] += v
        s.res_stage = L.STAGE_MAIN
        s.res_picks = r.memphis_highest_takes if m == MEMPHIS else 1
        if _high_options(R, S, np.empty(MAX_SLOTS, np.int64)) > 0:
            s.phase = L.PH_HIGH
            return RES_DECIDE
        _remove(S)


@kernel
def _remove(S) -> None:
    """Return the piece just resolved to its owner's supply and move to the next one."""
    s = L.state(S)
    m, v = s.res_market, s.res_order[s.res_pos]
    piece = s.occ[m, v]
    if piece >= L.TUTOR:
        s.tutors[piece - L.TUTOR] += 1
    else:
        s.servants[piece] += 1
    s.occ[m, v] = -1
    s.res_pos += 1


@kernel
def _high_options(R, S, out) -> int:
    """Places the highest bidder may take a card from at the current stage (into `out`)."""
    s = L.state(S)
    if s.res_stage == L.STAGE_DONE:
        return 0
    m = s.res_market
    n = card_places(R, S, m, -1, out)
    if m != MEMPHIS and s.res_stage > L.STAGE_MAIN:      # second and extra cards: the lower row
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
    s = L.state(S)
    ph, m, p = s.phase, s.res_market, s.actor
    places = np.empty(MAX_SLOTS, np.int64)
    if ph == L.PH_HIGH:
        for i in range(_high_options(R, S, places)):
            mask[A.CARD + places[i]] = 1
    elif ph == L.PH_SHAME:
        for k in range(MAX_KINDS):
            if s.owned[p, k] != 0:
                mask[A.KIND + k] = 1
    elif ph == L.PH_OTHER:
        if s.money[p] >= s.res_order[s.res_pos]:
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
    s = L.state(S)
    ph, m, p = s.phase, s.res_market, s.actor
    if ph == L.PH_HIGH:
        k = action - A.CARD
        if take_card(R, S, p, m, k):
            return _start_roam(R, S, p, ph, k)
        _advance_high(R, S, k)
        if s.res_stage != L.STAGE_DONE:
            return RES_DECIDE
    elif ph == L.PH_SHAME:
        discard(R, S, p, action - A.KIND)
    elif ph == L.PH_OTHER:
        if action == A.TAKE_HALF:
            half = (s.reserve[m] + 1) // 2
            s.reserve[m] -= half
            s.money[p] += half
        else:
            bid = s.res_order[s.res_pos]
            s.money[p] -= bid
            s.reserve[m] += bid
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
        s.reserve[t] += 1
        s.tutor_given_n = append(s.tutor_given, s.tutor_given_n, t)
        s.tutor_left -= 1
        if s.tutor_left > 0:
            return RES_DECIDE
    _remove(S)
    return next_step(R, S)


@kernel
def _advance_high(R, S, k) -> None:
    """Move the highest bidder to the next card to take, skipping stages with no card."""
    r, s = L.rules(R), L.state(S)
    m = s.res_market
    places = np.empty(MAX_SLOTS, np.int64)
    if m == MEMPHIS:
        s.res_picks -= 1
        if s.res_picks <= 0 or _high_options(R, S, places) == 0:
            s.res_stage = L.STAGE_DONE
        return
    symbol = r.square_symbol[m, s.side[m], s.res_order[s.res_pos]]
    stage = s.res_stage
    if stage == L.STAGE_MAIN and k != 0 and symbol != SINGLE:
        stage = L.STAGE_SECOND
    elif stage < L.STAGE_EXTRA and symbol == EXTRA:
        stage = L.STAGE_EXTRA
    else:
        stage = L.STAGE_DONE
    s.res_stage = stage
    while s.res_stage != L.STAGE_DONE and _high_options(R, S, places) == 0:
        s.res_stage = L.STAGE_EXTRA if (s.res_stage == L.STAGE_SECOND and symbol == EXTRA) else L.STAGE_DONE


@kernel
def _start_roam(R, S, p, resume, k) -> int:
    """p bought the Roaming Thief card from place k: it uses it now on another market (§6), and
    the resolution resumes afterwards; with no market to use it on, the card leaves the game [R]."""
    r, s = L.rules(R), L.state(S)
    s.roam_resume, s.roam_slot = resume, k
    exclude = s.res_market
    s.char_index, s.char_step = r.roaming_char, 0
    clear(s.char_sel, s.char_sel_n)
    s.char_sel_n = append(s.char_sel, 0, exclude)      # the choices are [exclude]
    s.phase, s.actor = L.PH_CHARACTER, p
    if roam_possible(R, S, exclude):
        return RES_DECIDE
    s.char_index = -1
    clear(s.char_sel, s.char_sel_n)
    s.char_sel_n = 0
    return resume_after_roam(R, S)


@kernel
def resume_after_roam(R, S) -> int:
    """Continue the resolution where the Roaming Thief interrupted it."""
    s = L.state(S)
    ph = s.roam_resume
    s.roam_resume = -1
    s.phase = ph
    s.actor = s.occ[s.res_market, s.res_order[s.res_pos]]
    if ph == L.PH_HIGH:
        _advance_high(R, S, s.roam_slot)
        if s.res_stage != L.STAGE_DONE:
            return RES_DECIDE
    _remove(S)
    return next_step(R, S)


@kernel
def _tutor_targets(R, S, out) -> int:
    """Reserves (other than the resolving market's) that may still receive a tutor Deben (into `out`)."""
    r, s = L.rules(R), L.state(S)
    n = 0
    for t in range(NUM_MARKETS if r.r_memphis != 0 else MEMPHIS):
        if t != s.res_market and not contains(s.tutor_given, s.tutor_given_n, t):
            out[n] = t
            n += 1
    return n


@kernel
def _tutor_take_deben(R, S) -> bool:
    """The tutor takes Deben and puts one on each other Reserve; True if its owner must choose where."""
    r, s = L.rules(R), L.state(S)
    m = s.res_market
    clear(s.tutor_given, s.tutor_given_n)
    s.tutor_given_n = 0
    others = np.empty(NUM_MARKETS, np.int64)
    n = _tutor_targets(R, S, others)
    want = r.memphis_tutor_deben if r.r_memphis != 0 else n
    taken = min(want, s.reserve[m])
    s.reserve[m] -= taken
    if taken >= n:
        for i in range(n):
            s.reserve[others[i]] += 1
        s.deben_out += taken - n
        return False
    if taken == 0:
        return False
    s.tutor_left = taken
    s.phase = L.PH_TUTOR_DIST
    return True


@njit(cache=True, inline="always")
def _finish(R, S) -> None:
    """All pieces resolved: close the market, reopen the previous one and refill it."""
    s = L.state(S)
    m = s.res_market
    s.res_market, s.res_pos = -1, 0
    clear(s.res_order, s.res_order_n)
    s.res_order_n = 0
    if m != MEMPHIS:
        s.side[m] ^= 1
        s.is_open[m] = 0
        if s.akhenaton_drawn == 0:
            _reopen_previous(R, S, m)


@njit(cache=True, inline="always")
def _reopen_previous(R, S, m) -> None:
    """The market closed before m reopens and is refilled (Akhenaton may close it for good)."""
    r, s = L.rules(R), L.state(S)
    closed = np.empty(MEMPHIS, np.int64)
    n = 0
    for c in range(MEMPHIS):
        if c != m and s.is_open[c] == 0 and s.dead[c] == 0:
            closed[n] = c
            n += 1
    for i in range(n):
        c = closed[i]
        s.is_open[c] = 1
        s.face_down[c] = 0
        foreign = refill(R, S, c)
        if s.akhenaton_drawn != 0:
            s.is_open[c] = 0
            s.dead[c] = 1
            if r.r_memphis != 0:
                s.pending_n = append(s.pending, s.pending_n, MEMPHIS)
        elif foreign > 0 and _count_cards(S, MEMPHIS) >= r.memphis_distribute_at:
            s.pending_n = append(s.pending, s.pending_n, MEMPHIS)


@kernel
def _count_cards(S, m) -> int:
    s = L.state(S)
    n = 0
    for k in range(MAX_SLOTS):
        if s.slots[m, k] >= 0:
            n += 1
    return n


@kernel
def refill(R, S, m) -> int:
    """Slide the cards of market m up and left, draw to full, seal the upper card.

    Foreign gifts drawn go to the Port of Memphis and drawing continues. Drawing the Akhenaton
    card stops the refill and marks it drawn. Returns the number of foreign gifts added to Memphis.
    """
    r, s = L.rules(R), L.state(S)
    row, port = s.slots[m], s.slots[MEMPHIS]
    n = 0
    for k in range(MAX_SLOTS):
        card = row[k]
        if card >= 0:
            row[n] = card
            n += 1
    full, akhenaton, foreign = r.cards_per_market, r.num_kinds, 0
    while n < full and s.deck_pos < s.deck_len:
        card = s.deck[s.deck_pos]
        s.deck_pos += 1
        if card == akhenaton:
            s.akhenaton_drawn = 1
            break
        if r.r_memphis != 0 and r.kind_bonus[card] > 0:
            place = 0
            while port[place] >= 0:
                place += 1
                if place == MAX_SLOTS:
                    raise ValueError("the Port of Memphis has no free card place")
            port[place] = card
            foreign += 1
            continue
        row[n] = card
        n += 1
    for k in range(n, MAX_SLOTS):
        row[k] = -1
    if s.akhenaton_drawn == 0 and n > 0 and s.seal_on[m] == 0 and s.seal_supply > 0:
        s.seal_on[m] = 1
        s.seal_supply -= 1
    return foreign
