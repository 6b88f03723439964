"""benchmarks/agent_bar.py: the eight tables of the whole-game bar set up, and a one-game run writes its table."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from nefertiti_env import NefertitiGame

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "agent_bar.py"
spec = importlib.util.spec_from_file_location("agent_bar", SCRIPT)
agent_bar = importlib.util.module_from_spec(spec)
spec.loader.exec_module(agent_bar)


def test_the_tables_are_the_games_eight_and_each_has_its_targets():
    for name, options in agent_bar.TABLES.items():
        game = NefertitiGame(seed=0, **options)
        assert name.startswith(f"{game.num_players}p-") and game.options["memphis"] == ("memphis" in name
                                                                                        or game.num_players == 5)
    assert len(agent_bar.TABLES) == 8 and set(agent_bar.TARGETS) == {2, 3, 4, 5}
    assert [m[1] for m in agent_bar.matches("champion", 800)] == ["banker", "mcts:iterations=800",
                                                                  "mcts:iterations=800"]
    assert agent_bar.matches("champion", 800)[2][0] == "champion:search=800"


def test_a_quick_run_writes_the_markdown_table(tmp_path, capsys):
    out = tmp_path / "bar.md"
    status = agent_bar.main(["--games", "2", "--tables", "2p-base", "--search", "4", "--workers", "1",
                             "--out", str(out)])
    rows = [line for line in out.read_text().splitlines() if line.startswith("| 2p-base |")]
    assert [row.split(" | ")[1:3] for row in rows] == [["policy alone", "banker"],
                                                      ["policy alone", "mcts:iterations=4"],
                                                      ["with search", "mcts:iterations=4"]]
    assert all("| 2 |" in row for row in rows) and status in (0, 1)
    assert status == int(any("| no |" in row for row in rows))


def test_matches_can_be_chosen_and_an_unknown_one_is_refused(tmp_path, capsys):
    assert [m[2] for m in agent_bar.matches("champion", 800, ["mcts", "search"])] == [1, 2]
    out = tmp_path / "bar.md"
    agent_bar.main(["--games", "2", "--tables", "2p-base", "--matches", "banker", "--workers", "1", "--out", str(out)])
    rows = [line for line in out.read_text().splitlines() if line.startswith("| 2p-base |")]
    assert len(rows) == 1 and "| banker |" in rows[0]
    try:
        agent_bar.main(["--matches", "bankers"])
    except SystemExit as stop:
        assert stop.code == 2 and "--matches takes banker, mcts, search" in capsys.readouterr().err
    else:
        raise AssertionError("an unknown match was accepted")


def test_the_sampling_policy_is_measured_when_asked(tmp_path):
    out = tmp_path / "bar.md"
    agent_bar.main(["--games", "2", "--tables", "2p-base", "--matches", "banker", "--sample", "--workers", "1",
                    "--out", str(out)])
    text = out.read_text()
    assert "sampling its actions" in text.splitlines()[0] and text.count("| 2p-base | policy alone | banker | 2 |") == 1


def test_the_search_match_can_value_its_leaves_with_the_critic():
    assert agent_bar.matches("champion", 800, ["search"], leaf_value=1) == [
        ("champion:search=800:leaf_value=1", "mcts:iterations=800", 2)]
    assert agent_bar.matches("champion", 800, ["mcts"], leaf_value=1)[0][0] == "champion"


def test_several_models_are_measured_as_their_mixture(tmp_path):
    from nefertiti_env.agents.champion import CHAMPION_FILE, CHAMPION_STAGE1_FILE
    models = f"{CHAMPION_FILE},{CHAMPION_STAGE1_FILE}"
    assert agent_bar.agent_spec(models) == f"mixture:paths={CHAMPION_FILE}+{CHAMPION_STAGE1_FILE}"
    assert agent_bar.agent_spec(models, sample=True).endswith(":deterministic=0")
    assert agent_bar.agent_spec(str(CHAMPION_FILE)) == f"ppo:path={CHAMPION_FILE}"
    out = tmp_path / "bar.md"
    agent_bar.main(["--model", models, "--games", "2", "--tables", "3p-base", "--matches", "banker,search",
                    "--search", "4", "--workers", "1", "--out", str(out)])
    rows = [line for line in out.read_text().splitlines() if line.startswith("| 3p-base |")]
    assert [row.split(" | ")[1:4] for row in rows] == [["policy alone", "banker", "2"],
                                                      ["with search", "mcts:iterations=4", "2"]]


def test_the_league_plays_as_the_champion_with_its_league(tmp_path, capsys):
    assert agent_bar.agent_spec(None, league=True) == "champion:league=1"
    assert agent_bar.matches(agent_bar.agent_spec(None, league=True), 800)[2][0] == "champion:league=1:search=800"
    out = tmp_path / "bar.md"
    agent_bar.main(["--league", "--games", "2", "--tables", "3p-base", "--matches", "banker", "--workers", "1",
                    "--out", str(out)])
    assert "champion:league=1" in out.read_text().splitlines()[0]
    try:
        agent_bar.main(["--league", "--model", "agents/champion.pt"])
    except SystemExit as stop:
        assert stop.code == 2 and "--league plays the shipped champion's league" in capsys.readouterr().err
    else:
        raise AssertionError("--league with --model was accepted")
