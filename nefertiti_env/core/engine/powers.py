"""Character powers (docs/rules.md §6) as compiled kernels over the rules `R` and the state `S`,
read as records (`layout.rules`, `layout.state`).

A power is a parameterised kind named by the ruleset file (`power = "scribe"`, `bonus = 2`) and
declared once, with its parameters and named steps, in `core/power_table.py`: `r.char_power[c]`
is its index in `POWER_KINDS`, its parameters are `r.char_params[c, i]` in the order of its
`Power.params`. Its choices are a sequence of masked decisions by the player who spent the seal:
`start` runs when the card is played, `legal` sets the actions of the current step (`s.char_step`,
an index into its `Power.steps`; the choices so far are the list `s.char_sel`, each entry meaning
what the step's `chosen` says), `apply` takes one. `start` and `apply` return True when the power is
over: the caller (flow) then hands back to the placement, or to the resolution for a bought
Roaming Thief. A power is `playable` only when it can be carried out to the end, so no character
leads to a dead end.

The list `s.char_sel` keeps zeros past its used length, as a packed Python game does.
"""
from __future__ import annotations

from .. import actions as A
from ..limits import MAX_SLOTS, MAX_TYPES, MEMPHIS
from ..power_table import power_codes, step_codes
from . import layout as L
from .board import discard, has_gift, is_gift, kind_roaming, kind_value, owns_any, take_card, take_from_board, \
    type_bonus, type_items, type_values
from .entry import kernel

# power codes (r.char_power[c]), looked up by name in the table: module constants numba compiles in
(P_NONE, P_SCRIBE, P_MERCHANT, P_ROYAL_SERVANT, P_TREASURER, P_VIZIER, P_HEAD_PRIEST, P_THIEF, P_ORACLE, P_BEGGAR,
 P_MERCHANT_OF_AMON, P_PRIEST_OF_AMON, P_ROYAL_SCRIBE, P_ROAMING_THIEF, P_TRADER) = power_codes(
    "none", "scribe", "merchant", "royal_servant", "treasurer", "vizier", "head_priest", "thief", "oracle", "beggar",
    "merchant_of_amon", "priest_of_amon", "royal_scribe", "roaming_thief", "trader")


# ---------------------------------------------------------------- shared helpers
@kernel
def _param(R, S, i) -> int:
    """Parameter i of the character being played."""
    return L.rules(R).char_params[L.state(S).char_index, i]


@kernel
def _sel_push(S, value) -> None:
    s = L.state(S)
    s.char_sel[s.char_sel_n] = value
    s.char_sel_n += 1


@kernel
def _sel_set(S, value) -> None:
    """char_sel = [value]."""
    s = L.state(S)
    s.char_sel[:] = 0
    s.char_sel[0] = value
    s.char_sel_n = 1


@kernel
def _owned_types(R, S, p) -> int:
    """Bitmask of the gift types owner p holds items of."""
    r, s = L.rules(R), L.state(S)
    bits = 0
    for k in range(r.num_kinds):
        if s.owned[p, k] > 0 and r.kind_items[k] > 0:
            bits |= 1 << r.kind_type[k]
    return bits


@kernel
def _other_owner(R, p, target) -> int:
    """The owner named by `target` (relative to p): the seat target + 1 places to the left, or the
    neutral player (§8)."""
    if target == A.NEUTRAL_TARGET:
        return L.NEUTRAL
    return (p + target + 1) % L.rules(R).r_num_players


@kernel
def _num_targets(R) -> int:
    """Other owners of a seat: the other seats, and the neutral player with 2 players."""
    n = L.rules(R).r_num_players
    return n if n == 2 else n - 1


@kernel
def _target(R, i) -> int:
    """Relative target index of the i-th other owner: seats to the left, then the neutral player."""
    if L.rules(R).r_num_players == 2 and i == 1:
        return A.NEUTRAL_TARGET
    return i


@kernel
def _mark_owned(R, S, o, mask) -> None:
    """Set KIND + k for every card kind owner o holds."""
    owned = L.state(S).owned[o]
    for k in range(L.rules(R).num_kinds):
        if owned[k] > 0:
            mask[A.KIND + k] = 1


# ---------------------------------------------------------------- Scribe (§6.1)
# One choice (a `type`): score every item of one owned gift type at its current value + `bonus`;
# discard those cards.


@kernel
def _scribe_legal(R, S, mask) -> None:
    bits = _owned_types(R, S, L.state(S).actor)
    for t in range(L.rules(R).num_types):
        if bits >> t & 1:
            mask[A.TYPE + t] = 1


