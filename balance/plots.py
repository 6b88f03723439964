"""The report's figures (matplotlib), drawn from the outputs of `analysis`.

Each function returns a `matplotlib.figure.Figure` made without pyplot (no backend,
no window, nothing to close); a notebook displays it, `save` writes it as PNG with
fixed metadata so the same data give the same file.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure


def save(fig: Figure, path: Path) -> Path:
    fig.savefig(path, dpi=100, metadata={"Software": None})
    return path


def _grid(rows: int, cols: int, width: float, height: float):
    """A figure whose constrained layout keeps legends placed outside the axes in view."""
    fig = Figure(figsize=(width, height), layout="constrained")
    return fig, fig.subplots(rows, cols, squeeze=False)


def _legend_below(ax, ncol: int = 4) -> None:
    """The legend under the axes, where it cannot cover data."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=ncol, fontsize=8, frameon=False)


def _bars(ax, labels, triples, color=None, offset=0.0, width=0.8, label=None):
    """Bars with 95% interval whiskers from (estimate, low, high) triples."""
    est = np.array([t[0] for t in triples], dtype=float)
    err = np.array([[t[0] - t[1] for t in triples], [t[2] - t[0] for t in triples]], dtype=float)
    x = np.arange(len(labels)) + offset
    ax.bar(x, est, width=width, yerr=np.nan_to_num(err), capsize=3, color=color, label=label)
    ax.set_xticks(np.arange(len(labels)), labels)
    return x


def seats(fairness: dict[int, dict]) -> Figure:
    """Win rate and mean score by position in turn order, one column per player count."""
    counts = sorted(fairness)
    fig, axes = _grid(2, len(counts), 4.2 * len(counts), 6)
    for col, n in enumerate(counts):
        pos = fairness[n]["positions"]
        labels = [f"{p['position'] + 1}" for p in pos]
        ax = axes[0, col]
        _bars(ax, labels, [p["win_rate"] for p in pos], color="tab:blue", label="win rate, 95% Wilson interval")
        ax.axhline(1 / n, color="grey", ls="--", lw=1, label=f"fair share 1/{n}")
        edge = fairness[n]["edge"]
        ax.set_title(f"{n} players, {fairness[n]['games']} games: win rate\n(chi-squared p = {fairness[n]['chi2'][2]:.3g}, "
                     f"largest seat edge <= {edge[2]:.3f})")
        ax.set_ylabel("win rate")
        ax.set_xlabel("position in turn order (1 = first player)")
        _legend_below(ax, ncol=2)
        ax = axes[1, col]
        _bars(ax, labels, [p["score"] for p in pos], color="tab:orange")
        ax.set_title(f"{n} players: mean score (95% t interval)")
        ax.set_ylabel("mean final score")
        ax.set_xlabel("position in turn order (1 = first player)")
    fig.suptitle("Seat balance by position in turn order")
    return fig


def gifts(sources: dict[int, list[dict]], economy: dict[int, list[dict]], games: dict[int, int]) -> Figure:
    """Share of points by source, Deben paid per point by gift type, monopoly frequency (games: per player count)."""
    counts = sorted(sources)
    fig, (axes,) = _grid(1, 3, 15, 4.5)
    names = list(dict.fromkeys(r["source"] for n in counts for r in sources[n]))
    types = list(dict.fromkeys(r["type"] for n in counts for r in economy[n]))
    width = 0.8 / len(counts)
    for i, n in enumerate(counts):
        share = {r["source"]: r["share"] for r in sources[n]}
        eco = {r["type"]: r for r in economy[n]}
        label = f"{n} players ({games[n]} games)"
        axes[0].bar(np.arange(len(names)) + i * width, [share.get(k, 0) for k in names], width, label=label)
        axes[1].bar(np.arange(len(types)) + i * width, [eco[t]["deben_per_point"] if t in eco else 0 for t in types],
                    width, label=label)
        _bars(axes[2], types, [eco[t]["monopoly"] if t in eco else (0, 0, 0) for t in types], offset=i * width,
              width=width, label=label)
    for ax, labels, title, ylabel in (
            (axes[0], names, "share of all points by source", "share of all points"),
            (axes[1], types, "Deben paid per point, by gift type", "Deben paid per point"),
            (axes[2], types, "games ending in a monopoly, by type", "share of games (95% Wilson interval)")):
        ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2, labels, rotation=45, ha="right")
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        _legend_below(ax, ncol=2)
    fig.suptitle(f"Gifts: {sum(games.values())} games")
    return fig


