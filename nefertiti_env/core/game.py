"""NefertitiGame: state, legal actions, apply, turn flow (docs/rules.md §1-§2).

State lives in small numpy arrays plus a few ints. The integer arrays are views
of one buffer, `state` (layout in `state_layout`), so the observation encoder
gathers them with one copy; `clone()` copies the buffer and rebinds the views.
Every chance event (shuffles, first player, dice) comes from the game's own seeded
Generator, so the same seed and actions give the same game, bit for bit.

Market resolution lives in `resolution.py`, character powers in `powers.py` (both take
cards with `market.py`), closing kinds in `closing.py`, scoring in `scoring.py`.
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np

from . import actions as A
from . import resolution, scoring, state_io
from .phases import (NUM_OWNERS, PH_CHARACTER, PH_OVER, PH_PLACE, PH_SECOND, PH_TURN, PH_TUTOR, PHASE_NAMES,
                     TUTOR)
from .powers import POWERS
from .roster import character_roster, check_roster
from .limits import COIN, MAX_CHARACTERS, MAX_PLAYERS, MAX_SLOTS, MEMPHIS, NUM_BIDS, NUM_MARKETS
from .ruleset import PACKAGED_RULESETS, Ruleset, deck_counts, load_ruleset



def state_layout(num_kinds: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """(name, shape) of the integer arrays, in their order in `NefertitiGame.state`.

    They are views of that one buffer, so an observation gathers them from one array;
    edit them in place (`game.money[:] = ...`), never rebind them."""
    return (("money", (NUM_OWNERS,)), ("seals", (NUM_OWNERS,)),
            ("points", (NUM_OWNERS,)),              # scored during play (characters)
            ("servants", (NUM_OWNERS,)),            # in supply
            ("tutors", (NUM_OWNERS,)), ("owned", (NUM_OWNERS, num_kinds)),
            ("char_played", (NUM_OWNERS, MAX_CHARACTERS)),
            ("side", (NUM_MARKETS,)),               # visible stall: 0 left, 1 right
            ("reserve", (NUM_MARKETS,)), ("char_avail", (MAX_CHARACTERS,)),
            ("discarded", (num_kinds,)),            # removed from the game
            ("slots", (NUM_MARKETS, MAX_SLOTS)),    # card code per place, -1 empty
            ("occ", (NUM_MARKETS, NUM_BIDS)))       # piece per bid square, -1 empty


@functools.cache
def state_slices(num_kinds: int) -> tuple[tuple[str, slice, tuple[int, ...]], ...]:
    """(name, slice of `NefertitiGame.state`, shape) of each array of `state_layout`, in order."""
    slices, start = [], 0
    for name, shape in state_layout(num_kinds):
        size = int(np.prod(shape))
        slices.append((name, slice(start, start + size), shape))
        start += size
    return tuple(slices)


OPTIONS = {"setup": ("beginner", "advanced"), "memphis": (False, True)}
# Decisions after which a game is truncated. The rules let a game last forever (bids nobody can
# pay draw no card); natural games are far shorter: see docs/actions.md and benchmarks/game_lengths.py.
DEFAULT_MAX_DECISIONS = 2000
MAX_DECISIONS_LIMIT = 10**7
HIDDEN = -1     # what `history_for` shows in place of another seat's private action


class IllegalActionError(ValueError):
    """An action that is not legal in the current state."""


class NefertitiGame:
    """The whole game for one table. See README for the API and the action grammar."""

    def __init__(self, num_players: int = 4, ruleset: str | Ruleset = "default", seed: int | None = None,
                 setup: str = "beginner", memphis: bool | None = None, characters: str | list[str] = "base",
                 max_decisions: int = DEFAULT_MAX_DECISIONS):
        """A new game, set up and ready for its first decision.

        memphis: use the Port of Memphis and foreign gifts (None: only where mandatory, 5 players).
        characters: "base" (the 13 base cards), "expansion" (Scribes and Merchants plus 6 drawn at
        random from all other characters), a scenario name from the ruleset, or a list of
        character keys (the whole roster, one entry per card).
        max_decisions: after this many decisions the game is truncated (`is_truncated()`): no
        legal action is left and no seat wins.
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
        self.num_players = num_players
        self._rng = np.random.Generator(np.random.PCG64(self.seed))
        self._rng_state = None
        self.names = rs.action_names
        self.kind_akhenaton = rs.num_kinds          # card codes beyond the gift kinds
        self.kind_roaming = rs.num_kinds + 1        # the Roaming Thief card, once on the board
        self.stalls, self.square_exists, self.square_symbol = rs.stalls, rs.square_exists, rs.square_symbol
        self.history: list[int] = []       # every action: the referee's log (`record`)
        self.private_to: list[int] = []    # per action: the only seat that saw it, or -1 (public)
        self._setup(pset)

    # ------------------------------------------------------------------ setup
    def _setup(self, pset):
        rs, rng, n = self.rules, self.rng, self.num_players
        expansion_components = pset.expansion or self.options["memphis"]
        self.state = np.zeros(state_slices(rs.num_kinds)[-1][1].stop, dtype=np.int64)
        self._bind_state()
        self.occ[:] = -1
        self.slots[:] = -1
        self.is_open = np.zeros(NUM_MARKETS, dtype=bool)
        self.dead = np.zeros(NUM_MARKETS, dtype=bool)            # closed for good (Akhenaton)
        self.face_down = np.zeros((NUM_MARKETS, MAX_SLOTS), dtype=bool)
        self.seal_on = np.zeros(NUM_MARKETS, dtype=bool)         # a seal lies on the upper card
        self.deben_out = 0                                       # given to the neutral player
        self.char_avail[:len(rs.characters)] = character_roster(rs, pset, self.options["characters"], rng)

        seat_first = int(rng.integers(n))
        self.first_player = seat_first
        for i, amount in enumerate(pset.money):
            self.money[(seat_first + i) % n] = amount
        self.servants[:n] = pset.servants
        self.tutors[:n] = pset.tutors
        self.seal_supply = rs.setup["seals_expansion"] if expansion_components else rs.setup["seals"]
        self.reserve[:4] = rs.setup["reserve_start"]
        if self.options["memphis"]:
            self.reserve[MEMPHIS] = rs.setup["reserve_start"]

        # deck: shuffle, then put (among_last - 1) unseen gifts with Akhenaton at the bottom
        counts = deck_counts(rs, n, self.options["memphis"])
        gifts = np.repeat(np.arange(rs.num_kinds), counts)
        rng.shuffle(gifts)
        last = rs.setup["akhenaton_among_last"] - 1
        bottom = np.append(gifts[:last], self.kind_akhenaton)
        rng.shuffle(bottom)
        self.deck = np.concatenate([gifts[last:], bottom])
        self.deck_pos = 0
        self.akhenaton_drawn = False

        for m, market in enumerate(rs.markets):
            self.side[m] = market.beginner_side if self.options["setup"] == "beginner" else int(rng.integers(2))
            self.is_open[m] = not market.start_closed
        self.is_open[MEMPHIS] = self.options["memphis"]
        self.board_changed()
        for m in range(4):
            if self.is_open[m]:
                resolution.refill(self, m)

        # flow state
        self.phase = PH_TURN
        self.actor = seat_first
        self.turn_player = seat_first
        self.character_used = False
        self.extra_placements = 0
        self.placed = []                   # (market, value) used this turn
        self.tutor_ready = False           # a servant was placed this turn: a tutor may follow (2p)
        self.res_market = -1
        self.res_order: tuple[int, ...] = ()
        self.res_pos = 0
        self.res_picks = 0                 # highest bidder: cards still to take in this stage
        self.res_stage = 0                 # highest bidder: 0 main, 1 second lower card, 2 extra card
        self.pending: list[int] = []       # markets waiting to be resolved
        self.tutor_left = 0                # tutor Deben still to place
        self.tutor_given: list[int] = []   # Reserves that got one of them
        self.char_index = -1
        self.char_step = 0
        self.char_sel: list[int] = []
        self.roam_resume = -1              # resolution phase to resume after a bought Roaming Thief
        self.roam_slot = -1                # the card place it was bought from
        self.oracle_seat = -1              # who saw the bottom of the deck (Oracle)
        self.oracle_from = 0               # deck position from which that seat knows the order
        self.oracle_given: list[int] = []  # gifts swapped into those bottom places (public)
        self._begin_turn(seat_first)

    def _bind_state(self):
        """Make the arrays of `state_layout` views of `self.state` (after it was created or copied)."""
        state, d = self.state, self.__dict__
        for name, part, shape in state_slices(self.rules.num_kinds):
            d[name] = state[part] if len(shape) == 1 else state[part].reshape(shape)

    # -------------------------------------------------------------- accessors
    @property
    def rng(self) -> np.random.Generator:
        """The game's own generator (a clone builds its copy only when it first rolls)."""
        if self._rng is None:
            self._rng = np.random.Generator(np.random.PCG64())
            self._rng.bit_generator.state = self._rng_state
        return self._rng

    @property
    def current_player(self) -> int:
        """The seat that must decide now (not always the seat whose turn it is); -1 when over."""
        return -1 if self.is_over() else self.actor

    def is_over(self) -> bool:
        """No decision is left: the game ended (`is_terminated`) or was cut short (`is_truncated`)."""
        return self.phase == PH_OVER or len(self.history) >= self.options["max_decisions"]

    def is_terminated(self) -> bool:
        """The game ended by its rules (the Akhenaton card): scores and winners are final."""
        return self.phase == PH_OVER

    def is_truncated(self) -> bool:
        """The game reached `max_decisions` before its end: no legal action is left, no seat wins."""
        return self.phase != PH_OVER and len(self.history) >= self.options["max_decisions"]

    def stall(self, m: int):
        return self.stalls[m][self.side[m]]

    def market_count(self, m: int) -> int:
        return int((self.slots[m] >= 0).sum())

    def seats(self):
        return range(self.num_players)

    def known_cards(self, seat: int) -> dict[int, int]:
        """Undrawn deck cards `seat` has seen with the Oracle: deck position -> card code.

        Every other undrawn card is hidden from every seat; observations never show them.
        """
        if seat != self.oracle_seat:
            return {}
        start = max(self.deck_pos, self.oracle_from)
        return {pos: int(self.deck[pos]) for pos in range(start, len(self.deck))}

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> None:
        """Reshuffle, in place, the undrawn cards `seat` has not seen (a determinisation for
        search), consistent with what it saw: the Akhenaton card stays among the last
        `akhenaton_among_last` places, and gifts an Oracle player swapped into the bottom
        places (and not seen drawn since) stay among those places. Use on a clone."""
        known = self.known_cards(seat)
        unseen = [pos for pos in range(self.deck_pos, len(self.deck)) if pos not in known]
        pool = self.deck[unseen].tolist()
        placed: dict[int, int] = {}

        def place_among(spots: list[int], kind: int):
            placed[spots[int(rng.integers(len(spots)))]] = kind
            pool.remove(kind)

        if self.kind_akhenaton in pool:
            bottom = len(self.deck) - self.rules.setup["akhenaton_among_last"]
            place_among([pos for pos in unseen if pos >= bottom], self.kind_akhenaton)
        for kind in self._oracle_pending():
            spots = [pos for pos in unseen if pos >= self.oracle_from and pos not in placed]
            if spots and kind in pool:
                place_among(spots, kind)
        rng.shuffle(pool)
        rest = [pos for pos in unseen if pos not in placed]
        self.deck[rest] = pool
        for pos, kind in placed.items():
            self.deck[pos] = kind

    def _oracle_pending(self) -> list[int]:
        """Gifts publicly swapped into the bottom places by the Oracle, less those seen drawn since."""
        pending = list(self.oracle_given)
        for kind in self.deck[self.oracle_from:self.deck_pos].tolist() if self.oracle_given else []:
            if kind in pending:
                pending.remove(kind)
        return pending

    # ----------------------------------------------------------- legal moves
    def legal_actions(self) -> list[int]:
        """Legal action ids, ascending (empty when the game is over)."""
        return list(self._legal_list())

    def legal_action_mask(self) -> np.ndarray:
        """int8 mask over the flat action space, cached per state and read-only: copy to edit."""
        if self._mask is None:
            mask = A.action_mask(self._legal_list())
            mask.flags.writeable = False
            self._mask = mask
        return self._mask

    def _legal_list(self) -> list[int]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        ph = self.phase
        if len(self.history) >= self.options["max_decisions"]:
            return []
        if ph in (PH_TURN, PH_PLACE):
            p = self.actor
            if self.servants[p] > 0:
                legal = self.free.reshape(-1).nonzero()[0].tolist()
            else:
                legal = [A.CLOSE + m for m in self._closable(p)]
            if ph == PH_TURN and self.seals[p] > 0:
                chars = self.rules.characters
                legal += [A.CHARACTER + c for c in self.char_avail.nonzero()[0].tolist()
                          if POWERS[chars[c].power].playable(self, p, chars[c])]
            return legal
        if ph == PH_SECOND:        # the Head Priest's extra servant never goes to Memphis
            return self.free[:MEMPHIS].reshape(-1).nonzero()[0].tolist()
        if ph == PH_TUTOR:
            return [A.place(m, v) for m, v in self._tutor_squares()] + [A.DONE]
        if ph == PH_CHARACTER:
            char = self.rules.characters[self.char_index]
            return POWERS[char.power].legal(self, char)
        if ph == PH_OVER:
            return []
        return resolution.legal(self)

    def _forget_legal(self):
        self._legal = self._mask = None

    def refresh_market(self, m: int):
        """Recompute market m's empty squares after it closed, flipped or reopened."""
        if self.is_open[m]:
            np.logical_and(self.square_exists[m, self.side[m]], self.occ[m] < 0, out=self.free[m])
        else:
            self.free[m] = False

    def board_changed(self):
        """Recompute the derived board caches (`free`: empty squares of open markets'
        visible stalls; `occ_bits`) after markets closed, flipped or reopened, or after
        a position was edited by hand. Placements update them square by square."""
        visible = self.square_exists[np.arange(NUM_MARKETS), self.side]
        self.free = visible & (self.occ < 0) & self.is_open[:, None]
        self.occ_bits = [int(b) for b in ((self.occ >= 0) << np.arange(NUM_BIDS)).sum(axis=1)]
        self._forget_legal()

    def _closable(self, p: int) -> list[int]:
        """Open markets seat p may close: it has a servant there (never the Port of Memphis)."""
        is_open = self.is_open
        return [m for m, row in enumerate(self.occ[:MEMPHIS].tolist()) if p in row and is_open[m]]

    def _tutor_squares(self) -> list[tuple[int, int]]:
        """(market, value) a tutor may take: empty, below a servant's bid, not used this turn (2p)."""
        squares = []
        for m in range(NUM_MARKETS):
            row = self.occ[m].tolist()
            bids = [v for v, piece in enumerate(row) if 0 <= piece < TUTOR]
            if bids:
                squares += [(m, v) for v in self.free[m, :max(bids)].nonzero()[0].tolist()
                            if (m, v) not in self.placed]
        return squares

    def _can_act(self, p: int) -> bool:
        if self.servants[p] > 0:
            return np.count_nonzero(self.free) > 0
        return bool(self._closable(p))

    # ------------------------------------------------------------------ apply
    def apply(self, action: int) -> None:
        """Apply one decision of `current_player`: an action id, a Python or numpy integer.

        Raises TypeError for anything else (a float, a string, a bool: never silently rounded
        or read) and IllegalActionError if the action is not legal."""
        if isinstance(action, np.integer):
            action = int(action)
        elif not isinstance(action, int) or isinstance(action, bool):
            raise TypeError(f"an action is an integer id (int or numpy integer), got {type(action).__name__} "
                            f"{action!r}; use string_to_action() for text")
        if action not in self._legal_list():
            legal = ", ".join(f"{a} ({self.action_to_string(a)})" for a in self._legal_list())
            shown = self.action_to_string(action) if 0 <= action < A.NUM_ACTIONS else "out of range"
            raise IllegalActionError(
                f"action {action} ({shown}) is not legal for seat {self.current_player} in phase "
                f"'{PHASE_NAMES[self.phase]}'; legal: "
                f"{legal or ('none (truncated at max_decisions)' if self.is_truncated() else 'none (game over)')}")
        self.history.append(action)
        self.private_to.append(self.actor if self._private_now() else -1)
        self._forget_legal()
        self._apply(action)

    def _private_now(self) -> bool:
        """Is the decision now one only its maker sees (a choice naming hidden deck places)?"""
        if self.phase != PH_CHARACTER:
            return False
        char = self.rules.characters[self.char_index]
        return POWERS[char.power].private(self, char)

    def history_for(self, seat: int) -> list[int]:
        """The actions as `seat` saw them (OpenSpiel's information state): another seat's private
        choice (which bottom place an Oracle player took, the order it chose) is `HIDDEN`.
        Bots and encoders acting for a seat read this, never `history` (docs/actions.md)."""
        return [a if owner < 0 or owner == seat else HIDDEN for a, owner in zip(self.history, self.private_to)]

    def information_state_string(self, seat: int) -> str:
        """`history_for(seat)` as text, one action per item (`?` for a hidden one)."""
        return f"p{seat}: " + ", ".join("?" if a == HIDDEN else self.action_to_string(a)
                                        for a in self.history_for(seat))

    def _apply(self, action: int) -> None:
        ph = self.phase
        if ph == PH_TUTOR and action == A.DONE:
            self._end_turn()
        elif ph in (PH_TURN, PH_PLACE, PH_SECOND, PH_TUTOR):
            if action >= A.CHARACTER:
                self._play_character(action - A.CHARACTER)
            elif action >= A.CLOSE:
                self._close_market(action - A.CLOSE)
            else:
                m, v = divmod(action - A.PLACE, NUM_BIDS)
                self._place(m, v, self.actor, tutor=ph == PH_TUTOR)
        elif ph == PH_CHARACTER:
            char = self.rules.characters[self.char_index]
            POWERS[char.power].apply(self, char, action)
        else:
            resolution.apply(self, action)

    def _play_character(self, c: int):
        p = self.actor
        self.seals[p] -= 1
        self.seal_supply += 1
        self.char_avail[c] -= 1
        self.char_played[p, c] += 1
        self.character_used = True
        self.char_index, self.char_step, self.char_sel = c, 0, []
        self.phase = PH_CHARACTER
        char = self.rules.characters[c]
        POWERS[char.power].start(self, char)

    def character_done(self):
        """Called by a power when its last choice is made: the turn goes on to placement
        (or, for a Roaming Thief bought in a resolution, the resolution goes on)."""
        self.char_index = -1
        self.char_sel = []
        if self.roam_resume >= 0:
            resolution.resume_after_roam(self)
            return
        self.phase = PH_PLACE
        self.actor = self.turn_player
        if not self._can_act(self.actor):
            self._end_turn()

    def _place(self, m: int, v: int, p: int, tutor: bool = False):
        """Put a servant (or tutor) on square v of market m; bonuses; closing check."""
        row = self.occ[m]
        bits = self.occ_bits[m]
        row[v] = TUTOR + p if tutor else p
        stall = self.stall(m)
        bonus = (bits == 0) + (stall.symbols[v] == COIN)     # first piece in the market, a coin square
        take = min(bonus, int(self.reserve[m])) if bonus else 0
        if take:
            self.reserve[m] -= take
        if tutor:          # [R] a tutor's bonus goes to the neutral player: it leaves the game
            self.tutors[p] -= 1
            self.deben_out += take
        else:
            self.servants[p] -= 1
            if take:
                self.money[p] += take
            self.tutor_ready = bool(self.tutors[p] > 0)
        self.placed.append((m, v))
        self.free[m, v] = False
        bits |= 1 << v
        self.occ_bits[m] = bits
        closing = stall.closing
        full = bits == closing.all_squares and self.rules.setup["close_when_full"]
        if m != MEMPHIS and (closing.closes(bits, v, row, self.rng if closing.rolls_dice else None) or full):
            self._close_market(m)
        else:
            self._after_action()

    def _close_market(self, m: int):
        self.pending.append(m)
        resolution.next_step(self)

    def _after_action(self):
        """The active player's action (and any resolution) is done: continue the turn."""
        if self.phase == PH_OVER:
            return
        p = self.turn_player
        self.actor = p
        if self.extra_placements > 0:
            self.extra_placements -= 1
            if self.servants[p] > 0 and np.count_nonzero(self.free[:MEMPHIS]):
                self.phase = PH_SECOND
                return
        if self.tutor_ready:
            self.tutor_ready = False
            if self._tutor_squares():
                self.phase = PH_TUTOR
                return
        self._end_turn()

    def _end_turn(self):
        self._begin_turn((self.turn_player + 1) % self.num_players)

    def _begin_turn(self, p: int):
        for _ in range(self.num_players):
            self.turn_player = self.actor = p
            self.character_used = False
            self.extra_placements = 0
            self.tutor_ready = False
            self.placed = []
            if self._can_act(p):
                self.phase = PH_TURN
                return
            p = (p + 1) % self.num_players       # nothing possible: the turn passes
        if np.count_nonzero(self.occ[MEMPHIS] >= 0):
            # [R] every servant is stuck at the Port of Memphis: it is distributed
            self.pending.append(MEMPHIS)
            resolution.next_step(self)
            return
        raise AssertionError("no player can act: the ruleset allows a stalemate")

    def finish_game(self):
        self.phase = PH_OVER
        self.actor = -1

    # ---------------------------------------------------------------- results
    def scores(self) -> np.ndarray:
        """Points per seat, counted as if the game ended now (final once it is over)."""
        return scoring.final_scores(self)[: self.num_players]

    def winners(self) -> list[int]:
        """Seats with most points, ties broken by Deben; several seats share a win."""
        return scoring.winners(self)

    def returns(self) -> np.ndarray:
        """+1 for a winner, -1 for every other seat once ended by the rules; zeros before and when truncated."""
        r = np.zeros(self.num_players, dtype=np.float64)
        if self.is_terminated():
            r -= 1
            r[self.winners()] = 1
        return r

    # ------------------------------------------------------------- utilities
    def clone(self) -> "NefertitiGame":
        """An independent copy (arrays copied, generator state copied)."""
        new = object.__new__(NefertitiGame)
        d = new.__dict__
        for k, v in self.__dict__.items():
            if isinstance(v, np.ndarray) and v.flags.writeable:
                d[k] = None if v.base is self.state else v.copy()    # views: bound to the copy below
            elif isinstance(v, list):
                d[k] = list(v)
            else:
                d[k] = v
        new._bind_state()
        new._rng = None
        new._rng_state = self._rng_state if self._rng is None else self._rng.bit_generator.state
        return new

    def action_to_string(self, action: int) -> str:
        return self.names.to_string(int(action))

    def string_to_action(self, text: str) -> int:
        return self.names.from_string(text)

    def record(self) -> dict:
        """Seed, options, ruleset source and actions: replays to an identical state."""
        return {"seed": self.seed, "options": self.options, "ruleset": self._ruleset_ref(),
                "actions": list(self.history)}

    @classmethod
    def replay(cls, record: dict, ruleset: str | Ruleset | None = None) -> "NefertitiGame":
        rules = ruleset if ruleset is not None else _ruleset_arg(record["ruleset"])
        game = cls(ruleset=rules, seed=record["seed"], **record["options"])
        for index, action in enumerate(record["actions"]):
            try:
                game.apply(action)
            except (IllegalActionError, TypeError) as err:
                raise type(err)(f"replay failed at action index {index} of {len(record['actions'])}: {err}") from None
        return game

    # Attributes a saved state leaves out: aliases of the ruleset's tables, caches rebuilt by
    # `board_changed` and `legal_actions`, the buffer behind the `state_layout` views (saved
    # through them) and the generator (saved as "rng"). Every other attribute is saved.
    NOT_SAVED = frozenset(("rules", "names", "stalls", "square_exists", "square_symbol", "free", "state", "_rng",
                           "_rng_state", "_mask", "_legal"))

    def saved_state(self) -> dict:
        """The complete state (generator included) as JSON values: what `to_json` saves and
        `from_json` checks field by field against a new game with the same seed and options."""
        state = {k: v.tolist() if isinstance(v, np.ndarray) else v
                 for k, v in self.__dict__.items() if k not in self.NOT_SAVED}
        state["rng"] = self.rng.bit_generator.state
        return state

    def to_json(self) -> str:
        """The complete state (including the generator) as JSON."""
        return json.dumps({"format": state_io.FORMAT, "ruleset": self._ruleset_ref(), "state": self.saved_state()})

    def _ruleset_ref(self) -> str | dict:
        """How a record names its ruleset: the file path, or the data itself for a dict ruleset."""
        return self.rules.data if self.rules.source == "<dict>" else self.rules.source

    @classmethod
    def from_json(cls, text: str, ruleset: str | Ruleset | None = None) -> "NefertitiGame":
        """The game saved by `to_json`. Raises StateError (a ValueError) listing every problem:
        JSON shape, unknown or missing keys, types, array shapes, ranges, conservation of cards,
        seals, Deben and pieces, a phase whose context does not fit (see `state_io`)."""
        return state_io.load(cls, text, ruleset, _ruleset_arg)

    def __repr__(self):
        return (f"NefertitiGame(players={self.num_players}, phase={PHASE_NAMES[self.phase]!r}, "
                f"actor={self.current_player}, decisions={len(self.history)})")


def _ruleset_arg(source: str | dict):
    """A record's ruleset reference back to a loadable argument."""
    if isinstance(source, str) and Path(source).parent == PACKAGED_RULESETS:
        return Path(source).stem
    return source