@kernel
def _scribe_apply(R, S, action) -> bool:
    r, s = L.rules(R), L.state(S)
    p, t = s.actor, action - A.TYPE
    items = type_items(R, S)
    per_item = type_values(R, items)[t] + type_bonus(R, S)[p, t] + _param(R, S, 0)
    s.points[p] += items[p, t] * per_item
    for k in range(r.num_kinds):
        if r.kind_type[k] == t:
            s.discarded[k] += s.owned[p, k]
            s.owned[p, k] = 0
    return True


# ---------------------------------------------------------------- Merchant of Amon, Royal Scribe (§6.2)
# Choose own cards one by one, until `done` or none is left; each scores and leaves play: Merchant of Amon
# `points` per item, Royal Scribe its current value + `bonus` per item (recounted each time).


@kernel
def _discard_legal(R, S, mask) -> None:
    _mark_owned(R, S, L.state(S).actor, mask)
    mask[A.DONE] = 1


@kernel
def _discard_apply(R, S, action, royal_scribe) -> bool:
    if action == A.DONE:
        return True
    r, s = L.rules(R), L.state(S)
    p, kind = s.actor, action - A.KIND
    if royal_scribe:
        points = kind_value(R, S, p, kind) + _param(R, S, 0) * r.kind_items[kind]
    else:
        points = _param(R, S, 0) * r.kind_items[kind]
    s.points[p] += points
    discard(R, S, p, kind)
    return not owns_any(S, p)


# ---------------------------------------------------------------- Merchant (§6.1)
# Swap one of your gifts for one gift of another owner (the neutral player too): give, target, take.
MERCHANT_GIVE, MERCHANT_TARGET, MERCHANT_TAKE = step_codes("merchant", "give", "target", "take")


@kernel
def _merchant_playable(R, S, p) -> bool:
    if not owns_any(S, p):
        return False
    for o in range(L.NUM_OWNERS):
        if o != p and owns_any(S, o):
            return True
    return False


@kernel
def _merchant_legal(R, S, mask) -> None:
    s = L.state(S)
    p, step = s.actor, s.char_step
    if step == MERCHANT_GIVE:
        _mark_owned(R, S, p, mask)
    elif step == MERCHANT_TARGET:
        for i in range(_num_targets(R)):
            target = _target(R, i)
            if owns_any(S, _other_owner(R, p, target)):
                mask[A.TARGET + target] = 1
    else:
        _mark_owned(R, S, s.char_sel[1], mask)


@kernel
def _merchant_apply(R, S, action) -> bool:
    s = L.state(S)
    p, step = s.actor, s.char_step
    if step == MERCHANT_GIVE:
        _sel_push(S, action - A.KIND)
    elif step == MERCHANT_TARGET:
        _sel_push(S, _other_owner(R, p, action - A.TARGET))
    else:
        give, other, take = s.char_sel[0], s.char_sel[1], action - A.KIND
        s.owned[p, give] -= 1
        s.owned[other, give] += 1
        s.owned[other, take] -= 1
        s.owned[p, take] += 1
        return True
    s.char_step += 1
    return False


# ---------------------------------------------------------------- Royal Servant (§6.1)
# One choice: name any gift type; every other owner of it discards their least valuable card of it.


@kernel
def _royal_servant_legal(R, S, mask) -> None:
    for t in range(L.rules(R).num_types):
        mask[A.TYPE + t] = 1


@kernel
def _royal_servant_apply(R, S, action) -> bool:
    r, s = L.rules(R), L.state(S)
    p, t = s.actor, action - A.TYPE
    for i in range(_num_targets(R)):
        o = _other_owner(R, p, _target(R, i))
        for j in range(r.num_kinds):
            k = r.kind_discard_order[j]
            if r.kind_type[k] == t and s.owned[o, k] > 0:
                discard(R, S, o, k)
                break
    return True


# ---------------------------------------------------------------- Treasurer (§6.1)
# One choice: take half (rounded up) of one classic market's Reserve.


@kernel
def _treasurer_legal(R, S, mask) -> None:
    for m in range(MEMPHIS):
        mask[A.MARKET + m] = 1


@kernel
def _treasurer_apply(R, S, action) -> bool:
    s = L.state(S)
    m = action - A.MARKET
    half = (s.reserve[m] + 1) // 2
    s.reserve[m] -= half
    s.money[s.actor] += half
    return True


