"""Market resolution, closing and refill (docs/rules.md §4 and §7).

Servants (and tutors) are resolved in descending bid order. Each owner's choice
is a decision of that owner, so `current_player` can differ from the seat whose
turn it is. Automatic steps (paying, returning servants, flipping stalls,
refilling, seals) run here between decisions.
"""
from __future__ import annotations

import numpy as np

from . import actions as A
from .limits import EXTRA, MEMPHIS, NUM_BIDS, NUM_MARKETS, SINGLE
from .market import cards, gifts, take_card
from .powers import start_roaming_thief

from . import phases

_DONE = 3                       # highest bidder stage after the last pick


def next_step(g) -> None:
    """Run resolutions until a decision is needed; then hand back to the turn."""
    while True:
        if g.res_market < 0:
            if not g.pending:
                if g.akhenaton_drawn and not g.is_open[:MEMPHIS].any():
                    g.finish_game()
                else:
                    g._after_action()
                return
            m = g.pending.pop(0)
            g.res_market = m
            bits = g.occ_bits[m]
            g.res_order = tuple(v for v in range(NUM_BIDS - 1, -1, -1) if bits >> v & 1)
            g.res_pos = 0
        if g.res_pos >= len(g.res_order):
            _finish(g)
            continue
        m, v = g.res_market, g.res_order[g.res_pos]
        piece = int(g.occ[m, v])
        if piece >= phases.TUTOR:
            g.actor, g.phase = piece - phases.TUTOR, phases.PH_TUTOR_RES
            return
        g.actor = piece
        if g.res_pos > 0:
            g.phase = phases.PH_OTHER
            return
        # highest bidder
        if g.money[piece] < v:
            if np.count_nonzero(g.owned[piece]):
                g.phase = phases.PH_SHAME
                return
            _remove(g)
            continue
        g.money[piece] -= v
        g.reserve[m] += v
        g.res_stage = 0
        g.res_picks = g.rules.memphis["highest_takes"] if m == MEMPHIS else 1
        if _high_options(g):
            g.phase = phases.PH_HIGH
            return
        _remove(g)


def _remove(g) -> None:
    """Return the piece just resolved to its owner's supply and move to the next one."""
    m, v = g.res_market, g.res_order[g.res_pos]
    piece = int(g.occ[m, v])
    if piece >= phases.TUTOR:
        g.tutors[piece - phases.TUTOR] += 1
    else:
        g.servants[piece] += 1
    g.occ[m, v] = -1
    g.occ_bits[m] &= ~(1 << v)
    g.res_pos += 1


def _high_options(g) -> list[int]:
    """Places the highest bidder may take a card from at the current stage."""
    if g.res_stage == _DONE:
        return []
    places = cards(g, g.res_market)
    if g.res_market != MEMPHIS and g.res_stage > 0:
        return [k for k in places if k > 0]      # second and extra cards come from the lower row
    return places


def legal(g) -> list[int]:
    """Legal actions of the resolution phases, ascending."""
    ph, m = g.phase, g.res_market
    if ph == phases.PH_HIGH:
        return [A.CARD + k for k in _high_options(g)]
    if ph == phases.PH_SHAME:
        return [A.KIND + k for k in g.owned[g.actor].nonzero()[0].tolist()]
    if ph == phases.PH_OTHER:
        can_pay = g.money[g.actor] >= g.res_order[g.res_pos]
        return ([A.CARD + k for k in cards(g, m)] if can_pay else []) + [A.TAKE_HALF]
    if ph == phases.PH_TUTOR_RES:      # [R] a tutor cannot take the Roaming Thief for the neutral player
        return [A.CARD + k for k in gifts(g, m)] + [A.TAKE_DEBEN]
    return [A.MARKET + t for t in _tutor_targets(g)]


def apply(g, action: int) -> None:
    ph, m = g.phase, g.res_market
    p = g.actor
    if ph == phases.PH_HIGH:
        k = action - A.CARD
        if take_card(g, p, m, k):
            _start_roam(g, p, ph, k)
            return
        _advance_high(g, k)
        if g.res_stage != _DONE:
            return
    elif ph == phases.PH_SHAME:
        kind = action - A.KIND
        g.owned[p, kind] -= 1
        g.discarded[kind] += 1
    elif ph == phases.PH_OTHER:
        if action == A.TAKE_HALF:
            half = (int(g.reserve[m]) + 1) // 2
            g.reserve[m] -= half
            g.money[p] += half
        else:
            bid = g.res_order[g.res_pos]
            g.money[p] -= bid
            g.reserve[m] += bid
            if take_card(g, p, m, action - A.CARD):
                _start_roam(g, p, ph, action - A.CARD)
                return
    elif ph == phases.PH_TUTOR_RES:
        if action == A.TAKE_DEBEN:
            if _tutor_take_deben(g):
                return
        else:
            take_card(g, phases.NEUTRAL, m, action - A.CARD)
    elif ph == phases.PH_TUTOR_DIST:
        g.reserve[action - A.MARKET] += 1
        g.tutor_given.append(action - A.MARKET)
        g.tutor_left -= 1
        if g.tutor_left > 0:
            return
    _remove(g)
    next_step(g)


