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
from nefertiti_env.core.limits import MAX_CHARACTERS, MAX_KINDS, MAX_SLOTS, MEMPHIS, NUM_BIDS, NUM_MARKETS
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
    out = np.zeros(CARDS_TOTAL + MAX_KINDS, np.int64)
    out[MONEY_TOTAL] = S[L.MONEY:L.MONEY + NUM_OWNERS].sum() + S[L.RESERVE:L.RESERVE + NUM_MARKETS].sum()
    out[SEALS_TOTAL] = S[L.SEAL_SUPPLY] + S[L.SEAL_ON:L.SEAL_ON + NUM_MARKETS].sum()
    for i in range(S[L.DECK_LEN]):
        card = S[L.DECK + i]
        if card < R[L.NUM_KINDS]:
            out[CARDS_TOTAL + card] += 1
    return out


@njit(cache=True)
def check(R, S, T) -> int:
    """The first rule this state breaks (a code of MESSAGES), or OK; T: the game's `totals`."""
    n, nk = R[L.R_NUM_PLAYERS], R[L.NUM_KINDS]
    akhenaton, roaming = nk, nk + 1                 # card codes past the gifts
    held = S[L.TUTOR_LEFT] if S[L.PHASE] == PH_TUTOR_DIST else 0
    money = S[L.MONEY:L.MONEY + NUM_OWNERS].sum() + S[L.RESERVE:L.RESERVE + NUM_MARKETS].sum()
    if money + S[L.DEBEN_OUT] + held != T[MONEY_TOTAL]:
        return MONEY
    if S[L.SEAL_SUPPLY] < 0 or S[L.MONEY:L.MONEY + NUM_OWNERS].min() < 0 or \
            S[L.RESERVE:L.RESERVE + NUM_MARKETS].min() < 0:
        return NEGATIVE
    places = np.zeros(MAX_KINDS + 2, np.int64)      # per card code: undrawn, above a market, owned, discarded
    for i in range(S[L.DECK_POS], S[L.DECK_LEN]):
        card = S[L.DECK + i]
        if not 0 <= card <= akhenaton:
            return CARDS
        places[card] += 1
    on_board = 0
    for i in range(NUM_MARKETS * MAX_SLOTS):
        card = S[L.SLOTS + i]
        if card > roaming:
            return CARDS
        if card >= 0:
            places[card] += 1
            on_board += card == akhenaton
    for k in range(nk):
        places[k] += S[L.DISCARDED + k]
        for o in range(NUM_OWNERS):
            if S[L.OWNED + o * MAX_KINDS + k] < 0:
                return NEGATIVE
            places[k] += S[L.OWNED + o * MAX_KINDS + k]
        if places[k] != T[CARDS_TOTAL + k]:
            return CARDS
    if places[akhenaton] + S[L.AKHENATON_DRAWN] != 1:
        return CARDS
    if places[roaming] > 0:
        played = False
        c = R[L.ROAMING_CHAR]
        for o in range(NUM_OWNERS):
            played |= c >= 0 and S[L.CHAR_PLAYED + o * MAX_CHARACTERS + c] != 0
        if places[roaming] > 1 or not played:
            return ROAMING_THIEF
    if on_board:
        return AKHENATON_ON_BOARD
    for s in range(MAX_SLOTS):
        card = S[L.SLOTS + MEMPHIS * MAX_SLOTS + s]
        if card >= 0 and (card >= nk or R[L.KIND_BONUS + card] <= 0):
            return MEMPHIS_GIFT
    seals = S[L.SEAL_SUPPLY] + S[L.SEALS:L.SEALS + NUM_OWNERS].sum() + S[L.SEAL_ON:L.SEAL_ON + NUM_MARKETS].sum()
    if seals != T[SEALS_TOTAL]:
        return SEALS
    if S[L.SEAL_ON + MEMPHIS] != 0 or S[L.SEALS + NEUTRAL] != 0:
        return SEAL_PLACE
    servants = np.zeros(NUM_OWNERS, np.int64)     # on the squares, per seat
    tutors = np.zeros(NUM_OWNERS, np.int64)
    for i in range(NUM_MARKETS * NUM_BIDS):
        piece = S[L.OCC + i]
        if 0 <= piece < TUTOR:
            servants[piece] += 1
        elif piece >= TUTOR:
            tutors[min(piece - TUTOR, NEUTRAL)] += 1
    for p in range(NUM_OWNERS):
        if servants[p] + (S[L.SERVANTS + p] if p < n else 0) != (R[L.START_SERVANTS] if p < n else 0):
            return SERVANTS
        if tutors[p] + (S[L.TUTORS + p] if p < n else 0) != (R[L.START_TUTORS] if p < n else 0):
            return TUTORS
    if S[L.IS_OPEN + MEMPHIS] != R[L.R_MEMPHIS]:
        return MEMPHIS_CLOSED
    for s in range(MAX_SLOTS):
        if S[L.FACE_DOWN + MEMPHIS * MAX_SLOTS + s] != 0:
            return MEMPHIS_FACE_DOWN
    for i in range(NUM_MARKETS * MAX_SLOTS):
        if S[L.FACE_DOWN + i] != 0 and S[L.SLOTS + i] < 0:
            return FACE_DOWN
    for m in range(NUM_MARKETS):
        if m == S[L.RES_MARKET]:
            for i in range(1, S[L.RES_ORDER_N]):
                if S[L.RES_ORDER + i] > S[L.RES_ORDER + i - 1]:
                    return BID_ORDER
            continue
        row = S[L.OCC + m * NUM_BIDS:L.OCC + (m + 1) * NUM_BIDS]
        pending = False
        for i in range(S[L.PENDING_N]):
            pending |= S[L.PENDING + i] == m
        if m < MEMPHIS and S[L.IS_OPEN + m] == 0 and not pending and row.max() >= 0:
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
    policy = np.zeros(L.RNG + L.RNG_WORDS, np.int64)      # a generator's words where the engine keeps them
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
