"""The game state and the rules tables, each declared once as named fields of one flat array.

The compiled engine (pgx style) is pure functions over two flat arrays:

- `S`, the state of one game: every value that a saved game holds, the generator included, as the
  bytes of one record (`STATE_BYTES`, uint8). Cloning a game is `S.copy()`; a batch of games is a
  2-D array of rows.
- `R`, the rules tables of one ruleset and option set (player count, Memphis, characters,
  setup), int64 words built by `rules_array` from the validated ruleset file; the engine reads
  component data only from it, so a corrected ruleset needs no code change.

The same declaration gives each array a numpy record type (`STATE_RECORD`, `RULES_RECORD`: a field
per field, `<name>_n` after a list, so a record is the array's own bytes), and `state(S)`, `rules(R)`
view an array as its record without a copy: kernels write `s.owned[o, k] += 1`, `s.pending_n`. Each
state field has its natural width (the bound that keeps it there: docs/engine.md "Natural widths"),
so a state is under a kilobyte and a batch of thousands stays in the cache; the rules fields are
int64 words (one R per option set, not per game), each upper-cased name its offset (`NUM_KINDS`).
Sizes are the fixed maxima of `limits`, so one compiled engine serves every ruleset.
"""
from __future__ import annotations

import numpy as np

from ..actions import NUM_ACTIONS
from ..limits import MAX_CHARACTERS, MAX_DECK, MAX_KINDS, MAX_PLAYERS, MAX_SLOTS, MAX_TYPES, NUM_BIDS, NUM_MARKETS
from ..phases import (NEUTRAL, NUM_OWNERS, NUM_PHASES, PH_CHARACTER, PH_HIGH, PH_OTHER, PH_OVER, PH_PLACE,  # noqa: F401
                      PH_SECOND, PH_SHAME, PH_TURN, PH_TUTOR, PH_TUTOR_DIST, PH_TUTOR_RES, PHASE_NAMES,
                      RESOLUTION_PHASES, SERVANT_PHASES, TURN_PHASES, TUTOR)
from .entry import as_record, kernel, python_record

MAX_PLACED = NUM_MARKETS * NUM_BIDS  # squares used in one turn
MAX_PENDING = 16                    # markets waiting to be resolved
MAX_SEL = 16                        # a character's choices so far (Oracle: at most 1 + MAX_SLOTS)
MAX_ORACLE_GIVEN = 64               # gifts swapped into the bottom of the deck in one game
MAX_GROUPS = 128                    # square sets that close one stall (line, diagonal, group)
MAX_DICE_SCRIPT = 8                 # dice given for one action (explicit chance)
RNG_WORDS = 6                       # PCG64: state hi, lo, inc hi, lo, has_uint32, uinteger
I8, I16, I32, I64, U64 = np.int8, np.int16, np.int32, np.int64, np.uint64
COUNT = I8                          # a list's count `<name>_n`: no list holds more than 127 entries

