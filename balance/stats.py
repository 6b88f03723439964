"""Statistics the balance lab adds to the tournament's (`agents.stats`: Wilson, t intervals).

Win rates are proportions of games, possibly fractional (a shared win counts 1/k
for each of the k winners). Intervals are 95% unless a `level` is given. The tests and
intervals come from scipy; Newcombe's difference of proportions is composed from the two
Wilson intervals. A report holds hundreds of tests, so its p-values are adjusted together
(`Findings`: Benjamini-Hochberg) and every "no effect" is read against the minimum
detectable effect at the games played (`detectable_difference`).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats as sp

from nefertiti_env.agents.stats import LEVEL, mean_ci, wilson

__all__ = ["Findings", "chi2_equal", "detectable", "detectable_difference", "detectable_mean", "diff_means",
           "diff_proportions", "lead_change_rows", "lead_changes", "leaders", "mean_ci", "mean_squared_edge",
           "p_means", "p_proportions", "p_rate", "pooled", "proportion", "seat_edge", "unweighted", "wilson"]


def _z(level: float) -> float:
    return float(sp.norm.ppf((1 + level) / 2))


def proportion(successes: float, n: int, level: float = LEVEL) -> tuple[float, float, float]:
    """(rate, low, high) with the Wilson interval; NaNs when there is no game."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    return (successes / n, *wilson(successes, n, _z(level)))


