"""docs/rules.md: its numbering matches the specification's, and no citation of it dangles.

Code, tests and docs cite rules as "docs/rules.md §4", "docs/rules.md §4.1/§7" or
"docs/rules.md §1-§2"; each cited number must be a section, a subsection or a numbered
row (§9.x engine choices, §10.x differences) of docs/rules.md.
"""
from __future__ import annotations

import os
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
SUFFIXES = (".py", ".md", ".toml", ".yaml")
SKIP_DIRS = {"runs", "node_modules", "__pycache__"}

# "docs/rules.md" then a chain of section numbers: "§4", "§4.1", "§1-§2", "§4/§7", "§1, §3 and §5"
CITATION = re.compile(r"docs/rules\.md\s*((?:(?:,|/|-|–|and|or)?\s*§\d+(?:\.\d+)?\s*)+)")
NUMBER = re.compile(r"§(\d+(?:\.\d+)?)")
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", re.M)
NUMBERED_ROW = re.compile(r"^\| (\d+\.\d+) \|", re.M)

TOP_LEVEL = {"1": "Components and setup", "2": "A turn", "3": "Stalls and closing conditions",
             "4": "Market resolution", "5": "Scoring", "6": "Characters",
             "7": "Port of Memphis and foreign gifts", "8": "Two players"}


def sections(text: str) -> set[str]:
    """Section numbers docs/rules.md defines: headings and numbered table rows."""
    return set(HEADING.findall(text)) | set(NUMBERED_ROW.findall(text))


def cited(text: str) -> list[str]:
    """Every section number cited as docs/rules.md §N in `text`, in order."""
    return [n for chain in CITATION.findall(text) for n in NUMBER.findall(chain)]


def dangling(text: str, known: set[str]) -> list[str]:
    return [n for n in cited(text) if n not in known]


def repository_files():
    for folder, dirs, names in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS]
        for name in names:
            if name.endswith(SUFFIXES):
                yield pathlib.Path(folder, name)


def test_top_level_sections_match_the_specification():
    """§1-§8 keep the specification's numbering and titles, so old citations map one to one."""
    titles = dict(re.findall(r"^## (\d+)\. (.+)$", DOC.read_text(encoding="utf-8"), re.M))
    for number, title in TOP_LEVEL.items():
        assert titles.get(number, "").startswith(title), (number, titles.get(number))
    assert titles["9"].startswith("Engine choices where the rules are silent")


def test_every_citation_names_a_section():
    known = sections(DOC.read_text(encoding="utf-8"))
    problems = []
    for path in repository_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        problems += [f"{path.relative_to(ROOT)}: §{n}" for n in dangling(text, known)]
    assert not problems, "citations of sections docs/rules.md does not have:\n" + "\n".join(problems)


def test_cross_references_inside_the_doc_exist():
    text = DOC.read_text(encoding="utf-8")
    missing = [n for n in NUMBER.findall(text) if n not in sections(text)]
    assert not missing, missing


def test_citation_forms_are_all_read():
    text = 'x = 1  # docs/rules.md §1-§2, §4/§7 and §4.3: a tutor\n"""docs/rules.md §5 (scoring)"""'
    assert cited(text) == ["1", "2", "4", "7", "4.3", "5"]
    assert cited("the rules (docs/rules.md) and §4 of another document") == []


def test_a_wrong_citation_is_caught():
    known = sections(DOC.read_text(encoding="utf-8"))
    assert {"4", "4.1", "9.1", "10.1"} <= known
    assert dangling("docs/rules.md §4.1", known) == []
    wrong = "see docs/rules.md " + "§4.9 and §12"      # split so this file's own scan skips it
    assert dangling(wrong, known) == ["4.9", "12"]