def characters(use: list[dict], title: str) -> Figure:
    """Plays per game, and the win-rate difference of seats that played it vs did not (title: players, games)."""
    names = [r["character"] for r in use]
    fig, (axes,) = _grid(1, 2, 12, 4.5)
    axes[0].bar(names, [r["per_game"] for r in use], color="tab:green")
    axes[0].set_title(f"{title}: plays per game")
    _bars(axes[1], names, [r["win_diff"] for r in use], color="tab:purple")
    axes[1].axhline(0, color="grey", lw=1)
    axes[1].set_title("win rate: played it minus did not (association)")
    axes[0].set_ylabel("plays per game")
    axes[1].set_ylabel("win-rate difference (95% Newcombe interval)")
    for ax in axes:
        ax.tick_params(axis="x", rotation=45)
        ax.set_xlabel("character")
    return fig


def restricted(results: dict[int, list[dict]]) -> Figure:
    """Change of the restricted seat's win rate against the unrestricted control."""
    counts = sorted(results)
    fig, axes = _grid(1, len(counts), 6 * len(counts), 4.5)
    for ax, n in zip(axes[0], counts):
        arms = [r for r in results[n] if r["win_change"] is not None]
        _bars(ax, [r["arm"] for r in arms], [r["win_change"] for r in arms], color="tab:red")
        ax.axhline(0, color="grey", lw=1)
        games = arms[0]["games"] if arms else 0
        ax.set_title(f"{n} players, {games} games per arm: win-rate change when forbidden")
        ax.set_ylabel("win-rate change vs control (95% CI)")
        ax.set_xlabel("what the restricted seat may not do")
        ax.tick_params(axis="x", rotation=30)
    return fig


def markets(stalls: list[dict], title: str) -> Figure:
    """Closings per game per stall, split by the condition that closed it; mean winning bid."""
    names = [r["stall"] for r in stalls]
    conditions = list(dict.fromkeys(k for r in stalls for k in r["conditions"]))
    fig, (axes,) = _grid(1, 2, 13, 4.5)
    bottom = np.zeros(len(stalls))
    for cond in conditions:
        heights = np.array([r["per_game"] * r["conditions"].get(cond, 0) for r in stalls])
        axes[0].bar(names, heights, bottom=bottom, label=cond)
        bottom += heights
    axes[0].set_title(f"{title}: closings per game by condition")
    axes[0].set_ylabel("closings per game")
    _bars(axes[1], names, [r["winning_bid"] for r in stalls], color="tab:brown")
    axes[1].set_title("mean winning bid")
    axes[1].set_ylabel("winning bid (95% t interval)")
    for ax in axes:
        ax.tick_params(axis="x", rotation=45)
        ax.set_xlabel("stall")
    axes[0].legend(title="closed by", loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, frameon=False)
    return fig


def game_shape(games: dict[int, dict]) -> Figure:
    """Distributions of game length, score margin and lead changes per player count."""
    fig, (axes,) = _grid(1, 3, 15, 4)
    for n in sorted(games):
        g = games[n]
        for ax, column in zip(axes, ("turns", "margin", "lead_changes")):
            values = g[column]
            ax.hist(values, bins=np.arange(values.min(), values.max() + 2) - 0.5 if column != "margin" else 30,
                    histtype="step", lw=1.5, density=True, label=f"{n} players ({len(values)} games)")
    for ax, title, xlabel in zip(axes, ("turns per game", "score margin (winner - runner-up)",
                                        "lead changes per game"), ("turns", "points", "lead changes")):
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("share of games")
        _legend_below(ax, ncol=2)
    fig.suptitle("Game length, margins and lead changes")
    return fig


def rulesets(fairness: dict[str, dict[int, dict]]) -> Figure:
    """Win rate by position for each ruleset, side by side, one panel per player count."""
    names = list(fairness)
    counts = sorted(fairness[names[0]])
    fig, axes = _grid(1, len(counts), 5 * len(counts), 4)
    width = 0.8 / len(names)
    for ax, n in zip(axes[0], counts):
        for i, name in enumerate(names):
            pos = fairness[name][n]["positions"]
            _bars(ax, [str(p["position"] + 1) for p in pos], [p["win_rate"] for p in pos], offset=i * width,
                  width=width, label=f"{name} ({fairness[name][n]['games']} games)")
        ax.set_xticks(np.arange(n) + 0.4 - width / 2, [str(p + 1) for p in range(n)])
        ax.axhline(1 / n, color="grey", ls="--", lw=1, label=f"fair share 1/{n}")
        ax.set_title(f"{n} players: win rate by position")
        ax.set_xlabel("position in turn order")
        ax.set_ylabel("win rate (95% Wilson interval)")
        _legend_below(ax, ncol=2)
    return fig
