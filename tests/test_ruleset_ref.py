"""Records and saved states name their ruleset so they replay on another machine (core/ruleset_ref.py)."""
import json
import random
import shutil
from pathlib import Path

import pytest

from nefertiti_cli import main
from nefertiti_env import NefertitiGame, RulesetError, StateError, load_ruleset
from nefertiti_env.core.ruleset import PACKAGED_RULESETS

OLD = Path(__file__).parent / "fixtures" / "old_format"     # written by hand in the format of absolute paths


def played(ruleset="default", seed=3, decisions=60) -> NefertitiGame:
    game, rng = NefertitiGame(3, ruleset=ruleset, seed=seed), random.Random(seed)
    while not game.is_over() and len(game.history) < decisions:
        game.apply(rng.choice(game.legal_actions()))
    return game


def user_ruleset(folder: Path, gold=(20, 12, 7)) -> Path:
    """A user's own ruleset file (gold scores differently from the packaged default)."""
    text = (PACKAGED_RULESETS / "default.toml").read_text(encoding="utf-8")
    old = "gold      = { values = [14, 10, 7]"
    assert old in text
    path = folder / "my_rules.toml"
    path.write_text(text.replace(old, f"gold      = {{ values = {list(gold)}"), encoding="utf-8")
    return path


def test_a_packaged_ruleset_is_named_with_the_hash_of_its_data():
    g = played()
    assert g.record()["ruleset"] == {"name": "default", "sha256": load_ruleset("default").sha256}
    assert json.loads(g.to_json())["ruleset"] == g.record()["ruleset"]
    assert load_ruleset("default").sha256 != load_ruleset("cheap_gold").sha256


def test_the_hash_ignores_comments_and_layout_of_the_file(tmp_path):
    copy = tmp_path / "copy.toml"
    copy.write_text("# my copy\n\n" + (PACKAGED_RULESETS / "default.toml").read_text(encoding="utf-8"))
    assert load_ruleset(str(copy)).sha256 == load_ruleset("default").sha256


def test_a_users_ruleset_is_named_by_path_and_hash_and_a_dict_by_its_data(tmp_path):
    path = user_ruleset(tmp_path)
    g = played(str(path))
    assert g.record()["ruleset"] == {"path": str(path.resolve()), "sha256": load_ruleset(str(path)).sha256}
    assert NefertitiGame.replay(g.record()).to_json() == g.to_json()
    d = played(load_ruleset("cheap_gold").data)
    assert d.record()["ruleset"] == {"data": load_ruleset("cheap_gold").data, "sha256": load_ruleset("cheap_gold").sha256}
    assert NefertitiGame.replay(json.loads(json.dumps(d.record()))).to_json() == d.to_json()


def test_a_record_whose_ruleset_file_is_not_on_this_machine_replays_with_the_file_given(tmp_path):
    """Made on another machine: the recorded path does not exist here; the file is given in its place."""
    path = user_ruleset(tmp_path)
    g = played(str(path))
    record = {**g.record(), "ruleset": {**g.record()["ruleset"], "path": "/home/someone/else/my_rules.toml"}}
    with pytest.raises(RulesetError, match="/home/someone/else/my_rules.toml") as err:
        NefertitiGame.replay(record)
    assert "no such file on this machine" in str(err.value) and "--ruleset" in str(err.value)
    assert NefertitiGame.replay(record, ruleset=str(path)).to_json() == g.to_json()
    state = json.loads(g.to_json())
    state["ruleset"] = record["ruleset"]
    assert NefertitiGame.from_json(json.dumps(state), ruleset=str(path)).to_json() == g.to_json()


def test_a_missing_file_holding_a_packaged_ruleset_is_found_by_its_hash(tmp_path):
    copy = tmp_path / "renamed.toml"
    shutil.copy(PACKAGED_RULESETS / "cheap_gold.toml", copy)
    g = played(str(copy))
    record = g.record()
    copy.unlink()
    replayed = NefertitiGame.replay(record)
    assert replayed.rules is load_ruleset("cheap_gold") and replayed.history == g.history


