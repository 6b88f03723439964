"""`nefertiti serve`: play against bots in the browser, on a local server (127.0.0.1 only).

The page (play.html, self-contained) shows the board picture and the legal moves;
it talks JSON to this server: GET /api/state, POST /api/new, /api/move, /api/bot
(one bot decision, so the page shows each as it happens). Finished games are saved
as a records line ({"game", "bots", "record"}), which `nefertiti replay` reads.

Any web page the person opens can send requests to 127.0.0.1, so the server answers only its own
page: the Host must be a loopback name (a page on another name resolving to 127.0.0.1, DNS
rebinding, is refused), an Origin if sent must be this server's, and a POST must carry a JSON
body (a foreign form cannot send one, and a foreign fetch of one must first ask, which is never
granted). Requests are bounded in size and time, bots over HTTP in budget (`HTTP_BOTS`), and a bot
thinks outside the session's lock, so the page stays answered while it does.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path

from . import add_game_options, fail, game_options

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
MAX_BODY = 16 * 1024             # bytes of a request body (the page sends a few dozen)
REQUEST_SECONDS = 10             # to read a request (a stalled client frees its thread after this)
BACKLOG = 128                    # connections waiting to be accepted: a browser opens several at once
# Bots a page may ask for, with caps on what one decision may cost; any spec given on the command line
# (a `ppo:path=...` too) stays allowed as given. `ppo:path=` over HTTP would tell a page whether a file exists.
_HEURISTIC = {"samples": 64, "power_depth": 8}
HTTP_BOTS = {"random": {}, "greedy": _HEURISTIC, "collector": _HEURISTIC, "banker": _HEURISTIC,
             "champion": {"search": 20_000, "width": 64},
             "mcts": {"iterations": 20_000, "seconds": 5.0, "width": 64, "rollout_turns": 50}}


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "serve", help="play against bots in the web browser (a local server)",
        description="Starts a server on 127.0.0.1 (this machine only) with a page where you play one seat "
                    "against bots: click a highlighted square, card, market or character on the board, or a "
                    "move in the list (only legal moves are offered). The bots' moves appear one by one. "
                    "Each finished game is saved in --records as JSON (replay it with `nefertiti replay`). "
                    "The page can start new games with other bots: those of --bots, or random, greedy, collector, "
                    "banker, champion and mcts within capped budgets (mcts at most 5 s or 20,000 iterations a "
                    "decision). Only the server's own page is answered (a loopback Host, its Origin, JSON "
                    "bodies), so other web pages cannot drive it. Ctrl-C stops the server.",
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
    """One game between a person (one seat) and bots. Every call holds the lock but a bot's thinking,
    which runs on a copy of the game and is applied only if the game did not change meanwhile."""

    def __init__(self, records: Path, options: dict):
        self.records = records
        self.options = options
        self.lock = threading.Lock()
        self.game = None
        self.trusted: set[str] = set()      # bot specs of the command line, allowed over HTTP as given
        self.thinking = False

    def new(self, bots: str, seat: int, seed: int | None, from_page: bool = False) -> None:
        """Start a game; raises ValueError naming a bad bot, seat or option (`from_page`: only
        `HTTP_BOTS` within their caps, or a spec of the command line)."""
        from nefertiti_env.agents import make_bot
        from nefertiti_env import NefertitiGame

        specs = [b.strip() for b in bots.split(",") if b.strip()]
        players = len(specs) + 1
        if not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1} for {players} players, got {seat}")
        if from_page:
            for spec in specs:
                if spec not in self.trusted:
                    check_page_bot(spec)
        specs.insert(seat, "you")
        game = NefertitiGame(players, seed=seed, **self.options)
        bots = {s: make_bot(spec, seed=game.seed * 10 + s) for s, spec in enumerate(specs) if s != seat}
        if not from_page:
            self.trusted |= {spec for s, spec in enumerate(specs) if s != seat}
        self.bots, self.game, self.specs, self.seat, self.log, self.saved = bots, game, specs, seat, [], None
        self.save_error = None

    def state(self) -> dict:
        from nefertiti_env.render import board_svg

        g = self.game
        human = g.current_player == self.seat
        return {"svg": board_svg(g), "seat": self.seat, "players": self.specs, "over": g.is_over(),
                "to_move": g.current_player, "human_to_move": human, "bot_to_move": not g.is_over() and not human,
                "legal": [{"id": a, "text": g.action_to_string(a)} for a in g.legal_actions()] if human else [],
                "log": self.log, "scores": g.scores().tolist(), "winners": g.winners() if g.is_over() else [],
                "saved": str(self.saved) if self.saved else None, "save_error": self.save_error}

    def move(self, action: int) -> None:
        g = self.game
        if g.is_over() or g.current_player != self.seat:
            raise ValueError("it is not your move")
        if action not in g.legal_actions():
            raise ValueError(f"move {action} is not legal now")
        self._apply(action)

    def bot_move(self) -> None:
        """One bot decision: chosen on a copy without the lock, applied under it."""
        with self.lock:
            g = self.game
            if g.is_over() or g.current_player == self.seat:
                raise ValueError("it is not a bot's move")
            if self.thinking:
                raise ValueError("a bot is already thinking")
            seat, copy, bot, decisions = g.current_player, g.clone(), self.bots[g.current_player], len(g.history)
            self.thinking = True
        try:
            action = bot.act(copy, seat)
        finally:
            with self.lock:
                self.thinking = False
        with self.lock:
            if self.game is not g or len(g.history) != decisions:
                raise ValueError("the game changed while the bot was thinking")
            self._apply(action)

    def _apply(self, action: int) -> None:
        g, seat = self.game, self.game.current_player
        self.log.append({"seat": seat, "player": f"P{seat} ({self.specs[seat]})", "action": g.action_to_string(action)})
        g.apply(action)
        if g.is_over():
            try:
                self.saved = self._save()
            except OSError as err:           # the game stays on the page; the record is in the reply
                self.save_error = f"cannot save the record in {self.records}: {err}; the record: " \
                                  f"{json.dumps(self.game.record())}"

    def _save(self) -> Path:
        self.records.mkdir(parents=True, exist_ok=True)
        path = self.records / f"game-{time.strftime('%Y%m%d-%H%M%S')}-seed{self.game.seed}.json"
        with open(path, "x", encoding="utf-8") as out:     # never over an earlier game's record
            out.write(json.dumps({"game": 0, "bots": self.specs, "record": self.game.record()}))
        return path


def check_page_bot(spec: str) -> None:
    """A bot spec a page may ask for (`HTTP_BOTS`); raises ValueError naming what is refused."""
    from nefertiti_env.agents import parse_spec

    name = spec.split(":")[0].strip()
    if name not in HTTP_BOTS:
        raise ValueError(f"bot {name!r} cannot be chosen from the page (choose from {', '.join(HTTP_BOTS)}; "
                         "other bots only with --bots)")
    _, params = parse_spec(spec)
    for key, cap in HTTP_BOTS[name].items():
        if key in params and not params[key] <= cap:
            raise ValueError(f"{name}: {key} may be at most {cap} from the page, got {params[key]}")


def check_records(folder: Path) -> str | None:
    """Why finished games cannot be saved in `folder` (None: they can); checked before the first move."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        return f"--records {folder}: cannot save games there ({err.strerror or err})"
    return None


