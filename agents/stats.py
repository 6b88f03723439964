"""Statistics for tournaments: confidence intervals (scipy) and Plackett-Luce ratings (openskill).

The interval functions serve the balance lab too (`balance.stats`), which is why a count
of wins may be fractional there (a shared win counts 1/k for each of the k winners).
"""
from __future__ import annotations

import math

from scipy import stats

LEVEL = 0.95
Z95 = float(stats.norm.ppf((1 + LEVEL) / 2))


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a win rate (95% by default); (0, 1) when n is 0.

    scipy's `binomtest(...).proportion_ci(method="wilson")` takes whole counts only, and a
    shared win is fractional, so the closed form is written out on scipy's normal quantile.
    Zero wins give a low of exactly 0 and all wins a high of exactly 1 (rounding would
    leave 1e-18 or 0.9999999999999999, and error bars of negative length).
    """
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if wins <= 0 else max(0.0, centre - half)
    high = 1.0 if wins >= n else min(1.0, centre + half)
    return low, high


def t_quantile(level: float, df: float) -> float:
    """The t with P(|T| < t) = level (e.g. 0.95 gives the 97.5% quantile)."""
    return float(stats.t.ppf((1 + level) / 2, df))


def mean_ci(values, level: float = LEVEL) -> tuple[float, float, float]:
    """(mean, low, high): Student t interval of the mean; (mean, mean, mean) below 2 values."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1))
    half = t_quantile(level, n - 1) * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def ranks_of(scores, money) -> list[int]:
    """Competition ranks (1 = best): points first, Deben break ties, equal pairs share a rank."""
    keys = list(zip(scores, money))
    return [1 + sum(other > key for other in keys) for key in keys]


def plackett_luce(games) -> dict[str, tuple[float, float, float]]:
    """{bot: (mu, sigma, ordinal)} from games given in order as (bots per seat, ranks per seat).

    Each seat is a team of one. A bot seated several times in one game (e.g. three
    random bots) is rated as one player: its copies' updated ratings are averaged.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {}
    for bots, ranks in games:
        teams = [[ratings.get(b) or model.rating(name=b)] for b in bots]
        new = model.rate(teams, ranks=list(ranks))
        for b in dict.fromkeys(bots):
            copies = [team[0] for team, name in zip(new, bots) if name == b]
            ratings[b] = model.rating(mu=sum(r.mu for r in copies) / len(copies),
                                      sigma=sum(r.sigma for r in copies) / len(copies), name=b)
    return {b: (r.mu, r.sigma, r.ordinal()) for b, r in ratings.items()}
