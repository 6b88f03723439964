"""Replay pages, `play --svg` and the play server's session, without a browser."""
from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET

import pytest

from nefertiti_cli import main
from nefertiti_cli.replay import load_record
from nefertiti_cli.serve import PlaySession
from nefertiti_env import NefertitiGame
from nefertiti_env.render.replay import replay_frames, replay_html

OPTIONS = dict(ruleset="default", setup="beginner", memphis=None, characters="base")


def finished(seed: int, players: int = 3) -> NefertitiGame:
    game, rng = NefertitiGame(players, seed=seed), random.Random(seed)
    while not game.is_over():
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_replay_frames_follow_the_record():
    game = finished(2)
    frames = replay_frames(game.record(), ["a", "b", "c"])
    assert len(frames) == len(game.history) + 1
    replay = NefertitiGame(3, seed=2)
    for frame, action in zip(frames, game.history):
        assert frame["seat"] == replay.current_player
        assert frame["player"] == f"P{replay.current_player} ({'abc'[replay.current_player]})"
        assert frame["action"] == replay.action_to_string(action)
        replay.apply(action)
    assert frames[-1]["scores"] == game.scores().tolist() and "Game over" in frames[-1]["svg"]


def test_replay_page_is_self_contained():
    page = replay_html(finished(3).record(), title="a </script> title")
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    assert page.count("</script>") == 2           # the JSON data cannot close its script element early
    assert "a &lt;/script&gt; title" in page


def test_replay_command_reads_records_and_names_problems(tmp_path, capsys):
    games = [finished(s) for s in (4, 5)]
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps({"game": i + 10, "bots": ["x", "y", "z"], "record": g.record()}) + "\n"
                               for i, g in enumerate(games)))
    assert load_record(records, 11) == (games[1].record(), ["x", "y", "z"])
    single = tmp_path / "one.json"
    single.write_text(json.dumps(games[0].record()))
    assert load_record(single, 0) == (games[0].record(), None)
    assert main(["replay", str(records), "--game", "11"]) == 0
    assert (tmp_path / "records-game11.html").stat().st_size > 100_000
    assert main(["replay", str(records), "--game", "3"]) == 2
    assert "no game 3; it holds 2 game(s): 10, 11" in capsys.readouterr().err
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(games[0].record()) + "\n{oops\n")
    assert main(["replay", str(broken)]) == 2
    assert "line 2 is not JSON" in capsys.readouterr().err
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({**games[0].record(), "actions": [146, 146]}))
    assert main(["replay", str(wrong)]) == 2
    assert "does not replay: decision 0" in capsys.readouterr().err


def test_play_writes_the_final_board_svg(tmp_path):
    out = tmp_path / "board.svg"
    assert main(["play", "--bots", "random,random,random", "--seed", "3", "--svg", str(out)]) == 0
    root = ET.fromstring(out.read_text())
    assert "Game over" in "".join(root.itertext())
    assert not list(tmp_path.glob("*.partial"))


def test_play_session_allows_only_legal_moves_at_the_right_time(tmp_path):
    session = PlaySession(tmp_path, OPTIONS)
    with pytest.raises(ValueError, match="seat must be 0..2 for 3 players, got 3"):
        session.new("random,random", seat=3, seed=1)
    with pytest.raises(ValueError, match="unknown bot|nosuchbot"):
        session.new("random,nosuchbot", seat=0, seed=1)
    session.new("random,random", seat=1, seed=1)
    while session.game.current_player != 1:
        with pytest.raises(ValueError, match="not your move"):
            session.move(session.game.legal_actions()[0])
        session.bot_move()
    state = session.state()
    assert state["human_to_move"] and not state["bot_to_move"]
    assert [m["id"] for m in state["legal"]] == session.game.legal_actions()
    with pytest.raises(ValueError, match="not a bot's move"):
        session.bot_move()
    with pytest.raises(ValueError, match="not legal"):
        session.move(next(a for a in range(147) if a not in session.game.legal_actions()))
    while not session.game.is_over():
        if session.game.current_player == 1:
            session.move(session.game.legal_actions()[-1])
        else:
            session.bot_move()
    state = session.state()
    assert state["over"] and state["saved"] and state["winners"] == session.game.winners()
    assert len(state["log"]) == len(session.game.history)
    saved = json.loads(open(state["saved"]).read())
    assert saved["bots"] == ["random", "you", "random"]
    assert NefertitiGame.replay(saved["record"]).history == session.game.history


@pytest.mark.parametrize("entry, words", [
    ([1, 2], "entry 1 is a JSON list, not a game record"),
    ({"record": [1]}, "is not a game record"),
    ({"seed": 1, "options": {}, "actions": 5}, "is not a game record"),
    ({"seed": "1", "options": {}, "actions": [], "ruleset": "default"}, "seed (an integer)"),
    ({"seed": 1, "options": [], "actions": [], "ruleset": "default"}, "options (an object)"),
    ({"seed": 1, "options": {"colour": "red"}, "actions": [], "ruleset": "default"}, "options do not make a game"),
    ({"seed": 1, "options": {"num_players": 9}, "actions": [], "ruleset": "default"}, "num_players must be"),
    ({"seed": 1, "options": {}, "actions": [], "ruleset": "no-such-ruleset"}, "no-such-ruleset"),
    ({"seed": 1, "options": {}, "actions": [], "ruleset": 7}, "ruleset"),
    ({"seed": 1, "options": {"max_decisions": 10**7}, "actions": [], "ruleset": "default"}, "max_decisions must be"),
    ({"seed": 1, "options": {}, "actions": ["x"], "ruleset": "default"}, "does not replay: decision 0"),
    ({"seed": 1, "options": {}, "actions": [None], "ruleset": "default"}, "does not replay: decision 0"),
    ({"seed": 1, "options": {}, "actions": [0] * 5001, "ruleset": "default"}, "a replay page shows at most 5000"),
    ({"record": {"seed": 1, "options": {}, "actions": [], "ruleset": "default"}, "bots": 3}, None),
])
def test_a_malformed_record_is_one_line(tmp_path, capsys, entry, words):
    """Every malformed record is one line naming the file, exit 2, before any page is built."""
    path = tmp_path / "r.json"
    path.write_text(json.dumps(entry))
    code = main(["replay", str(path), "--out", str(tmp_path / "page.html")])
    err = capsys.readouterr().err
    if words is None:                     # bots that are no list of names: the seats are named P0, P1, ...
        assert code == 0
        return
    assert code == 2 and words in err and str(path) in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "page.html").exists()


def test_a_deeply_nested_record_is_one_line(tmp_path, capsys):
    path = tmp_path / "r.json"
    path.write_text("[" * 100_000)
    assert main(["replay", str(path)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_replay_never_writes_over_its_records(tmp_path, capsys):
    records = tmp_path / "r.jsonl"
    records.write_text(json.dumps({"game": 0, "record": finished(2).record()}) + "\n")
    before = records.read_text()
    assert main(["replay", str(records), "--out", str(records)]) == 2
    assert "is the records file itself" in capsys.readouterr().err and records.read_text() == before