# ---------------------------------------------------------------- the state S
# (name, shape, what, width): "array" values, "list" (a prefix of the array is used; its length is
# the scalar <name>_n), "scalar". Booleans are 0/1. -1 means none (empty place, no market...). The width
# holds every value the rules and the ruleset loader's bounds allow (docs/engine.md "Natural widths").
STATE_FIELDS = (
    # per owner (seats 0..4, neutral 5)
    ("money", (NUM_OWNERS,), "array", I16),
    ("seals", (NUM_OWNERS,), "array", I8),
    ("points", (NUM_OWNERS,), "array", I32),         # scored during play (characters)
    ("servants", (NUM_OWNERS,), "array", I8),        # in supply
    ("tutors", (NUM_OWNERS,), "array", I8),          # in supply
    ("owned", (NUM_OWNERS, MAX_KINDS), "array", I8),  # gifts held, per card kind
    ("char_played", (NUM_OWNERS, MAX_CHARACTERS), "array", I8),
    # board
    ("side", (NUM_MARKETS,), "array", I8),           # visible stall: 0 left, 1 right
    ("reserve", (NUM_MARKETS,), "array", I16),
    ("char_avail", (MAX_CHARACTERS,), "array", I8),  # character cards left, per character
    ("discarded", (MAX_KINDS,), "array", I8),        # removed from the game, per card kind
    ("slots", (NUM_MARKETS, MAX_SLOTS), "array", I8),  # card code per place above a market, -1 empty
    ("occ", (NUM_MARKETS, NUM_BIDS), "array", I8),   # piece per bid square, -1 empty
    ("is_open", (NUM_MARKETS,), "array", I8),
    ("dead", (NUM_MARKETS,), "array", I8),           # closed for good (Akhenaton)
    ("face_down", (NUM_MARKETS, MAX_SLOTS), "array", I8),  # turned by the Beggar
    ("seal_on", (NUM_MARKETS,), "array", I8),        # a seal lies on the upper card
    ("deck", (MAX_DECK,), "array", I8),              # card codes, drawn from deck_pos on
    # turn flow
    ("placed", (MAX_PLACED,), "list", I8),           # squares (market * NUM_BIDS + value) used this turn
    ("res_order", (NUM_BIDS,), "list", I8),          # bid values of the market being resolved, high first
    ("pending", (MAX_PENDING,), "list", I8),         # markets waiting to be resolved, in order
    ("tutor_given", (NUM_MARKETS,), "list", I8),     # Reserves that got a tutor's Deben
    ("char_sel", (MAX_SEL,), "list", I16),           # the current character's choices so far
    ("oracle_given", (MAX_ORACLE_GIVEN,), "list", I8),  # gifts an Oracle player put at the bottom (public)
    ("num_players", (), "scalar", I8),
    ("deck_len", (), "scalar", I16),
    ("first_player", (), "scalar", I8),
    ("seal_supply", (), "scalar", I8),
    ("deben_out", (), "scalar", I16),                # given to the neutral player (tutors)
    ("deck_pos", (), "scalar", I16),
    ("akhenaton_drawn", (), "scalar", I8),
    ("phase", (), "scalar", I8),                     # PH_* below
    ("actor", (), "scalar", I8),                     # the seat deciding now, -1 when over
    ("turn_player", (), "scalar", I8),
    ("character_used", (), "scalar", I8),
    ("extra_placements", (), "scalar", I16),         # Head Priest placements still to make
    ("tutor_ready", (), "scalar", I8),               # a servant was placed: a tutor may follow (2p)
    ("res_market", (), "scalar", I8),                # market being resolved, -1 none
    ("res_pos", (), "scalar", I8),                   # index into res_order
    ("res_picks", (), "scalar", I16),                # highest bidder: cards still to take (Memphis)
    ("res_stage", (), "scalar", I8),                 # highest bidder: STAGE_* below
    ("tutor_left", (), "scalar", I16),               # tutor Deben still to place
    ("char_index", (), "scalar", I8),                # character being played, -1 none
    ("char_step", (), "scalar", I8),                 # its step (each power names its steps)
    ("roam_resume", (), "scalar", I8),               # phase to resume after a bought Roaming Thief, -1
    ("roam_slot", (), "scalar", I8),                 # the place it was bought from
    ("oracle_seat", (), "scalar", I8),               # who saw the bottom of the deck, -1
    ("oracle_from", (), "scalar", I16),              # deck position from which it knows the order
    ("decisions", (), "scalar", I32),                # decisions made (the game is truncated at max)
    ("rng", (RNG_WORDS,), "array", U64),             # the game's PCG64 generator (numpy's stream)
    # explicit chance (the OpenSpiel adapter): while scripted, dice come from dice_script, front
    # first, not from the generator; a die asked for past its end is counted in dice_missing
    ("dice_script", (MAX_DICE_SCRIPT,), "list", I8),
    ("dice_scripted", (), "scalar", I8),
    ("dice_missing", (), "scalar", I8),
)

# Decision phases (PH_*), owners and piece codes: `core/phases.py`, re-exported here for the kernels.
# Highest bidder stages: the main card, a second lower card, an extra card, finished.
STAGE_MAIN, STAGE_SECOND, STAGE_EXTRA, STAGE_DONE = range(4)