def _advance_high(g, k: int) -> None:
    """Move the highest bidder to the next card to take, skipping stages with no card."""
    m = g.res_market
    if m == MEMPHIS:
        g.res_picks -= 1
        if g.res_picks <= 0 or not _high_options(g):
            g.res_stage = _DONE
        return
    symbol = g.square_symbol[m, g.side[m], g.res_order[g.res_pos]]
    stage = g.res_stage
    if stage == 0 and k != 0 and symbol != SINGLE:
        stage = 1
    elif stage < 2 and symbol == EXTRA:
        stage = 2
    else:
        stage = _DONE
    g.res_stage = stage
    while g.res_stage != _DONE and not _high_options(g):
        g.res_stage = 2 if (g.res_stage == 1 and symbol == EXTRA) else _DONE


def _start_roam(g, p: int, resume: int, k: int) -> None:
    """The buyer of the Roaming Thief uses it now; the resolution resumes afterwards."""
    g.roam_resume, g.roam_slot = resume, k
    start_roaming_thief(g, p, exclude=g.res_market)


def resume_after_roam(g) -> None:
    """Continue the resolution where the Roaming Thief interrupted it."""
    ph, g.roam_resume = g.roam_resume, -1
    g.phase = ph
    g.actor = int(g.occ[g.res_market, g.res_order[g.res_pos]])
    if ph == phases.PH_HIGH:
        _advance_high(g, g.roam_slot)
        if g.res_stage != _DONE:
            return
    _remove(g)
    next_step(g)


def _tutor_targets(g) -> list[int]:
    """Reserves (other than the resolving market's) that may still receive a tutor Deben."""
    markets = range(NUM_MARKETS if g.options["memphis"] else MEMPHIS)
    return [t for t in markets if t != g.res_market and t not in g.tutor_given]


def _tutor_take_deben(g) -> bool:
    """Tutor takes Deben and puts one on each other Reserve; True if the owner must choose where."""
    m = g.res_market
    g.tutor_given = []
    others = _tutor_targets(g)
    want = g.rules.memphis["tutor_deben"] if g.options["memphis"] else len(others)
    taken = min(want, int(g.reserve[m]))
    g.reserve[m] -= taken
    if taken >= len(others):
        g.reserve[others] += 1
        g.deben_out += taken - len(others)
        return False
    if taken == 0:
        return False
    g.tutor_left = taken
    g.phase = phases.PH_TUTOR_DIST
    return True


def _finish(g) -> None:
    """All pieces resolved: close the market, reopen the previous one and refill it."""
    m = g.res_market
    g.res_market, g.res_order, g.res_pos = -1, (), 0
    if m != MEMPHIS:
        g.side[m] ^= 1
        g.is_open[m] = False
        if not g.akhenaton_drawn:
            _reopen_previous(g, m)
    g.refresh_market(m)


def _reopen_previous(g, m: int) -> None:
    """The market closed before m reopens and is refilled (Akhenaton may close it for good)."""
    for c in [c for c in range(MEMPHIS) if c != m and not g.is_open[c] and not g.dead[c]]:
        g.is_open[c] = True
        g.face_down[c] = False
        foreign = refill(g, c)
        if g.akhenaton_drawn:
            g.is_open[c] = False
            g.dead[c] = True
            if g.options["memphis"]:
                g.pending.append(MEMPHIS)
        elif foreign and g.market_count(MEMPHIS) >= g.rules.memphis["distribute_at"]:
            g.pending.append(MEMPHIS)
        g.refresh_market(c)


def refill(g, m: int) -> int:
    """Slide the cards of market m up and left, draw to full, seal the upper card.

    Foreign gifts drawn go to the Port of Memphis and drawing continues. Drawing
    the Akhenaton card stops the refill and marks `akhenaton_drawn`. Returns the
    number of foreign gifts added to Memphis.
    """
    rs = g.rules
    cards = [c for c in g.slots[m].tolist() if c >= 0]
    full, memphis = rs.setup["cards_per_market"], g.options["memphis"]
    foreign = 0
    for card in g.deck[g.deck_pos:].tolist():
        if len(cards) >= full:
            break
        g.deck_pos += 1
        if card == g.kind_akhenaton:
            g.akhenaton_drawn = True
            break
        if memphis and rs.kind_bonus[card] > 0:
            g.slots[MEMPHIS, g.slots[MEMPHIS].tolist().index(-1)] = card
            foreign += 1
            continue
        cards.append(card)
    g.slots[m] = cards + [-1] * (g.slots.shape[1] - len(cards))
    if not g.akhenaton_drawn and cards and not g.seal_on[m] and g.seal_supply > 0:
        g.seal_on[m] = True
        g.seal_supply -= 1
    return foreign