# ---------------------------------------------------------------- Vizier (§6.1)
# Score `points_per_type` for each different gift type you own; no choice.
@kernel
def _vizier_start(R, S) -> bool:
    s = L.state(S)
    p = s.actor
    bits, types = _owned_types(R, S, p), 0
    for t in range(MAX_TYPES):
        types += bits >> t & 1
    s.points[p] += _param(R, S, 0) * types
    return True


# ---------------------------------------------------------------- Head Priest (§6.1)
# Place `servants` servants this turn (a market may close between the placements); no choice.
@kernel
def _head_priest_playable(R, S, p, c) -> bool:
    return L.state(S).servants[p] >= L.rules(R).char_params[c, 0]


# ---------------------------------------------------------------- Thief (§6.1)
# Take one face-up lower-row gift from any classic market, open or closed, for free.
THIEF_MARKET, THIEF_CARD = step_codes("thief", "market", "card")


@kernel
def _thief_playable(R, S) -> bool:
    for m in range(MEMPHIS):
        if has_gift(R, S, m, True):
            return True
    return False


@kernel
def _thief_legal(R, S, mask) -> None:
    s = L.state(S)
    if s.char_step == THIEF_MARKET:
        for m in range(MEMPHIS):
            if has_gift(R, S, m, True):
                mask[A.MARKET + m] = 1
    else:
        m = s.char_sel[0]
        for k in range(1, MAX_SLOTS):
            if is_gift(R, S, m, k):
                mask[A.CARD + k] = 1


@kernel
def _thief_apply(R, S, action) -> bool:
    s = L.state(S)
    if s.char_step == THIEF_MARKET:
        _sel_push(S, action - A.MARKET)
        s.char_step = THIEF_CARD
        return False
    take_card(R, S, s.actor, s.char_sel[0], action - A.CARD)
    return True


# ---------------------------------------------------------------- Oracle (§6.2)
# See the bottom `cards` cards of the deck, swap own gifts for them (taking a card of equal or
# lower maximum value than the one given), then choose their order. From then on the player
# knows those cards (oracle_seat, oracle_from). Each bottom place is exchanged at most once:
# char_sel lists the places already exchanged (after the gift to give, during a take).
ORACLE_SWAP, ORACLE_TAKE, ORACLE_ORDER = step_codes("oracle", "swap", "take", "order")


@kernel
def _oracle_takeable(R, S, give, first, i) -> bool:
    """May bottom place i (relative to oracle_from) be taken for a gift of kind `give`: a gift
    worth at most as much, not among the places exchanged (char_sel[first:])?"""
    r, s = L.rules(R), L.state(S)
    c = s.deck[s.oracle_from + i]
    if c >= r.num_kinds or r.kind_max_value[c] > r.kind_max_value[give]:
        return False
    for j in range(first, s.char_sel_n):
        if s.char_sel[j] == i:
            return False
    return True


@kernel
def _oracle_any(R, S, give, first) -> bool:
    s = L.state(S)
    for i in range(s.deck_len - s.oracle_from):
        if _oracle_takeable(R, S, give, first, i):
            return True
    return False


@kernel
def _oracle_start(R, S) -> bool:
    s = L.state(S)
    s.oracle_seat = s.actor
    s.oracle_from = max(s.deck_pos, s.deck_len - _param(R, S, 0))
    return False


@kernel
def _oracle_legal(R, S, mask) -> None:
    r, s = L.rules(R), L.state(S)
    step, n = s.char_step, s.deck_len - s.oracle_from
    if step == ORACLE_SWAP:
        p = s.actor
        for k in range(r.num_kinds):
            if s.owned[p, k] > 0 and _oracle_any(R, S, k, 0):
                mask[A.KIND + k] = 1
        mask[A.DONE] = 1
    elif step == ORACLE_TAKE:
        for i in range(n):
            if _oracle_takeable(R, S, s.char_sel[0], 1, i):
                mask[A.CARD + i] = 1
    else:
        for i in range(n):
            mask[A.CARD + i] = 1
        for j in range(s.char_sel_n):
            mask[A.CARD + s.char_sel[j]] = 0


