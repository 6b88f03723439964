"""The fuzz run (`benchmarks/fuzz.py`) on a few games, so that it cannot rot: its compiled loop
plays the very games `run_game` plays, a short run passes, and a failure is reported with its reproducer."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import invariants_kernel as kernel
from nefertiti_env.core.engine import layout as L
from nefertiti_env.core.limits import MAX_PLAYERS
from test_expansion_invariants import COMBOS, new_game, policy_seed, run_game

FUZZ = Path(__file__).resolve().parents[1] / "benchmarks" / "fuzz.py"


@pytest.fixture(scope="module")
def fuzz():
    """benchmarks/fuzz.py as module `fuzz` (named in sys.modules, so its workers find `play_block`)."""
    spec = importlib.util.spec_from_file_location("fuzz", FUZZ)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["fuzz"] = module
    yield module
    del sys.modules["fuzz"]


def _play(games, max_decisions=1000):
    """play_games over [(players, memphis, characters, seed)]: final rows, decisions, codes, scores."""
    Rs = np.stack([new_game(*game).R for game in games])
    seeds = np.array([seed for *_, seed in games])
    rows, scores = np.zeros((len(games), L.STATE_BYTES), np.uint8), np.zeros((len(games), MAX_PLAYERS), np.int64)
    decisions, codes = np.zeros(len(games), np.int64), np.zeros(len(games), np.int64)
    policy = np.array([policy_seed(players, seed) for players, *_, seed in games])
    kernel.play_games(Rs, np.arange(len(games)), seeds, policy, max_decisions, rows, decisions, codes, scores)
    return rows, decisions, codes, scores


def test_the_compiled_loop_plays_the_games_run_game_plays():
    """Same deal, same random moves, same final state: a fuzz failure's `run_game` call reproduces it."""
    games = [(*COMBOS[c], seed) for c, seed in [(0, 1), (9, 2), (17, 3), (26, 4), (34, 5)]]
    rows, decisions, codes, scores = _play(games)
    for j, game in enumerate(games):
        g = run_game(*game)
        assert codes[j] == kernel.OK and decisions[j] == len(g.history)
        assert np.array_equal(rows[j], g.S) and scores[j, :game[0]].tolist() == g.scores().tolist()


def test_a_game_past_the_decision_limit_is_named():
    rows, decisions, codes, scores = _play([(4, False, "base", 1)], max_decisions=5)
    assert codes[0] == kernel.NOT_ENDED and decisions[0] == 5


def test_a_short_fuzz_run_passes_and_reports_its_figures(fuzz, capsys):
    assert fuzz.main(["--games", "140", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "140 games" in out and " 0 failures" in out and "checked decisions/s" in out


def test_a_failure_is_printed_with_the_call_that_reproduces_it(fuzz, monkeypatch):
    """A score that differs from the recomputation (here a recomputation made wrong) names the game."""
    monkeypatch.setattr(fuzz, "recomputed_scores", lambda g: [-1] * g.num_players)
    games, decisions, failures = fuzz.play_block(35, 37, 100)
    players, memphis, characters = COMBOS[0]
    assert games == 2 and decisions > 0 and len(failures) == 2
    assert failures[0].startswith(f"run_game({players}, {memphis}, {characters!r}, 101): scores ")


def test_an_engine_error_is_reported_for_its_game_and_the_others_are_checked(fuzz, monkeypatch):
    """An exception out of the compiled loop (here raised for seed 101) names that game only."""
    play_games = kernel.play_games

    def failing(Rs, rules_of, seeds, *args):
        if 101 in seeds:
            raise ValueError("an engine error")
        play_games(Rs, rules_of, seeds, *args)

    monkeypatch.setattr(fuzz.kernel, "play_games", failing)
    games, decisions, failures = fuzz.play_block(34, 37, 100)
    assert games == 3 and decisions > 0
    assert failures == [f"run_game({', '.join(map(repr, COMBOS[0]))}, 101): ValueError: an engine error",
                        f"run_game({', '.join(map(repr, COMBOS[1]))}, 101): ValueError: an engine error"]


def test_tampered_states_and_batched_inputs_never_crash_the_interpreter():
    """5,000 tampered saved states (indexes past their tables, sums that wrap int64: docs/reliability.md)
    and 5,000 batched calls with malformed actions and `active` masks, in a process of their own: each is
    refused with StateError/ValueError/IllegalActionError or plays to its end; a segfault fails here."""
    script = Path(__file__).resolve().parent / "tampering.py"
    done = subprocess.run([sys.executable, str(script), "--cases", "5000", "--seed", "7"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"exit {done.returncode} (a negative code is the signal that killed it):\n" \
                                 f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
    assert "5000 tampered states" in done.stdout and " 0 failures" in done.stdout