def _strict_int(value, name: str) -> int:
    if type(value) is not int:
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return value


def make_handler(session: PlaySession):
    page = files(__package__).joinpath("play.html").read_bytes()

    class Handler(BaseHTTPRequestHandler):
        timeout = REQUEST_SECONDS

        def log_message(self, format, *args):       # quiet: the page shows what happens
            pass

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("X-Frame-Options", "DENY")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, data: dict, status: int = HTTPStatus.OK) -> None:
            self._send(status, json.dumps(data).encode(), "application/json")

        def _foreign(self, page: bool = False) -> str | None:
            """Why this request is not from this server's own page (None: it may be). The page itself
            (`page`) may be opened from a link anywhere, but only under a loopback name."""
            port = self.server.server_address[1]
            host = self.headers.get("Host", "")
            if host not in {f"{name}:{port}" for name in LOOPBACK} | set(LOOPBACK):
                return f"Host {host!r} is not this server (use http://127.0.0.1:{port}/)"
            if page:
                return None
            origin = self.headers.get("Origin")
            if origin is not None and origin not in {f"http://{name}:{port}" for name in LOOPBACK}:
                return f"requests from {origin!r} are not served"
            if self.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
                return "requests from other sites are not served"
            return None

        def do_GET(self):
            path = self.path.split("?")[0]
            refused = self._foreign(page=path in ("/", "/favicon.ico"))
            if refused:
                return self._json({"error": refused}, HTTPStatus.FORBIDDEN)
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
            refused = self._foreign()
            if refused:
                return self._json({"error": refused}, HTTPStatus.FORBIDDEN)
            if self.headers.get_content_type() != "application/json":
                return self._json({"error": "a request body must be JSON (Content-Type: application/json)"},
                                  HTTPStatus.UNSUPPORTED_MEDIA_TYPE)
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                return self._json({"error": "a request needs a Content-Length"}, HTTPStatus.LENGTH_REQUIRED)
            if not 0 <= length <= MAX_BODY:
                return self._json({"error": f"a request body may hold at most {MAX_BODY} bytes"},
                                  HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
                if not isinstance(body, dict):
                    raise ValueError(f"a request body is a JSON object, got a JSON {type(body).__name__}")
                if self.path == "/api/bot":
                    session.bot_move()
                    with session.lock:
                        return self._json(session.state())
                with session.lock:
                    if self.path == "/api/new":
                        seed = body.get("seed")
                        if isinstance(seed, str) and seed.strip().isdigit():      # the page's text field
                            seed = int(seed)
                        session.new(str(body.get("bots", "")), _strict_int(body.get("seat", 0), "seat"),
                                    None if seed in (None, "") else _strict_int(seed, "seed"), from_page=True)
                    elif self.path == "/api/move":
                        if "action" not in body:
                            raise ValueError("a move needs an 'action'")
                        session.move(_strict_int(body["action"], "action"))
                    else:
                        return self._json({"error": f"no endpoint {self.path}"}, HTTPStatus.NOT_FOUND)
                    self._json(session.state())
            except (ValueError, KeyError, TypeError, NotImplementedError, RecursionError) as err:
                self._json({"error": str(err)}, HTTPStatus.BAD_REQUEST)

    return Handler


class _Server(ThreadingHTTPServer):
    request_queue_size = BACKLOG
    daemon_threads = True


def make_server(session: PlaySession, port: int) -> ThreadingHTTPServer:
    """The server on 127.0.0.1:port (port 0: any free port, see `server.server_port`)."""
    return _Server(("127.0.0.1", port), make_handler(session))


def run(args) -> int:
    session = PlaySession(Path(args.records), game_options(args))
    problem = check_records(session.records)
    if problem:
        return fail("serve", problem)
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
