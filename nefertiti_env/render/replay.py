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


# A page holds every frame's board (about 34 KB each): 5,000 decisions make a page of about 170 MB,
# already slow to open; natural games take at most about 400 (docs/actions.md).
MAX_REPLAY_DECISIONS = 5000


def replay_frames(record: dict, players: list[str] | None = None, ruleset=None,
                  allow_changed_ruleset: bool = False) -> list[dict]:
    """One frame per decision plus the final board: {svg, seat, player, action, scores}. `ruleset` and
    `allow_changed_ruleset` as in `NefertitiGame.replay`. ValueError, before any work, for a record
    that is none or longer than MAX_REPLAY_DECISIONS."""
    if not isinstance(record, dict) or not isinstance(record.get("actions"), list):
        raise ValueError("a game record is a JSON object with seed, options, actions (a list) and ruleset")
    if len(record["actions"]) > MAX_REPLAY_DECISIONS:
        raise ValueError(f"the game has {len(record['actions'])} decisions; a replay page shows at most "
                         f"{MAX_REPLAY_DECISIONS} (about {MAX_REPLAY_DECISIONS * 34 // 1000} MB)")
    wrong = next((i for i, a in enumerate(record["actions"]) if type(a) is not int), None)
    if wrong is not None:
        raise ValueError(f"the record does not replay: decision {wrong}: {record['actions'][wrong]!r} is no action id")
    game = NefertitiGame.replay({**record, "actions": []}, ruleset, allow_changed_ruleset)
    valid = isinstance(players, list) and len(players) == game.num_players and all(isinstance(p, str) for p in players)
    names = players if valid else [f"P{p}" for p in range(game.num_players)]
    frames = []
    for step, action in enumerate(record["actions"]):
        seat = game.current_player
        frames.append({"svg": board_svg(game), "seat": seat, "player": f"P{seat} ({names[seat]})",
                       "action": game.action_to_string(action), "scores": game.scores().tolist()})
        try:
            game.apply(action)
        except (ValueError, TypeError) as err:
            raise ValueError(f"the record does not replay: decision {step}: {err}") from None
    frames.append({"svg": board_svg(game), "seat": -1, "player": "", "action": "",
                   "scores": game.scores().tolist()})
    return frames


def replay_html(record: dict, title: str = "Nefertiti replay", players: list[str] | None = None, ruleset=None,
                allow_changed_ruleset: bool = False) -> str:
    """The page: the frames as embedded JSON plus the viewer's HTML, CSS and script."""
    frames = replay_frames(record, players, ruleset, allow_changed_ruleset)
    players = players if isinstance(players, list) and all(isinstance(p, str) for p in players) else None
    data = json.dumps({"title": title, "players": players, "frames": frames}, separators=(",", ":"))
    template = files(__package__).joinpath("replay.html").read_text(encoding="utf-8")
    return template.replace("{{TITLE}}", escape(title)).replace("{{DATA}}", data.replace("</", "<\\/"))
