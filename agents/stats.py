"""Statistics for tournaments: confidence intervals and Plackett-Luce ratings.

Pure Python + numpy (no scipy): the Student t quantile comes from the exact
finite-sum CDF for integer degrees of freedom (Abramowitz & Stegun 26.7.3-4),
inverted by bisection.
"""
from __future__ import annotations

import math
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)


def wilson(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a win rate (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def t_cdf_two_sided(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with `df` (integer >= 1) degrees of freedom."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        return s * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = math.cos(theta)
    for k in range(1, (df - 1) // 2):
        term *= c2 * (2 * k) / (2 * k + 1)
        total += term
    return 2 / math.pi * (theta + s * total)


def t_quantile(level: float, df: int) -> float:
    """The t with P(|T| < t) = level (e.g. 0.95 gives the 97.5% quantile)."""
    lo, hi = 0.0, 1.0
    while t_cdf_two_sided(hi, df) < level:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf_two_sided(mid, df) < level else (lo, mid)
    return (lo + hi) / 2


def mean_ci(values, level: float = 0.95) -> tuple[float, float, float]:
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
