"""The observation written out plainly: each block of docs/observation.md filled by name from the game.

The fast encoder (`observation.observe`) compiles the layout into index tables over the engine's
state array, which makes it quick and hard to read. This module is its specification in plain
Python: one small function per block, in the order of the docs' table, each reading the game's
named fields (`game.state.money`, `game.state.slots`, `game.state.char_sel`, ...) and writing a view of its block
(rows rotated to the observer) entry by entry, with each feature's own name and scale. It never
goes through the compiled Plan, `state_vector` or state offsets, so the two are independent
implementations of one layout: tests/test_reference_observer.py checks them equal on every
decision of random games over every option set, and `first_difference` names the block and the
feature where they part.

It is slow (Python over every entry, at every call): use it to read, step through or check the
encoder, never to train. v1 and v2 follow from it by compact.py's
documented folding and table.py's table blocks.
"""
from __future__ import annotations

import numpy as np

from ..core.limits import MAX_KINDS, NUM_BIDS, NUM_MARKETS, SYMBOL_CODES
from ..core.phases import NEUTRAL, PH_HIGH, TUTOR
from ..core.power_table import POWERS
from .compact import FOLDED, V1_BLOCKS, V1_SHAPES, V1_SIZE, V1_SLICES
from .observation import BLOCKS, CARD_COLUMNS, GLOBAL_FEATURES, MARKET_FEATURES, OBS_SIZE, \
    OCCUPANT_FEATURES, SEAT_FEATURES, SHAPES, SHOWN_CHOICES, SLICES, SQUARE_FEATURES, STEPS
from .table import PLAYER_COUNTS, SETUPS, V2_BLOCKS, V2_SHAPES, V2_SIZE, V2_SLICES

_BLOCK_SCALE = {name: scale for name, _, scale, _ in BLOCKS}


def scaled(value, scale) -> np.float32:
    """A magnitude as the observation shows it: the number times 1 / its scale, in float32 (a flag,
    scale None, as is)."""
    if scale is None:
        return np.float32(value)
    return np.float32(value) * np.float32(1.0 / scale)


def _put(row: np.ndarray, features, name: str, value) -> None:
    """row[the column of feature `name`] = value over the feature's own scale (features: (name, scale) pairs)."""
    names = [feature for feature, _ in features]
    row[names.index(name)] = scaled(value, dict(features)[name])


class Seen:
    """The game as one seat observes it: the rows of the seat blocks, the relative place of each
    owner, and the character choices its power's current step shows (by their meaning)."""

    def __init__(self, game, seat: int):
        self.game, self.seat, n = game, seat, game.num_players
        self.rows = {r: (seat + r) % n for r in range(n)}      # row -> owner: the observer, then to its left
        if n == 2:
            self.rows[NEUTRAL] = NEUTRAL
        self.row_of = {owner: r for r, owner in self.rows.items()}
        self.deciding = game.current_player                    # -1 when the game is over or cut short
        self.choices = self._choices()

    def _choices(self) -> dict:
        """What the character in progress chose so far, by meaning (`power_table.CHOICES`), as far as the
        observation shows it: the current step lists the meaning of each entry of char_sel (`chosen`, then
        `rest` for every further entry); an Oracle's places in the new order are a list."""
        g, shown = self.game, {"exchanges made": 0, "place in the new order": []}
        if g.state.char_index < 0:
            return shown
        steps = POWERS[g.rules.characters[g.state.char_index].power].steps
        if g.state.char_step >= len(steps):
            return shown
        step = steps[g.state.char_step]
        for i, value in enumerate(g.state.char_sel[:g.state.char_sel_n].tolist()):
            meaning = step.chosen[i] if i < len(step.chosen) else step.rest
            if meaning == "place in the new order":
                shown[meaning].append(value)
            elif meaning in SHOWN_CHOICES:
                shown[meaning] = value
        return shown

    def relative(self, owner: int) -> int:
        """The row of `owner` (a seat or, at 2 players, the neutral player)."""
        return self.row_of[owner]

    def known_from(self) -> int:
        """The deck place from which the observer knows the undrawn cards: the Oracle player saw the
        bottom ones (from `oracle_from`, or from the next card to draw once fewer are left); nobody else."""
        g = self.game
        return max(g.state.deck_pos, g.state.oracle_from) if self.seat == g.state.oracle_seat else len(g.deck)

    def unseen(self) -> np.ndarray:
        """[kinds] the undrawn gifts the observer has not seen (the Akhenaton card is not a gift)."""
        g = self.game
        counts = np.zeros(g.rules.num_kinds, dtype=np.int64)
        for card in g.deck[g.state.deck_pos:self.known_from()]:
            if card < g.rules.num_kinds:
                counts[card] += 1
        return counts

    def known_from_bottom(self) -> list[int]:
        """The deck cards the observer knows, from the bottom up."""
        return [int(card) for card in self.game.deck[self.known_from():][::-1]]


