"""The cards above a market: which are face up, and taking one.

Shared by the market resolution and the character powers, so that neither imports the other.
"""
from __future__ import annotations

from . import phases
from .limits import MEMPHIS


def cards(g, m: int, skip: int = -1) -> list[int]:
    """Places of the face-up cards above market m, less those holding card code `skip`."""
    face_down = g.face_down[m].tolist()
    return [k for k, c in enumerate(g.slots[m].tolist()) if c >= 0 and c != skip and not face_down[k]]


def gifts(g, m: int) -> list[int]:
    """Places of the face-up gifts above market m (the Roaming Thief card is no gift)."""
    return cards(g, m, skip=g.kind_roaming)


def take_card(g, p: int, m: int, k: int) -> bool:
    """Owner p takes the card in place k above market m (with the seal on an upper card).

    Returns True when that card is the Roaming Thief, which its taker must use at once.
    """
    kind = int(g.slots[m, k])
    g.slots[m, k] = -1
    gets_seal = p != phases.NEUTRAL
    if k == 0 and m != MEMPHIS and g.seal_on[m]:
        g.seal_on[m] = False
        if gets_seal:
            g.seals[p] += 1
        else:
            g.seal_supply += 1
    if kind == g.kind_roaming:
        return True
    if g.rules.kind_seal[kind] and gets_seal and g.seal_supply > 0:
        g.seal_supply -= 1
        g.seals[p] += 1
    g.owned[p, kind] += 1
    return False
