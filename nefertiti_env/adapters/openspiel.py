"""Nefertiti as an OpenSpiel game: "python_nefertiti", registered when this module is imported.

    import pyspiel, nefertiti_env.adapters.openspiel
    game = pyspiel.load_game("python_nefertiti", {"players": 3})

Chance is explicit, so a state holds no hidden future. The rules core deals from a
shuffled deck and rolls dice from its own generator; here every card that becomes
known (drawn, or seen by an Oracle player) and every die is a chance node, decided
only when the rules read it: a player's action is tried on a clone of the game, and
while it would read an undecided deck place or roll a die, the state is a chance
node for that place or die (the probabilities follow the setup's shuffle: the
unseen gifts in proportion, the Akhenaton card uniform among the free bottom
places). The deck's undecided places hold a canonical order (sorted, the Akhenaton
card last) and the game's generator is never used, so a clone, which MCTS and
ISMCTS make at every simulation, cannot see the order of the deck or the rolls to
come. `resample_from_infostate` (ISMCTS) also redraws the bottom cards an Oracle
player saw, for every other seat.

Parameters: players (2..5, default 4), reward ("win_loss" or "rank"), characters
(a NefertitiGame `characters` option: "base", "expansion" or a scenario), setups (the
first chance node picks one of this many seeded setups: seat order, stall sides,
first cards; default 1000), seed (offsets the setup seeds). The observation and
information state tensors are the seat's compact v1 observation (`observe_v1`: what
the seat knows now, so OpenSpiel's learning algorithms train on the vector the
project's agents use; the whole history would not fit a fixed tensor); information
state strings are the player's history: actions, dice, cards drawn and, for the
Oracle player only, the cards it saw and its private choices (`NefertitiGame.history_for`).
`str(state)` is the board (the env's text rendering) and what chance decides next.

`serialize()` is OpenSpiel's own for Python games: the history and a pickle of the
state's attributes, which `deserialize_state` unpickles (OpenSpiel's C++ code, not this
module, so deserialize only strings you made). The rules-core game travels inside it as
its JSON state and is loaded back through `NefertitiGame.from_json`, which checks it.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pyspiel

from ..core import NUM_ACTIONS, NefertitiGame
from ..core import actions as A
from ..core.limits import MAX_KINDS, MAX_PLAYERS, NUM_BIDS
from ..encoding import V1_SIZE, observation_dict, observe_v1
from ..env.aec import final_rewards
from ..env.render import board_text

REWARDS = ("win_loss", "rank")
MAX_GAME_LENGTH = 3000       # decisions and chance nodes; random play takes at most ~250 decisions + ~70 chance
_DEFAULTS = {"players": 4, "reward": "win_loss", "characters": "base", "setups": 1000, "seed": 0}
_NO_FUTURE = np.random.PCG64(0).state      # what a game's generator is set to: it never rolls here

GAME_TYPE = pyspiel.GameType(
    short_name="python_nefertiti", long_name="Nefertiti (Python)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS, min_num_players=2,
    provides_information_state_string=True, provides_information_state_tensor=True,
    provides_observation_string=True, provides_observation_tensor=True,
    parameter_specification=_DEFAULTS)


class NefertitiOpenSpielGame(pyspiel.Game):
    def __init__(self, params=None):
        params = {**_DEFAULTS, **(params or {})}
        if params["reward"] not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}; got {params['reward']!r}")
        self.players, self.reward = int(params["players"]), params["reward"]
        self.setups, self.seed, self.characters = int(params["setups"]), int(params["seed"]), params["characters"]
        probe = NefertitiGame(num_players=self.players, characters=self.characters, seed=0)   # checks the options
        sides = max((r.closing.params.get("sides", 0) for stalls in probe.rules.stalls for r in stalls), default=0)
        info = pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS,
                                max_chance_outcomes=max(self.setups, MAX_KINDS + 1, sides),
                                num_players=self.players, min_utility=-1.0, max_utility=1.0,
                                max_game_length=MAX_GAME_LENGTH)
        super().__init__(GAME_TYPE, info, params)

    def new_initial_state(self):
        return NefertitiOpenSpielState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class _Settings(NamedTuple):
    players: int
    reward: str
    characters: str
    setups: int
    seed: int


class _Table:
    """Holds the rules-core game. pyspiel clones a Python state by deep-copying its attributes; this
    makes that copy the core's own `clone()` (the ruleset is shared, not copied). `serialize()`
    pickles the attributes: the game goes in as its JSON state (a NefertitiGame is never pickled)."""

    def __init__(self, game: NefertitiGame | None):
        self.game = game

    def __deepcopy__(self, memo):
        return _Table(None if self.game is None else self.game.clone())

    def __reduce__(self):
        return _Table.from_json, (None if self.game is None else self.game.to_json(),)

    @staticmethod
    def from_json(text: str | None) -> "_Table":
        return _Table(None if text is None else NefertitiGame.from_json(text))


class NefertitiOpenSpielState(pyspiel.State):
    def __init__(self, game: NefertitiOpenSpielGame):
        super().__init__(game)
        self._spiel = _Settings(game.players, game.reward, game.characters, game.setups, game.seed)
        self._table = _Table(None)                # the game, None until the setup chance node
        self._pending: int | None = None          # a player's action waiting for chance outcomes
        self._rolls: list[int] = []               # dice decided for it
        self._need: tuple = ("setup",)            # what the chance node decides
        self._fixed: set[int] = set()             # undrawn deck places whose card is decided (Oracle)
        # information states: (seat who sees the text or -1 for all, text, what the other seats see or None)
        self._log: list[tuple[int, str, str | None]] = []

    @property
    def game(self) -> NefertitiGame | None:
        return self._table.game

    @game.setter
    def game(self, game: NefertitiGame) -> None:
        self._table.game = game

    # ----------------------------------------------------------------- OpenSpiel API
    def current_player(self):
        if self._need:
            return pyspiel.PlayerId.CHANCE
        if self.game.is_over():
            return pyspiel.PlayerId.TERMINAL
        return self.game.current_player

    def _legal_actions(self, player):
        return self.game.legal_actions()

    def chance_outcomes(self):
        kind = self._need[0]
        if kind == "setup":
            return [(i, 1.0 / self._spiel.setups) for i in range(self._spiel.setups)]
        if kind == "roll":
            low, high = self._need[1:]
            return [(v, 1.0 / (high - low)) for v in range(low, high)]
        return self._card_odds(self._need[1])

    def _apply_action(self, action):
        if self._need and action not in dict(self.chance_outcomes()):
            raise ValueError(f"chance outcome {action} is impossible at this chance node ({self._describe_need()}); "
                             f"possible: {_ranges([a for a, _ in self.chance_outcomes()])}")
        if not self._need:
            self._pending, self._rolls = int(action), []
        elif self._need[0] == "setup":
            self.game = NefertitiGame(num_players=self._spiel.players, characters=self._spiel.characters,
                                      seed=self._spiel.seed * self._spiel.setups + int(action))
            self._log.append((-1, f"setup {action}", None))
            self._forget_future()
            self._need = ()
            return
        elif self._need[0] == "roll":
            self._rolls.append(int(action))
        else:
            self._decide(self._need[1], int(action))
        self._advance()

    def _action_to_string(self, player, action):
        if player != pyspiel.PlayerId.CHANCE:
            return self.game.action_to_string(action)
        kind = self._need[0]
        if kind == "card":
            return f"card {_card_name(self.game, action)} at deck place {self._need[1]}"
        return f"{kind} {action}"

    def is_terminal(self):
        return not self._need and self.game.is_over()

    def returns(self):
        if not self.is_terminal():
            return [0.0] * self._spiel.players
        return final_rewards(self.game, self._spiel.reward).tolist()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state `player_id` cannot tell from this one: the deck cards it has not seen redrawn."""
        state = self.clone()
        if state.game is not None:
            seed = int(probability_sampler() * 2**63)
            state.game.resample_hidden(player_id, np.random.default_rng(seed))
            state._forget_future()
        return state

    def __str__(self):
        """The board, then what chance decides next (if anything)."""
        if self.game is None:
            return f"before setup (chance: {self._describe_need()})"
        board = board_text(self.game)
        return f"{board}\nchance: {self._describe_need()}" if self._need else board

    def _describe_need(self) -> str:
        kind = self._need[0]
        if kind == "setup":
            return f"one of {self._spiel.setups} seeded setups"
        if kind == "roll":
            return f"a die {self._need[1]}..{self._need[2] - 1} for {self.game.action_to_string(self._pending)}" \
                   + (f" after {', '.join(map(str, self._rolls))}" if self._rolls else "")
        return f"the card at deck place {self._need[1]} for {self.game.action_to_string(self._pending)}"

    # ----------------------------------------------------------------- chance
    def _advance(self) -> None:
        """Try the pending action on a clone; the first undecided card or die it reads becomes
        the next chance node, and once it reads none the clone is the new game."""
        game, trial = self.game, self.game.clone()
        if trial.apply_with_dice(self._pending, self._rolls):          # it rolls one die more: a chance node
            market = (self._pending - A.PLACE) // NUM_BIDS           # only a placement's closing check rolls
            self._need = ("roll", 1, game.stall(market).closing.params["sides"] + 1)
            return
        read = list(range(game.state.deck_pos, trial.state.deck_pos))
        if _oracle_looked(game, trial):
            read += range(max(trial.state.oracle_from, trial.state.deck_pos), len(trial.deck))
        undecided = [pos for pos in read if pos not in self._fixed]
        if undecided:
            self._need = ("card", undecided[0])
            self._fixed.add(undecided[0])       # decided by the outcome that follows
            return
        self._commit(trial)

    def _commit(self, trial: NefertitiGame) -> None:
        game, seat = self.game, self.game.current_player
        drawn = trial.deck[game.state.deck_pos:trial.state.deck_pos].tolist()
        text = (f"{seat}:{self._pending}" + "".join(f" roll {r}" for r in self._rolls)
                + "".join(f" drew {c}" for c in drawn))
        if trial.private_to[-1] >= 0:        # the core's per-seat history: others see that seat chose, not what
            self._log.append((seat, text, f"{seat}:?"))
        else:
            self._log.append((-1, text, None))
        if _oracle_looked(game, trial):
            seen = trial.deck[trial.state.oracle_from:].tolist()
            self._log.append((int(trial.state.oracle_seat), "saw " + " ".join(map(str, seen)), None))
        self.game = trial
        self._fixed = {pos for pos in self._fixed if pos >= trial.state.deck_pos}
        self._pending, self._rolls, self._need = None, [], ()

    def _card_odds(self, pos: int) -> list[tuple[int, float]]:
        """Chance of each card at deck place `pos`, given the decided places: the setup's shuffle."""
        g = self.game
        free = self._free_places()
        cards = g.deck[free + [pos]]
        gifts = np.bincount(cards[cards != g.kind_akhenaton], minlength=g.kind_akhenaton)
        bottom = len(g.deck) - g.rules.setup["akhenaton_among_last"]
        akhenaton = 0.0
        if (cards == g.kind_akhenaton).any() and pos >= bottom:
            akhenaton = 1.0 / sum(1 for p in free + [pos] if p >= bottom)
        odds = [(k, (1 - akhenaton) * c / gifts.sum()) for k, c in enumerate(gifts.tolist()) if c]
        return odds + ([(g.kind_akhenaton, akhenaton)] if akhenaton else [])

    def _decide(self, pos: int, card: int) -> None:
        """Put `card` at deck place `pos` (marked decided), taking it from an undecided place."""
        deck, free = self.game.deck, self._free_places()
        source = next(p for p in free + [pos] if deck[p] == card)
        deck[source], deck[pos] = deck[pos], card
        self._forget_future()

    def _free_places(self) -> list[int]:
        return [p for p in range(self.game.state.deck_pos, len(self.game.deck)) if p not in self._fixed]

    def _forget_future(self) -> None:
        """Undecided deck places in canonical order (gifts sorted, the Akhenaton card last); no generator."""
        game, free = self.game, self._free_places()
        game.deck[free] = np.sort(game.deck[free])      # the Akhenaton code is the largest: it goes last
        game.rng_state = _NO_FUTURE