# ---------------------------------------------------------------- the blocks, in the docs' order
def seat(out, s: Seen) -> None:
    g = s.game
    for r, o in s.rows.items():
        for name, value in (("present", 1), ("money", g.state.money[o]), ("seals", g.state.seals[o]),
                            ("points in play", g.state.points[o]), ("servants", g.state.servants[o]), ("tutors", g.state.tutors[o])):
            _put(out[r], SEAT_FEATURES, name, value)


def seat_gifts(out, s: Seen) -> None:
    for r, o in s.rows.items():
        for kind, count in enumerate(s.game.state.owned[o]):
            out[r, kind] = scaled(count, _BLOCK_SCALE["seat_gifts"])


def seat_characters(out, s: Seen) -> None:
    for r, o in s.rows.items():
        out[r] = s.game.state.char_played[o]


def market(out, s: Seen) -> None:
    g = s.game
    for m in range(NUM_MARKETS):
        for name, value in (("open", g.state.is_open[m]), ("dead", g.state.dead[m]), ("right stall visible", g.state.side[m]),
                            ("reserve", g.state.reserve[m]), ("seal on upper card", g.state.seal_on[m]),
                            ("waiting to be resolved", m in g.state.pending[:g.state.pending_n])):
            _put(out[m], MARKET_FEATURES, name, value)


def market_squares(out, s: Seen) -> None:
    """The visible stall's squares, from the ruleset's layout of that side (Memphis's too, out of play)."""
    g = s.game
    for m in range(NUM_MARKETS):
        side = g.state.side[m]
        for v in range(NUM_BIDS):
            out[m, v, SQUARE_FEATURES.index("exists")] = g.square_exists[m, side, v]
            for symbol, name in zip(SYMBOL_CODES, SQUARE_FEATURES[1:]):
                out[m, v, SQUARE_FEATURES.index(name)] = g.square_symbol[m, side, v] == symbol


def characters_available(out, s: Seen) -> None:
    for c, count in enumerate(s.game.state.char_avail):
        out[c] = scaled(count, _BLOCK_SCALE["characters_available"])


def discarded(out, s: Seen) -> None:
    for kind, count in enumerate(s.game.state.discarded):
        out[kind] = scaled(count, _BLOCK_SCALE["discarded"])


def unseen(out, s: Seen) -> None:
    for kind, count in enumerate(s.unseen()):
        out[kind] = scaled(count, _BLOCK_SCALE["unseen"])


def players(out, s: Seen) -> None:
    out[s.game.num_players - 1] = 1


def global_(out, s: Seen) -> None:
    g = s.game
    for name, value in (("deck left", len(g.deck) - g.state.deck_pos), ("akhenaton drawn", g.state.akhenaton_drawn),
                        ("seal supply", g.state.seal_supply), ("memphis in play", g.options["memphis"]),
                        ("observer decides", s.deciding == s.seat), ("character used", g.state.character_used),
                        ("extra placements", g.state.extra_placements), ("tutor deben to place", g.state.tutor_left),
                        ("cards still to take", g.state.res_picks if g.phase == PH_HIGH else 0),
                        ("deben out of play", g.state.deben_out), ("exchanges made", s.choices["exchanges made"])):
        _put(out, GLOBAL_FEATURES, name, value)


def seat_role(out, s: Seen) -> None:
    """The turn player and the seat deciding now; nobody once no decision is left."""
    if s.deciding >= 0:
        out[s.relative(s.game.state.turn_player), 0] = 1
        out[s.relative(s.deciding), 1] = 1