def test_a_changed_ruleset_is_an_error_naming_the_file_unless_allowed(tmp_path):
    path = user_ruleset(tmp_path)
    g = played(str(path))
    record, state = g.record(), g.to_json()
    user_ruleset(tmp_path, gold=(30, 12, 7))                   # the file is edited after the game
    with pytest.raises(RulesetError, match="sha256") as err:
        NefertitiGame.replay(record)
    assert str(path.resolve()) in str(err.value) and "allow_changed_ruleset" in str(err.value)
    with pytest.raises(StateError, match="sha256"):
        NefertitiGame.from_json(state)
    with pytest.warns(UserWarning, match=f"ruleset {path.resolve()}: its content"):
        replayed = NefertitiGame.replay(record, allow_changed_ruleset=True)
    assert replayed.history == g.history and replayed.rules.sha256 != record["ruleset"]["sha256"]
    with pytest.raises(RulesetError, match="sha256"):          # a file given in its place is checked too
        NefertitiGame.replay(played().record(), ruleset=str(path))


def test_a_packaged_ruleset_this_version_lacks_or_changed_is_named():
    record = played().record()
    with pytest.raises(RulesetError, match="no packaged ruleset 'desert' in this version"):
        NefertitiGame.replay({**record, "ruleset": {"name": "desert", "sha256": "0" * 64}})
    with pytest.raises(RulesetError, match=str(PACKAGED_RULESETS / "default.toml")):
        NefertitiGame.replay({**record, "ruleset": {"name": "default", "sha256": "0" * 64}})
    with pytest.raises(RulesetError, match="needs exactly one of name, path, data"):
        NefertitiGame.replay({**record, "ruleset": {"name": "default", "path": "x.toml", "sha256": "0" * 64}})


def test_old_records_with_another_machines_paths_load_as_the_packaged_rulesets():
    """Tournament lines written when records held the absolute path of the packaged file (Linux and Windows)."""
    entries = [json.loads(line) for line in (OLD / "records.jsonl").read_text().splitlines()]
    assert not any(Path(e["record"]["ruleset"]).exists() for e in entries)
    games = [NefertitiGame.replay(e["record"]) for e in entries]
    assert [g.rules.name for g in games] == [load_ruleset("default").name, load_ruleset("cheap_gold").name]
    assert [g.scores().tolist() for g in games] == [[49, 44, 68], [62, 70, 45, 49]]
    assert all(g.is_over() for g in games)
    assert games[1].record()["ruleset"] == {"name": "cheap_gold", "sha256": load_ruleset("cheap_gold").sha256}


def test_an_old_saved_state_and_an_old_dict_record_load():
    text = (OLD / "state.json").read_text()
    game = NefertitiGame.from_json(text)
    assert game.rules is load_ruleset("default") and game.scores().tolist() == [35, 26, 34]
    assert json.loads(game.to_json())["state"] == json.loads(text)["state"]
    g = played(load_ruleset("cheap_gold").data)
    old = {**g.record(), "ruleset": load_ruleset("cheap_gold").data}
    assert NefertitiGame.replay(old).to_json() == g.to_json()


def test_replay_command_takes_the_ruleset_in_place_of_a_missing_file(tmp_path, capsys):
    path = user_ruleset(tmp_path)
    g = played(str(path), decisions=10**6)
    record = {**g.record(), "ruleset": {**g.record()["ruleset"], "path": "/elsewhere/my_rules.toml"}}
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"game": 0, "bots": ["a", "b", "c"], "record": record}) + "\n")
    assert main(["replay", str(records)]) == 2
    assert "/elsewhere/my_rules.toml" in capsys.readouterr().err
    assert main(["replay", str(records), "--ruleset", str(path)]) == 0
    assert (tmp_path / "records-game0.html").stat().st_size > 10_000
    assert main(["replay", str(records), "--ruleset", "default"]) == 2
    assert "sha256" in capsys.readouterr().err
    with pytest.warns(UserWarning, match="default.toml: its content"):    # gold scores differ, the moves replay
        assert main(["replay", str(records), "--ruleset", "default", "--allow-changed-ruleset"]) == 0
