"""The game state and the rules tables, each declared once as named fields of one int64 array.

The compiled engine (pgx style) is pure functions over two flat int64 arrays:

- `S`, the state of one game: every value that a saved game holds, the generator included.
  Cloning a game is `S.copy()`; a batch of games is a 2-D array of rows.
- `R`, the rules tables of one ruleset and option set (player count, Memphis, characters,
  setup), built by `rules_array` from the validated ruleset file; the engine reads component
  data only from it, so a corrected ruleset needs no code change.

The same declaration gives each array a numpy record type (`STATE_RECORD`, `RULES_RECORD`: a field
per field, `<name>_n` after a list, int64 words in the array's order, so a record is the array's own
bytes), and `state(S)`, `rules(R)` view an array as its record without a copy: converted kernels
write `s.owned[o, k] += 1`, `s.pending_n`. Kernels not yet converted use the offset constants: each
field's upper-cased name is its offset (`MONEY`), `<NAME>_N` the place of a list field's count
(`PENDING_N`), so they index `S[OWNED + o * MAX_KINDS + k]` (docs/engine.md "The state as a record").
Sizes are the fixed maxima of `limits`, so one compiled engine serves every ruleset.
"""
from __future__ import annotations

import numpy as np

from ..actions import NUM_ACTIONS
from ..limits import MAX_CHARACTERS, MAX_DECK, MAX_KINDS, MAX_PLAYERS, MAX_SLOTS, MAX_TYPES, NUM_BIDS, NUM_MARKETS
from ..phases import (NEUTRAL, NUM_OWNERS, NUM_PHASES, PH_CHARACTER, PH_HIGH, PH_OTHER, PH_OVER, PH_PLACE,  # noqa: F401
                      PH_SECOND, PH_SHAME, PH_TURN, PH_TUTOR, PH_TUTOR_DIST, PH_TUTOR_RES, PHASE_NAMES,
                      RESOLUTION_PHASES, SERVANT_PHASES, TURN_PHASES, TUTOR)
from .entry import as_record, kernel

MAX_PLACED = NUM_MARKETS * NUM_BIDS  # squares used in one turn
MAX_PENDING = 16                    # markets waiting to be resolved
MAX_SEL = 16                        # a character's choices so far (Oracle: at most 1 + MAX_SLOTS)
MAX_ORACLE_GIVEN = 64               # gifts swapped into the bottom of the deck in one game
MAX_GROUPS = 128                    # square sets that close one stall (line, diagonal, group)
MAX_DICE_SCRIPT = 8                 # dice given for one action (explicit chance)
RNG_WORDS = 6                       # PCG64: state hi, lo, inc hi, lo, has_uint32, uinteger

# ---------------------------------------------------------------- the state S
# (name, shape, what): "array" values, "list" (a prefix of the array is used; its length is
# the scalar <name>_n), "scalar". Booleans are 0/1. -1 means none (empty place, no market...).
STATE_FIELDS = (
    # per owner (seats 0..4, neutral 5)
    ("money", (NUM_OWNERS,), "array"),
    ("seals", (NUM_OWNERS,), "array"),
    ("points", (NUM_OWNERS,), "array"),              # scored during play (characters)
    ("servants", (NUM_OWNERS,), "array"),            # in supply
    ("tutors", (NUM_OWNERS,), "array"),              # in supply
    ("owned", (NUM_OWNERS, MAX_KINDS), "array"),     # gifts held, per card kind
    ("char_played", (NUM_OWNERS, MAX_CHARACTERS), "array"),
    # board
    ("side", (NUM_MARKETS,), "array"),               # visible stall: 0 left, 1 right
    ("reserve", (NUM_MARKETS,), "array"),
    ("char_avail", (MAX_CHARACTERS,), "array"),      # character cards left, per character
    ("discarded", (MAX_KINDS,), "array"),            # removed from the game, per card kind
    ("slots", (NUM_MARKETS, MAX_SLOTS), "array"),    # card code per place above a market, -1 empty
    ("occ", (NUM_MARKETS, NUM_BIDS), "array"),       # piece per bid square, -1 empty
    ("is_open", (NUM_MARKETS,), "array"),
    ("dead", (NUM_MARKETS,), "array"),               # closed for good (Akhenaton)
    ("face_down", (NUM_MARKETS, MAX_SLOTS), "array"),  # turned by the Beggar
    ("seal_on", (NUM_MARKETS,), "array"),            # a seal lies on the upper card
    ("deck", (MAX_DECK,), "array"),                  # card codes, drawn from deck_pos on
    # turn flow
    ("placed", (MAX_PLACED,), "list"),               # squares (market * NUM_BIDS + value) used this turn
    ("res_order", (NUM_BIDS,), "list"),              # bid values of the market being resolved, high first
    ("pending", (MAX_PENDING,), "list"),             # markets waiting to be resolved, in order
    ("tutor_given", (NUM_MARKETS,), "list"),         # Reserves that got a tutor's Deben
    ("char_sel", (MAX_SEL,), "list"),                # the current character's choices so far
    ("oracle_given", (MAX_ORACLE_GIVEN,), "list"),   # gifts an Oracle player put at the bottom (public)
    ("num_players", (), "scalar"),
    ("deck_len", (), "scalar"),
    ("first_player", (), "scalar"),
    ("seal_supply", (), "scalar"),
    ("deben_out", (), "scalar"),                     # given to the neutral player (tutors)
    ("deck_pos", (), "scalar"),
    ("akhenaton_drawn", (), "scalar"),
    ("phase", (), "scalar"),                         # PH_* below
    ("actor", (), "scalar"),                         # the seat deciding now, -1 when over
    ("turn_player", (), "scalar"),
    ("character_used", (), "scalar"),
    ("extra_placements", (), "scalar"),              # Head Priest placements still to make
    ("tutor_ready", (), "scalar"),                   # a servant was placed: a tutor may follow (2p)
    ("res_market", (), "scalar"),                    # market being resolved, -1 none
    ("res_pos", (), "scalar"),                       # index into res_order
    ("res_picks", (), "scalar"),                     # highest bidder: cards still to take (Memphis)
    ("res_stage", (), "scalar"),                     # highest bidder: STAGE_* below
    ("tutor_left", (), "scalar"),                    # tutor Deben still to place
    ("char_index", (), "scalar"),                    # character being played, -1 none
    ("char_step", (), "scalar"),                     # its step (each power names its steps)
    ("roam_resume", (), "scalar"),                   # phase to resume after a bought Roaming Thief, -1
    ("roam_slot", (), "scalar"),                     # the place it was bought from
    ("oracle_seat", (), "scalar"),                   # who saw the bottom of the deck, -1
    ("oracle_from", (), "scalar"),                   # deck position from which it knows the order
    ("decisions", (), "scalar"),                     # decisions made (the game is truncated at max)
    ("rng", (RNG_WORDS,), "array"),                  # the game's PCG64 generator (numpy's stream)
    # explicit chance (the OpenSpiel adapter): while scripted, dice come from dice_script, front
    # first, not from the generator; a die asked for past its end is counted in dice_missing
    ("dice_script", (MAX_DICE_SCRIPT,), "list"),
    ("dice_scripted", (), "scalar"),
    ("dice_missing", (), "scalar"),
)

