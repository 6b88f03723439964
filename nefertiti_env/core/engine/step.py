"""The engine's entry points: legal actions, apply, results (docs/rules.md §1-§8).

One dispatch for legal actions and one for apply, by the phase: the turn (flow.py), a
character's power (powers.py), a market resolution (resolution.py). A game is truncated
after R's `max_decisions` decisions: no legal action is left and no seat wins. The kernels read
R and S as records (`layout.rules`, `layout.state`).
"""
from __future__ import annotations

import numpy as np

from .. import actions as A
from . import flow, layout as L, powers, resolution
from .board import base_scores
from .entry import borrow, kernel, njit, shared
from .setup import new_game


@njit(cache=True)
def is_terminated(R, S) -> bool:
    """The game ended by its rules (the Akhenaton card): scores and winners are final."""
    return L.state(S).phase == L.PH_OVER


@njit(cache=True)
def is_truncated(R, S) -> bool:
    s = L.state(S)
    return s.phase != L.PH_OVER and s.decisions >= L.rules(R).r_max_decisions


@njit(cache=True)
def is_over(R, S) -> bool:
    s = L.state(S)
    return s.phase == L.PH_OVER or s.decisions >= L.rules(R).r_max_decisions


@njit(cache=True, inline="always")
def legal_mask(R, S, mask) -> None:
    """Set mask[a] = 1 for every legal action a of the deciding seat (`mask` zeroed by the caller): what
    the rules allow, less the seat's forbidden actions in restricted play (`restrict`)."""
    if is_over(R, S):
        return
    s = L.state(S)
    ph = s.phase
    if ph in L.TURN_PHASES:
        flow.legal(R, S, mask)
    elif ph == L.PH_CHARACTER:
        powers.legal(R, S, mask)
    else:                            # RESOLUTION_PHASES
        resolution.legal(R, S, mask)
    if L.rules(R).restricted[s.actor]:
        restrict(R, S, mask)


@kernel
def restrict(R, S, mask) -> None:
    """Clear the deciding seat's forbidden actions (R's `forbidden` row, the game option) from its legal
    `mask`, unless nothing would be left but (optional) characters: then the restriction is lifted
    for this decision and the mask kept whole, since the seat must still place (a market restriction
    when that market holds the only free squares; the placement after a character would be forbidden
    too). A lifted decision is one whose legal actions include forbidden ones (the facade's
    `is_forced`). In the rules arrays, not the state, because it is a condition of the game, like the
    player count: every legal-move path (the facade, the bots' kernels, search inside its tree, the
    batched env) reads R, so no bot can see a forbidden action, and a state stays a position."""
    forbidden = L.rules(R).forbidden[L.state(S).actor]
    for a in range(A.NUM_ACTIONS):
        if mask[a] and not forbidden[a] and (a < A.CHARACTER or a >= A.MARKET):
            for b in range(A.NUM_ACTIONS):
                if forbidden[b]:
                    mask[b] = 0
            return


@njit(cache=True, inline="always")
def apply(R, S, action) -> None:
    """Apply a legal action of the deciding seat (the caller checks legality), and run what
    follows until the next decision."""
    s = L.state(S)
    s.decisions += 1
    ph = s.phase
    if ph in L.TURN_PHASES:
        status = flow.apply(R, S, action)
    elif ph == L.PH_CHARACTER:
        status = flow.character_done(R, S) if powers.apply(R, S, action) else resolution.RES_DECIDE
    else:                            # RESOLUTION_PHASES
        status = resolution.apply(R, S, action)
    flow.settle(R, S, status)


@njit(cache=True)
def final_scores(R, S) -> np.ndarray:
    """[owner] scores as if the game ended now: base scores plus the characters' end effects."""
    scores = base_scores(R, S)
    powers.end_bonus(R, S, scores)
    return scores


