"""The whole table of a NefertitiGame as one SVG picture (the source of every board image).

Drawn from the game state and its ruleset alone: the stall layouts come from the
ruleset's grid rows and square symbols, gift colours from its gift types, so a
corrected ruleset draws correctly without code changes. Everything shown is
public, as in the text board. Clickable elements carry `data-actions`, the action
ids they stand for, which the play page uses to turn clicks into moves.
"""
from __future__ import annotations

from html import escape

import numpy as np

from ..core import actions as A
from ..core.limits import COIN, EXTRA, MEMPHIS, NUM_MARKETS, SIDES, SINGLE, SYMBOL_NAMES
from ..core.phases import NEUTRAL, PH_CHARACTER, PH_OVER, PHASE_NAMES, TUTOR
from ..core.power_table import POWERS
from ..encoding.observation import card_name

SEAT_COLOURS = ("#c8323c", "#2a6fb0", "#2e9a55", "#d9a400", "#7d4aa8")
NEUTRAL_COLOUR = "#7a7a7a"
GIFT_COLOURS = ("#8d6e63", "#3a9ab0", "#c27c3e", "#9c6fb6", "#4f6d8f", "#d1603d", "#e0b000", "#6b8e23",
                "#a3a35a", "#b05a7a", "#5f9f8f", "#4a7fb5")     # by gift type, in ruleset order
INK, PAPER, SAND, GOLD = "#2b2118", "#fbf6ea", "#efe2c2", "#e2b227"
FONT = "DejaVu Sans, Verdana, sans-serif"
WIDTH = 1280


def seat_colour(owner: int) -> str:
    return NEUTRAL_COLOUR if owner == NEUTRAL else SEAT_COLOURS[owner]


class _Svg:
    """A list of SVG elements with a few shape helpers (coordinates in pixels)."""

    def __init__(self):
        self.parts: list[str] = []

    def add(self, text: str) -> None:
        self.parts.append(text)

    def rect(self, x, y, w, h, fill, stroke="none", rx=4, extra=""):
        self.add(f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{rx}" fill="{fill}" '
                 f'stroke="{stroke}"{extra}/>')

    def circle(self, x, y, r, fill, stroke="none", extra=""):
        self.add(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{fill}" stroke="{stroke}"{extra}/>')

    def text(self, x, y, content, size=12, anchor="start", fill=INK, weight="normal", extra=""):
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{fill}" '
                 f'font-weight="{weight}"{extra}>{escape(str(content))}</text>')


def _actions_attr(ids: list[int]) -> str:
    return f' class="clickable" data-actions="{" ".join(map(str, ids))}"' if ids else ""


def _context_market(g) -> int:
    """The market whose cards a `card` action picks from now (-1: none known): the market a character in
    progress chose (its step's `market` choice in the table of powers), else the one being resolved."""
    if g.phase == PH_OVER:
        return -1
    if g.phase == PH_CHARACTER:
        steps = POWERS[g.rules.characters[g.state.char_index].power].steps
        chosen = steps[g.state.char_step].chosen if g.state.char_step < len(steps) else ()
        return int(g.state.char_sel[chosen.index("market")]) if "market" in chosen else -1
    if g.state.res_market >= 0 and g.state.res_pos < g.state.res_order_n:
        return g.state.res_market
    return -1


def _card(s: _Svg, g, x, y, w, h, code: int, face_down: bool, seal: bool, actions: list[int]) -> None:
    rs = g.rules
    name = card_name(g, code)
    if code < rs.num_kinds:
        fill = GIFT_COLOURS[int(rs.kind_type[code]) % len(GIFT_COLOURS)]
        label = rs.type_names[int(rs.kind_type[code])]
        notes = ([f"x{rs.kind_items[code]}"] if rs.kind_items[code] > 1 else []) + \
                ([f"+{rs.kind_bonus[code]}"] if rs.kind_bonus[code] else [])
    else:
        fill, label, notes = ("#222" if code == g.kind_akhenaton else "#55406b"), name, []
    s.add(f"<g{_actions_attr(actions)}><title>{escape(name)}{' (face down)' if face_down else ''}</title>")
    s.rect(x, y, w, h, "#3b2f2a" if face_down else fill, stroke=INK, rx=5)
    if face_down:
        s.rect(x + 3, y + 3, w - 6, h - 6, "none", stroke=fill, rx=3, extra=' stroke-width="2"')
    chars = max(3, int(w / 5.6))
    s.text(x + w / 2, y + h / 2 + 3, label[:chars], size=9, anchor="middle", fill="white", weight="bold")
    if notes:
        s.text(x + w / 2, y + h - 6, " ".join(notes), size=10, anchor="middle", fill="white")
    if face_down:
        s.text(x + w / 2, y + 12, "face down", size=7, anchor="middle", fill="white")
    if seal:
        s.circle(x + w - 4, y + 4, 8, "#b3261e", stroke=GOLD, extra=' stroke-width="2"')
        s.text(x + w - 4, y + 7.5, "S", size=9, anchor="middle", fill="white", weight="bold")
    s.add("</g>")


