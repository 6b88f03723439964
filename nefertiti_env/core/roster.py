"""Which character cards are available in a game (docs/rules.md §6, expansion setup)."""
from __future__ import annotations

import numpy as np


def check_roster(rs, characters) -> None:
    """Raise ValueError naming the problem when the `characters` option is not valid."""
    if isinstance(characters, str):
        known = ["base", "expansion", *rs.scenarios]
        if characters not in known:
            raise ValueError(f"characters must be one of {', '.join(known)} or a list of character keys, "
                             f"got {characters!r}")
        return
    keys = [c.key for c in rs.characters]
    unknown = [k for k in characters if k not in keys]
    if unknown:
        raise ValueError(f"unknown character keys {unknown} (known: {', '.join(keys)})")
    for c in rs.characters:
        if characters.count(c.key) > c.count:
            raise ValueError(f"character {c.key!r} listed {characters.count(c.key)} times, "
                             f"but there are only {c.count} such cards")


def character_roster(rs, pset, characters, rng: np.random.Generator) -> np.ndarray:
    """Cards available per character index for this option and player count.

    base: the base cards; expansion: the `always` cards plus `character_draw` cards drawn at
    random from all others; a scenario: the `always` cards plus the scenario's; a list: exactly
    those cards. Player-count removals (e.g. a Scribe +2 with 3 players) apply to the first three.
    """
    counts = np.array([c.count - pset.remove_characters.get(c.key, 0) for c in rs.characters], dtype=np.int64)
    always = np.array([c.always for c in rs.characters], dtype=bool)
    if isinstance(characters, list):
        return np.array([characters.count(c.key) for c in rs.characters], dtype=np.int64)
    if characters == "base":
        return np.where([c.set == "base" for c in rs.characters], counts, 0)
    roster = np.where(always, counts, 0)
    if characters == "expansion":
        pool = np.repeat(np.flatnonzero(~always), counts[~always])
        drawn = rng.choice(len(pool), size=min(rs.character_draw, len(pool)), replace=False)
        np.add.at(roster, pool[drawn], 1)
    else:
        for key in rs.scenarios[characters]:
            roster[rs.character_index(key)] += 1
    return roster
