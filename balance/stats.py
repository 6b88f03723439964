"""Statistics the balance lab adds to the tournament's (`agents.stats`: Wilson, t intervals).

Win rates are proportions of games, possibly fractional (a shared win counts 1/k
for each of the k winners). Intervals are 95%. The tests and intervals come from scipy;
Newcombe's difference of proportions is composed from the two Wilson intervals.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats as sp

from nefertiti_env.agents.stats import LEVEL, mean_ci, wilson

__all__ = ["balance_score", "bootstrap_ci", "chi2_equal", "diff_means", "diff_proportions",
           "lead_change_rows", "lead_changes", "leaders", "mean_ci", "proportion", "wilson"]


def proportion(successes: float, n: int) -> tuple[float, float, float]:
    """(rate, low, high) with the Wilson interval; NaNs when there is no game."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    return (successes / n, *wilson(successes, n))


def diff_proportions(x1: float, n1: int, x2: float, n2: int) -> tuple[float, float, float]:
    """(p1 - p2, low, high): Newcombe's hybrid score interval (his method 10), built from
    the two Wilson intervals; sound near 0 and 1 where the Wald interval fails."""
    p1, l1, u1 = proportion(x1, n1)
    p2, l2, u2 = proportion(x2, n2)
    d = p1 - p2
    return d, d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


def diff_means(a, b) -> tuple[float, float, float]:
    """(mean(a) - mean(b), low, high): Welch's interval (scipy's `ttest_ind`, unequal variances)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.size < 2 or b.size < 2:
        return math.nan, math.nan, math.nan
    d = float(a.mean() - b.mean())
    if a.var() + b.var() == 0:
        return d, d, d
    ci = sp.ttest_ind(a, b, equal_var=False).confidence_interval(LEVEL)
    return d, float(ci.low), float(ci.high)


def chi2_equal(counts) -> tuple[float, int, float]:
    """(statistic, degrees of freedom, p-value) of Pearson's test that all counts share one
    expected value (equal win counts per seat). Fractional counts are allowed."""
    c = np.asarray(counts, dtype=np.float64)
    if c.size < 2 or c.sum() <= 0:
        return math.nan, max(c.size - 1, 0), math.nan
    result = sp.chisquare(c)
    return float(result.statistic), c.size - 1, float(result.pvalue)


def balance_score(win_rates) -> float:
    """1 minus the largest win-rate gap between seats: 1 is perfectly fair."""
    w = np.asarray(win_rates, dtype=np.float64)
    return float(1 - (w.max() - w.min()))


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


def bootstrap_ci(statistic, n: int, resamples: int = 1000, seed: int = 0) -> tuple[float, float]:
    """Percentile interval of `statistic(indices)` over resamples of range(n) with replacement
    (scipy's `bootstrap`; resampling indices keeps paired rows together)."""
    result = sp.bootstrap((np.arange(n),), statistic, vectorized=False, n_resamples=resamples,
                          confidence_level=LEVEL, method="percentile", rng=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
