"""Statistics the balance lab adds to the tournament's (`agents.stats`: Wilson, t intervals).

Win rates are proportions of games, possibly fractional (a shared win counts 1/k
for each of the k winners). Intervals are 95%. Everything is closed form or a
finite sum, so each result can be checked by hand and no optional package is needed.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from agents.stats import mean_ci, t_quantile, wilson

__all__ = ["balance_score", "bootstrap_ci", "chi2_equal", "chi2_sf", "diff_means", "diff_proportions",
           "lead_change_rows", "lead_changes", "leaders", "mean_ci", "proportion", "wilson"]

LEVEL = 0.95


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
    """(mean(a) - mean(b), low, high): Welch's interval, with the Welch-Satterthwaite degrees
    of freedom rounded down (slightly conservative; the t quantile takes whole df)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.size < 2 or b.size < 2:
        return math.nan, math.nan, math.nan
    d = float(a.mean() - b.mean())
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    if va + vb == 0:
        return d, d, d
    df = (va + vb) ** 2 / (va ** 2 / (a.size - 1) + vb ** 2 / (b.size - 1))
    half = t_quantile(LEVEL, max(1, math.floor(df))) * math.sqrt(va + vb)
    return d, d - half, d + half


def chi2_equal(counts) -> tuple[float, int, float]:
    """(statistic, degrees of freedom, p-value) of Pearson's test that all counts share one
    expected value (equal win counts per seat). Fractional counts are allowed."""
    c = np.asarray(counts, dtype=np.float64)
    expected = c.sum() / c.size if c.size else 0.0
    if c.size < 2 or expected <= 0:
        return math.nan, max(c.size - 1, 0), math.nan
    stat = float(((c - expected) ** 2 / expected).sum())
    return stat, c.size - 1, chi2_sf(stat, c.size - 1)


def chi2_sf(x: float, df: int) -> float:
    """P(X > x) for chi-squared with whole df, by the finite sums of Abramowitz & Stegun 26.4.4-5:
    even df: exp(-x/2) * sum_{k<df/2} (x/2)^k / k!;
    odd df: 2 Q(sqrt x) + 2 phi(sqrt x) * sum_{r=1}^{(df-1)/2} sqrt(x)^(2r-1) / (1*3*...*(2r-1))."""
    if x <= 0:
        return 1.0
    if df % 2 == 0:
        term = total = 1.0
        for k in range(1, df // 2):
            term *= x / 2 / k
            total += term
        return math.exp(-x / 2) * total
    chi = math.sqrt(x)
    normal = NormalDist()
    total, term = 0.0, 1 / chi
    for r in range(1, (df - 1) // 2 + 1):
        term *= x / (2 * r - 1)
        total += term
    return 2 * (1 - normal.cdf(chi)) + 2 * normal.pdf(chi) * total


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
    """Percentile interval of `statistic(indices)` over resamples of range(n) with replacement."""
    rng = np.random.default_rng(seed)
    values = np.array([statistic(rng.integers(n, size=n)) for _ in range(resamples)])
    return tuple(float(q) for q in np.quantile(values, [(1 - LEVEL) / 2, (1 + LEVEL) / 2]))
