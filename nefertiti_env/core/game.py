"""NefertitiGame: the public face of the compiled engine (docs/rules.md §1-§2).

The position is one uint8 array, `S`, the bytes of a record (fields declared once in
`engine/layout.py`), and the rules of this ruleset and option set an int64 array, `R`
(`engine/rules.py`). Legal actions and apply are numba kernels over them (`engine/step.py`);
this class checks inputs, keeps the action history and exposes the fields by name as
`game.state`, the record the kernels read
(`layout.STATE_RECORD`) over the same memory: `game.state.money[p] = 3` edits the game.
Every chance event (shuffles, first player, dice) comes from the game's own PCG64
generator, whose words are part of `S`, so the same seed and actions give the same game,
bit for bit, and `clone()` is a copy of the array.
"""
from __future__ import annotations

import functools
import json
from functools import cached_property

import numpy as np

from . import actions as A
from . import state_io
from .engine import layout as L
from .engine import hidden, step
from .engine.setup import setup as deal
from .engine.step import LIST, NEW_GAME, W_LEGAL, W_MASK, W_SIZE, decide
from .engine.entry import typed_entry
from .engine.rng import rng_state, rng_words
from .engine.rules import check_roster, rules_array
from .limits import MAX_KINDS, MAX_PLAYERS, NUM_BIDS
from .phases import PH_OVER, PHASE_NAMES
from .ruleset import Ruleset, load_ruleset
from .ruleset_ref import ruleset_from_ref, ruleset_ref

OPTIONS = {"setup": ("beginner", "advanced"), "memphis": (False, True)}
# Decisions after which a game is truncated. The rules let a game last forever (bids nobody can
# pay draw no card); natural games are far shorter: see docs/actions.md and benchmarks/game_lengths.py.
DEFAULT_MAX_DECISIONS = 2000
# The largest max_decisions accepted: 250 times the longest natural game, far above any use, and low
# enough that a record or a replay of a truncated game stays a file of a few megabytes.
MAX_DECISIONS_LIMIT = 100_000
HIDDEN = -1     # what `history_for` shows in place of another seat's private action
_NUM_ACTIONS = A.NUM_ACTIONS
# The facade's most read values by their byte in S (int8 fields, read signed): `.item` costs far less than
# a record's attribute
_ACTOR, _PHASE = (L.STATE_RECORD.fields[name][1] for name in ("actor", "phase"))
assert all(L.STATE_RECORD.fields[name][0] == np.int8 for name in ("actor", "phase"))
_VIEWS = ("_record", "_mask_bytes", "_signed")    # views of the game's arrays, made on first use: a clone remakes them


class IllegalActionError(ValueError):
    """An action that is not legal in the current state."""


