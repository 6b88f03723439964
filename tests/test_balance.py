"""The balance lab: statistics against hand-computed cases, the recorder against an
independent replay, restricted play, config validation, the CLI, reproducibility,
the report and the notebook."""
from __future__ import annotations

import json
import math
import re
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from nefertiti_env.agents import make_bot
from nefertiti_env.balance import analysis, config, record, report, runner, stats, tables
from nefertiti_env.balance.restrict import Restriction
from nefertiti_cli import main
from nefertiti_env import NefertitiGame
from nefertiti_env.core import actions as A
from nefertiti_env.core.engine.closing import CLOSING_KINDS, Closing
from nefertiti_env.core.limits import NUM_BIDS
from nefertiti_env.core.phases import PH_HIGH, PH_SHAME, PH_TURN, PH_TUTOR, PH_TUTOR_RES

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------- statistics
def test_wilson_interval_by_hand():
    # p = 0.8, z = 1.959964: centre (0.8 + z^2/20) / (1 + z^2/10), half z sqrt(0.016 + z^2/400) / (1 + z^2/10)
    rate, low, high = stats.proportion(8, 10)
    assert rate == 0.8
    assert low == pytest.approx(0.490162, abs=1e-6) and high == pytest.approx(0.943318, abs=1e-6)
    assert all(math.isnan(x) for x in stats.proportion(0, 0))


def test_proportion_bounds_exact_at_the_edges_and_for_shared_wins():
    assert stats.proportion(0, 40)[1] == 0.0 and stats.proportion(40, 40)[2] == 1.0
    rate, low, high = stats.proportion(2.5, 10)          # shared wins are fractional
    assert rate == 0.25 and 0 < low < rate < high < 1
    d, low, high = stats.diff_proportions(0, 30, 30, 30)
    assert d == -1 and low >= -1 and high <= -0.8


def test_mean_t_interval_by_hand():
    # mean 3, sd sqrt(2.5), se sqrt(0.5), t(0.975, 4) = 2.776445
    mean, low, high = stats.mean_ci([1, 2, 3, 4, 5])
    assert mean == 3
    assert low == pytest.approx(3 - 2.776445 * math.sqrt(0.5), abs=1e-5)
    assert high == pytest.approx(3 + 2.776445 * math.sqrt(0.5), abs=1e-5)


def test_chi_squared_equal_counts_by_hand():
    # expected 20: (0 + 100 + 100) / 20 = 10 on 2 df; with 2 df the tail is exactly exp(-x/2)
    stat, df, p = stats.chi2_equal([20, 10, 30])
    assert (stat, df) == (10.0, 2) and p == pytest.approx(math.exp(-5), rel=1e-12)
    # expected 25: (25 + 25) / 25 = 2 on 3 df; tail 2 Q(sqrt 2) + 2 phi(sqrt 2) sqrt 2 = 0.5724067
    stat, df, p = stats.chi2_equal([30, 20, 25, 25])
    assert (stat, df) == (2.0, 3) and p == pytest.approx(0.5724067, abs=1e-7)
    assert stats.chi2_equal([25, 25, 25, 25])[2] == 1.0


def _fair_studies(rates, studies=400, games=500, seed=7):
    """Win counts per position of simulated studies whose seats win with `rates` (numpy, no games)."""
    return np.random.default_rng(seed).multinomial(games, rates, size=studies)


@pytest.mark.parametrize("rates", [[0.25] * 4, [1 / 3] * 3, [0.30, 0.25, 0.25, 0.20]])
def test_seat_edge_interval_covers_the_true_edge_in_simulated_studies(rates):
    """docs/balance.md, "How things are measured": the largest seat edge's interval holds the true
    max |rate - 1/n| in at least 95% of 400 simulated studies of 500 games, fair seats included
    (where a percentile bootstrap of one minus the largest gap between seats covered the truth in none)."""
    truth = max(abs(r - 1 / len(rates)) for r in rates)
    covered = [low <= truth + 1e-12 and truth <= high
               for low, high in (stats.seat_edge(w, 500)[1:] for w in _fair_studies(rates))]
    assert np.mean(covered) >= 0.94
    assert np.mean(covered) < 1 or truth == 0          # not an interval too wide to say anything


def test_seat_edge_interval_shrinks_with_games_and_finds_an_unfair_seat():
    edge, low, high = stats.seat_edge([300, 250, 250, 200], 1000)
    assert edge == pytest.approx(0.05) and 0 < low < 0.05 < high < 0.1
    assert stats.seat_edge([125, 125, 125, 125], 500)[:2] == (0.0, 0.0)


def _win_shares(rates, games, rng):
    """[game, position] win shares of simulated games whose one winner sits at each position with `rates`."""
    wins = np.zeros((games, len(rates)))
    wins[np.arange(games), rng.choice(len(rates), size=games, p=rates)] = 1
    return wins


@pytest.mark.parametrize("first, second, pairs", [
    ([0.25] * 4, [0.25] * 4, 4), ([0.32, 0.25, 0.23, 0.20], [0.25] * 4, 4),
    ([0.28, 0.26, 0.24, 0.22], [0.30, 0.25, 0.25, 0.20], 4), ([0.5, 0.5], [0.55, 0.45], 4),
    ([0.2] * 5, [0.26, 0.2, 0.2, 0.18, 0.16], 2)])
