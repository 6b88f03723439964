"""The random-play invariants (docs/rules.md §1-§8) as numba kernels over a game's R and S, and a
compiled loop that plays and checks many random games: the one implementation behind
`tests/test_expansion_invariants.py` and `benchmarks/fuzz.py`.

A test oracle, not product code: `totals` reads what a game holds at setup, `check` tests a state
after any decision against it and returns a failure code (`OK`, or one of the named codes below,
whose text is `MESSAGES[code]`) instead of raising, so a compiled loop can report it.
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.engine import layout as L
from nefertiti_env.core.engine import setup, step
from nefertiti_env.core.engine.entry import njit
from nefertiti_env.core.engine.rng import rng_integers, rng_seed
from nefertiti_env.core.limits import MAX_KINDS, MAX_SLOTS, MEMPHIS, NUM_BIDS, NUM_MARKETS
from nefertiti_env.core.phases import NEUTRAL, NUM_OWNERS, PH_TUTOR_DIST, TUTOR

MESSAGES = (
    "",
    "§1: money is a closed system",
    "no negative Deben, Reserve, seal supply or gifts held",
    "every card in exactly one place, and one Akhenaton card",
    "the Roaming Thief card is on the board only once it was played",
    "§2: the Akhenaton card never lies on the board",
    "§7: only foreign gifts go to Memphis",
    "§1: seals are conserved",
    "§7: no seal at Memphis; §8: none for the neutral player",
    "servants are conserved",
    "tutors are conserved",
    "§7: Memphis never closes",
    "§7: no face-down card at Memphis",
    "§6 Beggar: only a gift lies face down (never an empty place)",
    "§4: descending bid order",
    "§4: all pieces back after each resolution",
    "§8: a tutor is never highest",
    "the game did not end within the decision limit",
)
(OK, MONEY, NEGATIVE, CARDS, ROAMING_THIEF, AKHENATON_ON_BOARD, MEMPHIS_GIFT, SEALS, SEAL_PLACE, SERVANTS, TUTORS,
 MEMPHIS_CLOSED, MEMPHIS_FACE_DOWN, FACE_DOWN, BID_ORDER, PIECES_BACK, TUTOR_HIGHEST, NOT_ENDED) = range(len(MESSAGES))
MONEY_TOTAL, SEALS_TOTAL, CARDS_TOTAL = 0, 1, 2      # fields of `totals`: Deben, seals, then gifts per kind


@njit(cache=True)
def totals(R, S) -> np.ndarray:
    """What a game holds at setup: [Deben on the players and Reserves, seals in supply and on the
    board, then the gifts of each kind in its whole deck] (check it with `check` at once)."""
    r, s = L.rules(R), L.state(S)
    out = np.zeros(CARDS_TOTAL + MAX_KINDS, np.int64)
    out[MONEY_TOTAL] = s.money.sum() + s.reserve.sum()
    out[SEALS_TOTAL] = s.seal_supply + s.seal_on.sum()
    for i in range(s.deck_len):
        card = s.deck[i]
        if card < r.num_kinds:
            out[CARDS_TOTAL + card] += 1
    return out


@njit(cache=True)
def check(R, S, T) -> int:
    """The first rule this state breaks (a code of MESSAGES), or OK; T: the game's `totals`."""
    r, s = L.rules(R), L.state(S)
    n, nk = r.r_num_players, r.num_kinds
    akhenaton, roaming = nk, nk + 1                 # card codes past the gifts
    held = s.tutor_left if s.phase == PH_TUTOR_DIST else 0
    money = s.money.sum() + s.reserve.sum()
    if money + s.deben_out + held != T[MONEY_TOTAL]:
        return MONEY
    if s.seal_supply < 0 or s.money.min() < 0 or s.reserve.min() < 0:
        return NEGATIVE
    places = np.zeros(MAX_KINDS + 2, np.int64)      # per card code: undrawn, above a market, owned, discarded
    for i in range(s.deck_pos, s.deck_len):
        card = s.deck[i]
        if not 0 <= card <= akhenaton:
            return CARDS
        places[card] += 1
    on_board = 0
    for m in range(NUM_MARKETS):
        for j in range(MAX_SLOTS):
            card = s.slots[m, j]
            if card > roaming:
                return CARDS
            if card >= 0:
                places[card] += 1
                on_board += card == akhenaton
    for k in range(nk):
        places[k] += s.discarded[k]
        for o in range(NUM_OWNERS):
            if s.owned[o, k] < 0:
                return NEGATIVE
            places[k] += s.owned[o, k]
        if places[k] != T[CARDS_TOTAL + k]:
            return CARDS
    if places[akhenaton] + s.akhenaton_drawn != 1:
        return CARDS
    if places[roaming] > 0:
        played = False
        c = r.roaming_char
        for o in range(NUM_OWNERS):
            played |= c >= 0 and s.char_played[o, c] != 0
        if places[roaming] > 1 or not played:
            return ROAMING_THIEF
    if on_board:
        return AKHENATON_ON_BOARD
    for j in range(MAX_SLOTS):
        card = s.slots[MEMPHIS, j]
        if card >= 0 and (card >= nk or r.kind_bonus[card] <= 0):
            return MEMPHIS_GIFT
    seals = s.seal_supply + s.seals.sum() + s.seal_on.sum()
    if seals != T[SEALS_TOTAL]:
        return SEALS
    if s.seal_on[MEMPHIS] != 0 or s.seals[NEUTRAL] != 0:
        return SEAL_PLACE
    servants = np.zeros(NUM_OWNERS, np.int64)     # on the squares, per seat
    tutors = np.zeros(NUM_OWNERS, np.int64)
    for m in range(NUM_MARKETS):
        for b in range(NUM_BIDS):
            piece = s.occ[m, b]
            if 0 <= piece < TUTOR:
                servants[piece] += 1
            elif piece >= TUTOR:
                tutors[min(piece - TUTOR, NEUTRAL)] += 1
    for p in range(NUM_OWNERS):
        if servants[p] + (s.servants[p] if p < n else 0) != (r.start_servants if p < n else 0):
            return SERVANTS
        if tutors[p] + (s.tutors[p] if p < n else 0) != (r.start_tutors if p < n else 0):
            return TUTORS
    if s.is_open[MEMPHIS] != r.r_memphis:
        return MEMPHIS_CLOSED
    for j in range(MAX_SLOTS):
        if s.face_down[MEMPHIS, j] != 0:
            return MEMPHIS_FACE_DOWN
    for m in range(NUM_MARKETS):
        for j in range(MAX_SLOTS):
            if s.face_down[m, j] != 0 and s.slots[m, j] < 0:
                return FACE_DOWN
    for m in range(NUM_MARKETS):
        if m == s.res_market:
            for i in range(1, s.res_order_n):
                if s.res_order[i] > s.res_order[i - 1]:
                    return BID_ORDER
            continue
        row = s.occ[m]
        pending = False
        for i in range(s.pending_n):
            pending |= s.pending[i] == m
        if m < MEMPHIS and s.is_open[m] == 0 and not pending and row.max() >= 0:
            return PIECES_BACK
        highest = 0                                # a tutor stands below a servant's bid
        for b in range(NUM_BIDS):
            if 0 <= row[b] < TUTOR:
                highest = b
        for b in range(highest, NUM_BIDS):
            if row[b] >= TUTOR:
                return TUTOR_HIGHEST
    return OK