# ---------------------------------------------------------------- the rules R
# Built by `rules_array` for one ruleset and option set. Character powers and closing kinds
# are codes (their order is the order of `power_table.POWER_KINDS` and of `closing.ClosingKind`).
MAX_POWER_PARAMS = MAX_PLAYERS       # a list parameter (rank_bonus) is cut to one entry per rank
RULE_FIELDS = (
    ("r_num_players", (), "scalar", I64),
    ("r_memphis", (), "scalar", I64),                # the Port of Memphis is in play
    ("r_advanced", (), "scalar", I64),               # advanced setup: random stall sides
    ("r_max_decisions", (), "scalar", I64),
    ("num_kinds", (), "scalar", I64),                # gift kinds; card code num_kinds is Akhenaton
    ("num_types", (), "scalar", I64),
    ("num_chars", (), "scalar", I64),
    ("kind_type", (MAX_KINDS,), "array", I64),
    ("kind_items", (MAX_KINDS,), "array", I64),      # items per card (a double senet is two)
    ("kind_bonus", (MAX_KINDS,), "array", I64),      # foreign bonus (a foreign gift goes to Memphis)
    ("kind_seal", (MAX_KINDS,), "array", I64),       # brings a seal when taken from the board
    ("kind_max_value", (MAX_KINDS,), "array", I64),
    ("kind_discard_order", (MAX_KINDS,), "array", I64),  # least valuable first (Royal Servant)
    ("type_values", (MAX_TYPES, 3), "array", I64),   # points per item for 1, 2, 3+ owners
    ("square_exists", (NUM_MARKETS, 2, NUM_BIDS), "array", I64),
    ("square_symbol", (NUM_MARKETS, 2, NUM_BIDS), "array", I64),
    ("close_kind", (NUM_MARKETS, 2), "array", I64),  # closing.ClosingKind code per stall
    ("close_params", (NUM_MARKETS, 2, 2), "array", I64),  # the kind's parameters, in CLOSING_KINDS order
    ("close_all", (NUM_MARKETS, 2), "array", I64),   # bitmask of the stall's squares
    ("close_groups", (NUM_MARKETS, 2, MAX_GROUPS), "array", I64),  # square sets (bitmasks) that close it
    ("close_groups_n", (NUM_MARKETS, 2), "array", I64),
    ("beginner_side", (NUM_MARKETS,), "array", I64),
    ("start_closed", (NUM_MARKETS,), "array", I64),
    ("reserve_start", (), "scalar", I64),
    ("seals_start", (), "scalar", I64),              # seal supply for this option set
    ("akhenaton_among_last", (), "scalar", I64),
    ("cards_per_market", (), "scalar", I64),
    ("close_when_full", (), "scalar", I64),
    ("memphis_distribute_at", (), "scalar", I64),
    ("memphis_highest_takes", (), "scalar", I64),
    ("memphis_tutor_deben", (), "scalar", I64),
    ("start_money", (MAX_PLAYERS,), "array", I64),   # by turn order from the first player
    ("start_servants", (), "scalar", I64),
    ("start_tutors", (), "scalar", I64),
    ("deck_counts", (MAX_KINDS,), "array", I64),     # gifts of each kind in this game's deck
    ("char_power", (MAX_CHARACTERS,), "array", I64),  # power_table.POWER_KINDS index
    ("char_params", (MAX_CHARACTERS, MAX_POWER_PARAMS), "array", I64),  # in the order of Power.params
    ("char_params_n", (MAX_CHARACTERS,), "array", I64),  # entries of a list parameter (rank_bonus)
    ("roster_fixed", (MAX_CHARACTERS,), "array", I64),  # cards in every game of this option set
    ("roster_pool", (MAX_CHARACTERS,), "array", I64),  # cards to draw `roster_draw` of at random
    ("roster_draw", (), "scalar", I64),
    ("roaming_char", (), "scalar", I64),             # character index of the Roaming Thief power, -1
    # restricted play (the `forbidden` game option): a seat may not take its forbidden actions while
    # others are left (`step.restrict`); `restricted` flags the seats that have any, so an unrestricted
    # seat's legal moves cost one read more
    ("restricted", (MAX_PLAYERS,), "array", I64),
    ("forbidden", (MAX_PLAYERS, NUM_ACTIONS), "array", I64),
)


def _declare(fields, namespace) -> int:
    """Set the offset constants of `fields`, counted in words (one per value, a list's count after it), in
    `namespace`; return the total number of words."""
    offset = 0
    for name, shape, what, _ in fields:
        namespace[name.upper()] = offset
        size = int(np.prod(shape)) if shape else 1
        namespace[name.upper() + "_SIZE"] = size
        offset += size
        if what == "list":
            namespace[name.upper() + "_N"] = offset
            offset += 1
    return offset