@kernel
def _oracle_apply(R, S, action) -> bool:
    s = L.state(S)
    p, step, start = s.actor, s.char_step, s.oracle_from
    n = s.deck_len - start
    sel, sel_n = s.char_sel, s.char_sel_n
    if step == ORACLE_SWAP and action == A.DONE:
        s.char_step = ORACLE_ORDER
        sel[:sel_n] = 0
        s.char_sel_n = 0
        return n <= 1
    if step == ORACLE_SWAP:                       # char_sel = [give] + exchanged
        for j in range(sel_n, 0, -1):
            sel[j] = sel[j - 1]
        sel[0] = action - A.KIND
        s.char_sel_n = sel_n + 1
        s.char_step = ORACLE_TAKE
        return False
    i = action - A.CARD
    if step == ORACLE_TAKE:                       # char_sel = exchanged + [i]
        give, pos = sel[0], start + i
        s.owned[p, give] -= 1
        s.owned[p, s.deck[pos]] += 1
        s.deck[pos] = give
        if s.oracle_given_n == L.MAX_ORACLE_GIVEN:
            raise IndexError("more Oracle swaps in one game than layout.MAX_ORACLE_GIVEN")
        s.oracle_given[s.oracle_given_n] = give   # everyone sees which gift went to the bottom
        s.oracle_given_n += 1
        for j in range(sel_n - 1):
            sel[j] = sel[j + 1]
        sel[sel_n - 1] = i
        s.char_step = ORACLE_SWAP
        return False
    _sel_push(S, i)
    if sel_n + 1 < n - 1:
        return False
    # the new bottom: the places in the chosen order, then the one left
    bottom = s.deck[start:start + n].copy()
    chosen = 0
    for j in range(n - 1):
        s.deck[start + j] = bottom[sel[j]]
        chosen |= 1 << sel[j]
    for i in range(n):
        if not chosen >> i & 1:
            s.deck[start + n - 1] = bottom[i]
    return True


@kernel
def _oracle_private(S) -> bool:
    """Which bottom place a gift was taken from, and the new order, name hidden deck places:
    only the Oracle player sees them (the gift given, a `kind` action, is public)."""
    return L.state(S).char_step != ORACLE_SWAP


# ---------------------------------------------------------------- Beggar (§6.2)
# At each classic market in turn (the step is the market): take `deben` Deben from its Reserve,
# or turn one of its gifts face down until the market next opens, or do nothing (`done`).


@kernel
def _beggar_legal(R, S, mask) -> None:
    s = L.state(S)
    m = s.char_step
    for k in range(MAX_SLOTS):
        if is_gift(R, S, m, k):
            mask[A.CARD + k] = 1
    if s.reserve[m] > 0:
        mask[A.TAKE_DEBEN] = 1
    mask[A.DONE] = 1


@kernel
def _beggar_apply(R, S, action) -> bool:
    s = L.state(S)
    m = s.char_step
    if action == A.TAKE_DEBEN:
        take = min(_param(R, S, 0), s.reserve[m])
        s.reserve[m] -= take
        s.money[s.actor] += take
    elif action != A.DONE:
        s.face_down[m, action - A.CARD] = 1
    s.char_step += 1
    return s.char_step == MEMPHIS


# ---------------------------------------------------------------- Roaming Thief (§6.2)
# Take the lowest-maximum-value gift of a market and leave the Roaming Thief card in its place
# (a seal there stays). Whoever later buys that card must use it at once on another market:
# the resolution then starts this power with char_sel = [the market it came from]; played as
# a character, no market is excluded (char_sel = [-1]).
ROAMING_MARKET, ROAMING_CARD = step_codes("roaming_thief", "market", "card")


@kernel
def _roam_market(R, S, m, exclude) -> bool:
    """May the Roaming Thief go to classic market m: not `exclude`, not closed for good (the
    market where Akhenaton was drawn), with a face-up gift."""
    return m != exclude and L.state(S).dead[m] == 0 and has_gift(R, S, m, False)


@kernel
def roam_possible(R, S, exclude) -> bool:
    """Is there a market for the Roaming Thief (bought at market `exclude`)? Without one, the
    card leaves the game (§6.2, [R])."""
    for m in range(MEMPHIS):
        if _roam_market(R, S, m, exclude):
            return True
    return False


@kernel
def _slot_value(R, S, m, k) -> int:
    """The maximum value of the card in place k above market m."""
    return L.rules(R).kind_max_value[L.state(S).slots[m, k]]


@kernel
def _lowest_value(R, S, m) -> int:
    """The lowest maximum value of market m's face-up gifts."""
    low = -1
    for k in range(MAX_SLOTS):
        if is_gift(R, S, m, k):
            v = _slot_value(R, S, m, k)
            if low < 0 or v < low:
                low = v
    return low