@njit(cache=True)
def play_games(Rs, rules_of, seeds, policy_seeds, max_decisions, rows, decisions, codes, scores) -> None:
    """Game i: a new game of rules Rs[rules_of[i]] and seed seeds[i] in rows[i], played with uniformly
    random legal actions from numpy's `default_rng(policy_seeds[i])` drawn as `test_expansion_invariants.
    play_random` draws them (so `run_game` plays the same game), checked at setup and after every
    decision. Writes its decisions, the failure code (NOT_ENDED after `max_decisions` decisions) and its
    final scores; the check stops at the first failure, so decisions[i] is where it failed."""
    mask = np.zeros(A.NUM_ACTIONS, np.int8)
    policy = np.zeros(L.RNG_WORDS, np.int64)      # a generator's words, as a state begins with them
    for i in range(rows.shape[0]):
        R, S = Rs[rules_of[i]], rows[i]
        setup.new_game(R, S, seeds[i])
        rng_seed(policy, policy_seeds[i])
        T = totals(R, S)
        code = check(R, S, T)
        d = 0
        while code == OK and not step.is_over(R, S):
            if d == max_decisions:
                code = NOT_ENDED
                break
            mask[:] = 0
            step.legal_mask(R, S, mask)
            legal = np.flatnonzero(mask)
            step.apply(R, S, legal[rng_integers(policy, 0, legal.size)])
            d += 1
            code = check(R, S, T)
        decisions[i], codes[i] = d, code
        scores[i, :] = step.final_scores(R, S)[:scores.shape[1]]
