"""What the envs' `render()` gives: a text board for "ansi" and "human", a picture for "rgb_array".

Everything shown is public: markets with their visible stall squares and
occupants, the cards above each market (`*` marks the seal on the upper card),
Reserves, each seat's money, seals, servants and gifts, the phase and who decides.
"""
from __future__ import annotations

import gymnasium
import numpy as np

from ..core.limits import MEMPHIS, NUM_MARKETS, SIDES, SYMBOL_LETTERS
from ..core.phases import NEUTRAL, PH_HIGH, PH_OVER, PHASE_NAMES, TUTOR
from ..encoding.observation import card_name


def _gifts(game, owner: int) -> str:
    names = game.rules.kind_names
    held = [f"{names[k]}" + (f" x{c}" if c > 1 else "") for k, c in enumerate(game.state.owned[owner]) if c]
    return ", ".join(held) or "-"


def _market_lines(game, m: int) -> list[str]:
    g = game
    s = g.state
    state = "dead" if s.dead[m] else "open" if s.is_open[m] else "closed"
    head = f"{g.names.markets[m]:<12} {state:<6} {SIDES[s.side[m]]} stall   Reserve {s.reserve[m]}"
    cards = []
    for k in np.flatnonzero(s.slots[m] >= 0):
        name = card_name(g, s.slots[m, k]) + (" (face down)" if s.face_down[m, k] else "")
        seal = "*" if k == 0 and m != MEMPHIS and s.seal_on[m] else ""
        cards.append(f"{'upper' if k == 0 and m != MEMPHIS else k}: {name}{seal}")
    squares = []
    for v in np.flatnonzero(g.square_exists[m, s.side[m]]):
        piece = int(s.occ[m, v])
        who = "--" if piece < 0 else f"T{piece - TUTOR}" if piece >= TUTOR else f"P{piece}"
        squares.append(f"{v}{SYMBOL_LETTERS[g.square_symbol[m, s.side[m], v]]}:{who}")
    return [head, "    cards   " + (" | ".join(cards) or "-"), "    squares " + " ".join(squares)]


def board_text(game) -> str:
    """The whole public state as a few lines of text."""
    g = game
    s = g.state
    n = g.num_players
    lines = [f"Nefertiti, {n} players, phase: {PHASE_NAMES[g.phase]}"]
    if g.phase == PH_OVER:
        scores = g.scores()
        lines[0] += "  final scores: " + ", ".join(f"P{p} {scores[p]}" for p in range(n))
        lines[0] += "  winners: " + ", ".join(f"P{p}" for p in g.winners())
    else:
        lines[0] += f"  turn: P{s.turn_player}  deciding: P{g.current_player}"
    if s.res_market >= 0 and s.res_pos < s.res_order_n:
        stage = f" (highest bidder, cards left {s.res_picks})" if g.phase == PH_HIGH else ""
        lines.append(f"resolving {g.names.markets[s.res_market]}, bid {s.res_order[s.res_pos]}{stage}")
    if s.char_index >= 0:
        lines.append(f"character {g.rules.characters[s.char_index].name}, step {s.char_step}")
    lines.append("")
    for m in range(NUM_MARKETS):
        if m != MEMPHIS or g.options["memphis"]:
            lines += _market_lines(g, m)
    lines.append("")
    lines.append("seat   money seals servants tutors points  gifts")
    for p in range(n):
        mark = (">" if p == s.turn_player and g.phase != PH_OVER else " ") + ("*" if p == g.current_player else " ")
        lines.append(f"P{p} {mark} {s.money[p]:>5} {s.seals[p]:>5} {s.servants[p]:>8} {s.tutors[p]:>6} "
                     f"{s.points[p]:>6}  {_gifts(g, p)}")
    if n == 2:
        lines.append(f"neutral {'':>32}  {_gifts(g, NEUTRAL)}")
    chars = ", ".join(f"{c.name} x{s.char_avail[i]}" for i, c in enumerate(g.rules.characters) if s.char_avail[i])
    lines.append(f"deck {len(g.deck) - s.deck_pos} cards, Akhenaton {'drawn' if s.akhenaton_drawn else 'not drawn'}, "
                 f"seal supply {s.seal_supply}")
    lines.append(f"characters: {chars or '-'}")
    lines.append("(> turn, * deciding; squares value+symbol c coin s single x extra : P servant / T tutor)")
    return "\n".join(lines)


def render_game(game, render_mode: str | None):
    """`env.render()` of every env: "ansi" returns the text board, "human" prints it, "rgb_array"
    returns the board picture as an HxWx3 uint8 array (the `viz` extra); None warns and returns None."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' "
                              "or 'rgb_array'")
        return None
    if render_mode == "rgb_array":
        from ..render import board_svg, svg_to_rgb
        return svg_to_rgb(board_svg(game))
    text = board_text(game)
    if render_mode == "human":
        print(text)
        return None
    return text
