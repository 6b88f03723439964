"""A finished study's shareable part, copied into another folder (docs/results, a paper's supplement).

A run folder holds the raw game tables (an atlas's are gigabytes) beside its report. A reader needs the
report, its figures and page, answers.csv, the configs that replay every game (study.yaml, atlas.yaml),
the digests of the agents' weights (weights.json) and the timings (run.json); the seeded config makes the
tables again. So publishing copies those and never a table, and adds to the destination without deleting:
files published there before by hand (an earlier atlas's answers, say) stay. It replaces only files it
wrote there before (listed in the destination's `published.json`) or files already equal to the new ones;
any other file in the way stops it before it copies anything.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from nefertiti_env.agents.weights import WEIGHTS

from .atlas import ATLAS
from .runner import STUDY

REPORT = ("report.md", "report.html", "atlas.md", "atlas.html", "answers.csv")
SETTINGS = (STUDY, ATLAS, WEIGHTS, "run.json")
MANIFEST = "published.json"          # the files publishing wrote into a destination, which it may replace


class PublishError(ValueError):
    """The destination sits inside the run it publishes, or holds other files where it would copy."""


def shared_files(folder: Path) -> list[Path]:
    """The files of `folder` (a finished study or atlas) that are published, relative to it: the report's,
    the figures and the settings, and each atlas sub-study's settings."""
    top = [Path(name) for name in REPORT + SETTINGS if (folder / name).is_file()]
    top += sorted(p.relative_to(folder) for p in folder.glob("*.png"))
    if (folder / ATLAS).is_file():
        for study in sorted(p.parent for p in folder.glob(f"*/*/{STUDY}")):
            top += [(study / name).relative_to(folder) for name in SETTINGS if (study / name).is_file()]
    return top


def publish(folder: str | Path, dest: str | Path) -> list[Path]:
    """Copy the shared files of `folder` into `dest` (made if missing) and return the copies."""
    folder, dest = Path(folder).resolve(), Path(dest).resolve()
    if dest == folder or folder in dest.parents:
        raise PublishError(f"--publish {dest} is the run folder {folder} or inside it: give a folder outside "
                           f"the run")
    names = shared_files(folder)
    manifest = dest / MANIFEST
    ours = set(json.loads(manifest.read_text(encoding="utf-8"))) if manifest.is_file() else set()
    blocked = [str(n) for n in names if (dest / n).is_file() and n.as_posix() not in ours
               and (dest / n).read_bytes() != (folder / n).read_bytes()]
    if blocked:
        raise PublishError(f"{dest} already holds {len(blocked)} file(s) that publishing did not write and that "
                           f"differ from the run's, e.g. {blocked[0]}: move them or publish elsewhere")
    copies = []
    for name in names:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        copies.append(Path(shutil.copyfile(folder / name, dest / name)))
    manifest.write_text(json.dumps(sorted(ours | {n.as_posix() for n in names}), indent=1) + "\n", encoding="utf-8")
    return copies
