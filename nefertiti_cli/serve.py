"""`nefertiti serve`: play against bots in the browser, on a local server (127.0.0.1 only).

The page (play.html, self-contained) shows the board picture and the legal moves;
it talks JSON to this server: GET /api/state, POST /api/new, /api/move, /api/bot
(one bot decision, so the page shows each as it happens). Finished games are saved
as a records line ({"game", "bots", "record"}), which `nefertiti replay` reads.
"""
from __future__ import annotations

import argparse
import json
import threading
import time
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path

from . import add_game_options, fail, game_options


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "serve", help="play against bots in the web browser (a local server)",
        description="Starts a server on 127.0.0.1 (this machine only) with a page where you play one seat "
                    "against bots: click a highlighted square, card, market or character on the board, or a "
                    "move in the list (only legal moves are offered). The bots' moves appear one by one. "
                    "Each finished game is saved in --records as JSON (replay it with `nefertiti replay`). "
                    "The page can start new games with other bots. Ctrl-C stops the server.",
        epilog="examples:\n  nefertiti serve --bots greedy,greedy,greedy --open\n"
               "  nefertiti serve --seat 1 --bots mcts,banker --port 8080 --memphis",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bots", default="greedy,greedy,greedy",
                   help="comma-separated bots for the other seats (default: greedy,greedy,greedy)")
    p.add_argument("--seat", type=int, default=0, help="your seat (0 = first listed seat; default 0)")
    p.add_argument("--seed", type=int, default=None, help="seed of the first game (default: random)")
    p.add_argument("--port", type=int, default=8023, help="port on 127.0.0.1 (default 8023; 0 = any free port)")
    p.add_argument("--records", default="games", help="folder for finished games' records (default: games)")
    p.add_argument("--open", action="store_true", help="open the page in the default web browser")
    add_game_options(p)
    p.set_defaults(func=run)


class PlaySession:
    """One game between a person (one seat) and bots; every call holds the lock."""

    def __init__(self, records: Path, options: dict):
        self.records = records
        self.options = options
        self.lock = threading.Lock()
        self.game = None

    def new(self, bots: str, seat: int, seed: int | None) -> None:
        """Start a game; raises ValueError naming a bad bot, seat or option."""
        from nefertiti_env.agents import make_bot
        from nefertiti_env import NefertitiGame

        specs = [b.strip() for b in bots.split(",") if b.strip()]
        players = len(specs) + 1
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1} for {players} players, got {seat}")
        specs.insert(seat, "you")
        game = NefertitiGame(players, seed=seed, **self.options)
        self.bots = {s: make_bot(spec, seed=game.seed * 10 + s) for s, spec in enumerate(specs) if s != seat}
        self.game, self.specs, self.seat, self.log, self.saved = game, specs, seat, [], None

    def state(self) -> dict:
        from nefertiti_env.render import board_svg

        g = self.game
        human = g.current_player == self.seat
        return {"svg": board_svg(g), "seat": self.seat, "players": self.specs, "over": g.is_over(),
                "to_move": g.current_player, "human_to_move": human, "bot_to_move": not g.is_over() and not human,
                "legal": [{"id": a, "text": g.action_to_string(a)} for a in g.legal_actions()] if human else [],
                "log": self.log, "scores": g.scores().tolist(), "winners": g.winners() if g.is_over() else [],
                "saved": str(self.saved) if self.saved else None}

    def move(self, action: int) -> None:
        g = self.game
        if g.is_over() or g.current_player != self.seat:
            raise ValueError("it is not your move")
        if action not in g.legal_actions():
            raise ValueError(f"move {action} is not legal now")
        self._apply(action)

    def bot_move(self) -> None:
        g = self.game
        if g.is_over() or g.current_player == self.seat:
            raise ValueError("it is not a bot's move")
        seat = g.current_player
        self._apply(self.bots[seat].act(g, seat))

    def _apply(self, action: int) -> None:
        g, seat = self.game, self.game.current_player
        self.log.append({"seat": seat, "player": f"P{seat} ({self.specs[seat]})", "action": g.action_to_string(action)})
        g.apply(action)
        if g.is_over():
            self.saved = self._save()

    def _save(self) -> Path:
        self.records.mkdir(parents=True, exist_ok=True)
        path = self.records / f"game-{time.strftime('%Y%m%d-%H%M%S')}-seed{self.game.seed}.json"
        path.write_text(json.dumps({"game": 0, "bots": self.specs, "record": self.game.record()}), encoding="utf-8")
        return path


def make_handler(session: PlaySession):
    page = files(__package__).joinpath("play.html").read_bytes()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format, *args):       # quiet: the page shows what happens
            pass

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, data: dict, status: int = HTTPStatus.OK) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")

        def do_GET(self):
            path = self.path.split("?")[0]
            if path == "/":
                self._send(HTTPStatus.OK, page, "text/html; charset=utf-8")
            elif path == "/api/state":
                with session.lock:
                    self._json(session.state())
            elif path == "/favicon.ico":
                self._send(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
            else:
                self._json({"error": f"no page {path}"}, HTTPStatus.NOT_FOUND)

        def do_POST(self):
            try:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with session.lock:
                    if self.path == "/api/new":
                        seed = body.get("seed")
                        session.new(str(body.get("bots", "")), int(body.get("seat", 0)),
                                    None if seed in (None, "") else int(seed))
                    elif self.path == "/api/move":
                        session.move(int(body["action"]))
                    elif self.path == "/api/bot":
                        session.bot_move()
                    else:
                        return self._json({"error": f"no endpoint {self.path}"}, HTTPStatus.NOT_FOUND)
                    self._json(session.state())
            except (ValueError, KeyError, TypeError, NotImplementedError) as err:
                self._json({"error": str(err)}, HTTPStatus.BAD_REQUEST)

    return Handler


def make_server(session: PlaySession, port: int) -> ThreadingHTTPServer:
    """The server on 127.0.0.1:port (port 0: any free port, see `server.server_port`)."""
    return ThreadingHTTPServer(("127.0.0.1", port), make_handler(session))


def run(args) -> int:
    session = PlaySession(Path(args.records), game_options(args))
    try:
        session.new(args.bots, args.seat, args.seed)
    except (ValueError, NotImplementedError) as err:
        return fail("serve", str(err))
    try:
        server = make_server(session, args.port)
    except OSError as err:
        return fail("serve", f"cannot listen on 127.0.0.1:{args.port}: {err}; choose another --port")
    url = f"http://127.0.0.1:{server.server_port}/"
    print(f"playing at {url} (Ctrl-C stops); records go to {args.records}/", flush=True)
    if args.open:
        webbrowser.open(url)
    try:
        server.serve_forever()
    finally:
        server.server_close()
    return 0