class NefertitiGame:
    """The whole game for one table. See README for the API and the action grammar."""

    def __init__(self, num_players: int = 4, ruleset: str | Ruleset = "default", seed: int | None = None,
                 setup: str = "beginner", memphis: bool | None = None, characters: str | list[str] = "base",
                 max_decisions: int = DEFAULT_MAX_DECISIONS, forbidden: list[list[int]] | None = None):
        """A new game, set up and ready for its first decision.

        memphis: use the Port of Memphis and foreign gifts (None: only where mandatory, 5 players).
        characters: "base" (the 13 base cards), "expansion" (Scribes and Merchants plus 6 drawn at
        random from all other characters), a scenario name from the ruleset, or a list of
        character keys (the whole roster, one entry per card).
        max_decisions: after this many decisions the game is truncated (`is_truncated()`): no
        legal action is left and no seat wins.
        forbidden: restricted play, one list of action ids per seat that the seat may not take
        (`balance.restrict` builds them from a character or market name). The engine leaves them out
        of the seat's legal actions, for every bot and inside search, except in a forced decision
        (`is_forced`). Saved with the options (`record`, `to_json`); a game without it is unchanged.
        """
        self.rules = rs = load_ruleset(ruleset)
        if num_players not in rs.players:
            raise ValueError(f"num_players must be 2..{MAX_PLAYERS}, got {num_players!r}")
        if setup not in OPTIONS["setup"]:
            raise ValueError(f"setup must be one of {OPTIONS['setup']}, got {setup!r}")
        pset = rs.players[num_players]
        if memphis not in (None, True, False):
            raise ValueError(f"memphis must be True, False or None (only where mandatory), got {memphis!r}")
        if memphis is None:
            memphis = pset.memphis == "mandatory"
        if not memphis and pset.memphis == "mandatory":
            raise ValueError(f"the Port of Memphis is mandatory with {num_players} players")
        if not isinstance(characters, str):
            if not isinstance(characters, (list, tuple)) or not all(isinstance(c, str) for c in characters):
                raise ValueError("characters must be 'base', 'expansion', a scenario name or a list of "
                                 f"character keys, got {characters!r}")
            characters = list(characters)
        check_roster(rs, characters)
        if not isinstance(max_decisions, int) or isinstance(max_decisions, bool) \
                or not 1 <= max_decisions <= MAX_DECISIONS_LIMIT:
            raise ValueError(f"max_decisions must be an integer 1..{MAX_DECISIONS_LIMIT}, got {max_decisions!r}")
        self.seed = int(np.random.SeedSequence().entropy if seed is None else seed)
        self.options = dict(num_players=num_players, setup=setup, memphis=bool(memphis), characters=characters,
                            max_decisions=max_decisions)
        forbidden = _check_forbidden(forbidden, num_players)
        if forbidden:
            self.options["forbidden"] = forbidden
        self.R = _rules_for(rs, self.options)
        self._views(np.zeros(W_SIZE, dtype=np.uint8))
        self.history: list[int] = []       # every action: the referee's log (`record`)
        self.private_to: list[int] = []    # per action: the only seat that saw it, or -1 (public)
        self._mask = None
        if 0 <= self.seed < 2**63:         # seeded in compiled code: numpy's PCG64(seed), bit for bit
            self._n = _decide(self.R, self._w, NEW_GAME, self.seed)
        else:
            self.rng_state = np.random.PCG64(self.seed).state
            deal(self.R, self.S)
            self._n = -1

    def _views(self, w: np.ndarray) -> None:
        """Keep `w` (`step.decide`'s W) and its parts S and the legal actions listed (`_io`); the view of
        their int8 mask after them, `_mask_bytes`, is made on first use (most clones never ask for it)."""
        self._w, self.S, self._io = w, w[:W_LEGAL], w[W_LEGAL:W_MASK].view(np.int64)

    @cached_property
    def _record(self):
        """S as its record, without forgetting the legal actions (the facade's own reads)."""
        return L.state_view(self.S)

    @cached_property
    def _mask_bytes(self) -> np.ndarray:
        """The legal actions' int8 mask the kernel writes after them in W."""
        return self._w[W_MASK:W_MASK + _NUM_ACTIONS].view(np.int8)

    @cached_property
    def _signed(self) -> np.ndarray:
        """S's bytes as int8, where the facade reads its int8 fields by offset (`_ACTOR`, `_PHASE`)."""
        return self.S.view(np.int8)

    @property
    def state(self):
        """The position by name: the record of `S` (`layout.STATE_RECORD`), the same memory, so
        `game.state.money[p] = 3` edits the game. Taking it forgets the legal actions known, since
        the caller may edit through it (`board_changed`); a list field's entries past its count
        `<name>_n` are zero, `owned`, `discarded` have room for `limits.MAX_KINDS` kinds and `deck`
        for `MAX_DECK` cards (the dealt deck: the `deck` property)."""
        self.board_changed()
        return self._record

    @property
    def num_players(self) -> int:
        return self.options["num_players"]

    @property
    def phase(self) -> int:
        """The decision phase (`core/phases.py`, `PH_*`)."""
        return self._signed.item(_PHASE)

    @property
    def deck(self) -> np.ndarray:
        """The dealt deck, card codes in drawing order (drawn from `state.deck_pos` on): a view of S."""
        s = self._record
        return s.deck[:s.deck_len]

    # -------------------------------------------------------------- accessors
    @property
    def names(self):
        return self.rules.action_names

    @property
    def kind_akhenaton(self) -> int:
        """Card code of the Akhenaton card (after the gift kinds)."""
        return self.rules.num_kinds

    @property
    def kind_roaming(self) -> int:
        """Card code of the Roaming Thief card once it lies on the board."""
        return self.rules.num_kinds + 1

    @property
    def stalls(self):
        return self.rules.stalls

    @property
    def square_exists(self):
        return self.rules.square_exists

    @property
    def square_symbol(self):
        return self.rules.square_symbol

    @property
    def rng_state(self) -> dict:
        """The game's generator as numpy's `PCG64.state` dict; assign one to reseed (dice, search)."""
        return rng_state(self._record.rng)

    @rng_state.setter
    def rng_state(self, state: dict) -> None:
        self._record.rng[:] = rng_words(state)

    @property
    def current_player(self) -> int:
        """The seat that must decide now (not always the seat whose turn it is); -1 when over."""
        n = self._n
        return -1 if (n if n >= 0 else self._count()) == 0 else self._signed.item(_ACTOR)

    def is_over(self) -> bool:
        """No decision is left: the game ended (`is_terminated`) or was cut short (`is_truncated`)."""
        return (self._n if self._n >= 0 else self._count()) == 0

    def is_terminated(self) -> bool:
        """The game ended by its rules (the Akhenaton card): scores and winners are final."""
        return self.phase == PH_OVER

    def is_truncated(self) -> bool:
        """The game reached `max_decisions` before its end: no legal action is left, no seat wins."""
        return self.phase != PH_OVER and len(self.history) >= self.options["max_decisions"]

    def stall(self, m: int):
        return self.rules.stalls[m][self._record.side[m]]

    def market_count(self, m: int) -> int:
        return int((self._record.slots[m] >= 0).sum())

    def seats(self):
        return range(self.num_players)

    def known_cards(self, seat: int) -> dict[int, int]:
        """Undrawn deck cards `seat` has seen with the Oracle: deck position -> card code.

        Every other undrawn card is hidden from every seat; observations never show them.
        """
        self._check_seat(seat)
        deck = self.deck
        return {pos: int(deck[pos]) for pos in range(hidden.unseen_end(self.S, seat), len(deck))}

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> None:
        """Reshuffle, in place, the undrawn cards `seat` has not seen (a determinisation for
        search), consistent with what it saw: the Akhenaton card stays among the last
        `akhenaton_among_last` places, and gifts an Oracle player swapped into the bottom
        places (and not seen drawn since) stay among those places. Use on a clone.
        The kernel (`engine/hidden.py`) draws from `rng` as numpy would."""
        self._check_seat(seat)
        G = hidden.generator_array(rng)
        hidden.resample_hidden(self.R, self.S, seat, G, hidden.work())
        rng.bit_generator.state = hidden.generator_state(G)
        self.board_changed()

    def _check_seat(self, seat) -> None:
        """`seat` names a player of this game: -1 (no Oracle seat) would be read as the Oracle player's."""
        if not isinstance(seat, (int, np.integer)) or isinstance(seat, bool) or not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be an integer 0..{self.num_players - 1}, got {seat!r}")

    # ----------------------------------------------------------- legal moves
    # The legal actions are computed by the kernel after each decision, into `_io` (`_n` of them, after S in `_w`;
    # -1: not known, after a hand edit) and as a mask after them; the list and the mask are copied when asked.
    def _count(self) -> int:
        """How many legal actions `_io` holds, computing them if they are not known."""
        if self._n < 0:
            self._n = _decide(self.R, self._w, LIST, -1)
        return self._n

    def legal_actions(self) -> list[int]:
        """Legal action ids, ascending (empty when the game is over); a new list each call."""
        n = self._n
        return self._io[:n if n >= 0 else self._count()].tolist()

    def legal_action_mask(self, writable: bool = False) -> np.ndarray:
        """int8 mask over the flat action space, cached per state and read-only: copy to edit; or with
        `writable`, a new array of the caller's own (what an env hands out), without a cached one to copy."""
        if self._mask is None or writable:
            self._count()
            mask = self._mask_bytes.copy()
            if writable:
                return mask
            mask.flags.writeable = False
            self._mask = mask
        return self._mask

    def is_forced(self) -> bool:
        """Restricted play: the deciding seat may take its forbidden actions in this decision, since
        without them it would have none left but (optional) characters (`engine/step.restrict`)."""
        seat, r = self.current_player, L.rules_view(self.R)
        if seat < 0 or not r.restricted[seat]:
            return False
        return bool(r.forbidden[seat][self._io[:self._count()]].any())

    def board_changed(self) -> None:
        """Forget the legal actions known for the position (after it was edited by hand)."""
        self._n, self._mask = -1, None

    # ------------------------------------------------------------------ apply
    def apply(self, action: int) -> None:
        """Apply one decision of `current_player`: an action id, a Python or numpy integer.

        Raises TypeError for anything else (a float, a string, a bool: never silently rounded
        or read) and IllegalActionError if the action is not legal."""
        if type(action) is not int:
            action = A.action_id(action)
        if not 0 <= action < _NUM_ACTIONS:
            self._illegal(action)
        n = _decide(self.R, self._w, action, self._n)
        seat = -1
        self._mask = None
        if n < 0:                          # illegal (-1), or private to one seat
            if n == -1:
                self._illegal(action)
            n, seat = divmod(-2 - n, 8)
        self.history.append(action)
        self.private_to.append(seat)
        self._n = n

    def _illegal(self, action: int):
        legal = ", ".join(f"{a} ({self.action_to_string(a)})" for a in self.legal_actions())
        shown = self.action_to_string(action) if 0 <= action < A.NUM_ACTIONS else "out of range"
        raise IllegalActionError(
            f"action {action} ({shown}) is not legal for seat {self.current_player} in phase "
            f"'{PHASE_NAMES[self.phase]}'; legal: "
            f"{legal or ('none (truncated at max_decisions)' if self.is_truncated() else 'none (game over)')}")

    def apply_with_dice(self, action: int, rolls: list[int]) -> int:
        """Apply `action` taking the dice it rolls from `rolls`, in order, instead of the generator
        (explicit chance, as OpenSpiel's chance nodes). Returns how many more dice it rolled than
        `rolls` holds: when that is not 0 the game went on with stand-in values, so use this on a
        clone and discard it."""
        s = self._record
        if len(rolls) > L.MAX_DICE_SCRIPT:
            raise ValueError(f"at most {L.MAX_DICE_SCRIPT} dice per action, got {len(rolls)}")
        if not all(-128 <= int(r) <= 127 for r in rolls):          # `dice_script` is int8: never cut short
            raise ValueError(f"dice must be integers within -128..127, got {list(rolls)}")
        s.dice_script[:len(rolls)] = rolls
        s.dice_script_n, s.dice_scripted, s.dice_missing = len(rolls), 1, 0
        try:
            self.apply(action)
            return int(s.dice_missing)
        finally:       # unread dice too: a list field is zero past its length
            s.dice_script[:] = 0
            s.dice_script_n = s.dice_scripted = s.dice_missing = 0

    def history_for(self, seat: int) -> list[int]:
        """The actions as `seat` saw them (OpenSpiel's information state): another seat's private
        choice (which bottom place an Oracle player took, the order it chose) is `HIDDEN`.
        Bots and encoders acting for a seat read this, never `history` (docs/actions.md)."""
        return [a if owner < 0 or owner == seat else HIDDEN for a, owner in zip(self.history, self.private_to)]

    def information_state_string(self, seat: int) -> str:
        """`history_for(seat)` as text, one action per item (`?` for a hidden one)."""
        return f"p{seat}: " + ", ".join("?" if a == HIDDEN else self.action_to_string(a)
                                        for a in self.history_for(seat))

    # ---------------------------------------------------------------- results
    def scores(self) -> np.ndarray:
        """Points per seat, counted as if the game ended now (final once it is over)."""
        return step.final_scores(self.R, self.S)[: self.num_players]

    def winners(self) -> list[int]:
        """Seats with most points, ties broken by Deben; several seats share a win (`step.win_signs`,
        which `returns()` gives once the game is over)."""
        signs = np.empty(self.num_players, dtype=np.float32)
        step.win_signs(self.S, self.scores(), signs)
        return np.flatnonzero(signs == 1).tolist()

    def returns(self) -> np.ndarray:
        """+1 for a winner, -1 for every other seat once ended by the rules; zeros before and when truncated
        (`step.returns`, the batched env's too; float32 as there, so that both share one compile)."""
        r = np.zeros(self.num_players, dtype=np.float32)
        step.returns(self.R, self.S, step.final_scores(self.R, self.S), r)
        return r.astype(np.float64)

    # ------------------------------------------------------------- utilities
    def clone(self) -> "NefertitiGame":
        """An independent copy (the state array, generator included, copied; the rules shared)."""
        new = object.__new__(NefertitiGame)
        new.__dict__.update({k: v for k, v in self.__dict__.items() if k not in _VIEWS})
        new._views(self._w.copy())
        new.history = list(self.history)
        new.private_to = list(self.private_to)
        return new

    def __deepcopy__(self, memo) -> "NefertitiGame":
        """`copy.deepcopy` is `clone()`: the fields stay views of the copy's one state array."""
        return self.clone()

    def __reduce__(self):
        raise TypeError("a NefertitiGame is not pickled (nothing this project loads may run code): "
                        "save it with to_json() or record()")

    def action_to_string(self, action: int) -> str:
        return self.names.to_string(int(action))

    def string_to_action(self, text: str) -> int:
        return self.names.from_string(text)

    def record(self) -> dict:
        """Seed, options, ruleset reference (`core.ruleset_ref`) and actions: replays to an identical state."""
        return {"seed": self.seed, "options": self.options, "ruleset": ruleset_ref(self.rules),
                "actions": list(self.history)}

    @classmethod
    def replay(cls, record: dict, ruleset: str | Ruleset | None = None,
               allow_changed_ruleset: bool = False) -> "NefertitiGame":
        """The game of `record` (`record()`), replayed. `ruleset` stands in for the recorded one (a file not
        on this machine); a ruleset whose content is not the recorded one (sha256) is a RulesetError unless
        allowed. ValueError naming what does not fit (TypeError for an action that is no integer,
        IllegalActionError for one that is not legal)."""
        if not (isinstance(record, dict) and type(record.get("seed")) is int and isinstance(record.get("options"), dict)
                and isinstance(record.get("actions"), list)
                and (ruleset is not None or isinstance(record.get("ruleset"), (str, dict)))):
            raise ValueError("a game record is a JSON object with seed (an integer), options (an object), actions "
                             "(a list) and ruleset")
        rules = ruleset_from_ref(record.get("ruleset"), ruleset, allow_changed_ruleset)
        try:
            game = cls(ruleset=rules, seed=record["seed"], **record["options"])
        except TypeError as err:
            raise ValueError(f"the record's options do not make a game: {err}") from None
        for index, action in enumerate(record["actions"]):
            try:
                game.apply(action)
            except (IllegalActionError, TypeError) as err:
                raise type(err)(f"replay failed at action index {index} of {len(record['actions'])}: {err}") from None
        return game

    def saved_state(self) -> dict:
        """The complete state as JSON values: seed, options, history and every field of
        `engine/layout.py` (the generator as numpy's state dict; `state_io.saved_state`). `to_json`
        saves it and `from_json` checks it field by field against a new game with the same seed and options."""
        return state_io.saved_state(self)

    def to_json(self) -> str:
        """The complete state (including the generator) as JSON."""
        return json.dumps({"format": state_io.FORMAT, "ruleset": ruleset_ref(self.rules),
                           "state": self.saved_state()})

    @classmethod
    def from_json(cls, text: str, ruleset: str | Ruleset | None = None,
                  allow_changed_ruleset: bool = False) -> "NefertitiGame":
        """The game saved by `to_json`. Raises StateError (a ValueError) listing every problem:
        JSON shape, unknown or missing keys, types, array shapes, ranges, conservation of cards,
        seals, Deben and pieces, a phase whose context does not fit (see `state_io`); the ruleset
        as `replay` finds and checks it."""
        return state_io.load(cls, text, ruleset,
                             functools.partial(ruleset_from_ref, allow_changed=allow_changed_ruleset))

    def __repr__(self):
        return (f"NefertitiGame(players={self.num_players}, phase={PHASE_NAMES[self.phase]!r}, "
                f"actor={self.current_player}, decisions={len(self.history)})")