def _piece(s: _Svg, x, y, r, piece: int) -> None:
    """A servant (disc) or a tutor (diamond) of its owner's colour."""
    if piece >= TUTOR:
        colour = seat_colour(piece - TUTOR)
        s.add(f'<path d="M{x:.1f},{y - r:.1f} L{x + r:.1f},{y:.1f} L{x:.1f},{y + r:.1f} L{x - r:.1f},{y:.1f} Z" '
              f'fill="{colour}" stroke="white" stroke-width="2"/>')
    else:
        s.circle(x, y, r, seat_colour(piece), stroke="white", extra=' stroke-width="2"')


SYMBOL_MARKS = {COIN: ("$", GOLD), SINGLE: ("1", "#6b8e23"), EXTRA: ("+1", "#2a6fb0")}


def _square_size(stall, w) -> float:
    return min(42.0, (w - 4) / max(len(row) for row in stall.grid) - 4)


def _card_size(g, m: int, w) -> tuple[int, float, float]:
    """(cards per row, card width, card height) of the places above market m: the ruleset's
    cards per market in one row (more if a card lies beyond them), Memphis's twelve in two."""
    used = np.flatnonzero(g.state.slots[m] >= 0)
    per_row = 6 if m == MEMPHIS else max(g.rules.setup["cards_per_market"], int(used[-1]) + 1 if used.size else 0)
    cw = min(54.0, (w - 16) / per_row - 4)
    return per_row, cw, cw * 1.3


def _market_height(g, m: int, w) -> float:
    per_row, _, ch = _card_size(g, m, w)
    stall = g.stalls[m][g.state.side[m]]
    return 62 + (2 if m == MEMPHIS else 1) * (ch + 4) + 14 + len(stall.grid) * (_square_size(stall, w - 12) + 4) + 20


def _stall(s: _Svg, g, m: int, x, y, w) -> float:
    """Draw the visible stall's bid squares by grid row; returns the height used."""
    stall = g.stalls[m][g.state.side[m]]
    size = _square_size(stall, w)
    top = y
    for row in stall.grid:
        left = x + (w - len(row) * (size + 4) + 4) / 2
        for i, v in enumerate(row):
            sx, piece = left + i * (size + 4), int(g.state.occ[m, v])
            symbol = int(g.square_symbol[m, g.state.side[m], v])
            title = f"{g.names.markets[m]} {v}" + (f" ({SYMBOL_NAMES[symbol]})" if symbol else "")
            s.add(f"<g{_actions_attr([A.PLACE + A.NUM_BIDS * m + v])}>"
                  f"<title>{escape(title)}</title>")
            s.rect(sx, top, size, size, SAND, stroke="#8a7350", rx=4)
            s.text(sx + 4, top + 13, v, size=11, weight="bold")
            if symbol:
                mark, colour = SYMBOL_MARKS[symbol]
                s.circle(sx + size - 7, top + 7, 5.5, colour)
                s.text(sx + size - 7, top + 10, mark, size=7, anchor="middle", fill="white", weight="bold")
            if piece >= 0:
                _piece(s, sx + size / 2, top + size * 0.68, size / 4.5, piece)
            s.add("</g>")
        top += size + 4
    return top - y