@shared
def win_signs(S, scores, out) -> None:
    """out[:players] = +1 for a seat with most points in `scores` (ties broken by most Deben; seats still
    tied share the win), -1 for the others: the winners if the game ended now (docs/rules.md §5.3, §9.20)."""
    s = L.state(S)
    n = s.num_players
    best, money = scores[0], -1
    for p in range(n):
        best = max(best, scores[p])
    for p in range(n):
        if scores[p] == best:
            money = max(money, s.money[p])
    for p in range(n):
        out[p] = 1 if scores[p] == best and s.money[p] == money else -1


@njit(cache=True)
def returns(R, S, scores, out) -> None:
    """out[:players] = `win_signs` of `scores` (the game's `final_scores`) once the game ended by its
    rules; zeros before and when truncated."""
    s = L.state(S)
    if s.phase == L.PH_OVER:
        win_signs(S, scores, out)
    else:
        out[:s.num_players] = 0


@njit(cache=True, inline="always")
def legal_list_into(R, S, out, mask) -> int:
    """Write the legal actions, ascending, into `out`; return how many. The caller's `mask` (NUM_ACTIONS
    int8) is the scratch, so that a search's hot loop allocates nothing. The list is written without a branch (each action written, the count
    moved on when it is legal): a branch per action mispredicts often, in the hottest loop of every
    decision."""
    for a in range(A.NUM_ACTIONS):
        mask[a] = 0
    legal_mask(R, S, mask)
    n = 0
    for a in range(A.NUM_ACTIONS):
        out[n] = a
        n += mask[a] != 0
    return n


LIST, NEW_GAME = -1, -2     # what `decide` does when its action is one of these
# `decide`'s one uint8 array W: the state S's bytes, its legal actions listed as int64 (at a multiple of 8:
# STATE_BYTES is one), then their mask as int8 bytes
W_LEGAL = L.STATE_BYTES
W_MASK = W_LEGAL + 8 * A.NUM_ACTIONS
W_SIZE = W_MASK + 8 * -(-A.NUM_ACTIONS // 8)


@njit(cache=True)
def decide(R, W, action, known) -> int:
    """One decision for the Python facade in one call: check that `action` is legal (else return -1,
    the state unchanged), apply it, and list the next legal actions. `W` (W_SIZE bytes) is the game's
    state `S`, then room for its legal actions listed and for their int8 mask, which the facade
    copies as `legal_action_mask` (one array: each array argument costs the call an unboxing). `legal[:known]` and the mask already hold the legal actions of S when `known` >= 0 (the
    previous call's output), so they are computed once per decision. Returns their number, or
    -2 - (8 * number + the seat that alone sees this decision) for a private one, so the common case
    needs no unpacking. The action LIST only lists the legal actions (returns their number); NEW_GAME
    first deals a new game seeded `known` (`setup.new_game`), so the facade makes every call through
    one typed entry (docs/engine.md, "Compile time") and gets a new game's legal actions with it.
    It lists them with the inlined `legal_list_into`: a kernel of its own would be one more library
    that emits the whole legal-move tree again, lengthening the first run. R and W are borrowed (`borrow`)."""
    R, W = borrow(R), borrow(W)
    S, legal = W[:W_LEGAL], W[W_LEGAL:W_MASK].view(np.int64)
    scratch = W[W_MASK:W_MASK + A.NUM_ACTIONS].view(np.int8)
    seat = -1
    if action == NEW_GAME:
        new_game(R, S, known)
    elif action >= 0:
        if known < 0:
            known = legal_list_into(R, S, legal, scratch)
        found = False
        for i in range(known):
            if legal[i] == action:
                found = True
                break
        if not found:
            return -1
        s = L.state(S)
        if s.phase == L.PH_CHARACTER and powers.private(R, S):
            seat = s.actor
        apply(R, S, action)
    n = legal_list_into(R, S, legal, scratch)
    return n if seat < 0 else -2 - (8 * n + seat)
