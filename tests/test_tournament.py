"""Tournament harness: seat rotation, statistics against hand-computed cases, ratings from
the CSV alone, reproducibility whatever the number of workers, CLI errors."""
from __future__ import annotations

import csv
import itertools
import json
import sys
from collections import Counter

import pytest

from conftest import run_with_a_cold_cache
from nefertiti_env.agents.stats import mean_ci, plackett_luce, ranks_of, t_quantile, wilson
from nefertiti_env.agents.run_folder import RunFolderError
from nefertiti_env.agents.tournament import ratings_from_csv, rotations, run, run_in_folder, schedule, summarize
from nefertiti_cli import main


def test_schedule_rotates_every_bot_through_every_seat():
    lineup = ["mcts", "collector", "greedy", "random"]
    jobs = schedule(lineup, 8, seed=0)
    seats = Counter((bot, seat) for job in jobs for seat, bot in enumerate(job.bots))
    assert seats == Counter({(bot, seat): 2 for bot in lineup for seat in range(4)})
    assert [job.bots for job in jobs[:4]] == [tuple(lineup[i:] + lineup[:i]) for i in range(4)]
    assert len({job.seed for job in jobs[:4]}) == 1 and jobs[0].seed != jobs[4].seed
    assert len({s for job in jobs for s in job.bot_seeds}) == 32



def test_a_line_up_of_different_bots_sits_each_on_either_side_of_the_other_as_often():
    """Rotations alone keep the bots' order around the table; every other deal reverses it (`orders`)."""
    lineup = ["mcts", "collector", "greedy", "random", "banker"]
    jobs = schedule(lineup, 20, seed=0)
    after = Counter(((job.bots.index(b) - job.bots.index(a)) % 5, a, b)       # b sits k seats after a
                    for job in jobs for a, b in itertools.permutations(job.bots, 2))
    assert all(after[k, a, b] == after[k, b, a] for k, a, b in after)
    assert [job.bots for job in jobs[5:10]] == [tuple(lineup[::-1][i:] + lineup[::-1][:i]) for i in range(5)]
    before = Counter(((job.bots.index(b) - job.bots.index(a)) % 5, a, b)
                     for job in rotations([lineup], 20, seed=0) for a, b in itertools.permutations(job.bots, 2))
    assert before[1, "mcts", "collector"] == 20 and before[1, "collector", "mcts"] == 0     # what it fixes


@pytest.mark.parametrize("lineup", [["champion", "banker", "banker", "banker"], ["mcts", "greedy"],
                                    ["banker", "random", "random"]])
def test_one_bot_against_copies_of_another_plays_the_rotations_alone(lineup):
    """Its reversal is one of its rotations: the same games as before the reversal existed."""
    assert schedule(lineup, 12, seed=3) == rotations([lineup], 12, seed=3)


def test_a_folder_played_before_the_reversal_is_not_resumed_with_it(tmp_path):
    lineup = ["greedy", "random", "banker"]
    out = tmp_path / "t"
    run_in_folder(out, lineup, 3, progress=False)
    saved = json.loads((out / "tournament.json").read_text())
    assert saved["seating"] == "reversed every other deal"
    del saved["seating"]                                              # as a folder from before it was written
    (out / "tournament.json").write_text(json.dumps(saved))
    with pytest.raises(RunFolderError, match="played before its seating .*start it over with --force"):
        run_in_folder(out, lineup, 6, progress=False, resume=True)
    same = ["greedy", "random", "random"]                             # no seating key: resumed as ever
    run_in_folder(tmp_path / "u", same, 3, progress=False)
    assert "seating" not in json.loads((tmp_path / "u" / "tournament.json").read_text())

def test_wilson_interval_hand_computed():
    # p = 0.5, n = 10, z = 1.959964: centre (0.5 + z^2/20) / (1 + z^2/10) = 0.5,
    # half = z * sqrt(0.025 + z^2/400) / (1 + z^2/10) = 0.263403
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.236593, abs=1e-6) and high == pytest.approx(0.763407, abs=1e-6)
    # no wins in 10: upper bound z^2/n / (1 + z^2/n) = 3.841459/13.841459
    assert wilson(0, 10) == pytest.approx((0.0, 0.277533), abs=1e-6)


