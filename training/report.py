"""The end-of-run outputs: the result table (printed, CSV, Markdown) and the learning curve (PNG)."""
from __future__ import annotations

import csv
import sys
from pathlib import Path

from nefertiti_env.agents.run_folder import line_numbers

from .evaluation import MatchResult

COLUMNS = ("baseline", "games", "win rate", "95% CI", "mean score", "parity 1/n", "verdict")


def verdict(result: MatchResult) -> str:
    low, high = result.ci
    if low > result.parity:
        return "above parity"
    if high < result.parity:
        return "below parity"
    return "not separated"


def table_rows(results: list[MatchResult]) -> list[tuple[str, ...]]:
    rows = []
    for r in results:
        low, high = r.ci
        rows.append((r.baseline, str(r.games), f"{r.win_rate:.1%}", f"{low:.1%} - {high:.1%}", f"{r.mean_score:.1f}",
                     f"{r.parity:.1%}", verdict(r)))
    return rows


def markdown_table(results: list[MatchResult]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(results)]
    return "\n".join(lines) + "\n"


def print_table(results: list[MatchResult], title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column in COLUMNS:
        table.add_column(column, justify="left" if column in ("baseline", "verdict") else "right")
    for row in table_rows(results):
        table.add_row(*row)
    console = Console()
    if not console.is_terminal:     # a log or a pipe: no width to fit; rich's default 80 columns wrapped the rows
        console = Console(width=1_000)
    console.print(table)


def save_results(results: list[MatchResult], timesteps: int, csv_path: Path, md_path: Path, title: str) -> None:
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(results[0].row(timesteps)))
        writer.writeheader()
        writer.writerows(r.row(timesteps) for r in results)
    md_path.write_text(f"# {title}\n\n" + markdown_table(results))


EVALUATION_NUMBERS = {"timesteps": int, "games": int, "win_rate": float, "ci_low": float, "ci_high": float,
                      "parity": float}


def read_evaluations(path: Path) -> list[dict]:
    """The learning curve's rows; a damaged row (cut by a kill, edited by hand) is left out and named on stderr,
    so the report is still made."""
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    good, damaged = [], []
    for line, row in enumerate(rows, start=2):
        try:
            for name, kind in EVALUATION_NUMBERS.items():
                kind(row[name])
            if not row["baseline"]:
                raise ValueError("no baseline")
            good.append(row)
        except (KeyError, TypeError, ValueError):
            damaged.append(line)
    if damaged:
        print(f"{path}: left out {len(damaged)} damaged line(s) of the learning curve: {line_numbers(damaged)}",
              file=sys.stderr)
    return good


def plot_learning_curve(evaluations: list[dict], final: list[MatchResult], final_step: int, png_path: Path,
                        title: str) -> None:
    """Periodic evaluation win rates per baseline with 95% bands, final results as error bars, the 1/n line.

    Baselines with different parities (a mixture of player counts) get one panel per parity, each
    with its own 1/n line: one line for all would misplace every table but one."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    baselines = list(dict.fromkeys([row["baseline"] for row in evaluations] + [r.baseline for r in final]))
    parity_of = {row["baseline"]: float(row["parity"]) for row in evaluations}
    parity_of.update({r.baseline: r.parity for r in final})
    parities = sorted(set(parity_of.values()), reverse=True)
    panels = len(parities)
    cols = 1 if panels == 1 else 2
    rows_ = -(-panels // cols)
    fig, axes = plt.subplots(rows_, cols, figsize=(10 if panels == 1 else 15, 5 * rows_), layout="constrained",
                             squeeze=False)
    for ax, parity in zip(axes.flat, parities):
        for i, baseline in enumerate(b for b in baselines if parity_of[b] == parity):
            colour = f"C{i}"
            rows = [row for row in evaluations if row["baseline"] == baseline]
            if rows:
                t = [int(row["timesteps"]) for row in rows]
                games = sorted({int(row["games"]) for row in rows})
                ax.plot(t, [float(row["win_rate"]) for row in rows], marker="o", ms=3, color=colour,
                        label=f"{baseline} ({'/'.join(map(str, games))} games per point, 95% band)")
                ax.fill_between(t, [float(row["ci_low"]) for row in rows], [float(row["ci_high"]) for row in rows],
                                color=colour, alpha=0.15)
            for r in final:
                if r.baseline == baseline:
                    low, high = r.ci           # max(0, ...): Wilson bounds can miss 0 or 1 by a rounding error
                    err = [[max(0.0, r.win_rate - low)], [max(0.0, high - r.win_rate)]]
                    ax.errorbar([final_step], [r.win_rate], yerr=err, fmt="s", color=colour, capsize=4,
                                label=f"{baseline} final ({r.games} games)")
        ax.axhline(parity, color="grey", linestyle="--", label=f"parity 1/n = {parity:.2f}")
        ax.set_xlabel("training timesteps (learner decisions)")
        ax.set_ylabel("learner win rate vs n-1 copies (95% Wilson)")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        if panels == 1:
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
        else:
            ax.set_title(f"{round(1 / parity)} players")
            ax.legend(fontsize=7, loc="lower right")
    for ax in list(axes.flat)[panels:]:
        ax.set_visible(False)
    games = sum(int(row["games"]) for row in evaluations) + sum(r.games for r in final)
    fig.suptitle(f"{title}\nlearner win rate over training ({games} evaluation games in all)")
    fig.savefig(png_path, dpi=120)
    plt.close(fig)
