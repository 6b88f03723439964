"""A finished study's shareable part, copied into another folder (docs/results, a paper's supplement).

A run folder holds the raw game tables (an atlas's are gigabytes) beside its report. A reader needs the
report, its figures and page, answers.csv, the configs that replay every game (study.yaml, atlas.yaml),
the digests of the agents' weights (weights.json) and the timings (run.json); the seeded config makes the
tables again. So publishing copies those and never a table, and adds to the destination without deleting:
files published there before by hand (an earlier atlas's answers, say) stay.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from nefertiti_env.agents.weights import WEIGHTS

from .atlas import ATLAS
from .runner import STUDY

REPORT = ("report.md", "report.html", "atlas.md", "atlas.html", "answers.csv")
SETTINGS = (STUDY, ATLAS, WEIGHTS, "run.json")


class PublishError(ValueError):
    """The destination would overwrite or sit inside the run it publishes."""


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
    copies = []
    for name in shared_files(folder):
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        copies.append(Path(shutil.copyfile(folder / name, dest / name)))
    return copies
