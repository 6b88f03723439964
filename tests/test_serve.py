"""`nefertiti serve` over plain HTTP: it answers its own page only (Host, Origin, JSON bodies), bounds
what a request may cost, keeps answering while a bot thinks, and checks --records before the first move
(docs/reliability.md)."""
from __future__ import annotations

import http.client
import json
import threading

import pytest

from nefertiti_cli import main
from nefertiti_cli.serve import MAX_BODY, PlaySession, make_server
from nefertiti_env import NefertitiGame

OPTIONS = dict(ruleset="default", setup="beginner", memphis=None, characters="base")


@pytest.fixture
def served(tmp_path):
    session = PlaySession(tmp_path / "games", OPTIONS)
    session.new("random,random", seat=0, seed=5)
    server = make_server(session, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield session, server.server_port
    server.shutdown()
    server.server_close()


def request(port, method, path, body=None, headers=None, raw=None):
    """(status, decoded JSON answer) of one request; `raw` bytes are sent as the body as they are."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json"} if data is not None else {}
    sent.update(headers or {})
    connection.request(method, path, body=data, headers=sent)
    response = connection.getresponse()
    answer = response.read()
    connection.close()
    return response.status, json.loads(answer) if answer and response.getheader("Content-Type") == \
        "application/json" else answer


def test_its_own_page_is_served(served):
    session, port = served
    status, state = request(port, "GET", "/api/state", headers={"Origin": f"http://127.0.0.1:{port}"})
    assert status == 200 and state["players"] == ["you", "random", "random"]
    for host in (f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"):
        assert request(port, "GET", "/", headers={"Host": host})[0] == 200


@pytest.mark.parametrize("host", ["evil.example", "evil.example:{port}", "127.0.0.1.evil.example:{port}",
                                  "127.0.0.1:1", ""])
def test_a_foreign_host_is_refused(served, host):
    """DNS rebinding: a page of another name that resolves to 127.0.0.1 sends its own name as Host."""
    session, port = served
    status, answer = request(port, "GET", "/api/state", headers={"Host": host.format(port=port)})
    assert status == 403 and "is not this server" in answer["error"]
    assert request(port, "POST", "/api/move", {"action": 1}, headers={"Host": host.format(port=port)})[0] == 403


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "http://127.0.0.1:1", "https://127.0.0.1"])
def test_a_foreign_origin_is_refused(served, origin):
    session, port = served
    before = list(session.game.history)
    status, answer = request(port, "POST", "/api/new", {"bots": "random", "seat": 0}, headers={"Origin": origin})
    assert status == 403 and "not served" in answer["error"]
    assert session.specs == ["you", "random", "random"] and session.game.history == before


def test_a_cross_site_fetch_is_refused_by_its_fetch_metadata(served):
    session, port = served
    status, answer = request(port, "GET", "/api/state", headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 403


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None])
def test_only_json_bodies_are_read(served, kind):
    """A foreign form posts text/plain or urlencoded bodies without asking first: never parsed."""
    session, port = served
    headers = {"Content-Type": kind} if kind else {}
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("POST", "/api/new", body=b'{"bots": "random", "seat": 0}', headers=headers)
    response = connection.getresponse()
    assert response.status == 415 and b"must be JSON" in response.read()
    assert session.specs == ["you", "random", "random"]


@pytest.mark.parametrize("raw, words", [
    (b"[1, 2]", "a JSON object"), (b"not json", "Expecting value"), (b'"text"', "a JSON object"),
    (b'{"action": "3"}', "action must be an integer"), (b'{"action": 2.5}', "action must be an integer"),
    (b'{"action": true}', "action must be an integer"), (b"{}", "needs an 'action'"),
    (b'{"action": null}', "action must be an integer"), (b"[" * 50_00 + b"]" * 50_00, ""),
])
def test_a_bad_move_body_is_answered_with_a_one_line_error(served, raw, words):
    session, port = served
    status, answer = request(port, "POST", "/api/move", raw=raw)
    assert status == 400 and words in answer["error"] and "\n" not in answer["error"]


def test_a_bad_new_game_body_is_answered(served):
    session, port = served
    for body, words in [({"seat": "1"}, "seat must be an integer"), ({"seat": 0, "seed": 1.5}, "seed must be"),
                        ({"bots": "random", "seat": 9}, "seat must be 0..1")]:
        status, answer = request(port, "POST", "/api/new", body)
        assert status == 400 and words in answer["error"], answer


def test_a_body_too_large_or_without_length_is_refused(served):
    session, port = served
    assert request(port, "POST", "/api/move", raw=b" " * (MAX_BODY + 1))[0] == 413
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.putrequest("POST", "/api/move")
    connection.putheader("Content-Type", "application/json")
    connection.endheaders()
    assert connection.getresponse().status == 411


@pytest.mark.parametrize("spec, words", [
    ("ppo:path=/etc/passwd", "cannot be chosen from the page"),
    ("mcts:seconds=15", "seconds may be at most 5.0"), ("mcts:iterations=10000000", "iterations may be at most"),
    ("mcts:seconds=inf", "seconds may be at most"), ("greedy:samples=100000", "samples may be at most 64"),
    ("champion:search=10000000", "search may be at most 20000"),
])
def test_the_page_may_ask_only_for_bots_of_bounded_cost(served, spec, words):
    """`ppo:path=` told a page whether a file exists; `mcts:seconds=` had no upper bound."""
    session, port = served
    status, answer = request(port, "POST", "/api/new", {"bots": f"random,{spec}", "seat": 0})
    assert status == 400 and words in answer["error"]
    assert request(port, "POST", "/api/new", {"bots": "greedy,mcts:iterations=20", "seat": 1, "seed": "4"})[0] == 200


def test_a_command_line_spec_stays_allowed_from_the_page(tmp_path):
    session = PlaySession(tmp_path, OPTIONS)
    session.new("mcts:iterations=30000", seat=0, seed=1)
    session.new("mcts:iterations=30000", seat=0, seed=2, from_page=True)
    with pytest.raises(ValueError, match="iterations may be at most"):
        session.new("mcts:iterations=30001", seat=0, seed=2, from_page=True)


class SlowBot:
    """A bot that thinks until told to stop (`go`), then plays the first legal action."""

    def __init__(self):
        self.thinking, self.go = threading.Event(), threading.Event()

    def act(self, game, seat):
        self.thinking.set()
        assert self.go.wait(30)
        return game.legal_actions()[0]


def test_the_page_is_answered_while_a_bot_thinks(served):
    """A bot thinks outside the session's lock: /api/state answers at once, and a move made meanwhile
    (here a new game) makes the bot's stale choice be dropped, not applied."""
    session, port = served
    seed = next(s for s in range(10) if NefertitiGame(3, seed=s).current_player != 1)
    assert request(port, "POST", "/api/new", {"bots": "random,random", "seat": 1, "seed": seed})[0] == 200
    bot = SlowBot()
    session.bots = {0: bot, 2: bot}
    results: list = []
    thinking = threading.Thread(target=lambda: results.append(request(port, "POST", "/api/bot", {})))
    thinking.start()
    assert bot.thinking.wait(30)
    status, state = request(port, "GET", "/api/state")
    assert status == 200 and state["bot_to_move"]
    assert request(port, "POST", "/api/bot", {})[1]["error"] == "a bot is already thinking"
    assert request(port, "POST", "/api/new", {"bots": "random,random", "seat": 0})[0] == 200
    bot.go.set()
    thinking.join()
    assert results[0][0] == 400 and "changed while the bot was thinking" in results[0][1]["error"]
    assert session.game.history == []


def test_records_are_checked_before_the_first_move(tmp_path, capsys):
    """A file where the records folder should be: refused at start, not after a whole game."""
    blocked = tmp_path / "games"
    blocked.write_text("a file")
    assert main(["serve", "--records", str(blocked), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert f"--records {blocked}: cannot save games there" in err and len(err.strip().splitlines()) == 1


def test_a_record_that_cannot_be_saved_is_given_in_the_answer(tmp_path):
    session = PlaySession(tmp_path / "games", OPTIONS)
    session.new("random,random", seat=0, seed=3)
    (tmp_path / "games").write_text("in the way")
    while not session.game.is_over():
        if session.game.current_player == 0:
            session.move(session.game.legal_actions()[0])
        else:
            session.bot_move()
    state = session.state()
    assert state["saved"] is None and "cannot save the record" in state["save_error"]
    assert json.loads(state["save_error"].split("the record: ", 1)[1]) == session.game.record()


def test_the_page_opens_from_a_link_on_another_site_but_its_api_does_not_answer(served):
    session, port = served
    cross = {"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}
    assert request(port, "GET", "/", headers={"Sec-Fetch-Site": "cross-site"})[0] == 200
    assert request(port, "GET", "/", headers={"Host": "evil.example"})[0] == 403
    assert request(port, "GET", "/api/state", headers=cross)[0] == 403
