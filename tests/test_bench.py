"""`nefertiti bench`: one run reports the scalar, batched, env and search figures with their peers."""
from __future__ import annotations

import random

from nefertiti_cli import main


def _figures(out: str) -> dict[str, float]:
    """The numbers of the report by name; a ratio timed in turns is followed by its 95% interval, which
    appears under "<ratio's name>, 95% interval" as (low, high)."""
    figures, last = {}, None
    for line in out.splitlines():
        if line.strip().startswith("95% interval"):
            low, high = line.rsplit("[", 1)[1].rstrip("]").split(", ")
            figures[f"{last}, 95% interval"] = (float(low), float(high))
        elif line.startswith("  "):
            last, value = line.strip().rsplit(None, 1)
            figures[last] = float(value.replace(",", ""))
    return figures


def test_bench_reports_every_figure_and_the_ratios(capsys):
    assert main(["bench", "--seconds", "0.05", "--repeats", "2", "--no-startup"]) == 0
    out, err = capsys.readouterr()
    assert "bench:" in err and "/26 " in err              # a progress bar over the 2 x 12 measurements and 2 in turns
    for section in ("(a) scalar engine", "(b) batched random play", "(c) batched env", "(d) PettingZoo", "search"):
        assert section in out, out
    f = _figures(out)
    names = ["NefertitiGame legal_actions + apply, setup included", "OpenSpiel goofspiel 4p via pyspiel (every player's move)",
             "OpenSpiel tarok 4p via pyspiel", "OpenSpiel hearts via pyspiel", "vector.random_play per core", "NefertitiVectorEnv.step, 1 thread",
             "NefertitiVectorEnv.step, 2 threads", "Nefertiti-v0",
             "NefertitiVectorEnv.step, 2 threads, compact v1 observations",
             "classic/connect_four-v3", "floor: a no-op AEC env, same wrappers and loop",
             "NefertitiGame clone + apply per second (CPU time)", "bytes per stored state: the state array S",
             "bytes per stored state: a NefertitiGame clone mid-game"]
    assert all(f[name] > 0 for name in names), f
    goof = f["OpenSpiel goofspiel 4p via pyspiel (every player's move)"]
    assert abs(f["ratio NefertitiGame / goofspiel 4p"] - f[names[0]] / goof) < 0.01
    assert f["ratio NefertitiGame / goofspiel 4p, median over repeats"] > 0
    assert abs(f["ratio per core / goofspiel 4p"] - f["vector.random_play per core"] / goof) < 0.01
    assert abs(f["ratio Nefertiti-v0 / connect_four-v3, of the best figures"]
               - f["Nefertiti-v0"] / f["classic/connect_four-v3"]) < 0.01
    assert f["ratio NefertitiGame / goofspiel 4p, in turns of 0.25 s"] > 0
    assert f["ratio Nefertiti-v0 / connect_four-v3, in turns of 0.25 s"] > 1
    peers = ("goofspiel 4p", "tarok 4p", "hearts")
    for ratio in (*(f"ratio NefertitiGame / {peer}, in turns of 0.25 s" for peer in peers),
                  "ratio Nefertiti-v0 / connect_four-v3, in turns of 0.25 s"):
        low, high = f[f"{ratio}, 95% interval"]
        assert low <= f[ratio] <= high, (low, f[ratio], high)          # printed to 2 decimals, as the ratio
    assert f["us per decision beyond the floor, in turns: Nefertiti-v0"] \
        < f["us per decision beyond the floor, in turns: connect four"]    # both from the same floor
    assert "start-up" not in out


def test_startup_times_run_fresh_processes_on_one_cache():
    from nefertiti_cli.bench import startup_times

    check = "import os, sys; assert os.environ['NUMBA_CACHE_DIR']; sum(range(10**6))"
    times = startup_times([check, check])
    assert len(times) == 2 and all(wall > 0 and cpu > 0 for wall, cpu in times)


def test_the_floor_env_is_a_valid_aec_env_of_fixed_length_games():
    """The floor must be honest: a correct AEC env (PettingZoo's api_test) whose games are 150 decisions."""
    from pettingzoo.test import api_test

    from nefertiti_cli.bench import floor_env, play_env_game

    api_test(floor_env(), num_cycles=200)
    assert play_env_game(floor_env(), 0, random.Random(0)) == 150


def test_bench_rejects_a_useless_duration(capsys):
    assert main(["bench", "--seconds", "0", "--repeats", "1"]) == 2
    assert "--seconds must be > 0" in capsys.readouterr().err


def test_random_legal_draws_each_rows_legal_actions_uniformly():
    """(c)'s chooser: always a legal action of its own row, every legal one about equally often."""
    import numpy as np
    from scipy.stats import chisquare

    from nefertiti_cli.bench import random_legal

    masks = np.zeros((3, 147), np.int8)
    masks[0, [0, 5, 146]] = 1
    masks[1, 7] = 1
    masks[2, 20:60] = 1
    rng = np.random.default_rng(0)
    draws = np.array([random_legal(masks, rng) for _ in range(4000)])
    assert masks[np.arange(3), draws].all()
    assert (draws[:, 1] == 7).all()
    for row, legal in ((0, [0, 5, 146]), (2, range(20, 60))):
        counts = [(draws[:, row] == a).sum() for a in legal]
        assert chisquare(counts).pvalue > 1e-3, counts


def test_timed_in_turns_gives_each_plays_rate_and_the_ratios_interval():
    """Two plays whose decisions cost 1 and 3 units of CPU work: timed in turns, their rates stand 3:1,
    inside a bootstrap interval that holds the ratio and is not empty."""
    from nefertiti_cli.bench import timed_in_turns

    def work(units):
        def play():
            sum(range(20_000 * units))
            return 1
        return play

    turns = timed_in_turns({"cheap": work(1), "dear": work(3)}, seconds=0.6, slice_seconds=0.1)
    assert set(turns.decisions) == set(turns.seconds) == {"cheap", "dear"}
    assert len(turns.seconds["cheap"]) == 6 and (turns.seconds["dear"] >= 0.1).all()
    ratio = turns.ratio("cheap", "dear")
    assert ratio == turns.rate("cheap") / turns.rate("dear") and 2.2 < ratio < 3.8, ratio
    low, high = turns.interval("cheap", "dear")
    assert low <= ratio <= high and low < high, (low, ratio, high)
