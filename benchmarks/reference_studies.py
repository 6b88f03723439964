"""Re-run the published balance studies and bot tournaments and check that today's code gives the
published files.

    python benchmarks/reference_studies.py            # check: exit 1 when a published file differs
    python benchmarks/reference_studies.py --write    # regenerate the published files from today's code

Every folder under docs/results/balance/ that holds a `study.yaml` is a published study: its report is
re-made with `nefertiti balance --config study.yaml` into a temporary folder, and `report.md` (every
figure of the study) and, where published, `games.csv` are compared byte for byte. The tournaments
under docs/results/bots/ (docs/bots.md, "Measured strength and speed"; README quotes two) are re-made
with their `nefertiti tournament` command and `games.csv` and `summary.csv` compared. Both are seeded,
so their games and figures do not depend on the machine or the worker count; a difference means the
engine, the bots or the analysis changed, and the published figures (and the docs that quote them)
must be regenerated and re-read. The timing files (`run.json`, `speed.csv`) are expected to differ.
"""
from __future__ import annotations

import argparse
import difflib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"
PUBLISHED = RESULTS / "balance"
COMPARED = ("report.md", "games.csv", "summary.csv")      # those the folder publishes
# folder under docs/results/bots -> the bots of its tournament (4 players, 200 games, seed 0), as docs/bots.md
# gives the commands
TOURNAMENTS = {"greedy": "greedy,random,random,random", "collector": "collector,random,random,random",
               "banker": "banker,random,random,random", "mixed": "mcts:iterations=200,banker,collector,greedy"}


def studies(root: Path = PUBLISHED) -> list[Path]:
    return sorted(p.parent for p in root.glob("*/study.yaml"))


def rerun(study: Path, out: Path, workers: int) -> None:
    """The study or tournament made again by the packaged command, into `out`."""
    if study.parent.name == "bots":
        job = ["tournament", "--bots", TOURNAMENTS[study.name], "--games", "200", "--seed", "0", "--quiet"]
    else:
        job = ["balance", "--config", str(study / "study.yaml")]
    command = [sys.executable, "-m", "nefertiti_cli", *job, "--out", str(out), "--workers", str(workers)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def differences(study: Path, fresh: Path) -> list[str]:
    """A short unified diff per published file that today's run does not reproduce."""
    found = []
    for name in COMPARED:
        old = study / name
        if not old.is_file():
            continue
        new = fresh / name
        if old.read_bytes() != new.read_bytes():
            diff = difflib.unified_diff(old.read_text().splitlines(), new.read_text().splitlines(),
                                        str(old), f"today's {name}", n=0, lineterm="")
            found.append("\n".join(list(diff)[:12]))
    return found


def publish(study: Path, fresh: Path) -> None:
    """Today's report, figures, timing and (where published) games and summary into the folder."""
    for new in fresh.iterdir():
        if new.name in ("report.md", "run.json") or new.suffix == ".png" or new.name in COMPARED and (study / new.name).is_file():
            shutil.copyfile(new, study / new.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help="regenerate the published files instead of checking")
    parser.add_argument("--workers", type=int, default=2, help="processes per study (the results do not depend on it)")
    parser.add_argument("--only", nargs="*", help="folder names, e.g. default mixed (default: every published one)")
    args = parser.parse_args(argv)
    published = studies() + [RESULTS / "bots" / name for name in TOURNAMENTS]
    chosen = [s for s in published if not args.only or s.name in args.only]
    if not chosen:
        parser.error(f"no published study or tournament under {RESULTS} matches {args.only}")
    stale = []
    with tempfile.TemporaryDirectory() as tmp:
        for study in chosen:
            fresh = Path(tmp) / study.name
            print(f"{study.name}: re-running {study}", flush=True)
            rerun(study, fresh, args.workers)
            if args.write:
                publish(study, fresh)
                print(f"{study.name}: regenerated")
                continue
            found = differences(study, fresh)
            print(f"{study.name}: " + ("reproduced byte for byte" if not found else "DIFFERS from the published files"))
            for text in found:
                print(text)
            stale += [study.name] if found else []
    if stale:
        print(f"stale published results: {', '.join(stale)}; regenerate them with --write and re-read the docs "
              "that quote them (docs/balance.md, docs/bots.md, README.md)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
