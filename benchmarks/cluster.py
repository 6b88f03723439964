"""The Ray back-end against the local process pool on the same games, and what bounds a cluster's head.

    ray start --head --node-ip-address 127.0.0.2 --port 26379 --num-cpus 1 --include-dashboard false
    ray start --address 127.0.0.2:26379 --node-ip-address 127.0.0.3 --num-cpus 1
    python benchmarks/cluster.py --ray 127.0.0.2:26379 --workers 2 --games 1200 --turns 6

On a machine shared with other work, run the three in one session (`setsid bash -c '...'`): the
scheduler shares CPU between sessions, and Ray's workers run at nice 15 (docs/results.md).

- games/s of a tournament's games (`tournament.play_job`, results in game order) in the local pool of
  --workers processes and on the cluster, in turns (local, Ray, local, Ray, ...: a shared machine's
  load drifts, so each turn's ratio is reported, and their range). Both back-ends are started once
  and warmed up first: the figures are the steady state of a long run; their start-up is printed apart.
- scheduling overhead: an empty task's round trip through the same ordered map, per item, with one
  item per task and with `cluster.MAX_CHUNK` (what a game pays for being sent to a cluster).
- the head's writer: results per second `tournament.save_game` appends (records.jsonl and speed.jsonl, then games.csv,
  each flushed) on real games' results, the most a head can take in whatever the cluster's size.
"""
from __future__ import annotations

import argparse
import csv
import statistics
import sys
import tempfile
import time
from pathlib import Path

from nefertiti_env.agents import cluster
from nefertiti_env.agents.tournament import _game_fields, play_job, save_game, schedule
from nefertiti_env.agents.workers import ordered_map


def rate(map_, jobs) -> tuple[float, list]:
    """(games/s, the results) of `jobs` played through `map_`."""
    start = time.perf_counter()
    results = list(map_(play_job, jobs))
    return len(jobs) / (time.perf_counter() - start), results


def nothing(item):
    return item


def overhead(address: str, items: int, chunk: int) -> float:
    """Seconds per item of an empty task's round trip, `chunk` items per task."""
    with cluster.ray_map(address, chunk=chunk) as map_:
        list(map_(nothing, range(items // 4)))                       # the workers started
        start = time.perf_counter()
        list(map_(nothing, range(items)))
        return (time.perf_counter() - start) / items


def writer_rate(results, repeat: int) -> tuple[float, float]:
    """(results written per second by the head, bytes per result)."""
    with tempfile.TemporaryDirectory() as folder:
        records_path = Path(folder) / "records.jsonl"
        with open(records_path, "w", encoding="utf-8") as records, \
                open(Path(folder) / "speed.jsonl", "w", encoding="utf-8") as speed, \
                open(Path(folder) / "games.csv", "w", newline="") as table:
            writer = csv.DictWriter(table, fieldnames=_game_fields(len(results[0].job.bots)))
            writer.writeheader()
            start = time.perf_counter()
            for _ in range(repeat):
                for result in results:
                    save_game(result, records, speed, table, writer)
            seconds = time.perf_counter() - start
        return repeat * len(results) / seconds, records_path.stat().st_size / (repeat * len(results))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ray", required=True, help="the cluster's address, e.g. 127.0.0.2:26379")
    parser.add_argument("--workers", type=int, default=2, help="local processes (default 2)")
    parser.add_argument("--bots", default="banker,greedy,collector,random", help="the line-up (default "
                        "banker,greedy,collector,random)")
    parser.add_argument("--games", type=int, default=400, help="games per turn (default 400)")
    parser.add_argument("--turns", type=int, default=3, help="turns of (local, Ray) (default 3)")
    parser.add_argument("--overhead-items", type=int, default=2000, help="empty tasks' items (default 2000)")
    args = parser.parse_args(argv)
    lineup = args.bots.split(",")
    jobs = schedule(lineup, args.games, seed=1)
    warm = schedule(lineup, 4 * args.workers, seed=2)
    start = time.perf_counter()
    with ordered_map(args.workers) as local:
        rate(local, warm)
        local_start = time.perf_counter() - start
        start = time.perf_counter()
        with ordered_map(1, ray=args.ray, bots=lineup) as remote:
            rate(remote, warm)
            print(f"start-up and warm-up: local pool {local_start:.1f} s, Ray (connect, node check, "
                  f"workers) {time.perf_counter() - start:.1f} s")
            print(f"| turn | local games/s ({args.workers} processes) | Ray games/s | Ray / local |")
            print("|---:|---:|---:|---:|")
            ratios = []
            for turn in range(1, args.turns + 1):
                (a, results), (b, _) = rate(local, jobs), rate(remote, jobs)
                ratios.append(b / a)
                print(f"| {turn} | {a:.1f} | {b:.1f} | {b / a:.2f} |", flush=True)
    print(f"Ray / local over {args.turns} turns of {args.games} games ({args.bots}): "
          f"{min(ratios):.2f} to {max(ratios):.2f} (median {statistics.median(ratios):.2f})")
    chunk = cluster.MAX_CHUNK
    one, many = overhead(args.ray, args.overhead_items, 1), overhead(args.ray, args.overhead_items, chunk)
    print(f"scheduling overhead: {one * 1e3:.2f} ms per task of 1 item, {many * 1e3:.3f} ms per item in tasks "
          f"of {chunk}")
    per_second, size = writer_rate(results, max(1, 2000 // len(results)))
    print(f"head's writer: {per_second:,.0f} results/s ({size / 1e3:.1f} kB of records.jsonl per game)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
