"""Play one game with bots and record what the analyses need, watching from the outside.

The core has no event hooks, so the recorder reads its public state between
decisions: a placement (or a `close` with no servant left) started a market
resolution when that market's visible stall flipped or it became `res_market`;
the resolution is over when the stall has flipped; the resolution decisions say
who bought which card at which bid; a character's effect is the change of its
player's points, Deben and score from the card to the end of its choices.

Cost matters (10,000 games must take minutes), so the hot loop only compares
a few ints per decision and copies small arrays at turn starts; the score after
each turn (for lead changes) is computed for the whole game at once at the end.
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.core import actions as A
from nefertiti_env.core.engine.layout import STATE_RECORD
from nefertiti_env.core.limits import COIN, MAX_PLAYERS, NUM_BIDS
from nefertiti_env.core.phases import PH_CHARACTER, PH_HIGH, PH_OTHER, PH_OVER, PH_TURN, PH_TUTOR, PH_TUTOR_RES, \
    TURN_PHASES, TUTOR
from nefertiti_env.core.scoring import base_scores, scores_of, type_bonus, type_items, type_values

from nefertiti_env.agents.stats import ranks_of

from .stats import lead_change_rows
from .tables import COLUMNS, KEY

TUTOR_FIELDS = COLUMNS["tutors"][len(KEY):]

CONDITIONS = {"bid_sum": "bid sum {total}", "connected_group": "group of {size}", "line": "line of {length}",
              "count": "{count} servants", "diagonal": "diagonal"}


def condition(closing, bits: int, v: int, row) -> str:
    """Readable reason a stall closed after a placement on square v (-1: a `close` action with
    no servant left, -2: a resolution without a closing, i.e. a Port of Memphis distribution)."""
    if v < 0:
        return "no servant left" if v == -1 else "distribution"
    kind, p = closing.kind, closing.params
    full = bits == closing.all_squares
    if kind == "dice_match":
        return "full" if full else "dice"
    if not closing.holds(bits, v, row):
        return "full"
    count = bits.bit_count()
    if kind == "colours_or_count":
        return f"{p['count']} servants" if count >= p["count"] else f"{p['colours']} colours"
    if kind == "square_or_count":
        return f"square {p['square']}" if bits >> p["square"] & 1 else f"{p['count']} servants"
    return CONDITIONS[kind].format(**p)         # every other kind has its words there (KeyError: a kind left out)


class _Closing:
    __slots__ = ("market", "side", "turn", "decision", "condition", "closer", "servants", "bid", "high_seat",
                 "high_paid", "high_types", "bought", "halves")


def play_recorded(game, bots, labels: list[str], key: tuple) -> dict[str, list[tuple]]:
    """Play `game` to the end (bots[seat].act decides) and return its rows for every table.

    labels: the bot name per seat for the tables; key: (arm, ruleset, players, game index).
    """
    g, rules, n = game, game.rules, game.num_players
    s = _Fields(g)                         # read only: the game's own memory, current after each apply
    kind_type = rules.kind_type.tolist()     # card codes past the gift kinds (Akhenaton, the Roaming Thief's card) have no type
    paid = np.zeros((n, rules.num_types))
    bought = np.zeros((n, rules.num_types), dtype=np.int64)
    turn = 0
    snaps: list[tuple] = []                # state at each turn start
    after_chars: list[tuple] = []          # state after each character's choices
    open_closings: dict[int, _Closing] = {}
    closings, plays = [], []
    char = None
    history = g.history                    # the referee's view of a finished game: every action, private ones too
    # restricted play: per seat, whether it has a restriction, whose lifted decisions are counted
    restricted = [bool(f) for f in g.options.get("forbidden", [[]] * n)]
    forced = [0] * n
    tutors: list[dict] = []                # 2 players: each tutor placed or declined (the `tutors` table)
    on_board: dict[tuple[int, int], dict] = {}     # (market, bid) -> the row of the tutor standing there

    while g.phase != PH_OVER:
        seat, ph = g.current_player, g.phase
        if ph == PH_TURN:
            turn += 1
            snaps.append(_state(s, rules))
        if restricted[seat]:
            forced[seat] += g.is_forced()
        a = bots[seat].act(g, seat)
        watch = -1
        if ph in TURN_PHASES:                         # place (servant or tutor), close, character or done
            if ph == PH_TUTOR and (a < A.CLOSE or len(g.legal_actions()) > 1):
                m, bid = divmod(a - A.PLACE, NUM_BIDS) if a < A.CLOSE else (-1, -1)
                tutors.append({"turn": turn, "decision": len(history), "seat": seat,
                               "position": (seat - int(s.first_player[0])) % n, "bot": labels[seat],
                               "market": _market_name(g, m) if m >= 0 else "", "bid": bid,
                               "outcome": "unresolved" if m >= 0 else "declined", "reserve": ""})
                if m >= 0:
                    on_board[m, bid] = tutors[-1]
            if a < A.CHARACTER:
                if a < A.CLOSE:
                    watch, v = divmod(a - A.PLACE, NUM_BIDS)
                else:
                    watch, v = a - A.CLOSE, -1
                side = int(s.side[watch])
                row = s.occ[watch].tolist()
                money = s.money.tolist()
                if ph == PH_TUTOR:
                    row[v] = TUTOR + seat
                elif v >= 0:                          # the placement bonus (docs/rules.md §2) is paid before closing
                    first = int(max(row) < 0)
                    money[seat] += min(first + int(g.square_symbol[watch, side, v] == COIN), int(s.reserve[watch]))
                    row[v] = seat
            elif a < A.MARKET:
                char = (a - A.CHARACTER, seat, turn, len(history), len(snaps) - 1, [])
        elif ph == PH_CHARACTER and char is not None:   # else a card's power (the Roaming Thief's, when taken)
            char[5].append(g.action_to_string(a))
        elif ph == PH_HIGH:
            m = int(s.res_market[0])
            open_closings[m].high_types.append(_gift_type(kind_type, s.slots[m, a - A.CARD]))
        elif ph == PH_OTHER:
            m = int(s.res_market[0])
            rec = open_closings[m]
            if a == A.TAKE_HALF:
                rec.halves += 1
            else:
                t = _gift_type(kind_type, s.slots[m, a - A.CARD])
                rec.bought += 1
                if t is not None:
                    bought[seat, t] += 1
                    paid[seat, t] += s.res_order[s.res_pos[0]]
        elif ph == PH_TUTOR_RES:
            m = int(s.res_market[0])
            tutor = on_board.pop((m, int(s.res_order[s.res_pos[0]])))
            t = None if a == A.TAKE_DEBEN else _gift_type(kind_type, s.slots[m, a - A.CARD])
            tutor["outcome"] = "deben" if a == A.TAKE_DEBEN else rules.type_names[t] if t is not None else "card"
            tutor["reserve"] = int(s.reserve[m])
        decision = len(history)
        g.apply(a)

        res = int(s.res_market[0])
        if watch >= 0 and (s.side[watch] != side or res == watch or watch in _pending(s)):
            open_closings[watch] = _open(g, watch, side, row, v, seat, money, turn, decision)
        if res >= 0 and res not in open_closings:   # a resolution no placement caused (Port of Memphis)
            open_closings[res] = _open(g, res, int(s.side[res]), s.occ[res].tolist(), -2, seat, s.money.tolist(),
                                       turn, decision)
        not_resolving = [m for m in open_closings if m != res]
        if not_resolving:
            pending = _pending(s)
            for m in [m for m in not_resolving if m not in pending]:
                closings.append(_close(g, s, open_closings.pop(m), key, paid, bought))
        if char is not None and g.phase != PH_CHARACTER:
            plays.append(char)
            after_chars.append(_state(s, rules))
            char = None

    snaps += [_state(s, rules), *after_chars]                # one batch: turn starts, the end, after characters
    owned, money, seals, points = (np.stack(x) for x in zip(*snaps))
    scores = scores_of(rules, owned @ rules.kind_type_items, owned @ rules.kind_type_bonus, money, seals, points)[:, :n]
    trajectory = scores[1:turn + 1]                   # after each turn (the first snapshot is the setup)
    characters = [_character(g, s, char, snaps[char[4]], snaps[turn + 1 + i], scores[char[4]], scores[turn + 1 + i],
                             labels, key) for i, char in enumerate(plays)]
    return {"closings": closings, "characters": characters, "tutors": [key + tuple(row[f] for f in TUTOR_FIELDS) for row in tutors],
            **_final(g, s, trajectory, labels, key, paid, bought, turn, forced)}


class _Fields:
    """The state's fields the recorder reads, as plain numpy views of the game's memory (`layout.STATE_RECORD`
    over `game.S`), current after each apply; a scalar field is a one-element view. `game.state` widens every
    value it reads and forgets the legal actions known, which cost more than the recording itself."""

    NAMES = ("first_player", "res_market", "res_pos", "pending_n", "side", "occ", "money", "reserve", "slots",
             "res_order", "pending", "owned", "seals", "points", "char_played")
    __slots__ = NAMES

    def __init__(self, g):
        record = g.S.view(STATE_RECORD)
        for name in self.NAMES:
            setattr(self, name, record[name][0] if record.dtype[name].shape else record[name])


def _pending(s: _Fields) -> list[int]:
    """The markets waiting to resolve."""
    return s.pending[:s.pending_n[0]].tolist()


def _gift_type(kind_type: list[int], code: int) -> int | None:
    """The gift type of a card code, None for a card that is no gift (its Deben are not a gift's price)."""
    return kind_type[code] if code < len(kind_type) else None


def _market_name(g, m: int) -> str:
    return g.rules.markets[m].name if m < len(g.rules.markets) else "Memphis"


def _state(s: _Fields, rules):
    return s.owned[:, :rules.num_kinds].copy(), s.money.copy(), s.seals.copy(), s.points.copy()


def _open(g, m, side, row, v, closer, money, turn, decision) -> _Closing:
    rec = _Closing()
    bits = sum(1 << u for u, piece in enumerate(row) if piece >= 0)
    rec.market, rec.side, rec.turn, rec.decision, rec.closer = m, side, turn, decision, closer
    rec.condition = condition(g.stalls[m][side].closing, bits, v, np.array(row))
    rec.servants = bits.bit_count()
    bids = [u for u, piece in enumerate(row) if 0 <= piece < TUTOR]
    rec.bid = bids[-1] if bids else -1
    rec.high_seat = row[rec.bid] if bids else -1
    rec.high_paid = bool(bids) and money[rec.high_seat] >= rec.bid
    rec.high_types, rec.bought, rec.halves = [], 0, 0
    return rec


def _close(g, s: _Fields, rec: _Closing, key, paid, bought) -> tuple:
    """The resolution is over: the highest bidder's bid is shared by the cards it bought."""
    m = rec.market
    if rec.high_paid and rec.high_types:
        for t in filter(lambda t: t is not None, rec.high_types):
            bought[rec.high_seat, t] += 1
            paid[rec.high_seat, t] += rec.bid / len(rec.high_types)
    name = _market_name(g, m)
    stall = f"{name} {('left', 'right')[rec.side]}" if m < len(g.rules.markets) else name
    return key + (rec.turn, rec.decision, name, stall, rec.condition, rec.closer, rec.servants,
                  rec.bid, rec.high_seat, int(rec.high_paid), len(rec.high_types), rec.bought, rec.halves,
                  int((s.slots[m] >= 0).sum()))


def _character(g, s: _Fields, char, state_before, state_after, before, after, labels, key) -> tuple:
    """A character row: its effect is the change from the card to the end of its choices."""
    c, seat, turn, decision, _, choices = char
    n = g.num_players
    margin = [sc[seat] - max(sc[o] for o in range(n) if o != seat) for sc in (before, after)]
    points, money = (int(state_after[i][seat] - state_before[i][seat]) for i in (3, 1))
    return key + (turn, decision, seat, (seat - int(s.first_player[0])) % n, labels[seat], g.rules.characters[c].name,
                  "; ".join(choices), points, money, int(after[seat] - before[seat]), int(margin[1] - margin[0]))


def _final(g, s: _Fields, trajectory, labels, key, paid, bought, turns, forced) -> dict[str, list[tuple]]:
    """The games, seats and gifts rows of a finished game."""
    n, rules = g.num_players, g.rules
    scores = g.scores().tolist()
    money = s.money[:n].tolist()
    first = int(s.first_player[0])
    rank = ranks_of(scores, money)
    winners = [p for p in range(n) if rank[p] == 1]      # most points, then most Deben (docs/rules.md §5)
    losers = [scores[p] for p in range(n) if p not in winners]
    margin = scores[winners[0]] - max(losers) if losers else 0
    changes = lead_change_rows(trajectory.tolist())        # row i holds the scores after turn i + 1
    pad = [""] * (MAX_PLAYERS - n)
    games = [key + (g.seed, first, turns, len(g.history), ";".join(map(str, winners)), margin,
                    len(changes), changes[-1] + 1 if changes else 0)
             + tuple(labels) + tuple(pad) + tuple(scores) + tuple(pad) + tuple(rank) + tuple(pad)]

    items = type_items(g)
    owners = (items > 0).sum(axis=0)
    bonus = items * type_bonus(g)
    points = items * type_values(g, items)[None, :] + bonus
    base = base_scores(g).tolist()
    seats, gifts = [], []
    for p in range(n):
        gift_points = int(points[p].sum())
        seals = int(s.seals[p])
        seats.append(key + (p, (p - first) % n, labels[p], scores[p], rank[p],
                            1 / len(winners) if p in winners else 0.0, money[p], seals, gift_points,
                            money[p] // 2, 3 * seals, int(s.points[p]), scores[p] - base[p],
                            int(s.char_played[p].sum()), int(bought[p].sum()), round(float(paid[p].sum()), 4),
                            forced[p]))
        for t in np.flatnonzero((items[p] > 0) | (bought[p] > 0)).tolist():
            gifts.append(key + (p, rules.type_names[t], int(items[p, t]), int(points[p, t]), int(bonus[p, t]),
                                int(owners[t]), int(bought[p, t]), round(float(paid[p, t]), 4)))
    return {"games": games, "seats": seats, "gifts": gifts}