def market_resolving(out, s: Seen) -> None:
    if s.game.state.res_market >= 0:
        out[s.game.state.res_market] = 1


def market_cards(out, s: Seen) -> None:
    """Each card place's card; a gift the Beggar turned face down keeps its kind (every seat saw it)."""
    g = s.game
    for m in range(NUM_MARKETS):
        for k, card in enumerate(g.state.slots[m]):
            if card == g.kind_roaming:
                out[m, k, MAX_KINDS + CARD_COLUMNS.index("Roaming Thief")] = 1
            elif 0 <= card < g.rules.num_kinds:
                out[m, k, card] = 1
            if g.state.face_down[m, k]:
                out[m, k, MAX_KINDS + CARD_COLUMNS.index("face down")] = 1


def market_occupants(out, s: Seen) -> None:
    """The piece on each bid square: servant or tutor, of the seat +r to the observer's left."""
    g = s.game
    for m in range(NUM_MARKETS):
        for v, piece in enumerate(g.state.occ[m]):
            if piece >= 0:
                kind, owner = ("tutor", piece - TUTOR) if piece >= TUTOR else ("servant", piece)
                out[m, v, OCCUPANT_FEATURES.index(f"{kind} +{s.relative(owner)}")] = 1


def phase(out, s: Seen) -> None:
    out[s.game.phase] = 1


def bid(out, s: Seen) -> None:
    """The bid value whose servant is being resolved, while a market's resolution is under way."""
    g = s.game
    if g.state.res_market >= 0 and g.state.res_pos < g.state.res_order_n:
        out[g.state.res_order[g.state.res_pos]] = 1


def high_stage(out, s: Seen) -> None:
    if s.game.phase == PH_HIGH:
        out[s.game.state.res_stage] = 1


def character(out, s: Seen) -> None:
    if s.game.state.char_index >= 0:
        out[s.game.state.char_index] = 1


def character_step(out, s: Seen) -> None:
    """Its step; a power of more than STEPS steps shares the last entry."""
    if s.game.state.char_index >= 0:
        out[min(s.game.state.char_step, STEPS - 1)] = 1


def character_market(out, s: Seen) -> None:
    if s.choices.get("market", -1) >= 0:
        out[s.choices["market"]] = 1


def character_excluded_market(out, s: Seen) -> None:
    """The market a bought Roaming Thief came from (none when it is played as a character)."""
    if s.choices.get("excluded market", -1) >= 0:
        out[s.choices["excluded market"]] = 1


def character_kind(out, s: Seen) -> None:
    if s.choices.get("kind", -1) >= 0:
        out[s.choices["kind"]] = 1


def character_owner(out, s: Seen) -> None:
    if "owner" in s.choices:
        out[s.relative(s.choices["owner"])] = 1


def character_places(out, s: Seen) -> None:
    """The Oracle's new order so far: row i, the place chosen i-th."""
    for i, place in enumerate(s.choices["place in the new order"]):
        out[i, place] = 1


def known_cards(out, s: Seen) -> None:
    """The bottom cards the Oracle player saw, row i the i-th from the bottom: its kind, or Akhenaton."""
    g = s.game
    for i, card in enumerate(s.known_from_bottom()):
        out[i, MAX_KINDS if card == g.kind_akhenaton else card] = 1


FILLS = {"seat": seat, "seat_gifts": seat_gifts, "seat_characters": seat_characters, "market": market,
         "market_squares": market_squares, "characters_available": characters_available, "discarded": discarded,
         "unseen": unseen, "players": players, "global": global_, "seat_role": seat_role,
         "market_resolving": market_resolving, "market_cards": market_cards, "market_occupants": market_occupants,
         "phase": phase, "bid": bid, "high_stage": high_stage, "character": character,
         "character_step": character_step, "character_market": character_market,
         "character_excluded_market": character_excluded_market, "character_kind": character_kind,
         "character_owner": character_owner, "character_places": character_places, "known_cards": known_cards}


def blocks_of(vector: np.ndarray, slices=SLICES, shapes=SHAPES) -> dict[str, np.ndarray]:
    """Each block of a vector as a view of its shape (writing a view writes the vector)."""
    return {name: vector[part].reshape(shapes[name]) for name, part in slices.items()}