def test_change_of_seat_unfairness_is_unbiased_and_its_interval_covers_in_simulated_atlases(first, second, pairs):
    """docs/balance.md, "How things are measured": the change in the mean squared seat edge between twin tables,
    averaged over `pairs` pairs of 1,000-game tables, averages the true change (fair seats: 0, where squared gaps
    alone would not) and its interval covers it in at least 92% of 300 simulated atlases (at least 95% at fair
    seats, where it is conservative); at fair seats p < 0.05 in at most 5% of them."""
    rng = np.random.default_rng(5)
    truth = float(np.mean((np.asarray(second) - 1 / len(second)) ** 2) - np.mean((np.asarray(first) - 1 / len(first)) ** 2))
    estimates, covered, found = [], [], []
    for _ in range(300):
        tables_ = [[stats.mean_squared_edge(_win_shares(rates, 1000, rng)) for rates in (first, second)]
                   for _ in range(pairs)]
        (d, low, high), p, _ = stats.unweighted([(b[0] - a[0], a[1] + b[1]) for a, b in tables_])
        estimates.append(d)
        covered.append(low <= truth <= high)
        found.append(p < 0.05)
    assert abs(np.mean(estimates) - truth) < 3 * np.std(estimates) / math.sqrt(300)
    assert np.mean(covered) >= (0.95 if truth == first == second else 0.92)
    if first == second:
        assert np.mean(found) <= 0.05
    elif abs(truth) > 15e-4:                      # 15 pp^2 and more is found nearly always
        assert np.mean(found) >= 0.9


def test_seat_unfairness_by_hand():
    """Two positions, four games won 1, 1, 1, 0 by the first: gaps +0.25 and -0.25, each position's wins vary
    by 0.25 (ddof 1), so the estimate is (0.125 - 0.5 / 4) / 2 = 0: four games cannot tell 75% from parity."""
    wins = np.array([[1, 0], [1, 0], [1, 0], [0, 1]], dtype=float)
    estimate, variance = stats.mean_squared_edge(wins)
    assert estimate == pytest.approx(0.0, abs=1e-12) and variance > 0
    assert stats.mean_squared_edge(np.tile(wins, (50, 1)))[0] == pytest.approx((0.125 - 0.375 / 199) / 2)   # S: 0.1875 x 200/199


def test_chi_squared_of_fair_seats_rejects_at_its_nominal_rate():
    """Fair simulated studies: the seat test's p < 0.05 in about 5% of them (400 studies: 2-9%)."""
    rejected = np.mean([stats.chi2_equal(w)[2] < 0.05 for w in _fair_studies([0.25] * 4)])
    assert 0.02 <= rejected <= 0.09


def test_benjamini_hochberg_on_known_p_values():
    """q_(i) = min over j >= i of p_(j) m / j: for p = .01, .04, .03, .20 (m = 4): .04, .0533, .0533, .20."""
    findings = stats.Findings()
    tokens = [findings.test(p) for p in (0.01, 0.04, 0.03, 0.20)] + [findings.test(math.nan)]
    q = findings.adjusted()
    assert q[:4] == pytest.approx([0.04, 0.04 / 3 * 4, 0.04 / 3 * 4, 0.20]) and math.isnan(q[4])
    text = findings.fill(" | ".join(tokens))
    assert text == "**q = 0.04** | q = 0.053 | q = 0.053 | q = 0.2 | q n/a"
    assert findings.summary().startswith("4 tests in this report, adjusted together by Benjamini-Hochberg; 1 discover")


def test_a_discovery_is_shown_with_its_false_coverage_rate_interval():
    """One discovery of two tests: its interval again at 1 - 1 * 0.05 / 2 = 97.5%."""
    findings = stats.Findings()
    levels = []
    tokens = [findings.test(0.001, lambda level: levels.append(level) or "[x]"), findings.test(0.5, lambda level: "?")]
    assert findings.fill(" ".join(tokens)) == "**q = 0.002**, 97.50% FCR interval [x] q = 0.5"
    assert levels == [pytest.approx(0.975)]


def test_minimum_detectable_difference_by_hand():
    # (z_0.975 + z_0.8) sqrt(2 * 0.25 * 0.75 / 300) = 2.8016 * 0.035355 = 0.0991: ten points at 300 games an arm
    assert stats.detectable_difference(0.25, 300, 300) == pytest.approx(0.09905, abs=1e-4)
    assert stats.detectable_difference(0.25, 1200, 1200) == pytest.approx(0.09905 / 2, abs=1e-4)


def test_difference_p_values_match_their_intervals():
    """A 2x2 score test and Welch's t test: p < 0.05 exactly when the 95% interval leaves out 0 (here)."""
    assert stats.p_proportions(30, 100, 30, 100) == pytest.approx(1.0)
    assert stats.p_proportions(45, 100, 25, 100) < 0.05 and stats.diff_proportions(45, 100, 25, 100)[1] > 0
    assert stats.p_proportions(0, 10, 0, 10) == 1.0
    a, b = np.arange(20.0), np.arange(20.0) + 8
    assert stats.p_means(a, b) < 0.05 and stats.diff_means(a, b)[2] < 0
    assert stats.p_rate(50, 200, 0.25) == pytest.approx(1.0)


