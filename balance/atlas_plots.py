"""The atlas's figures: seat fairness per player count, the character and market rankings, Memphis off and on.

Populations are drawn side by side in every figure, since a finding of the game is one they share.
"""
from __future__ import annotations

import textwrap

import numpy as np
from matplotlib.figure import Figure

from .plots import _bars, _grid, _legend_below
from .stats import proportion


def _legend_once(fig: Figure, axes) -> None:
    """One legend under every panel (they share their series, though a population may play only some
    panels): a legend per panel would overlap its neighbours' once population names are long."""
    named = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            named.setdefault(label, handle)
    if named:
        fig.legend(list(named.values()), list(named), loc="outside lower center", ncol=min(len(named), 3),
                   fontsize=8, frameon=False)


def seats(pooled: dict[int, dict[str, tuple[list[float], int, int]]]) -> Figure:
    """Win rate by position per player count (pooled over its tables), one bar per population, parity dashed.
    pooled: players -> population -> (wins per position, games, tables); a population that played fewer of
    the count's tables than the others says how many in the title of its panel."""
    counts = sorted(pooled)
    fig, axes = _grid(1, len(counts), 3.6 * len(counts), 3.4)
    for ax, n in zip(axes[0], counts):
        pops = list(pooled[n])
        width = 0.8 / len(pops)
        most = max(count for _, _, count in pooled[n].values())
        fewer = []
        for k, pop in enumerate(pops):
            wins, games, count = pooled[n][pop]
            _bars(ax, [str(p + 1) for p in range(n)], [proportion(w, games) for w in wins],
                  color=f"C{k}", offset=(k - (len(pops) - 1) / 2) * width, width=width, label=pop)
            fewer += [f"{pop}: {count} of {most} tables"] if count < most else []
        ax.axhline(1 / n, color="black", linestyle="--", linewidth=1)
        ax.set_title(f"{n} players" + "".join(f"\n({text})" for text in fewer), fontsize=9 if fewer else None)
        ax.set_xlabel("position in turn order")
        ax.set_ylabel("win rate (95% CI)")
    _legend_once(fig, axes)
    return fig


def options(ranking: list[tuple[str, dict[str, tuple[float, float, float]]]], title: str) -> Figure:
    """Value of each character or market (win-rate points, control minus forbidden) with 95% intervals, one
    marker per population; ranking: (option, population -> (value, low, high)), best first. A population
    that valued some options only (a searching one at the base-roster tables, say) has markers at those."""
    fig, axes = _grid(1, 1, 7, 0.35 * len(ranking) + 1.6)
    ax = axes[0][0]
    pops = list(dict.fromkeys(pop for _, values in ranking for pop in values))
    y = np.arange(len(ranking))[::-1]
    for k, pop in enumerate(pops):
        rows = [i for i, (_, values) in enumerate(ranking) if pop in values]
        v = np.array([[100 * x for x in ranking[i][1][pop]] for i in rows])
        off = (k - (len(pops) - 1) / 2) * 0.2
        ax.errorbar(v[:, 0], y[rows] + off, xerr=[v[:, 0] - v[:, 1], v[:, 2] - v[:, 0]], fmt="o",
                    color=f"C{k}", label=pop, markersize=4, capsize=2)
    ax.axvline(0, color="black", linewidth=1)
    ax.set_yticks(y, [name for name, _ in ranking])
    ax.set_xlabel("win-rate points for the seat that may use it (95% CI)")
    ax.set_title(textwrap.fill(title, 56))          # a long table title would run past the figure's edge
    if pops:
        _legend_below(ax, ncol=min(len(pops), 3))
    return fig


def memphis(edges: dict[int, dict[str, dict]]) -> Figure:
    """The largest seat edge with Memphis off and on per player count and population (its 95%
    interval); edges: players -> population -> {"off": (e, lo, hi), "on": (e, lo, hi)}."""
    counts = sorted(edges)
    fig, axes = _grid(1, max(len(counts), 1), 3.6 * max(len(counts), 1), 3.2)
    for ax, n in zip(axes[0], counts):
        pops = list(edges[n])
        for k, side in enumerate(("off", "on")):
            _bars(ax, pops, [edges[n][p][side] for p in pops], color=f"C{k}", offset=(k - 0.5) * 0.4, width=0.4,
                  label=f"Memphis {side}")
        ax.set_title(f"{n} players")
        ax.set_ylabel("largest seat edge (95% CI)")
    _legend_once(fig, axes)
    return fig


def points_per_deben(values: dict[int, dict[str, dict[str, float]]]) -> Figure:
    """Points a gift type brings per Deben paid for its cards, per player count (pooled over its tables), one
    bar per population; values: players -> population -> gift type -> points per Deben."""
    counts = sorted(values)
    fig, axes = _grid(1, max(len(counts), 1), 3.6 * max(len(counts), 1), 3.4)
    for ax, n in zip(axes[0], counts):
        pops = list(values[n])
        kinds = sorted({k for pop in pops for k in values[n][pop]})
        width = 0.8 / max(len(pops), 1)
        for k, pop in enumerate(pops):
            ax.bar(np.arange(len(kinds)) + (k - (len(pops) - 1) / 2) * width,
                   [values[n][pop].get(kind, np.nan) for kind in kinds], width=width, color=f"C{k}", label=pop)
        ax.set_xticks(np.arange(len(kinds)), kinds, rotation=60, fontsize=8)
        ax.set_title(f"{n} players")
        ax.set_ylabel("points per Deben paid")
    _legend_once(fig, axes)
    return fig


def game_enders(ends: dict[int, dict[str, tuple[float, float, float]]]) -> Figure:
    """Share of games each stall's closing ended (95% interval), per player count; ends: players -> stall ->
    (share, low, high)."""
    counts = sorted(ends)
    fig, axes = _grid(1, max(len(counts), 1), 3.6 * max(len(counts), 1), 3.4)
    for ax, n in zip(axes[0], counts):
        stalls = sorted(ends[n])
        _bars(ax, stalls, [ends[n][s] for s in stalls], color="C2")
        ax.tick_params(axis="x", labelrotation=70, labelsize=7)
        ax.set_title(f"{n} players")
        ax.set_ylabel("share of games it ended (95% CI)")
    return fig