def reference_observation(game, seat: int) -> np.ndarray:
    """float32[OBS_SIZE]: `observe(game, seat)` computed block by block from the game's named fields."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    seen, views = Seen(game, seat), blocks_of(obs)
    for name, fill in FILLS.items():
        fill(views[name], seen)
    return obs


# ---------------------------------------------------------------- v1 and v2, derived from v0
def fold(one_hot: np.ndarray) -> np.ndarray:
    """compact.FOLDED's code per row: column c lit -> (c + 1) / columns, nothing lit -> 0."""
    columns = one_hot.shape[-1]
    lit = one_hot.argmax(axis=-1)
    codes = (lit + 1).astype(np.float32) / np.float32(columns)
    return np.where(one_hot.any(axis=-1), codes, np.float32(0))


def reference_v1(game, seat: int) -> np.ndarray:
    """float32[V1_SIZE]: the v0 reference with compact.py's mapping: blocks kept as they are, the large
    one-hots folded to one code per row, a card place's face-down flag in a block of its own, the visible
    stalls' squares dropped."""
    v0 = blocks_of(reference_observation(game, seat))
    cards = v0["market_cards"].copy()
    face_down = MAX_KINDS + CARD_COLUMNS.index("face down")
    v0["market_face_down"], cards[..., face_down] = cards[..., face_down].copy(), 0
    v0["market_cards"] = cards
    out = np.zeros(V1_SIZE, dtype=np.float32)
    for name, block in blocks_of(out, V1_SLICES, V1_SHAPES).items():
        block[...] = fold(v0[name]).reshape(block.shape) if name in FOLDED else v0[name]
    return out


def reference_v2(game, seat: int) -> np.ndarray:
    """float32[V2_SIZE]: the v1 reference, then the table: player count, setup, Memphis and the roster
    (each character's cards left plus those played: the characters dealt at set-up)."""
    g = game
    out = np.zeros(V2_SIZE, dtype=np.float32)
    out[:V1_SIZE] = reference_v1(game, seat)
    table = blocks_of(out, V2_SLICES, V2_SHAPES)
    table["table_players"][PLAYER_COUNTS.index(g.num_players)] = 1
    table["table_setup"][SETUPS.index(g.options["setup"])] = 1
    table["table_memphis"][0] = g.options["memphis"]
    table["table_roster"][:] = g.state.char_avail + g.state.char_played.sum(axis=0) > 0
    return out


# ---------------------------------------------------------------- debugging
def _entry_names(blocks) -> list[str]:
    """A readable name for every entry of a layout: block, then its index, with the feature's name for
    the blocks whose last axis names features."""
    features = {"seat": [f for f, _ in SEAT_FEATURES], "market": [f for f, _ in MARKET_FEATURES],
                "global": [f for f, _ in GLOBAL_FEATURES], "market_squares": list(SQUARE_FEATURES),
                "market_occupants": list(OCCUPANT_FEATURES),
                "market_cards": [f"kind {k}" for k in range(MAX_KINDS)] + list(CARD_COLUMNS),
                "seat_role": ["turn player", "deciding now"]}
    names = []
    for name, shape, _, _ in blocks:
        for index in np.ndindex(*shape):
            label = f"{name}[{', '.join(map(str, index))}]"
            if name in features and len(features[name]) == shape[-1]:
                label += f" ({features[name][index[-1]]})"
            names.append(label)
    return names


_NAMES = {OBS_SIZE: _entry_names(BLOCKS), V1_SIZE: _entry_names(V1_BLOCKS),
          V2_SIZE: _entry_names(V2_BLOCKS)}


def first_difference(got: np.ndarray, expected: np.ndarray) -> str | None:
    """None if the two vectors (v0, v1 or v2) are equal, else the first differing entry by block and
    feature name with both values and how many entries differ."""
    differ = np.flatnonzero(got != expected)
    if differ.size == 0:
        return None
    i = int(differ[0])
    return (f"{_NAMES[len(expected)][i]} (entry {i}): got {got[i]}, expected {expected[i]}; "
            f"{differ.size} entries differ")