def test_lead_changes_on_a_hand_made_trajectory():
    trajectory = [[1, 0, 0],      # 0 leads
                  [1, 2, 0],      # 1 leads: change
                  [3, 2, 0],      # 0 leads: change
                  [3, 3, 0],      # tie: skipped
                  [3, 3, 5],      # 2 leads: change
                  [6, 3, 6],      # tie
                  [6, 3, 7]]      # 2 still leads: no change
    assert stats.leaders(trajectory) == [0, 1, 0, None, 2, None, 2]
    assert stats.lead_change_rows(trajectory) == [1, 2, 4]
    assert stats.lead_changes(trajectory) == 3
    assert stats.lead_changes([[1, 1], [2, 0], [2, 2], [3, 0]]) == 0


def test_difference_of_proportions_newcombe_example():
    # Newcombe (1998), Stat. Med. 17:873, example (a): 56/70 - 48/80, method 10: 0.0524 to 0.3339
    d, low, high = stats.diff_proportions(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert low == pytest.approx(0.0524, abs=5e-5) and high == pytest.approx(0.3339, abs=5e-5)


def test_difference_of_means_welch_by_hand():
    # var 2.5 and 10 over 5 each: se sqrt(2.5); df 6.25 / 1.0625 = 5.882; t(0.975, 5.882) = 2.458824
    d, low, high = stats.diff_means([1, 2, 3, 4, 5], [2, 4, 6, 8, 10])
    assert d == -3
    assert high - d == pytest.approx(2.458824 * math.sqrt(2.5), abs=1e-5)
    assert d - low == pytest.approx(high - d)


# ------------------------------------------------------------- recorder
def _recorded(players: int, seed: int, spec: str = "random"):
    game = NefertitiGame(players, seed=seed)
    bots = [make_bot(spec, seed=seed * 10 + s) for s in range(players)]
    rows = record.play_recorded(game, bots, [spec] * players, ("main", "default", players, seed))
    return game, {name: dict(zip(tables.COLUMNS[name], zip(*r))) if r else {} for name, r in rows.items()}, rows


@pytest.mark.parametrize("players,seed", [(3, 1), (3, 2), (4, 3), (4, 4), (4, 5)])
def test_recorder_agrees_with_an_independent_replay(players, seed):
    game, t, rows = _recorded(players, seed)
    replay = NefertitiGame(players, seed=seed)
    scores_after_turns, flips, high_paid, characters = [], [], {}, 0
    turn = 0
    for i, action in enumerate(game.history):
        if replay.phase == PH_TURN:
            turn += 1
            if turn > 1:
                scores_after_turns.append(replay.scores().tolist())
        characters += A.CHARACTER <= action < A.MARKET and replay.phase == PH_TURN
        side = replay.state.side.copy()
        replay.apply(action)
        flips += [(i, m) for m in np.flatnonzero(replay.state.side != side).tolist()]
        if replay.state.res_market >= 0 and replay.state.res_pos == 0 and replay.phase in (PH_HIGH, PH_SHAME):
            high_paid.setdefault(i, replay.phase == PH_HIGH)
    scores_after_turns.append(replay.scores().tolist())

    g = t["games"]
    assert g["turns"][0] == turn and g["decisions"][0] == len(game.history)
    assert g["lead_changes"][0] == stats.lead_changes(scores_after_turns)          # batched scores == core's
    assert [int(w) for w in g["winners"][0].split(";")] == game.winners()
    assert list(t["seats"]["score"]) == game.scores().tolist()
    assert all(o == 0 for o in t["seats"]["other_points"])                        # sources add up to the score
    assert len(t["closings"]["market"]) == len(flips)                              # one row per stall flip
    names = [game.rules.markets[m].name for _, m in flips]
    assert sorted(t["closings"]["market"]) == sorted(names)
    for decision, paid in zip(t["closings"]["decision"], t["closings"]["high_paid"]):
        if decision in high_paid:                                                 # observed at the closing
            assert paid == high_paid[decision]
    assert len(t.get("characters", {}).get("character", ())) == characters == int(game.state.char_played.sum())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_recorder_tutor_rows_follow_the_game(seed):
    """docs/rules.md §8 and §4.3: each tutor placed (or a chance to place one declined) is a row, and each
    resolved tutor's row says what it took, as an independent replay of the game's actions sees it."""
    game, t, _ = _recorded(2, seed)
    replay = NefertitiGame(2, seed=seed)
    placed, declined, took = [], 0, []
    for action in game.history:
        if replay.phase == PH_TUTOR:
            if action < A.CLOSE:
                placed.append(divmod(action - A.PLACE, NUM_BIDS))
            else:
                declined += len(replay.legal_actions()) > 1
        elif replay.phase == PH_TUTOR_RES:
            m = replay.state.res_market
            took.append("deben" if action == A.TAKE_DEBEN else
                        replay.rules.type_names[replay.rules.kind_type[replay.state.slots[m, action - A.CARD]]])
        replay.apply(action)
    rows = t["tutors"]
    outcome = list(rows["outcome"])
    assert placed and outcome.count("declined") == declined
    assert [(game.rules.markets[m].name if m < len(game.rules.markets) else "Memphis", bid) for m, bid in placed] \
        == [(m, b) for m, b, o in zip(rows["market"], rows["bid"], outcome) if o != "declined"]
    assert sorted(o for o in outcome if o not in ("declined", "unresolved")) == sorted(took)
    assert all(p == (s - game.state.first_player) % 2 for s, p in zip(rows["seat"], rows["position"]))


def test_recorder_character_rows_measure_the_power():
    """Vizier scores 2 per gift type owned (docs/rules.md §6): its row shows those points, and the score
    gain is net of the seal spent (3 points, docs/rules.md §5)."""
    found = 0
    for seed in range(40):
        game, t, _ = _recorded(4, seed)
        ch = t.get("characters")
        if not ch:
            continue
        for name, points, gain in zip(ch["character"], ch["points_gained"], ch["score_gain"]):
            if name == "Vizier":
                assert points % 2 == 0 and gain == points - 3
                found += 1
            if name == "Treasurer":
                assert points == 0
    assert found > 0


def test_gift_rows_add_up_to_the_seats():
    game, t, _ = _recorded(4, 11)
    by_seat = {s: 0 for s in range(4)}
    for seat, points in zip(t["gifts"]["seat"], t["gifts"]["points"]):
        by_seat[seat] += points
    assert [by_seat[s] for s in range(4)] == list(t["seats"]["gift_points"])
    assert sum(t["gifts"]["cards_bought"]) == sum(t["seats"]["cards_bought"])
    paid_bids = sum(b for b, p, c in zip(t["closings"]["winning_bid"], t["closings"]["high_paid"],
                                         t["closings"]["high_cards"]) if p and c)
    assert sum(t["seats"]["deben_paid"]) >= paid_bids


def test_gift_rows_hold_the_foreign_bonuses_apart():
    """docs/rules.md §7.4: a foreign gift's bonus adds to every item of its classic type its owner holds; the
    gift rows hold those points apart (within the type's points) with Memphis, and none without."""
    from nefertiti_env.core.scoring import type_bonus, type_items

    found = 0
    for seed in range(6):
        for memphis in (True, False):
            game = NefertitiGame(4, seed=seed, memphis=memphis, characters="expansion")
            bots = [make_bot("greedy", seed=seed * 10 + s) for s in range(4)]
            rows = record.play_recorded(game, bots, ["greedy"] * 4, ("main", "default", 4, seed))["gifts"]
            gifts = dict(zip(tables.COLUMNS["gifts"], zip(*rows)))
            items, bonus = type_items(game), type_bonus(game)
            column = {name: t for t, name in enumerate(game.rules.type_names)}
            for seat, kind, n, points, foreign in zip(*(gifts[k] for k in ("seat", "type", "items", "points",
                                                                             "foreign_points"))):
                assert n == items[seat, column[kind]] and foreign == n * bonus[seat, column[kind]]
                assert 0 <= foreign <= points and (memphis or foreign == 0)
                found += foreign > 0
    assert found > 0


# ------------------------------------------------------------- restricted play
# the engine keeps restrictions: tests/test_restricted_play.py
def test_restriction_names_are_checked_against_the_ruleset():
    rules = NefertitiGame(4, seed=0).rules
    assert Restriction("market", "Gizeh").problem(rules) is None
    assert "unknown market 'Cairo'" in Restriction("market", "Cairo").problem(rules)
    assert Restriction("character", "Thief").label == "no Thief"


# ------------------------------------------------------------- config
GOOD = {"seed": 3, "games": 6, "player_counts": [3, 4],
        "lineups": {3: ["random"] * 3, 4: ["random"] * 4},
        "rulesets": {"default": "default", "cheap_gold": "cheap_gold"},
        "restricted": {"games": 4, "player_counts": [4], "bot": "random",
                       "forbid": [{"character": "Thief"}, {"market": "Louqsor"}]}}


def test_config_reports_every_problem_at_once():
    bad = {**GOOD, "gmaes": 5, "games": 0, "setup": "expert", "player_counts": [3, 4, 9],
           "lineups": {3: ["random", "nobody", "random"], 4: ["random"] * 3},
           "rulesets": {"default": "default", "mine": "missing.toml"},
           "restricted": {**GOOD["restricted"], "forbid": [{"character": "Pharaoh"}], "colour": "red"}}
    with pytest.raises(config.ConfigError) as err:
        config.parse(bad, "bad.yaml")
    keys = [k for k, _ in err.value.problems]
    for key in ("gmaes", "games", "setup", "player_counts", "lineups.3[1]", "rulesets.mine",
                "restricted.forbid[0]", "restricted.colour"):
        assert key in keys, key
    text = str(err.value)
    assert "bad.yaml" in text and "'nobody'" in text and "Pharaoh" in text and "[9]" in text
    assert "gmaes: unknown key (known here: characters, games," in text


def test_config_checks_each_line_up_against_the_player_counts():
    with pytest.raises(config.ConfigError) as err:
        config.parse({**GOOD, "lineups": {3: ["random"] * 3, 4: ["random"] * 3, 5: ["random"] * 5}})
    assert err.value.problems == [("lineups", "4 players need 4 bot specs (one per seat), got 3; 5 players: no "
                                              "such player count in player_counts [3, 4]")]


def test_config_reads_one_spec_as_every_seats():
    """`lineups: SPEC` names every seat's bot at every count, `{n: SPEC}` at n players, and a ruleset's own
    line-ups likewise; the effective config spells them out seat by seat."""
    cfg = config.parse({**GOOD, "lineups": "banker", "ruleset_lineups": {"cheap_gold": {3: "greedy", 4: "random"}}})
    assert cfg.lineups == {3: ["banker"] * 3, 4: ["banker"] * 4}
    assert cfg.lineup("cheap_gold", 3) == ["greedy"] * 3 and cfg.lineup("cheap_gold", 4) == ["random"] * 4
    assert cfg.to_dict()["lineups"] == {3: ["banker"] * 3, 4: ["banker"] * 4}
    mixed = config.parse({**GOOD, "lineups": {3: "greedy", 4: ["random", "banker", "random", "banker"]}})
    assert mixed.lineups[3] == ["greedy"] * 3 and mixed.lineups[4][1] == "banker"
    with pytest.raises(config.ConfigError) as err:
        config.parse({**GOOD, "lineups": {3: "nobody", 4: "random"}})
    assert [key for key, _ in err.value.problems] == ["lineups.3"] and "'nobody'" in str(err.value)


def test_config_rejects_player_counts_the_core_does_not_support(monkeypatch):
    real = config.NefertitiGame

    def fake(num_players, **kw):
        if num_players == 5:
            raise NotImplementedError("2 and 5 players come with the expansion rules")
        return real(num_players, **kw)

    monkeypatch.setattr(config, "NefertitiGame", fake)
    with pytest.raises(config.ConfigError) as err:
        config.parse({**GOOD, "player_counts": [4, 5], "lineups": {4: ["random"] * 4, 5: ["random"] * 5}})
    assert ("player_counts", "5 players are not supported by the rules core yet: 2 and 5 players come with "
            "the expansion rules") in err.value.problems


def test_a_study_plays_at_the_table_its_options_name(monkeypatch):
    """Expansion characters (docs/rules.md §6) and the Port of Memphis (§7) in a study: checked by the core (Memphis
    cannot be off at 5 players), carried to every game."""
    study = {**GOOD, "memphis": True, "characters": "expansion", "setup": "advanced"}
    cfg = config.parse(study)
    assert config.parse(cfg.to_dict()) == cfg
    played = []

    def recorded(*args, **kwargs):
        played.append(NefertitiGame(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(runner, "NefertitiGame", recorded)
    assert runner.play_job(runner.schedule(cfg)[0])
    options = played[0].options
    assert (options["setup"], options["memphis"], options["characters"]) == ("advanced", True, "expansion")
    with pytest.raises(config.ConfigError) as err:
        config.parse({**GOOD, "memphis": False, "player_counts": [4, 5], "lineups": {4: ["random"] * 4,
                                                                                     5: ["random"] * 5}})
    assert any(key == "player_counts" and "mandatory with 5 players" in reason for key, reason in err.value.problems)


def test_a_ruleset_can_play_its_own_line_ups(tmp_path):
    """Rule variants played by agents trained under them (`ruleset_lineups`): that ruleset's games seat its
    line-up, the others the study's; the report says so; the names and sizes are checked."""
    own = {"with greedy": {3: ["greedy"] * 3}}
    cfg = config.parse({**GOOD, "games": 3, "player_counts": [3], "lineups": {3: ["random"] * 3}, "restricted": None,
                        "rulesets": {"default": "default", "with greedy": "default"}, "ruleset_lineups": own,
                        "out": str(tmp_path)})
    assert config.parse(cfg.to_dict()) == cfg and "ruleset_lineups" not in config.parse(GOOD).to_dict()
    seated = {(job.ruleset, job.bots) for job in runner.schedule(cfg)}
    assert seated == {("default", ("random",) * 3), ("with greedy", ("greedy",) * 3)}
    runner.run(cfg, workers=1, progress=False)
    text = report.write(tmp_path).read_text()
    assert "random, random, random; under `with greedy`: greedy, greedy, greedy" in text
    assert "with the same line-ups, except `with greedy`, played by its own" in text
    with pytest.raises(config.ConfigError) as err:
        config.parse({**GOOD, "ruleset_lineups": {"mine": {3: ["random"] * 3},
                                                  "cheap_gold": {3: ["random"] * 2, 4: ["random"] * 4}}})
    problem = dict(err.value.problems)["ruleset_lineups"]
    assert "'mine': no such ruleset in rulesets" in problem and "'mine': line-ups for [3] players, lineups has [3, 4]" in problem
    assert "'cheap_gold': 3 players need 3 bot specs (one per seat), got 2" in problem


def test_config_round_trip():
    cfg = config.parse(GOOD)
    assert config.parse(cfg.to_dict()) == config.parse(GOOD)
    assert cfg.baseline == "default" and cfg.restricted.forbid[1] == Restriction("market", "Louqsor")


# ------------------------------------------------------------- CLI
def test_cli_errors_exit_2_without_traceback(tmp_path, capsys):
    assert main(["balance", "--config", str(tmp_path / "none.yaml")]) == 2
    assert "not found" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\ngames: -1\nplayer_counts: [4]\nlineups: {4: [random, random, random, random]}\n"
                   "rulesets: {default: default}\nspeed: fast\n")
    assert main(["balance", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "games: Input should be greater than or equal to 1, got -1" in err and "speed: unknown key" in err
    assert "Traceback" not in err
    good = tmp_path / "good.yaml"
    good.write_text("seed: 1\ngames: 2\nplayer_counts: [4]\nlineups: {4: [random, random, random, random]}\n"
                    "rulesets: {default: default}\n")
    assert main(["balance", "--config", str(good), "--workers", "0"]) == 2
    assert "workers" in capsys.readouterr().err
    assert main(["balance", "--report-only", str(tmp_path)]) == 2


def test_cli_help_explains(capsys):
    with pytest.raises(SystemExit) as done:
        main(["balance", "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for word in ("--config", "--workers", "--report-only", "report.md", "games.csv", "whatever --workers"):
        assert word in text


# ------------------------------------------------------------- a whole study
@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """A small two-ruleset study with restricted play, run with 1 and with 2 workers."""
    folders = []
    for workers in (1, 2):
        out = tmp_path_factory.mktemp(f"study{workers}")
        cfg = config.parse({**GOOD, "games": 12, "out": str(out)})
        runner.run(cfg, workers=workers, progress=False)
        report.write(out)
        folders.append(out)
    return folders


def test_same_seed_same_tables_and_report_whatever_the_workers(study):
    one, two = study
    for name in [*(f"{t}.csv" for t in tables.COLUMNS), "report.md", "seats.png"]:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name


def test_study_tables_cover_every_arm_and_ruleset(study):
    tabs = tables.read_all(study[0])
    g = tabs["games"]
    assert tables.rows(g) == 2 * (12 + 12) + 3 * 4           # 2 rulesets x (3p + 4p) + 3 restricted arms
    assert set(g["arm"].tolist()) == {"main", "control", "no Thief", "no market Louqsor"}
    no_thief = tables.where(tabs["characters"], arm="no Thief", character="Thief")
    assert not any(s == game % 4 for s, game in zip(no_thief["seat"], no_thief["game"]))
    seats = tables.where(tabs["seats"], arm="main", ruleset="default", players=4)
    assert sorted(seats["position"][seats["game"] == 0].tolist()) == [0, 1, 2, 3]
    assert np.allclose(np.bincount(seats["game"], weights=seats["win"]), 1)   # one win per game, shared or not


def test_a_study_played_before_tutors_were_recorded_reads_as_having_none(study, tmp_path):
    older = shutil.copytree(study[0], tmp_path / "older")
    (older / "tutors.csv").unlink()
    tabs = tables.read_all(older)
    assert list(tabs["tutors"]) == tables.COLUMNS["tutors"] and tables.rows(tabs["tutors"]) == 0
    assert tables.rows(tabs["games"]) == tables.rows(tables.read_all(study[0])["games"])
    (older / "seats.csv").unlink()
    with pytest.raises(FileNotFoundError):
        tables.read_all(older)


def test_report_has_every_section_and_figure(study):
    text = (study[0] / "report.md").read_text()
    for heading in ("## 1. Seat fairness", "## 2. Gifts", "## 3. Characters", "### Restricted play",
                    "## 4. Markets", "## 5. Game length", "## 6. Ruleset comparison", "`cheap_gold` vs `default`"):
        assert heading in text, heading
    for png in ("seats", "gifts", "characters", "restricted", "markets", "game_shape", "rulesets"):
        assert f"({png}.png)" in text and (study[0] / f"{png}.png").stat().st_size > 1000


def test_a_published_study_holds_its_report_figures_and_settings_only(study, tmp_path):
    """docs/balance.md, "Publishing a study": the report and what replays it, not the game tables."""
    from nefertiti_env.balance.publish import publish

    names = {p.name for p in publish(study[0], tmp_path / "out")}
    assert names == {"report.md", "study.yaml", "run.json", "weights.json"} | {p.name for p in study[0].glob("*.png")}
    assert (tmp_path / "out" / "report.md").read_bytes() == (study[0] / "report.md").read_bytes()


def test_seat_fairness_counts_match_the_games_table(study):
    tabs = tables.read_all(study[0])
    c = analysis.cell(tabs, "main", "default", 3)
    f = analysis.seat_fairness(c, 3)
    assert f["games"] == 12 and sum(p["wins"] for p in f["positions"]) == pytest.approx(12)
    positions = (c["seats"]["position"][c["seats"]["rank"] == 1]).tolist()
    if all(";" not in w for w in c["games"]["winners"]):         # no shared win: plain counts
        assert [p["wins"] for p in f["positions"]] == [positions.count(p) for p in range(3)]
    assert f["edge"][0] == pytest.approx(max(abs(p["win_rate"][0] - 1 / 3) for p in f["positions"]))


def test_notebook_runs_on_a_study(study):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(ROOT / "notebooks" / "balance.ipynb", as_version=4)
    os.environ["BALANCE_STUDY"] = str(study[0])
    try:
        nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3",
                                resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    finally:
        del os.environ["BALANCE_STUDY"]
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert sum("image/png" in o.get("data", {}) for o in outputs) >= 4


def test_a_yaml_alias_or_an_extreme_size_is_refused(tmp_path, capsys):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("seed: 1\ngames: &g 2\nplayer_counts: [4]\nlineups: {4: [random, random, random, random]}\n"
                    "rulesets: {default: default}\nrestricted: {games: *g}\n")
    assert main(["balance", "--config", str(bomb)]) == 2
    assert "anchors and aliases (&name, *name) are not allowed in a config (line 2" in capsys.readouterr().err
    huge = tmp_path / "huge.yaml"
    huge.write_text("seed: 1\ngames: 1000000000000\nplayer_counts: [4]\nlineups: {4: [random, random, random, "
                    "random]}\nrulesets: {default: default}\n")
    assert main(["balance", "--config", str(huge)]) == 2
    assert "games: Input should be less than or equal to 1000000" in capsys.readouterr().err


def test_report_only_on_damaged_files_is_one_line(study, tmp_path, capsys):
    """A finished study's files damaged one at a time: each is named, exit 2, no traceback."""
    damages = {
        "study.yaml": lambda text: text.replace("seed:", "seed: [", 1),
        "games.csv": lambda text: text.replace("\n", "\nbroken,row\n", 2),
        "seats.csv": lambda text: "not,the,header\n" + text,
        "closings.csv": lambda text: text[:len(text) // 2] + "\x00\x00,\n",
        "characters.csv": lambda text: text.split("\n", 1)[0] + "\n" + "x," * 16 + "x\n",
    }
    for name, damage in damages.items():
        folder = tmp_path / name
        shutil.copytree(study[0], folder)
        (folder / name).write_text(damage((folder / name).read_text()))
        assert main(["balance", "--report-only", str(folder)]) == 2, name
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert name in err or str(folder) in err, err


@pytest.mark.parametrize("kind", [kind for kind in CLOSING_KINDS if kind != "never"])
def test_every_closing_kind_has_its_wording_in_the_lab_tables(kind):
    """docs/rules.md §3.3: the lab's tables say why a stall closed (`record.condition`) in words for every
    closing kind: a kind neither handled there nor in `record.CONDITIONS` raises KeyError."""
    grid = [[1, 6, 11], [4, 7, 2], [9, 3, 5]]
    closing = Closing(kind, {p: 7 if p == "square" else 1 for p in CLOSING_KINDS[kind]}, grid)
    row = np.full(NUM_BIDS, -1)
    row[[v for r in grid for v in r if v != 4]] = 0                 # all but one square: not closed for being full
    assert record.condition(closing, closing.all_squares & ~(1 << 4), 5, row) != "full"


def test_a_study_resumed_with_other_weights_behind_a_spec_is_refused(tmp_path):
    """A spec names weights (`ppo:path=...`, `champion`); a study resumed after the file behind it changed would
    mix two agents' games under one name: refused, naming the spec, and nothing is played or lost."""
    from shutil import copyfile

    from nefertiti_env.agents.run_folder import RunFolderError
    from nefertiti_env.agents.champion import CHAMPION_FILES
    from nefertiti_env.agents import weights

    model = tmp_path / "agent.pt"
    copyfile(CHAMPION_FILES[2], model)
    spec = f"ppo:path={model}"
    cfg = config.parse({**GOOD, "games": 2, "player_counts": [3], "lineups": {3: [spec, "random", "random"]},
                        "rulesets": {"default": "default"}, "restricted": None, "out": str(tmp_path / "study")})
    runner.run(cfg, workers=1, progress=False)
    saved = json.loads((tmp_path / "study" / weights.WEIGHTS).read_text())
    assert list(saved) == [spec] and len(saved[spec]) == 64                          # random loads no weights
    runner.run(cfg, workers=1, progress=False, resume=True)                          # the same weights: fine
    games = (tmp_path / "study" / "games.csv").read_bytes()
    copyfile(CHAMPION_FILES[1], model)                                               # other weights, same spec
    with pytest.raises(RunFolderError, match=re.escape(f"the weights behind {spec} differ from those this run "
                                                       "started with (weights.json)")):
        runner.run(cfg, workers=1, progress=False, resume=True)
    assert (tmp_path / "study" / "games.csv").read_bytes() == games
    (tmp_path / "study" / weights.WEIGHTS).unlink()                                  # a study saved before the check
    runner.run(cfg, workers=1, progress=False, resume=True)
    assert json.loads((tmp_path / "study" / weights.WEIGHTS).read_text()) != saved   # recorded from now on


def test_a_stopped_sessions_time_counts_in_the_studys_rate(tmp_path, monkeypatch):
    """A study stopped (Ctrl-C, SIGTERM) and resumed: run.json keeps the stopped session's games and seconds,
    so its rate (timed games over seconds, as the atlas's cost table reads it) covers both sessions, not the
    whole study's games over the last session's seconds."""
    cfg = config.parse({**GOOD, "games": 6, "player_counts": [3], "lineups": {3: ["random"] * 3},
                        "rulesets": {"default": "default"}, "restricted": None, "out": str(tmp_path / "study")})
    play, calls = runner._play, []

    def stop_at_the_fifth(job):
        calls.append(job)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return play(job)

    monkeypatch.setattr(runner, "_play", stop_at_the_fifth)
    with pytest.raises(KeyboardInterrupt):
        runner.run(cfg, workers=1, progress=False)
    stopped = json.loads((tmp_path / "study" / "run.json").read_text())
    assert stopped["stopped"] and stopped["games"] == stopped["timed_games"] == 4
    assert [s["games"] for s in stopped["sessions"]] == [4] and stopped["seconds"] > 0
    assert not runner.tables_written(tmp_path / "study")      # an atlas's --resume plays on, not skips it
    monkeypatch.setattr(runner, "_play", play)
    runner.run(cfg, workers=1, progress=False, resume=True)
    whole = json.loads((tmp_path / "study" / "run.json").read_text())
    assert "stopped" not in whole and whole["games"] == whole["timed_games"] == 6
    assert runner.tables_written(tmp_path / "study")
    assert [s["games"] for s in whole["sessions"]] == [4, 2]
    assert whole["sessions"][0] == stopped["sessions"][0]           # the stopped session, kept as it was
    assert whole["seconds"] == pytest.approx(sum(s["seconds"] for s in whole["sessions"]), abs=0.01)


def test_a_study_stopped_after_its_last_game_writes_its_tables_on_resume(tmp_path):
    """A stop can land after the last game is saved and before the tables are written: run.json then says
    `stopped`, so the atlas does not take the study for finished, and --resume writes the tables."""
    cfg = config.parse({**GOOD, "games": 3, "player_counts": [3], "lineups": {3: ["random"] * 3},
                        "rulesets": {"default": "default"}, "restricted": None, "out": str(tmp_path / "study")})
    runner.run(cfg, workers=1, progress=False)
    games = (tmp_path / "study" / "games.csv").read_bytes()
    whole = json.loads((tmp_path / "study" / "run.json").read_text())
    (tmp_path / "study" / "games.csv").unlink()
    (tmp_path / "study" / "run.json").write_text(json.dumps(
        runner.run_figures(tmp_path / "study", whole["sessions"][0], False, 3)))
    assert not runner.tables_written(tmp_path / "study")
    runner.run(cfg, workers=1, progress=False, resume=True)
    assert runner.tables_written(tmp_path / "study")
    assert (tmp_path / "study" / "games.csv").read_bytes() == games
    assert [s["games"] for s in json.loads((tmp_path / "study" / "run.json").read_text())["sessions"]] == [3, 0]


def test_a_study_resumed_with_arms_added_keeps_its_games_and_ends_as_one_played_whole(tmp_path):
    """A finished study whose games are the start of a larger one's schedule (restricted arms added, then more
    arms appended) is resumed, not refused: it plays only the new games and ends with the larger study's tables,
    byte for byte. A change to games already played is still refused, and nothing is lost."""
    import yaml

    from nefertiti_env.agents.run_folder import RunFolderError

    small = {**GOOD, "games": 4, "player_counts": [4], "lineups": {4: ["random"] * 4},
             "rulesets": {"default": "default"}, "restricted": None}
    one_arm = {**small, "restricted": {"games": 3, "player_counts": [4], "bot": "random",
                                       "forbid": [{"character": "Thief"}]}}
    two_arms = {**small, "restricted": {**one_arm["restricted"], "forbid": [{"character": "Thief"},
                                                                           {"market": "Louqsor"}]}}
    whole, grown = tmp_path / "whole", tmp_path / "grown"
    runner.run(config.parse({**two_arms, "out": str(whole)}), workers=1, progress=False)
    runner.run(config.parse({**small, "out": str(grown)}), workers=1, progress=False)
    assert runner.finished_games(grown) == 4
    # a resume stopped once it has rewritten study.yaml: the tables are the smaller study's, so no report
    (grown / "study.yaml").write_text(yaml.safe_dump(config.parse({**one_arm, "out": str(grown)}).to_dict()))
    with pytest.raises(RunFolderError, match="its tables hold 4 of the study's 10 games; finish it with"):
        report.write(grown)
    assert not (grown / "report.md").exists()
    for step, new in ((one_arm, 6), (two_arms, 3)):          # the control and the Thief's arm; then Louqsor's
        figures = runner.run(config.parse({**step, "out": str(grown)}), workers=1, progress=False, resume=True)
        assert figures["games"] == new
    for name in (f"{t}.csv" for t in tables.COLUMNS):
        assert (grown / name).read_bytes() == (whole / name).read_bytes(), name
    assert config.load(grown / "study.yaml").to_dict() == {**config.load(whole / "study.yaml").to_dict(),
                                                           "out": str(grown)}
    games = (grown / "games.csv").read_bytes()
    with pytest.raises(RunFolderError, match="holds a study with another games"):
        runner.run(config.parse({**two_arms, "games": 5, "out": str(grown)}), workers=1, progress=False, resume=True)
    assert (grown / "games.csv").read_bytes() == games


def test_a_restricted_arm_of_a_character_the_player_count_does_not_deal_is_not_reported_as_measured(tmp_path):
    """docs/rules.md §1.1: two players play without the Scribe +3, so forbidding it changes no game (its arm plays
    the control game for game). The report names it as not measured at 2 players and measures it at 3."""
    raw = {**GOOD, "games": 2, "player_counts": [2, 3], "lineups": {2: ["greedy"] * 2, 3: ["greedy"] * 3},
           "rulesets": {"default": "default"}, "out": str(tmp_path / "s"),
           "restricted": {"games": 2, "player_counts": [2, 3], "bot": "greedy",
                          "forbid": [{"character": "Scribe +3"}, {"character": "Thief"}]}}
    runner.run(config.parse(raw), workers=1, progress=False)
    seats = tables.where(tables.read_all(tmp_path / "s")["seats"], players=2)
    assert list(tables.where(seats, arm="no Scribe +3")["win"]) == list(tables.where(seats, arm=runner.CONTROL)["win"])
    md = report.write(tmp_path / "s").read_text().split("### Restricted play", 1)[1]
    two, three = md.split("**3 players**")
    assert "Not dealt at 2 players, so not measured" in two and "Scribe +3." in two
    assert "| no Thief |" in two and "| no Scribe +3 |" not in two
    assert "| no Scribe +3 |" in three and "Not dealt" not in three