RULES_SIZE = _declare(RULE_FIELDS, globals())
# The state as int64 words in the declaration's order: the observation's copy of it (`encoding/observation.py`
# `state_vector`), whose entries are indexed by these words, not by the record's bytes.
STATE_WORDS = _declare(STATE_FIELDS, {})


def field_slices(fields=STATE_FIELDS) -> dict[str, tuple[slice, tuple[int, ...], str]]:
    """name -> (slice of the words, shape, what): of R itself, or of the state's words (`STATE_WORDS`)."""
    out, namespace = {}, {}
    _declare(fields, namespace)
    for name, shape, what, _ in fields:
        start = namespace[name.upper()]
        out[name] = (slice(start, start + namespace[name.upper() + "_SIZE"]), shape, what)
    return out


def record_dtype(fields) -> np.dtype:
    """`fields` as one numpy record, each field at its width (a list's count `<name>_n`, a `COUNT`, with
    it), widest first and each naturally aligned (`align=True`): no padding but the record's tail, and
    the generator's uint64 words first, at byte 0. Fields of one width keep the declaration's order.
    `np.record`, so fields read by attribute in Python as in kernels."""
    items = []
    for name, shape, what, width in fields:
        items.append((name, width, shape))
        if what == "list":
            items.append((name + "_n", COUNT))
    items.sort(key=lambda item: -np.dtype(item[1]).itemsize)
    return np.dtype((np.record, np.dtype(items, align=True)))


STATE_RECORD = record_dtype(STATE_FIELDS)
RULES_RECORD = record_dtype(RULE_FIELDS)
STATE_BYTES = STATE_RECORD.itemsize
assert STATE_BYTES <= 1024 and STATE_RECORD.fields["rng"][1] == 0
assert RULES_RECORD.itemsize == 8 * RULES_SIZE and all(
    RULES_RECORD.fields[name][1] == 8 * globals()[name.upper()] for name, *_ in RULE_FIELDS)


def _word_tables() -> tuple[np.ndarray, ...]:
    """The state's values by width: for 1, 2, 4 and 8 bytes, a [2, n] int64 array of each value's index in
    the state read as an array of that width (`S.view(np.int16)`...) and its word (`STATE_WORDS`), so a
    kernel copies the record into the words with no branch per field; the generator's uint64 words are
    read as int64, the bits the words always held."""
    words, tables = field_slices(), {1: [], 2: [], 4: [], 8: []}
    for name, shape, what, width in STATE_FIELDS:
        size = np.dtype(width).itemsize
        at = STATE_RECORD.fields[name][1] // size
        tables[size] += [(at + i, w) for i, w in enumerate(range(words[name][0].start, words[name][0].stop))]
        if what == "list":
            count = np.dtype(COUNT).itemsize
            tables[count].append((STATE_RECORD.fields[name + "_n"][1] // count, words[name][0].stop))
    return tuple(np.array(tables[size], dtype=np.int64).reshape(-1, 2).T.copy() for size in (1, 2, 4, 8))


WORDS_OF_I8, WORDS_OF_I16, WORDS_OF_I32, WORDS_OF_I64 = _word_tables()


STATE_VIEW, RULES_VIEW = python_record(STATE_RECORD), python_record(RULES_RECORD)   # Python's own reads


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
# its length, so a copy for search (a bot's clone into its work space) may skip them: the live bytes
# are [0, DECK_AT + deck_len), [AFTER_DECK, ORACLE_GIVEN_AT + oracle_given_n) and [ORACLE_GIVEN_N_AT, STATE_BYTES).
DECK_AT, ORACLE_GIVEN_AT, ORACLE_GIVEN_N_AT = (STATE_RECORD.fields[name][1] for name in ("deck", "oracle_given",
                                                                                         "oracle_given_n"))
AFTER_DECK = DECK_AT + MAX_DECK
assert AFTER_DECK <= ORACLE_GIVEN_AT and ORACLE_GIVEN_N_AT == ORACLE_GIVEN_AT + MAX_ORACLE_GIVEN
