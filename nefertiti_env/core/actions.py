"""The flat action table: one Discrete space for every seat, player count and ruleset.

Multi-part choices are sequences of small decisions; the game's phase says what a
block of actions means right now (a `card` action buys in a resolution, steals for
the Thief, takes for a tutor). Targets are relative to the deciding seat, so the
same action means the same thing from every seat's point of view.

Readable grammar (case-insensitive), one form per action:

    place <market> <value>     put a servant (or a tutor) on that bid square
    close <market>             close a market holding your servant (no servant left)
    character <name>           spend a seal and play that character
    market <market>            choose a market (Treasurer, Thief, Trader, tutor Deben)
    card <k> | upper | lower <k>  choose the card in place k above the market in context
                               ("buy upper", "take lower 2", "take card 5" are read the same way)
    take half                  take half the Reserve, rounded up
    take deben                 tutor: take Deben and spread them; Beggar: take 1 Deben
    kind <card kind>           choose one of your (or the target's) cards of that kind
    type <gift type>           name a gift type (Scribe, Royal Servant)
    target +<r> | target neutral  the seat r places to your left, or the neutral player
    done                       stop an optional or repeated choice
"""
from __future__ import annotations

import numpy as np

from .limits import MAX_CHARACTERS, MAX_KINDS, MAX_PLAYERS, MAX_SLOTS, MAX_TYPES, NUM_BIDS, NUM_MARKETS

PLACE = 0
CLOSE = PLACE + NUM_MARKETS * NUM_BIDS
CHARACTER = CLOSE + NUM_MARKETS
MARKET = CHARACTER + MAX_CHARACTERS
CARD = MARKET + NUM_MARKETS
TAKE_HALF = CARD + MAX_SLOTS
TAKE_DEBEN = TAKE_HALF + 1
KIND = TAKE_DEBEN + 1
TYPE = KIND + MAX_KINDS
TARGET = TYPE + MAX_TYPES
DONE = TARGET + MAX_PLAYERS
NUM_ACTIONS = DONE + 1

NEUTRAL_TARGET = MAX_PLAYERS - 1      # TARGET + 4 names the neutral player

# (first id, size, name) of each block, in order
BLOCKS = (
    (PLACE, NUM_MARKETS * NUM_BIDS, "place"),
    (CLOSE, NUM_MARKETS, "close"),
    (CHARACTER, MAX_CHARACTERS, "character"),
    (MARKET, NUM_MARKETS, "market"),
    (CARD, MAX_SLOTS, "card"),
    (TAKE_HALF, 1, "take half"),
    (TAKE_DEBEN, 1, "take deben"),
    (KIND, MAX_KINDS, "kind"),
    (TYPE, MAX_TYPES, "type"),
    (TARGET, MAX_PLAYERS, "target"),
    (DONE, 1, "done"),
)


def action_mask(legal: list[int]) -> np.ndarray:
    """A new int8 mask over the flat action space with the `legal` actions set."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask.put(legal, 1)          # put: cheaper than fancy assignment of a list
    return mask


def place(market: int, value: int) -> int:
    return PLACE + market * NUM_BIDS + value


def block_of(action: int) -> tuple[str, int]:
    """(block name, offset within the block) of an action id."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} outside 0..{NUM_ACTIONS - 1}")
    for first, size, name in BLOCKS:
        if first <= action < first + size:
            return name, action - first
    raise AssertionError("unreachable")


class ActionNames:
    """Converts between action ids and the readable grammar for one ruleset."""

    def __init__(self, market_names: list[str], character_names: list[str], kind_names: list[str],
                 type_names: list[str]):
        self.markets = list(market_names)
        self.characters = list(character_names)
        self.kinds = list(kind_names)
        self.types = list(type_names)

    def to_string(self, action: int) -> str:
        block, i = block_of(action)
        if block == "place":
            market, value = divmod(i, NUM_BIDS)
            return f"place {self.markets[market]} {value}"
        if block in ("close", "market"):
            return f"{block} {self.markets[i]}"
        if block == "character":
            return f"character {self.characters[i]}" if i < len(self.characters) else f"character #{i}"
        if block == "card":
            return "card upper" if i == 0 else f"card {i}"
        if block == "kind":
            return f"kind {self.kinds[i]}" if i < len(self.kinds) else f"kind #{i}"
        if block == "type":
            return f"type {self.types[i]}" if i < len(self.types) else f"type #{i}"
        if block == "target":
            return "target neutral" if i == NEUTRAL_TARGET else f"target +{i + 1}"
        return block

    def from_string(self, text: str) -> int:
        words = text.strip().lower().split()
        if not words:
            raise ValueError("empty action text")
        if words[0] in ("buy", "take", "steal") and words[1:2] not in (["half"], ["deben"]) and len(words) > 1:
            words = words[1:] if words[1] in ("card", "upper", "lower") else ["card"] + words[1:]
        head, rest = words[0], " ".join(words[1:])
        text = " ".join(words)

        def lookup(names, what):
            for idx, name in enumerate(names):
                if name.lower() == rest:
                    return idx
            raise ValueError(f"unknown {what} {rest!r} in {text!r} (known: {', '.join(names)})")

        if head == "place" and len(words) >= 3:
            value = words[-1]
            market_text = " ".join(words[1:-1])
            market = next((i for i, n in enumerate(self.markets) if n.lower() == market_text), None)
            if market is None:
                raise ValueError(f"unknown market {market_text!r} in {text!r} (known: {', '.join(self.markets)})")
            if not value.isdigit() or int(value) >= NUM_BIDS:
                raise ValueError(f"bid value must be 0..{NUM_BIDS - 1} in {text!r}")
            return place(market, int(value))
        if head in ("close", "market") and rest:
            return (CLOSE if head == "close" else MARKET) + lookup(self.markets, "market")
        if head == "character" and rest:
            return CHARACTER + lookup(self.characters, "character")
        if text in ("take half", "take deben", "done"):
            return {"take half": TAKE_HALF, "take deben": TAKE_DEBEN, "done": DONE}[text]
        if head in ("card", "upper", "lower"):
            if head == "upper" or rest == "upper":
                return CARD
            if rest.isdigit() and int(rest) < MAX_SLOTS:
                return CARD + int(rest)
            raise ValueError(f"card place must be 'upper' or 0..{MAX_SLOTS - 1} in {text!r}")
        if head == "kind" and rest:
            return KIND + lookup(self.kinds, "card kind")
        if head == "type" and rest:
            return TYPE + lookup(self.types, "gift type")
        if head == "target" and rest:
            if rest == "neutral":
                return TARGET + NEUTRAL_TARGET
            if rest.lstrip("+").isdigit() and 1 <= int(rest.lstrip("+")) < MAX_PLAYERS:
                return TARGET + int(rest.lstrip("+")) - 1
            raise ValueError(f"target must be +1..+{MAX_PLAYERS - 1} or 'neutral' in {text!r}")
        raise ValueError(f"cannot read action {text!r}; see the grammar in nefertiti_env.core.actions")


def action_id(value) -> int:
    """`value` as an action id: a Python or numpy integer, or a 0-d integer array (what a policy's
    sample may be). TypeError for anything else (a float, a string, a bool: never rounded or read)."""
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return int(value)
    if isinstance(value, np.integer) or (isinstance(value, int) and not isinstance(value, bool)):
        return int(value)
    raise TypeError(f"an action is an integer id (int or numpy integer), got {type(value).__name__} {value!r}; "
                    "use string_to_action() for text")