@kernel
def _roaming_legal(R, S, mask) -> None:
    s = L.state(S)
    if s.char_step == ROAMING_MARKET:
        for m in range(MEMPHIS):
            if _roam_market(R, S, m, s.char_sel[0]):
                mask[A.MARKET + m] = 1
    else:
        m = s.char_sel[1]
        low = _lowest_value(R, S, m)
        for k in range(MAX_SLOTS):
            if is_gift(R, S, m, k) and _slot_value(R, S, m, k) == low:
                mask[A.CARD + k] = 1


@kernel
def _roaming_apply(R, S, action) -> bool:
    s = L.state(S)
    if s.char_step == ROAMING_MARKET:
        _sel_push(S, action - A.MARKET)
        s.char_step = ROAMING_CARD
        return False
    take_from_board(R, S, s.actor, s.char_sel[1], action - A.CARD, kind_roaming(R))
    return True


# ---------------------------------------------------------------- Trader (§6.2)
# Exchange up to `exchanges` own gifts with face-up gifts of the classic markets (open or
# closed), paying the difference of maximum values (if the gift taken is worth more) to that
# Reserve. char_sel = [exchanges made, gift to give, market].
TRADER_GIVE, TRADER_MARKET, TRADER_CARD = step_codes("trader", "give", "market", "card")


@kernel
def _affordable(R, S, p, value, m, k) -> bool:
    """May p take the gift in place k of market m for a gift of maximum value `value`?"""
    return is_gift(R, S, m, k) and _slot_value(R, S, m, k) <= value + L.state(S).money[p]


@kernel
def _affordable_at(R, S, p, value, m) -> bool:
    for k in range(MAX_SLOTS):
        if _affordable(R, S, p, value, m, k):
            return True
    return False


@kernel
def _affordable_any(R, S, p, value) -> bool:
    for m in range(MEMPHIS):
        if _affordable_at(R, S, p, value, m):
            return True
    return False


@kernel
def _trader_playable(R, S, p) -> bool:
    r, s = L.rules(R), L.state(S)
    best = -1                           # the most valuable gift owned affords the most
    for k in range(r.num_kinds):
        if s.owned[p, k] > 0:
            best = max(best, r.kind_max_value[k])
    return best >= 0 and _affordable_any(R, S, p, best)


@kernel
def _trader_legal(R, S, mask) -> None:
    r, s = L.rules(R), L.state(S)
    p, step = s.actor, s.char_step
    if step == TRADER_GIVE:
        for k in range(r.num_kinds):
            if s.owned[p, k] > 0 and _affordable_any(R, S, p, r.kind_max_value[k]):
                mask[A.KIND + k] = 1
        mask[A.DONE] = 1
        return
    value = r.kind_max_value[s.char_sel[1]]
    if step == TRADER_MARKET:
        for m in range(MEMPHIS):
            if _affordable_at(R, S, p, value, m):
                mask[A.MARKET + m] = 1
    else:
        m = s.char_sel[2]
        for k in range(MAX_SLOTS):
            if _affordable(R, S, p, value, m, k):
                mask[A.CARD + k] = 1


@kernel
def _trader_apply(R, S, action) -> bool:
    r, s = L.rules(R), L.state(S)
    p, step = s.actor, s.char_step
    if action == A.DONE:
        return True
    if step == TRADER_GIVE:
        _sel_push(S, action - A.KIND)
    elif step == TRADER_MARKET:
        _sel_push(S, action - A.MARKET)
    else:
        give, m = s.char_sel[1], s.char_sel[2]
        s.owned[p, give] -= 1
        taken = take_from_board(R, S, p, m, action - A.CARD, give)
        pay = max(0, r.kind_max_value[taken] - r.kind_max_value[give])
        s.money[p] -= pay
        s.reserve[m] += pay
        made = s.char_sel[0] + 1
        _sel_set(S, made)
        s.char_step = TRADER_GIVE
        return made >= _param(R, S, 0) or not _trader_playable(R, S, p)
    s.char_step += 1
    return False


# ---------------------------------------------------------------- Priest of Amon (§6.2, §5.2)
# Nothing during play. After final scoring its player gains rank_bonus[place] points.
@kernel
def end_bonus(R, S, scores) -> None:
    """Add the end-of-game effects of characters to scores[:n] in place: each Priest of Amon
    player gains the bonus of its rank (1 + the seats with strictly more points; ties share
    the better place), player by player, after the base scores (§5.2)."""
    r, s = L.rules(R), L.state(S)
    n = r.r_num_players
    for c in range(r.num_chars):
        if r.char_power[c] != P_PRIEST_OF_AMON:
            continue
        count = r.char_params_n[c]
        for p in range(n):
            if s.char_played[p, c] == 0:
                continue
            rank = 0
            for q in range(n):
                if scores[q] > scores[p]:
                    rank += 1
            scores[p] += r.char_params[c, min(rank, count - 1)]


