"""The ladder at every table of the whole-game bar: `nefertiti ladder` once per table, and one page of the places.

    python benchmarks/ladder_tables.py --workers 2                          # the shipped bots at the eight tables
    python benchmarks/ladder_tables.py --add ppo:path=runs/whole_game --tables 4p-base,3p-base
    python benchmarks/ladder_tables.py --resume                             # continue a stopped run

A ladder rates bots at one table, and an agent strong at one table may be weak at another (the shipped
champion knows only 4 players, beginner, base): so each table of benchmarks/agent_bar.py gets its own
ladder (agents/ladder.py: every line-up of n different bots, every deal in all seat rotations), in
OUT/TABLE/ with its usual files, the same as `nefertiti ladder --players N --setup ... --characters ...
[--memphis] --out OUT/TABLE` would write. OUT/ladder_tables.csv lists every table's ladder (place, bot,
ordinal, win rate with its Wilson 95% interval, games) and OUT/ladder_tables.md puts each bot's place at
every table side by side.
"""
from __future__ import annotations

import argparse
import csv
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent_bar import TABLES  # noqa: E402  (the bar's tables, by the same names)

from nefertiti_env.agents import LADDER_BOTS  # noqa: E402
from nefertiti_env.agents.ladder import check, run_in_folder, table_label  # noqa: E402
from nefertiti_env.agents.run_folder import RunFolderError  # noqa: E402

FIELDS = ("table", "place", "bot", "ordinal", "win_rate", "win_low", "win_high", "seat_games")


def ladders(bots: list[str], tables: list[str], out: Path, games_per_lineup: int | None, seed: int, workers: int,
            progress: bool, resume: bool, command: str) -> list[dict]:
    """Play (or continue) the ladder of each table in OUT/TABLE; every table's rows, best first."""
    rows = []
    for name in tables:
        options = {k: v for k, v in TABLES[name].items() if k != "num_players"}
        players = TABLES[name]["num_players"]
        per_lineup = games_per_lineup or 2 * players
        check(bots, players, per_lineup, **options)
        if progress:
            print(f"{name}: {table_label(players, options)}", flush=True)
        table, _ = run_in_folder(out / name, bots, players, per_lineup, seed, workers, progress=progress,
                                 resume=resume and (out / name).is_dir(), command=f"{command} ({name})", **options)
        rows += [{"table": name, **{k: row[k] for k in FIELDS[1:]}} for row in table]
    return rows


def side_by_side(rows: list[dict], bots: list[str], tables: list[str]) -> str:
    """Each bot's place (and win rate) at every table, bots in the order of their mean place."""
    place = {(r["table"], r["bot"]): r for r in rows}
    order = sorted(bots, key=lambda b: sum(place[t, b]["place"] for t in tables))
    lines = ["| bot | " + " | ".join(tables) + " |", "|---|" + "---|" * len(tables)]
    for bot in order:
        lines.append(f"| `{bot}` | " + " | ".join(f"{place[t, bot]['place']} ({place[t, bot]['win_rate']:.0%})"
                                                  for t in tables) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1] + "\ntables: " + ", ".join(TABLES))
    parser.add_argument("--bots", help=f"comma-separated bots (default: the ladder's, {','.join(LADDER_BOTS)})")
    parser.add_argument("--add", help="comma-separated bots rated on top of --bots")
    parser.add_argument("--tables", default=",".join(TABLES), help="comma-separated table names (default: all eight)")
    parser.add_argument("--games-per-lineup", type=int, help="games per line-up, a multiple of every table's "
                                                             "players (default 2 deals: 2 x the table's players)")
    parser.add_argument("--seed", type=int, default=0, help="ladder seed (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="processes playing games (default 1)")
    parser.add_argument("--out", default="results/ladder_tables", help="output folder (default "
                                                                       "results/ladder_tables)")
    parser.add_argument("--resume", action="store_true", help="continue the tables' ladders in --out")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    args = parser.parse_args(argv)
    tables = args.tables.split(",")
    bots = [b.strip() for b in ((args.bots or ",".join(LADDER_BOTS)) + "," + (args.add or "")).split(",") if b.strip()]
    unknown = [t for t in tables if t not in TABLES]
    if unknown:
        parser.error(f"unknown tables {unknown} (known: {', '.join(TABLES)})")
    out = Path(args.out)
    command = shlex.join(["python", "benchmarks/ladder_tables.py", *(sys.argv[1:] if argv is None else argv)])
    try:
        rows = ladders(bots, tables, out, args.games_per_lineup, args.seed, args.workers, not args.quiet,
                       args.resume, command)
    except (ValueError, RunFolderError) as err:
        print(f"ladder_tables: {err}", file=sys.stderr)
        return 2
    with open(out / "ladder_tables.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    text = "\n".join([f"Place (win rate) of each bot in the ladder of each table; {command}", "",
                      side_by_side(rows, bots, tables), "",
                      *(f"- {t}: {table_label(TABLES[t]['num_players'], TABLES[t])}, [ladder]({t}/ladder.md)"
                        for t in tables)])
    (out / "ladder_tables.md").write_text(text + "\n")
    print("\n" + text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