def _market(s: _Svg, g, m: int, x, y, w, h, context: int) -> None:
    rs = g.rules
    resolving = g.state.res_market == m and g.state.res_pos < g.state.res_order_n and g.phase != PH_OVER
    s.rect(x, y, w, h, PAPER, stroke=GOLD if resolving else "#8a7350", rx=8,
           extra=f' stroke-width="{4 if resolving else 1.5}"')
    name = g.names.markets[m]
    head = [A.CLOSE + m, A.MARKET + m]
    s.add(f"<g{_actions_attr(head)}><title>{escape(name)}</title>")
    s.rect(x, y, w, 26, "#6b4f2a", rx=8)
    s.text(x + 10, y + 18, name, size=15, fill="white", weight="bold")
    s.add("</g>")
    s.text(x + w - 8, y + 18, "Memphis" if m == MEMPHIS else f"{SIDES[g.state.side[m]]} stall", size=10,
           anchor="end", fill="#f3e3b5")
    # Reserve
    s.circle(x + 18, y + 44, 11, GOLD, stroke="#8a6a10")
    s.text(x + 18, y + 48, g.state.reserve[m], size=11, anchor="middle", weight="bold")
    s.text(x + 34, y + 48, "Reserve (Deben)", size=10)
    if resolving:
        s.text(x + w - 8, y + 48, f"resolving, bid {g.state.res_order[g.state.res_pos]}", size=10, anchor="end",
               fill="#b3261e", weight="bold")
    # cards above the market
    filled = set(np.flatnonzero(g.state.slots[m] >= 0).tolist())
    per_row, cw, ch = _card_size(g, m, w)
    rows = 2 if m == MEMPHIS else 1
    for k in range(per_row * rows):
        cx, cy = x + 8 + (k % per_row) * (cw + 4), y + 62 + (k // per_row) * (ch + 4)
        if k in filled:
            code = int(g.state.slots[m, k])
            _card(s, g, cx, cy, cw, ch, code, bool(g.state.face_down[m, k]), k == 0 and m != MEMPHIS and bool(g.state.seal_on[m]),
                  [A.CARD + k] if m == context else [])
        else:
            s.rect(cx, cy, cw, ch, "none", stroke="#c9b58e", rx=5, extra=' stroke-dasharray="4 3"')
    if m != MEMPHIS:
        s.text(x + 8 + cw / 2, y + 62 + ch + 12, "upper", size=9, anchor="middle", fill="#6b5a40")
    stall_y = y + 62 + rows * (ch + 4) + 14
    used = _stall(s, g, m, x + 6, stall_y, w - 12)
    if m != MEMPHIS:
        closing = rs.stalls[m][g.state.side[m]].closing
        params = ", ".join(f"{k} {v}" for k, v in closing.params.items())
        s.text(x + 8, stall_y + used + 12, f"closes: {closing.kind.replace('_', ' ')}" + (f" ({params})" if params else ""),
               size=9, fill="#6b5a40")
    if g.state.dead[m] or not g.state.is_open[m]:
        label, fill = ("closed for good", "#3b2f2a") if g.state.dead[m] else ("Market Closed", "#8c2f1e")
        tx, ty, tw = x + 20, stall_y + used / 2 - 16, w - 40
        s.rect(tx, ty, tw, 30, fill, stroke=GOLD, rx=6, extra=' opacity="0.8" stroke-width="2"')
        s.text(tx + tw / 2, ty + 20, label, size=13, anchor="middle", fill="white", weight="bold")


def _seat(s: _Svg, g, owner: int, x, y, w, h, score: int | None, winner: bool) -> None:
    rs = g.rules
    colour = seat_colour(owner)
    deciding = owner == g.current_player
    s.rect(x, y, w, h, PAPER, stroke=colour, rx=8, extra=f' stroke-width="{4 if deciding else 1.5}"')
    s.rect(x, y, w, 24, colour, rx=8)
    title = "neutral player" if owner == NEUTRAL else f"P{owner}"
    if owner == g.state.turn_player and g.phase != PH_OVER:
        title += "  (turn)"
    if winner:
        title += "  winner"
    s.text(x + 10, y + 17, title, size=14, fill="white", weight="bold")
    if score is not None:
        s.text(x + w - 10, y + 17, f"{score} points", size=13, fill="white", weight="bold", anchor="end")
    if owner != NEUTRAL:
        stats = [("Deben", g.state.money[owner]), ("seals", g.state.seals[owner]), ("servants", g.state.servants[owner])]
        if g.state.tutors[owner] or g.num_players == 2:
            stats.append(("tutors", g.state.tutors[owner]))
        stats.append(("in play", g.state.points[owner]))
        step = (w - 12) / len(stats)
        for i, (label, value) in enumerate(stats):
            s.text(x + 8 + i * step, y + 42, value, size=14, weight="bold")
            s.text(x + 8 + i * step, y + 54, label, size=9, fill="#6b5a40")
        if owner < g.num_players:
            s.circle(x + w - 14, y + 40, 7, colour, stroke="white", extra=' stroke-width="2"')
    top = y + (62 if owner != NEUTRAL else 32)
    held = [(k, int(c)) for k, c in enumerate(g.state.owned[owner]) if c]
    cw, gap = 56.0, 4
    per_row = max(1, int((w - 12) // (cw + gap)))
    for i, (k, count) in enumerate(held):
        cx, cy = x + 8 + (i % per_row) * (cw + gap), top + (i // per_row) * 30
        s.add(f"<g><title>{escape(rs.kind_names[k])} x{count}</title>")
        s.rect(cx, cy, cw, 26, GIFT_COLOURS[int(rs.kind_type[k]) % len(GIFT_COLOURS)], rx=4)
        short = rs.type_names[int(rs.kind_type[k])][:8] + ("+" + str(rs.kind_bonus[k]) if rs.kind_bonus[k] else "")
        s.text(cx + cw / 2, cy + 11, short, size=8, anchor="middle", fill="white", weight="bold")
        s.text(cx + cw / 2, cy + 23, f"x{count * rs.kind_items[k]}" if rs.kind_items[k] > 1 else f"x{count}",
               size=9, anchor="middle", fill="white")
        s.add("</g>")
    if not held:
        s.text(x + 8, top + 16, "no gifts yet", size=10, fill="#8a7a60")
    if owner != NEUTRAL:
        played = [c.name for i, c in enumerate(rs.characters) for _ in range(int(g.state.char_played[owner, i]))]
        if played:
            s.text(x + 8, y + h - 8, "played: " + ", ".join(played), size=9, fill="#6b5a40")


def _status(g) -> tuple[str, str]:
    """Two header lines: the table and whose decision it is, about what."""
    n = g.num_players
    first = f"Nefertiti, {n} players, seed {g.seed}, decision {len(g.history)}"
    if g.phase == PH_OVER:
        return first, "Game over: " + " and ".join(f"P{p}" for p in g.winners()) + \
            (" win" if len(g.winners()) > 1 else " wins")
    second = f"P{g.state.turn_player}'s turn. P{g.current_player} decides: {PHASE_NAMES[g.phase]}"
    if g.state.res_market >= 0 and g.state.res_pos < g.state.res_order_n:
        second += f" (resolving {g.names.markets[g.state.res_market]}, bid {g.state.res_order[g.state.res_pos]})"
    if g.state.char_index >= 0:
        second += f" ({g.rules.characters[g.state.char_index].name}, step {g.state.char_step + 1})"
    return first, second


def board_svg(game) -> str:
    """The whole public table as a standalone SVG document."""
    g = game
    n = g.num_players
    markets = [m for m in range(NUM_MARKETS) if m != MEMPHIS or g.options["memphis"]]
    s = _Svg()
    pad, gap = 14, 10
    first, second = _status(g)
    s.text(pad, 26, first, size=18, weight="bold")
    s.text(pad, 48, second, size=14, fill="#8c2f1e" if g.phase != PH_OVER else "#2e7d32", weight="bold")
    deck_left = len(g.deck) - g.state.deck_pos
    s.text(WIDTH - pad, 26, f"deck: {deck_left} cards  \u00b7  Akhenaton {'drawn' if g.state.akhenaton_drawn else 'not drawn'}"
           f"  \u00b7  seal supply: {g.state.seal_supply}", size=12, anchor="end")
    context = _context_market(g)
    mw = (WIDTH - 2 * pad - gap * (len(markets) - 1)) / len(markets)
    mh = max(_market_height(g, m, mw) for m in markets)
    for i, m in enumerate(markets):
        _market(s, g, m, pad + i * (mw + gap), 62, mw, mh, context)
    y = 62 + mh + gap
    owners = list(range(n)) + ([NEUTRAL] if n == 2 else [])
    pw = (WIDTH - 2 * pad - gap * (len(owners) - 1)) / len(owners)
    over = g.phase == PH_OVER
    scores, winners = g.scores(), (g.winners() if over else [])
    rows = max(1, max(-(-int((g.state.owned[o] > 0).sum()) // max(1, int((pw - 12) // 60))) for o in owners))
    ph = 62 + 30 * rows + 18
    for i, owner in enumerate(owners):
        _seat(s, g, owner, pad + i * (pw + gap), y, pw, ph, int(scores[owner]) if owner != NEUTRAL else None,
              owner in winners)
    y += ph + gap
    avail = [(i, c, int(g.state.char_avail[i])) for i, c in enumerate(g.rules.characters) if g.state.char_avail[i]]
    s.text(pad, y + 14, "Characters available (a seal each):" if avail else "No characters left", size=12,
           weight="bold")
    cx, cy = pad, y + 22
    for i, c, count in avail:
        label = c.name + (f" x{count}" if count > 1 else "")
        cw = 14 + 7 * len(label)
        if cx + cw > WIDTH - pad:
            cx, cy = pad, cy + 30
        s.add(f"<g{_actions_attr([A.CHARACTER + i])}><title>{escape(c.name)}: {escape(c.power)}</title>")
        s.rect(cx, cy, cw, 24, "#f3e3b5", stroke="#8a7350", rx=12)
        s.text(cx + cw / 2, cy + 16, label, size=11, anchor="middle")
        s.add("</g>")
        cx += cw + 6
    y = cy + 34
    s.text(pad, y + 8, "servant: disc, tutor: diamond, seat colour.  Square marks: $ coin, 1 single card, "
           "+1 extra card.  S: Royal Seal on the upper card.", size=10, fill="#6b5a40")
    height = int(y + 20)
    body = "\n".join(s.parts)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
            f'viewBox="0 0 {WIDTH} {height}" font-family="{FONT}">\n'
            f'<rect width="{WIDTH}" height="{height}" fill="#f6ecd4"/>\n{body}\n</svg>\n')