def diff_proportions(x1: float, n1: int, x2: float, n2: int, level: float = LEVEL) -> tuple[float, float, float]:
    """(p1 - p2, low, high): Newcombe's hybrid score interval (his method 10), built from
    the two Wilson intervals; sound near 0 and 1 where the Wald interval fails."""
    p1, l1, u1 = proportion(x1, n1, level)
    p2, l2, u2 = proportion(x2, n2, level)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def diff_means(a, b, level: float = LEVEL) -> tuple[float, float, float]:
    """(mean(a) - mean(b), low, high): Welch's interval (scipy's `ttest_ind`, unequal variances)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.size < 2 or b.size < 2:
        return math.nan, math.nan, math.nan
    d = float(a.mean() - b.mean())
    if a.var() + b.var() == 0:
        return d, d, d
    ci = sp.ttest_ind(a, b, equal_var=False).confidence_interval(level)
    return d, float(ci.low), float(ci.high)


def pooled(values, level: float = LEVEL) -> tuple[tuple[float, float, float], float, float]:
    """Estimates of one effect from independent studies, as (estimate, variance) pairs, pooled by their
    inverse variances (a fixed-effect meta-analysis): ((mean, low, high), two-sided p, standard error)."""
    x, var = np.asarray(values, dtype=np.float64).reshape(-1, 2).T
    w = 1 / var
    return _normal(float(w @ x / w.sum()), float(1 / math.sqrt(w.sum())), level)


def _normal(d: float, se: float, level: float) -> tuple[tuple[float, float, float], float, float]:
    """An estimate with standard error `se` as ((d, low, high), two-sided p, se) under a normal approximation."""
    z = _z(level)
    return (d, d - z * se, d + z * se), float(2 * sp.norm.sf(abs(d) / se)) if se > 0 else math.nan, se


def p_proportions(x1: float, n1: int, x2: float, n2: int) -> float:
    """Two-sided p-value of equal win rates: Pearson's chi-squared on the 2x2 table (the score test);
    1 when neither sample has a win or a loss to tell them apart, NaN without games."""
    if n1 <= 0 or n2 <= 0:
        return math.nan
    table = np.array([[x1, n1 - x1], [x2, n2 - x2]], dtype=np.float64)
    if (table.sum(axis=0) <= 0).any():
        return 1.0
    return float(sp.chi2_contingency(table, correction=False).pvalue)


def p_means(a, b) -> float:
    """Two-sided p-value of equal means (Welch's t test); NaN below two values a side."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.size < 2 or b.size < 2:
        return math.nan
    if a.var() + b.var() == 0:
        return 1.0 if a.mean() == b.mean() else 0.0
    return float(sp.ttest_ind(a, b, equal_var=False).pvalue)


def p_rate(successes: float, n: int, rate: float) -> float:
    """Two-sided p-value of a win rate equal to `rate` (the score test Wilson's interval inverts)."""
    if n <= 0:
        return math.nan
    return float(sp.chisquare([successes, n - successes], [n * rate, n * (1 - rate)]).pvalue)


def seat_edge(wins, games: int, level: float = LEVEL) -> tuple[float, float, float]:
    """(edge, low, high): the largest seat edge, max over positions of |win rate - 1/n|.

    Its interval comes from simultaneous Wilson intervals of the n win rates (Bonferroni, each at
    1 - (1 - level) / n): whenever every rate lies in its interval, the true edge lies between the
    nearest and the farthest distance of those intervals from parity, so the interval covers it at
    `level` or more, at parity too (where the low is 0). A bootstrap of the estimate cannot: the
    largest of n noisy gaps is biased upwards, most at parity (one minus the largest gap between
    seats averages 0.95 for fair seats in 500-game studies, and its percentile interval holds 1 in
    none). Read the interval, not the estimate."""
    wins = np.asarray(wins, dtype=np.float64)
    n = wins.size
    if games <= 0 or n < 2:
        return math.nan, math.nan, math.nan
    parity, z = 1 / n, _z(1 - (1 - level) / n)
    bounds = np.array([wilson(w, games, z) for w in wins])
    edge = float(np.abs(wins / games - parity).max())
    low = float(np.maximum(np.maximum(bounds[:, 0] - parity, parity - bounds[:, 1]), 0).max())
    high = float(np.maximum(bounds[:, 1] - parity, parity - bounds[:, 0]).max())
    return edge, low, high


def mean_squared_edge(wins) -> tuple[float, float]:
    """(estimate, variance) of a table's seat unfairness, the mean over positions of (win rate - 1/n)^2, from
    its [game, position] matrix of win shares (`analysis.win_matrix`).

    One number per table, so that two tables' fairness is one test. The estimate is unbiased: each position's
    squared gap less its sampling variance, so fair seats average 0 (the squared gaps alone average their
    noise, the bias of the largest-gap score in `seat_edge`). Its variance is the quadratic form's under a
    normal approximation of the win rates, 2 tr(S^2)/m^2 + 4 d'Sd/m over n^2 (S: the covariance of a game's
    win shares, which counts that one seat's win is another's loss; d: the gaps), so it holds at fair seats
    too, where the gaps' first-order term vanishes. d'Sd is taken less its own noise, tr(S^2)/m, and floored
    at 0, which makes the interval conservative at fair seats rather than ever negative."""
    w = np.asarray(wins, dtype=np.float64)
    m, n = w.shape
    if m < 2:
        return math.nan, math.nan
    gap = w.mean(axis=0) - 1 / n
    s = np.cov(w, rowvar=False)
    s2 = float(np.trace(s @ s))
    spread = max(float(gap @ s @ gap) - s2 / m, 0.0)
    return float(gap @ gap - np.trace(s) / m) / n, (2 * s2 / m ** 2 + 4 * spread / m) / n ** 2


def unweighted(values, level: float = LEVEL) -> tuple[tuple[float, float, float], float, float]:
    """`pooled` with equal weights: the plain mean of independent estimates, (estimate, variance) pairs, with
    its normal interval, two-sided p and standard error. For an estimate whose variance grows with it (seat
    unfairness), inverse-variance weights would favour the smaller ones and bias the mean down."""
    x, var = np.asarray(values, dtype=np.float64).reshape(-1, 2).T
    return _normal(float(x.mean()), float(math.sqrt(var.sum()) / x.size), level)


def detectable(se: float, alpha: float = 1 - LEVEL, power: float = 0.8) -> float:
    """The smallest effect a two-sided test at `alpha` finds with probability `power` when its estimate has
    standard error `se` (normal approximation): below it, "no effect" means "not measured"."""
    return float(sp.norm.ppf(1 - alpha / 2) + sp.norm.ppf(power)) * se


def detectable_mean(a, b, alpha: float = 1 - LEVEL, power: float = 0.8) -> float:
    """`detectable` for the difference of two means (Welch's test, normal approximation)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.size < 2 or b.size < 2:
        return math.nan
    return detectable(math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size), alpha, power)


def detectable_difference(rate: float, n1: int, n2: int, alpha: float = 1 - LEVEL, power: float = 0.8) -> float:
    """`detectable` for the difference of two win rates near `rate`, with n1 and n2 games."""
    if n1 <= 0 or n2 <= 0 or math.isnan(rate):
        return math.nan
    return detectable(math.sqrt(rate * (1 - rate) * (1 / n1 + 1 / n2)), alpha, power)


class Findings:
    """Every test of one report, adjusted together by Benjamini-Hochberg (scipy's
    `false_discovery_control`): among the tests it calls discoveries (q < `rate`), at most that
    share is false in expectation, however many tests the report holds. Each test is written as a
    placeholder (`test`) and filled in once the report is complete (`fill`): its q-value, and for a
    discovery its interval again at the false-coverage-rate level 1 - R * rate / m (Benjamini and
    Yekutieli: R discoveries of m tests), so the intervals of the selected findings cover too. The
    intervals of tests not selected stay 95%: all of them are reported, none picked."""

    def __init__(self, rate: float = 1 - LEVEL):
        self.rate = rate
        self.tests: list[tuple[float, object]] = []

    def test(self, p: float, interval=None) -> str:
        """A placeholder for the adjusted result of p-value `p`; `interval(level)` formats the test's
        interval at another level (None: no interval to adjust)."""
        self.tests.append((p, interval))
        return f"\x00{len(self.tests) - 1}\x00"

    def adjusted(self) -> np.ndarray:
        """The q-values (BH-adjusted p-values) of every test, NaN where p is NaN."""
        p = np.array([t[0] for t in self.tests], dtype=np.float64)
        q = np.full(p.size, math.nan)
        ok = ~np.isnan(p)
        if ok.any():
            q[ok] = sp.false_discovery_control(p[ok], method="bh")
        return q

    def _discoveries(self) -> tuple[np.ndarray, int, int]:
        """(q-values, tests with a p-value, discoveries among them)."""
        q = self.adjusted()
        return q, int((~np.isnan(q)).sum()), int((q < self.rate).sum())

    def fill(self, text: str) -> str:
        q, m, found = self._discoveries()
        level = 1 - found * self.rate / m if found else LEVEL
        for i, (p, interval) in enumerate(self.tests):
            if math.isnan(q[i]):
                shown = "q n/a"
            elif q[i] < self.rate:
                shown = f"**q = {q[i]:.2g}**" + (f", {100 * level:.2f}% FCR interval {interval(level)}"
                                                 if interval else "")
            else:
                shown = f"q = {q[i]:.2g}"
            text = text.replace(f"\x00{i}\x00", shown)
        return text

    def summary(self) -> str:
        _, m, found = self._discoveries()
        return (f"{m} tests in this report, adjusted together by Benjamini-Hochberg; {found} discoveries at a "
                f"false discovery rate of {100 * self.rate:.0f}% (q < {self.rate:g}, in bold)")


def chi2_equal(counts) -> tuple[float, int, float]:
    """(statistic, degrees of freedom, p-value) of Pearson's test that all counts share one
    expected value (equal win counts per seat). Fractional counts are allowed."""
    c = np.asarray(counts, dtype=np.float64)
    if c.size < 2 or c.sum() <= 0:
        return math.nan, max(c.size - 1, 0), math.nan
    result = sp.chisquare(c)
    return float(result.statistic), c.size - 1, float(result.pvalue)


def leaders(score_rows) -> list[int | None]:
    """The sole leader of each row of per-seat scores (None when the top is tied)."""
    out = []
    for row in score_rows:
        row = list(row)
        best = max(row)
        out.append(row.index(best) if row.count(best) == 1 else None)
    return out


def lead_change_rows(score_rows) -> list[int]:
    """Indices of the rows where the sole leader differs from the previous sole leader.

    A tied top is nobody's lead: it neither counts nor resets, so "0 leads, tie,
    1 leads" is one change and "0 leads, tie, 0 leads" is none.
    """
    changes, last = [], None
    for i, leader in enumerate(leaders(score_rows)):
        if leader is None:
            continue
        if last is not None and leader != last:
            changes.append(i)
        last = leader
    return changes


def lead_changes(score_rows) -> int:
    """How often the sole leader changes along a trajectory of per-seat scores."""
    return len(lead_change_rows(score_rows))