# Decision phases (PH_*), owners and piece codes: `core/phases.py`, re-exported here for the kernels.
# Highest bidder stages: the main card, a second lower card, an extra card, finished.
STAGE_MAIN, STAGE_SECOND, STAGE_EXTRA, STAGE_DONE = range(4)

# ---------------------------------------------------------------- the rules R
# Built by `rules_array` for one ruleset and option set. Character powers and closing kinds
# are codes (their order is the order of `power_table.POWER_KINDS` and of `closing.ClosingKind`).
MAX_POWER_PARAMS = MAX_PLAYERS       # a list parameter (rank_bonus) is cut to one entry per rank
RULE_FIELDS = (
    ("r_num_players", (), "scalar"),
    ("r_memphis", (), "scalar"),                      # the Port of Memphis is in play
    ("r_advanced", (), "scalar"),                     # advanced setup: random stall sides
    ("r_max_decisions", (), "scalar"),
    ("num_kinds", (), "scalar"),                      # gift kinds; card code num_kinds is Akhenaton
    ("num_types", (), "scalar"),
    ("num_chars", (), "scalar"),
    ("kind_type", (MAX_KINDS,), "array"),
    ("kind_items", (MAX_KINDS,), "array"),           # items per card (a double senet is two)
    ("kind_bonus", (MAX_KINDS,), "array"),           # foreign bonus (a foreign gift goes to Memphis)
    ("kind_seal", (MAX_KINDS,), "array"),            # brings a seal when taken from the board
    ("kind_max_value", (MAX_KINDS,), "array"),
    ("kind_discard_order", (MAX_KINDS,), "array"),   # least valuable first (Royal Servant)
    ("type_values", (MAX_TYPES, 3), "array"),        # points per item for 1, 2, 3+ owners
    ("square_exists", (NUM_MARKETS, 2, NUM_BIDS), "array"),
    ("square_symbol", (NUM_MARKETS, 2, NUM_BIDS), "array"),
    ("close_kind", (NUM_MARKETS, 2), "array"),       # closing.ClosingKind code per stall
    ("close_params", (NUM_MARKETS, 2, 2), "array"),  # the kind's parameters, in CLOSING_KINDS order
    ("close_all", (NUM_MARKETS, 2), "array"),        # bitmask of the stall's squares
    ("close_groups", (NUM_MARKETS, 2, MAX_GROUPS), "array"),  # square sets (bitmasks) that close it
    ("close_groups_n", (NUM_MARKETS, 2), "array"),
    ("beginner_side", (NUM_MARKETS,), "array"),
    ("start_closed", (NUM_MARKETS,), "array"),
    ("reserve_start", (), "scalar"),
    ("seals_start", (), "scalar"),                    # seal supply for this option set
    ("akhenaton_among_last", (), "scalar"),
    ("cards_per_market", (), "scalar"),
    ("close_when_full", (), "scalar"),
    ("memphis_distribute_at", (), "scalar"),
    ("memphis_highest_takes", (), "scalar"),
    ("memphis_tutor_deben", (), "scalar"),
    ("start_money", (MAX_PLAYERS,), "array"),        # by turn order from the first player
    ("start_servants", (), "scalar"),
    ("start_tutors", (), "scalar"),
    ("deck_counts", (MAX_KINDS,), "array"),          # gifts of each kind in this game's deck
    ("char_power", (MAX_CHARACTERS,), "array"),      # power_table.POWER_KINDS index
    ("char_params", (MAX_CHARACTERS, MAX_POWER_PARAMS), "array"),  # in the order of Power.params
    ("char_params_n", (MAX_CHARACTERS,), "array"),   # entries of a list parameter (rank_bonus)
    ("roster_fixed", (MAX_CHARACTERS,), "array"),    # cards in every game of this option set
    ("roster_pool", (MAX_CHARACTERS,), "array"),     # cards to draw `roster_draw` of at random
    ("roster_draw", (), "scalar"),
    ("roaming_char", (), "scalar"),                   # character index of the Roaming Thief power, -1
    # restricted play (the `forbidden` game option): a seat may not take its forbidden actions while
    # others are left (`step.restrict`); `restricted` flags the seats that have any, so an unrestricted
    # seat's legal moves cost one read more
    ("restricted", (MAX_PLAYERS,), "array"),
    ("forbidden", (MAX_PLAYERS, NUM_ACTIONS), "array"),
)


