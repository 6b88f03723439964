"""The rules array `R` of one ruleset and option set (layout.RULE_FIELDS), for the kernels.

Component data reaches the compiled engine only through here, from the validated ruleset
file, so a corrected ruleset needs no code change.
"""
from __future__ import annotations

import numpy as np

from ..limits import MAX_CHARACTERS, MAX_KINDS, MAX_PLAYERS, NUM_MARKETS
from ..power_table import POWER_KINDS, POWERS
from ..ruleset import Ruleset, deck_counts
from . import layout as L

_FIELDS = L.field_slices(L.RULE_FIELDS)


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


def rules_array(rs: Ruleset, num_players: int, memphis: bool, setup: str, characters: str | list[str],
                max_decisions: int, forbidden: list[list[int]] | None = None) -> np.ndarray:
    """R for a game of `num_players` with these options (already checked by the caller); `forbidden`:
    per seat, the action ids it may not take (restricted play, `step.restrict`)."""
    from .closing import CLOSING_KINDS     # each kind's schema lives with its kernel

    R = np.zeros(L.RULES_SIZE, dtype=np.int64)

    def put(name, value):
        part, shape, _ = _FIELDS[name]
        if shape:
            R[part].reshape(shape)[tuple(slice(0, n) for n in np.shape(value))] = value
        else:
            R[part.start] = int(value)

    pset = rs.players[num_players]
    nk = rs.num_kinds
    put("r_num_players", num_players)
    put("r_memphis", memphis)
    put("r_advanced", setup == "advanced")
    put("r_max_decisions", max_decisions)
    put("num_kinds", nk)
    put("num_types", rs.num_types)
    put("num_chars", len(rs.characters))
    for name in ("kind_type", "kind_items", "kind_bonus", "kind_seal", "kind_max_value", "kind_discard_order"):
        put(name, getattr(rs, name).astype(np.int64))
    put("type_values", rs.type_values)
    put("square_exists", rs.square_exists)
    put("square_symbol", rs.square_symbol)
    kinds, params, alls, groups, counts = (np.zeros((NUM_MARKETS, 2), np.int64), np.zeros((NUM_MARKETS, 2, 2), np.int64),
                                           np.zeros((NUM_MARKETS, 2), np.int64),
                                           np.zeros((NUM_MARKETS, 2, L.MAX_GROUPS), np.int64),
                                           np.zeros((NUM_MARKETS, 2), np.int64))
    for m, pair in enumerate(rs.stalls):
        for side, stall in enumerate(pair):
            closing = stall.closing
            kinds[m, side] = closing.code
            for i, pname in enumerate(CLOSING_KINDS[closing.kind]):
                params[m, side, i] = closing.params[pname]
            alls[m, side] = closing.all_squares
            groups[m, side, :len(closing.groups)] = closing.groups
            counts[m, side] = len(closing.groups)
    put("close_kind", kinds)
    put("close_params", params)
    put("close_all", alls)
    put("close_groups", groups)
    put("close_groups_n", counts)
    put("beginner_side", [mk.beginner_side for mk in rs.markets])
    put("start_closed", [mk.start_closed for mk in rs.markets])
    put("reserve_start", rs.setup["reserve_start"])
    put("seals_start", rs.setup["seals_expansion"] if (pset.expansion or memphis) else rs.setup["seals"])
    for key in ("akhenaton_among_last", "cards_per_market", "close_when_full"):
        put(key, rs.setup[key])
    put("memphis_distribute_at", rs.memphis["distribute_at"])
    put("memphis_highest_takes", rs.memphis["highest_takes"])
    put("memphis_tutor_deben", rs.memphis["tutor_deben"])
    put("start_money", pset.money)
    put("start_servants", pset.servants)
    put("start_tutors", pset.tutors)
    put("deck_counts", deck_counts(rs, num_players, memphis))

    power, cparams, nparams = (np.zeros(MAX_CHARACTERS, np.int64), np.zeros((MAX_CHARACTERS, L.MAX_POWER_PARAMS), np.int64),
                               np.zeros(MAX_CHARACTERS, np.int64))
    for c, char in enumerate(rs.characters):
        power[c] = POWER_KINDS.index(char.power)
        values = [char.params[p.name] for p in POWERS[char.power].params]
        if values and isinstance(values[0], list):          # a list parameter (alone): one entry per rank
            values = values[0][:MAX_PLAYERS]
        nparams[c] = len(values)
        cparams[c, :len(values)] = values
    put("char_power", power)
    put("char_params", cparams)
    put("char_params_n", nparams)
    roaming = [c for c, char in enumerate(rs.characters) if char.power == "roaming_thief"]
    put("roaming_char", roaming[0] if roaming else -1)

    # the character roster: fixed cards, plus `roster_draw` drawn from a pool (expansion)
    counts = np.array([c.count - pset.remove_characters.get(c.key, 0) for c in rs.characters], dtype=np.int64)
    always = np.array([c.always for c in rs.characters], dtype=bool)
    pool = np.zeros(len(counts), np.int64)
    draw = 0
    if isinstance(characters, list):
        fixed = np.array([characters.count(c.key) for c in rs.characters], dtype=np.int64)
    elif characters == "base":
        fixed = np.where([c.set == "base" for c in rs.characters], counts, 0)
    else:
        fixed = np.where(always, counts, 0)
        if characters == "expansion":
            pool = np.where(always, 0, counts)
            draw = min(rs.character_draw, int(pool.sum()))
        else:
            for key in rs.scenarios[characters]:
                fixed[rs.character_index(key)] += 1
    put("roster_fixed", fixed)
    put("roster_pool", pool)
    put("roster_draw", draw)
    r = L.rules_view(R)
    for seat, actions in enumerate(forbidden or ()):
        r.restricted[seat] = bool(actions)
        r.forbidden[seat, np.asarray(actions, np.int64)] = 1
    assert nk <= MAX_KINDS
    return R