def _decide(R, W, action, known) -> int:
    """`step.decide`; the first call rebinds `_decide` to its `typed_entry` (numba's dispatch was a large
    share of a decision's cost). Only the game calls it, with the arrays it made."""
    global _decide
    _decide = typed_entry(decide, R, W, action, known, what="the rules engine")
    return _decide(R, W, action, known)


def _check_forbidden(forbidden, num_players: int) -> list[list[int]] | None:
    """The `forbidden` option as sorted lists of action ids, one per seat (None when no seat has any);
    raises ValueError naming the problem."""
    if forbidden is None:
        return None
    if not isinstance(forbidden, (list, tuple)) or len(forbidden) != num_players or \
            not all(isinstance(x, (list, tuple)) for x in forbidden):
        raise ValueError(f"forbidden must be one list of action ids per seat ({num_players}), got {forbidden!r}")
    out = []
    for seat, actions in enumerate(forbidden):
        bad = [a for a in actions if isinstance(a, bool) or not isinstance(a, (int, np.integer))
               or not 0 <= a < _NUM_ACTIONS]
        if bad:
            raise ValueError(f"forbidden[{seat}]: action ids must be integers 0..{_NUM_ACTIONS - 1}, got {bad}")
        out.append(sorted({int(a) for a in actions}))
    return out if any(out) else None


def _rules_for(rs: Ruleset, options: dict) -> np.ndarray:
    """The rules array of this ruleset and option set, built once per ruleset object (found by the
    options' values: a key built item by item over the dict was a large share of a new game's set-up)."""
    key = tuple(options.values()) if isinstance(options["characters"], str) and "forbidden" not in options else \
        tuple(tuple(map(tuple, v)) if k == "forbidden" else tuple(v) if isinstance(v, list) else v
              for k, v in options.items())
    cache = rs.__dict__.setdefault("_rules_arrays", {})
    if key not in cache:
        cache[key] = rules_array(rs, **options)
    return cache[key]
