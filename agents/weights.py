"""The weights behind a run's bot specs. A spec names weights by name (`champion`, `ppo:path=...`), and the
file behind a name can change between two sessions of one run (a new champion shipped, a model retrained).
A resumed tournament, ladder, balance study or atlas would then mix two agents' games under one spec, and
nothing in its tables would show it. So each such run saves the sha256 of every weights file its bots load
when it starts, and a resume with other weights behind a spec is refused, naming the spec."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .run_folder import RunFolderError, write_text

WEIGHTS = "weights.json"


def digests(specs) -> dict[str, str]:
    """spec -> sha256 of the weights file its bot loads (of each, joined by '+', for a mixture of several), for
    the specs whose bots load one."""
    from . import make_bot             # the bots' package imports the runs that use this module
    out = {}
    for spec in sorted(set(specs)):
        files = getattr(make_bot(spec, seed=0), "weights_files", None)
        if files:
            out[spec] = "+".join(hashlib.sha256(Path(path).read_bytes()).hexdigest() for path in files)
    return out


def record(folder: Path, specs) -> None:
    write_text(Path(folder) / WEIGHTS, json.dumps(digests(specs), indent=1, sort_keys=True) + "\n")


def check(folder: Path, specs) -> None:
    """Refuse to resume the run in `folder` when a spec's weights differ from the saved ones (RunFolderError).
    A spec the run did not have before (a population added to an atlas, say) has no games yet: its weights
    are recorded now. A folder saved before the weights were recorded gets them recorded now: it cannot be
    checked."""
    path = Path(folder) / WEIGHTS
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        record(folder, specs)
        return
    except (OSError, ValueError):
        raise RunFolderError(f"{path} is unreadable: the weights this run started with are unknown; start it "
                             "over with --force") from None
    now = digests(specs)
    changed = sorted(spec for spec in set(saved) & set(specs) if now.get(spec) != saved.get(spec))
    if changed:
        raise RunFolderError(f"{folder}: the weights behind {', '.join(changed)} differ from those this run "
                             f"started with ({WEIGHTS}): resuming would mix two agents' games under one name; "
                             "put those weights back, or start the run over with --force")
    added = {spec: digest for spec, digest in now.items() if spec not in saved}
    if added:
        write_text(path, json.dumps({**saved, **added}, indent=1, sort_keys=True) + "\n")