def test_wilson_bounds_are_exactly_0_and_1_at_no_and_all_wins():
    # rounding once gave 3.5e-18 and 0.9999999999999999: error bars of negative length
    for n in range(1, 2000):
        assert wilson(0, n)[0] == 0.0 and wilson(n, n)[1] == 1.0
        for wins in (0, n // 3, n):
            low, high = wilson(wins, n)
            assert low <= wins / n <= high


def test_wilson_matches_scipy_binomtest():
    from scipy.stats import binomtest

    for wins, n in ((0, 7), (3, 7), (7, 7), (55, 200), (97, 200)):
        ci = binomtest(wins, n).proportion_ci(method="wilson")
        assert wilson(wins, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_t_quantiles_match_the_table():
    for df, table in ((1, 12.7062), (2, 4.3027), (4, 2.7764), (10, 2.2281), (30, 2.0423), (120, 1.9799)):
        assert t_quantile(0.95, df) == pytest.approx(table, abs=1e-4)


def test_mean_rank_interval_hand_computed():
    # ranks 1, 2, 3, 4, 1, 1: mean 2, sample sd sqrt(8/5), t(0.975, 5) = 2.570582
    mean, low, high = mean_ci([1, 2, 3, 4, 1, 1])
    half = 2.570582 * (8 / 5) ** 0.5 / 6 ** 0.5
    assert mean == 2 and low == pytest.approx(2 - half, abs=1e-5) and high == pytest.approx(2 + half, abs=1e-5)


def test_ranks_break_ties_by_deben_and_share_equal_places():
    """docs/rules.md §5: most points; tie: most Deben; still tied: shared."""
    assert ranks_of([50, 60, 60, 40], [3, 1, 2, 9]) == [3, 2, 1, 4]
    assert ranks_of([60, 60, 40], [2, 2, 9]) == [1, 1, 3]


def test_duplicate_bots_share_one_rating():
    ratings = plackett_luce([(["greedy", "random", "random"], [1, 2, 3])] * 5)
    assert set(ratings) == {"greedy", "random"}
    assert ratings["greedy"][0] > 25 > ratings["random"][0]


@pytest.fixture(scope="module")
def small_tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("tourney")
    summary, results = run_in_folder(out, ["random", "greedy:samples=1", "random"], games=6, seed=3, workers=1,
                                     progress=False)
    return out, results, summary


def test_output_folder_and_ratings_from_csv(small_tournament):
    out, results, summary = small_tournament
    assert {p.name for p in out.iterdir()} >= {"games.csv", "records.jsonl", "summary.csv", "speed.csv",
                                               "winrates.png"}
    with open(out / "games.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6 and rows[1]["bot_0"] == "greedy:samples=1"
    assert int(rows[0]["decisions"]) == len(results[0].record["actions"])
    recomputed = ratings_from_csv(out / "games.csv")
    for row in summary:
        assert recomputed[row["bot"]] == pytest.approx((row["mu"], row["sigma"], row["ordinal"]))
    greedy = next(row for row in summary if row["bot"] == "greedy:samples=1")
    assert greedy["seat_games"] == 6 and greedy["wins"] == sum(r.ranks[r.job.bots.index(greedy["bot"])] == 1
                                                                 for r in results)


def test_same_seed_same_results_whatever_the_workers(small_tournament):
    _, results, summary = small_tournament
    again = run(["random", "greedy:samples=1", "random"], games=6, seed=3, workers=2, progress=False)
    assert [r.record for r in again] == [r.record for r in results]
    assert summarize([(list(r.job.bots), r.ranks) for r in again]) == summary


@pytest.mark.parametrize("lineup", [["random", "greedy:samples=1"], ["random"] * 5])
def test_two_and_five_player_tournaments(lineup):
    results = run(lineup, games=len(lineup), seed=1, progress=False)
    assert [r.job.rotation for r in results] == list(range(len(lineup)))
    assert all(sorted(r.ranks)[0] == 1 and len(r.scores) == len(lineup) for r in results)


@pytest.mark.parametrize("argv, message", [
    (["--bots", "random,alphazero,random"], "unknown bot 'alphazero' (known: random, greedy"),
    (["--bots", "random,random"], "2 bots for 3 players"),
    (["--bots", "random,random,random", "--games", "0"], "--games must be 1..1,000,000, got 0"),
    (["--bots", "random,random,random", "--games", "1000000000000"], "--games must be 1..1,000,000"),
    (["--bots", "random,random,random", "--workers", "100000"], "--workers must be 1..256"),
    (["--players", "6", "--bots", "random,random,random,random,random,random"], "cannot set up a 6-player game"),
])
def test_cli_errors_exit_2_without_traceback(argv, message, capsys, tmp_path):
    code = main(["tournament", "--players", "3", "--out", str(tmp_path), "--quiet", *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_cli_tournament_prints_the_table(capsys, tmp_path):
    assert main(["tournament", "--players", "3", "--bots", "random,random,random", "--games", "3",
                 "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "win rate [95% CI]" in out and "decisions per CPU second" in out
    assert (tmp_path / "winrates.png").stat().st_size > 1000


def test_cli_play_a_bot_game_and_errors(capsys):
    assert main(["play", "--bots", "random,random,random,random", "--seed", "1"]) == 0
    assert "winner" in capsys.readouterr().out
    assert main(["play", "--seat", "5", "--bots", "random,random"]) == 2
    assert "--seat must be 0..2" in capsys.readouterr().err
    assert main(["play", "--bots", "random,chess"]) == 2
    assert "unknown bot 'chess'" in capsys.readouterr().err


def test_on_a_fresh_install_the_bots_compile_once_before_the_workers_fork(tmp_path):
    """The main process plays a decision of each bot and counts a result before the pool forks, so the
    workers inherit the compiled code instead of each compiling the same (the engine's moves and
    results; a heuristic bot's search, the same way, for a minute of CPU)."""
    argv = [sys.executable, "-m", "nefertiti_cli", "tournament", "--bots", "random,random", "--players", "2",
            "--games", "4", "--workers", "2", "--out", str(tmp_path / "t"), "--quiet"]
    result, twice = run_with_a_cold_cache(argv, tmp_path / "cache")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "t" / "summary.csv").is_file()
    assert twice == []
