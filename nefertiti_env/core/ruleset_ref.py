"""How records and saved states name their ruleset, so they replay on another machine.

A reference is a JSON object: a packaged ruleset by name (`{"name": "default", ...}`), a user's
file by its path, a dict ruleset by its data, each with the sha256 of the ruleset's data
(`Ruleset.sha256`). A path is where the file was, which another machine may not have: the
replay then takes the file in its place (`ruleset=`, `nefertiti replay --ruleset`), and the
hash tells whether that file, or a packaged ruleset of another version, holds the same rules.
A game replayed under other rules diverges or fails far from the cause, so a changed hash is
an error naming the file, unless the caller allows it (then a warning).

References written before (a file's absolute path, or the data itself) still load; a path to
a packaged ruleset's file, on whatever machine it was written, is that packaged ruleset.
"""
from __future__ import annotations

import warnings
from pathlib import Path, PureWindowsPath

from .ruleset import PACKAGED_RULESETS, Ruleset, RulesetError, load_ruleset

WAYS = ("name", "path", "data")     # how a reference names its ruleset; one of them, with "sha256"


def ruleset_ref(rs: Ruleset) -> dict:
    """The reference a record or saved state keeps for `rs` (see the module docstring)."""
    if rs.source == "<dict>":
        ref = {"data": rs.data}
    elif Path(rs.source).parent == PACKAGED_RULESETS:
        ref = {"name": Path(rs.source).stem}
    else:
        ref = {"path": rs.source}
    return {**ref, "sha256": rs.sha256}


def ruleset_from_ref(ref, ruleset: str | Path | dict | Ruleset | None = None,
                     allow_changed: bool = False) -> Ruleset:
    """The ruleset `ref` names, or `ruleset` given in its place, checked against the recorded hash.

    Raises RulesetError naming the file when the ruleset cannot be found here or its hash differs
    (with `allow_changed`, a differing hash is a warning)."""
    if ref is None and ruleset is not None:      # a state written without one, the ruleset given
        return load_ruleset(ruleset)
    way, value, recorded = _parse(ref)
    if ruleset is not None:
        rs = load_ruleset(ruleset)
    elif way == "name":
        if value not in packaged_names():
            raise RulesetError(value, [("<record>", f"no packaged ruleset {value!r} in this version (packaged: "
                                        f"{', '.join(packaged_names())}); pass the ruleset file in its place")])
        rs = load_ruleset(value)
    elif way == "path" and not Path(value).is_file():
        rs = _packaged_with(recorded)
        if rs is None:
            raise RulesetError(value, [("<file>", "no such file on this machine: pass the ruleset file in its "
                                        "place (ruleset=..., nefertiti replay --ruleset FILE)")])
    else:
        rs = load_ruleset(value)
    if recorded is not None and rs.sha256 != recorded:
        reason = (f"its content (sha256 {rs.sha256[:16]}...) is not the one the record was made with "
                  f"(sha256 {recorded[:16]}...), so the game may not replay")
        if not allow_changed:
            raise RulesetError(rs.source, [("sha256", reason + "; allow it with allow_changed_ruleset=True "
                                                               "(nefertiti replay --allow-changed-ruleset)")])
        warnings.warn(f"ruleset {rs.source}: {reason}", stacklevel=3)
    return rs


def packaged_names() -> list[str]:
    return sorted(p.stem for p in PACKAGED_RULESETS.glob("*.toml"))


def _parse(ref) -> tuple[str, object, str | None]:
    """(way, value, recorded sha256 or None) of a reference, new or old (see the module docstring)."""
    if isinstance(ref, str):                    # an old record's path, or a packaged ruleset's name
        name = ref if ref in packaged_names() else _packaged_name(ref)
        return ("name", name, None) if name else ("path", ref, None)
    if not isinstance(ref, dict):
        raise RulesetError("<record>", [("ruleset", f"must name a ruleset (an object with one of "
                                                    f"{', '.join(WAYS)} and sha256), got {ref!r}")])
    if "sha256" not in ref:             # an old record's dict ruleset: the data itself
        return "data", ref, None
    ways = [w for w in WAYS if w in ref]
    problems = [f"unknown key {k!r}" for k in ref if k not in (*WAYS, "sha256")]
    if len(ways) != 1:
        problems.append(f"needs exactly one of {', '.join(WAYS)}, got {ways or 'none'}")
    elif not isinstance(ref[ways[0]], dict if ways[0] == "data" else str):
        problems.append(f"{ways[0]}: must be {'an object' if ways[0] == 'data' else 'a string'}")
    if not isinstance(ref["sha256"], str):
        problems.append("sha256: must be a string")
    if problems:
        raise RulesetError("<record>", [("ruleset", p) for p in problems])
    return ways[0], ref[ways[0]], ref["sha256"]


def _packaged_name(path: str) -> str | None:
    """The packaged ruleset an old record's path names: a packaged ruleset's file name in a `rulesets`
    folder, or not on this machine (written on another); else None. Windows paths are read too."""
    parts = PureWindowsPath(path)            # splits at / and \ alike
    if parts.suffix == ".toml" and parts.stem in packaged_names() \
            and (parts.parent.name == "rulesets" or not Path(path).is_file()):
        return parts.stem
    return None


def _packaged_with(sha256: str | None) -> Ruleset | None:
    """The packaged ruleset whose data has this hash, if any: a file not on this machine may be one."""
    return next((rs for rs in map(load_ruleset, packaged_names()) if rs.sha256 == sha256), None)
