"""A recorded game as one self-contained HTML page that steps through it (no network needed).

The record (`NefertitiGame.record()`) is replayed decision by decision; each frame
is the board before a decision, who made it and its readable name, and the scores
so far; the last frame is the final board.
"""
from __future__ import annotations

import json
from html import escape
from importlib.resources import files

from ..core import NefertitiGame
from .board import board_svg


def replay_frames(record: dict, players: list[str] | None = None, ruleset=None,
                  allow_changed_ruleset: bool = False) -> list[dict]:
    """One frame per decision plus the final board: {svg, seat, player, action, scores}. `ruleset` and
    `allow_changed_ruleset` as in `NefertitiGame.replay`."""
    game = NefertitiGame.replay({**record, "actions": []}, ruleset, allow_changed_ruleset)
    names = players or [f"P{p}" for p in range(game.num_players)]
    frames = []
    for step, action in enumerate(record["actions"]):
        seat = game.current_player
        frames.append({"svg": board_svg(game), "seat": seat, "player": f"P{seat} ({names[seat]})",
                       "action": game.action_to_string(action), "scores": game.scores().tolist()})
        try:
            game.apply(action)
        except ValueError as err:
            raise ValueError(f"the record does not replay: decision {step}: {err}") from None
    frames.append({"svg": board_svg(game), "seat": -1, "player": "", "action": "",
                   "scores": game.scores().tolist()})
    return frames


def replay_html(record: dict, title: str = "Nefertiti replay", players: list[str] | None = None, ruleset=None,
                allow_changed_ruleset: bool = False) -> str:
    """The page: the frames as embedded JSON plus the viewer's HTML, CSS and script."""
    frames = replay_frames(record, players, ruleset, allow_changed_ruleset)
    data = json.dumps({"title": title, "players": players, "frames": frames}, separators=(",", ":"))
    template = files(__package__).joinpath("replay.html").read_text(encoding="utf-8")
    return template.replace("{{TITLE}}", escape(title)).replace("{{DATA}}", data.replace("</", "<\\/"))