def _oracle_looked(before: NefertitiGame, after: NefertitiGame) -> bool:
    """Did the action between the two see the bottom of the deck (the Oracle)?"""
    a, b = after.state, before.state
    return a.oracle_seat >= 0 and (a.oracle_seat, a.oracle_from) != (b.oracle_seat, b.oracle_from)


def _card_name(game: NefertitiGame, code: int) -> str:
    return "Akhenaton" if code == game.kind_akhenaton else game.rules.kind_names[code]


def _ranges(values: list[int]) -> str:
    """`[0, 1, 2, 5]` as "0..2, 5": the possible outcomes of a chance node, short even for 1000 setups."""
    parts, start = [], None
    for i, v in enumerate(values):
        start = v if start is None else start
        if i + 1 == len(values) or values[i + 1] != v + 1:
            parts.append(f"{start}..{v}" if v > start else str(v))
            start = None
    return ", ".join(parts)


class Observer:
    """Tensors (information state and observation): the seat's v1 observation; strings: the player's
    history (perfect recall) or its view."""

    def __init__(self, iig_obs_type):
        self.perfect_recall = iig_obs_type.perfect_recall
        self.tensor = np.zeros(V1_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: NefertitiOpenSpielState, player: int) -> None:
        self.tensor[:] = 0 if state.game is None else observe_v1(state.game, player)

    def string_from(self, state: NefertitiOpenSpielState, player: int) -> str:
        if self.perfect_recall:
            shown = (text if seat in (-1, player) else hidden for seat, text, hidden in state._log)
            return f"p{player}|" + "|".join(text for text in shown if text is not None)
        if state.game is None:
            return f"p{player} before setup"
        view = observation_dict(state.game, player)
        view.pop("legal_actions")
        return str(view)


pyspiel.register_game(GAME_TYPE, NefertitiOpenSpielGame)