def _declare(fields, namespace) -> int:
    """Set the offset constants of `fields` in `namespace`; return the total size."""
    offset = 0
    for name, shape, what in fields:
        namespace[name.upper()] = offset
        size = int(np.prod(shape)) if shape else 1
        namespace[name.upper() + "_SIZE"] = size
        offset += size
        if what == "list":
            namespace[name.upper() + "_N"] = offset
            offset += 1
    return offset


STATE_SIZE = _declare(STATE_FIELDS, globals())
RULES_SIZE = _declare(RULE_FIELDS, globals())


def field_slices(fields=STATE_FIELDS) -> dict[str, tuple[slice, tuple[int, ...], str]]:
    """name -> (slice of the array, shape, what) for the facade and the tests."""
    out, namespace = {}, {}
    _declare(fields, namespace)
    for name, shape, what in fields:
        start = namespace[name.upper()]
        out[name] = (slice(start, start + namespace[name.upper() + "_SIZE"]), shape, what)
    return out


def record_dtype(fields) -> np.dtype:
    """`fields` as one numpy record of int64 words at the offsets `_declare` gives them (a list's count
    follows it as `<name>_n`); `np.record`, so fields read by attribute in Python as in kernels."""
    items = []
    for name, shape, what in fields:
        items.append((name, np.int64, shape))
        if what == "list":
            items.append((name + "_n", np.int64))
    return np.dtype((np.record, items))


STATE_RECORD = record_dtype(STATE_FIELDS)
RULES_RECORD = record_dtype(RULE_FIELDS)


def _python_record(record: np.dtype) -> np.dtype:
    """`record` read from Python at about a quarter of `np.record`'s cost: numpy builds the dtype's dict of
    fields at every attribute (over a hundred fields here: about 1.4 us a read), this type looks the name up
    in a set made once and reads the field as indexing does. Same memory, same fields: only Python uses it."""
    names, get, put = frozenset(record.names), np.void.__getitem__, np.void.__setitem__

    class Record(np.record):
        __slots__ = ()

        def __getattribute__(self, name):
            return get(self, name) if name in names else np.record.__getattribute__(self, name)

        def __setattr__(self, name, value):
            if name not in names:
                raise AttributeError(f"the record has no field {name!r}")
            put(self, name, value)

    return np.dtype((Record, record))


STATE_VIEW, RULES_VIEW = _python_record(STATE_RECORD), _python_record(RULES_RECORD)


def state_view(S: np.ndarray):
    """The state array `S` (or a row of a batch) as its record, from Python: the same memory by name
    (`state_view(S).money[p] = 3`). Kernels use `state`."""
    return S.view(STATE_VIEW)[0]


def rules_view(R: np.ndarray):
    """The rules array `R` as its record, from Python. Kernels use `rules`."""
    return R.view(RULES_VIEW)[0]


@kernel
def state(S):
    """The state array `S` (or an array that begins with one) as its record: the same memory, by name, in
    kernels. Called from Python it returns a copy (numba boxes a record by value): Python code views
    the array itself, `state_view(S)`."""
    return as_record(S, STATE_RECORD)


@kernel
def rules(R):
    """The rules array `R` as its record: the same memory, by name."""
    return as_record(R, RULES_RECORD)

# A state's unused tails: no kernel reads the deck's places from `deck_len` on nor `oracle_given` past
# its length, so a copy for search (a bot's clone into its work space) may skip them: the live ranges
# are [0, DECK + deck_len), [AFTER_DECK, ORACLE_GIVEN + oracle_given_n) and [ORACLE_GIVEN_N, STATE_SIZE).
AFTER_DECK = DECK + DECK_SIZE