# ---------------------------------------------------------------- dispatch
@kernel
def playable(R, S, p, c) -> bool:
    """May seat p play character c now: can its power be carried out to the end?"""
    kind = L.rules(R).char_power[c]
    if kind == P_SCRIBE or kind == P_MERCHANT_OF_AMON or kind == P_ROYAL_SCRIBE:
        return owns_any(S, p)
    if kind == P_MERCHANT:
        return _merchant_playable(R, S, p)
    if kind == P_HEAD_PRIEST:
        return _head_priest_playable(R, S, p, c)
    if kind == P_THIEF:
        return _thief_playable(R, S)
    if kind == P_ORACLE:
        s = L.state(S)
        return s.deck_pos < s.deck_len
    if kind == P_ROAMING_THIEF:
        return roam_possible(R, S, -1)
    if kind == P_TRADER:
        return _trader_playable(R, S, p)
    return True


@kernel
def _kind(R, S) -> int:
    """The power code of the character being played."""
    return L.rules(R).char_power[L.state(S).char_index]


@kernel
def start(R, S) -> bool:
    """The character `s.char_index` was just played by `s.actor` (seal spent, phase
    PH_CHARACTER, step 0, no choice yet): run what needs no choice. True when the power is over."""
    kind = _kind(R, S)
    if kind == P_VIZIER:
        return _vizier_start(R, S)
    if kind == P_HEAD_PRIEST:
        L.state(S).extra_placements = _param(R, S, 0) - 1
        return True
    if kind == P_ORACLE:
        return _oracle_start(R, S)
    if kind == P_ROAMING_THIEF:
        _sel_set(S, -1)                 # no market excluded when played as a character
        return False
    if kind == P_TRADER:
        _sel_set(S, 0)                  # exchanges made
        return False
    return kind == P_PRIEST_OF_AMON or kind == P_NONE     # no choice, nothing happens now


@kernel
def legal(R, S, mask) -> None:
    """Set mask[a] = 1 for the legal actions of the current step of the power being played."""
    kind = _kind(R, S)
    if kind == P_SCRIBE:
        _scribe_legal(R, S, mask)
    elif kind == P_MERCHANT_OF_AMON or kind == P_ROYAL_SCRIBE:
        _discard_legal(R, S, mask)
    elif kind == P_MERCHANT:
        _merchant_legal(R, S, mask)
    elif kind == P_ROYAL_SERVANT:
        _royal_servant_legal(R, S, mask)
    elif kind == P_TREASURER:
        _treasurer_legal(R, S, mask)
    elif kind == P_THIEF:
        _thief_legal(R, S, mask)
    elif kind == P_ORACLE:
        _oracle_legal(R, S, mask)
    elif kind == P_BEGGAR:
        _beggar_legal(R, S, mask)
    elif kind == P_ROAMING_THIEF:
        _roaming_legal(R, S, mask)
    elif kind == P_TRADER:
        _trader_legal(R, S, mask)


@kernel
def apply(R, S, action) -> bool:
    """Take the (legal) `action` at the current step. True when the power is over."""
    kind = _kind(R, S)
    if kind == P_SCRIBE:
        return _scribe_apply(R, S, action)
    if kind == P_MERCHANT_OF_AMON or kind == P_ROYAL_SCRIBE:
        return _discard_apply(R, S, action, kind == P_ROYAL_SCRIBE)
    if kind == P_MERCHANT:
        return _merchant_apply(R, S, action)
    if kind == P_ROYAL_SERVANT:
        return _royal_servant_apply(R, S, action)
    if kind == P_TREASURER:
        return _treasurer_apply(R, S, action)
    if kind == P_THIEF:
        return _thief_apply(R, S, action)
    if kind == P_ORACLE:
        return _oracle_apply(R, S, action)
    if kind == P_BEGGAR:
        return _beggar_apply(R, S, action)
    if kind == P_ROAMING_THIEF:
        return _roaming_apply(R, S, action)
    if kind == P_TRADER:
        return _trader_apply(R, S, action)
    return True


@kernel
def private(R, S) -> bool:
    """Is the decision now seen only by the seat making it (`NefertitiGame.history_for`)?"""
    return _kind(R, S) == P_ORACLE and _oracle_private(S)
