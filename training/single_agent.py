"""The single-agent Gymnasium view of a Nefertiti table: the adapter for your own SB3, TorchRL or other
Gymnasium code (`nefertiti train` steps the same transitions, many games at once, on the batched
engine: batched_vec_env.py).

Each episode the learner takes a seat drawn at random; the other seats are played
inside the environment by opponents from an `OpponentPool`. `step(action)` applies
the learner's decision, then lets the opponents decide until the learner must
decide again (`game.current_player == seat`: during a market resolution that can
happen on another seat's turn, since each servant's owner chooses) or the game
ends. So every transition is the learner's own, and the learner's terminal reward
arrives on its own last transition even when an opponent made the game's last
move (unlike PettingZoo's SB3 tutorial, which hands the mover's reward to the next
player's observation). Rewards before the end are 0; a game cut short by the decision limit
(game option `max_decisions`) ends the episode with truncated=True and reward 0.
"""
from __future__ import annotations

import gymnasium
import numpy as np
from gymnasium import spaces

from nefertiti_env import NUM_ACTIONS, IllegalActionError, NefertitiGame, load_ruleset
from nefertiti_env.core.actions import action_id
from nefertiti_env.encoding import observation_version
from nefertiti_env.env.aec import REWARDS, final_rewards
from nefertiti_env.env.options import RENDER_MODES, check_options, check_render_mode
from nefertiti_env.env.render import render_game

from .opponents import OpponentPool


class SingleAgentEnv(gymnasium.Env):
    """The learner at one seat of a `num_players` table; opponents from `opponents` (random bots by default).

    Observation: the encoder's float32 vector from the learner's seat, `observation` the compact "v1", "v0"
    (the same in 3,225 floats) or "v2" (v1 and the table); with `dict_observation=True`, PettingZoo's
    {"observation": that vector, "action_mask": int8[NUM_ACTIONS]} (what TorchRL's ActionMask transform reads).
    Action: the flat action id (Discrete(NUM_ACTIONS)); the legal ones are `info["action_mask"]` and
    `action_masks()` (what MaskablePPO asks for).
    reward: one of the AEC env's reward types ("win_loss", "rank", "score_diff").
    opponents: an OpponentPool, or its kind weights ({"greedy": 1.0}).
    illegal: "raise" (an illegal action raises IllegalActionError) or "lose" (it ends
    the episode with reward -1, like PettingZoo's TerminateIllegalWrapper; what env
    checkers and unmasked agents need). render_mode: None, "ansi", "human" or
    "rgb_array", as in the PettingZoo env. Other keywords are game options for
    NefertitiGame (memphis, characters, max_decisions); any other keyword is a TypeError naming the known
    ones, raised here and not at reset(). `reset(options={"game": g, "seat": s})` starts from a given
    position instead of a new game.

    `info` has the same keys and types at reset and at every step (vector envs
    stack them): seat (int), opponents (str: their kind, or "mixed"), win (bool),
    score (int: the final score; 0 until the end), illegal (bool), action_mask (int8[NUM_ACTIONS]: the
    learner's legal actions; all zeros once the episode has ended).
    """

    metadata = {"render_modes": RENDER_MODES, "render_fps": 1}

    def __init__(self, num_players: int = 4, ruleset="default", setup: str = "beginner", reward: str = "win_loss",
                 opponents: OpponentPool | dict[str, float] | None = None, illegal: str = "raise",
                 observation: str = "v1", dict_observation: bool = False, render_mode: str | None = None, **options):
        check_render_mode(render_mode)
        check_options(type(self), options)
        if illegal not in ("raise", "lose"):
            raise ValueError(f"illegal must be 'raise' or 'lose'; got {illegal!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}; got {reward!r}")
        self.reward = reward
        self.encoder = observation_version(observation)
        self.illegal = illegal
        self.render_mode = render_mode
        self.dict_observation = dict_observation
        self.opponents = opponents if isinstance(opponents, OpponentPool) else OpponentPool(opponents or {"random": 1.0})
        self._game_args = dict(num_players=num_players, ruleset=load_ruleset(ruleset), setup=setup, **options)
        self.num_players = num_players
        rules = NefertitiGame(seed=0, **self._game_args).rules       # checks the game options now
        high = self.encoder.high(rules)
        vector = spaces.Box(low=0.0, high=high, shape=high.shape, dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8)
        self.observation_space = spaces.Dict({"observation": vector, "action_mask": mask}) if dict_observation else vector
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: NefertitiGame | None = None
        self.seat = -1
        self.bots: dict = {}
        self.done = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        options = options or {}
        if "game" in options:
            self.game = options["game"]
            self.seat = int(options["seat"])
        else:
            self.game = NefertitiGame(seed=int(rng.integers(2**63)), **self._game_args)
            self.seat = int(rng.integers(self.num_players))
        self.bots = self.opponents.table(rng, [s for s in range(self.game.num_players) if s != self.seat])
        names = {bot.name for bot in self.bots.values()}
        self._opponent_kind = names.pop() if len(names) == 1 else "mixed"
        self.done = False
        self._play_opponents()
        return self._render_and_observe(), self._info()

    def step(self, action):
        game = self.game
        if self.done or game.current_player != self.seat:
            raise RuntimeError("step() called after the episode ended (or before reset()): call reset()")
        try:
            game.apply(action_id(action))
        except IllegalActionError as err:
            if self.illegal == "raise":
                raise IllegalActionError(f"learner at seat {self.seat}: {err}") from None
            self.done = True
            return self._render_and_observe(), -1.0, True, False, self._info(illegal=True)
        self._play_opponents()
        if not game.is_over():
            return self._render_and_observe(), 0.0, False, False, self._info()
        self.done = True
        truncated = game.is_truncated()            # the decision limit: nobody won, reward 0
        reward = 0.0 if truncated else float(final_rewards(game, self.reward)[self.seat])
        return self._render_and_observe(), reward, not truncated, truncated, self._info()

    def render(self):
        return render_game(self.game, self.render_mode)

    def _render_and_observe(self):
        """The learner's observation now; in "human" mode the board is printed first (Gymnasium's convention)."""
        if self.render_mode == "human":
            self.render()
        vector = self.encoder.observe(self.game, self.seat)
        return {"observation": vector, "action_mask": self._mask()} if self.dict_observation else vector

    def _mask(self) -> np.ndarray:
        """The learner's legal actions as int8 (a new array each call: vector envs keep them); none once done."""
        return np.zeros(NUM_ACTIONS, np.int8) if self.done else self.game.legal_action_mask(writable=True)

    def _info(self, illegal: bool = False) -> dict:
        """The same keys and types at every reset and step; win and score are the final ones."""
        over = self.game.is_over()
        return {"seat": self.seat, "opponents": self._opponent_kind,
                "win": self.game.is_terminated() and self.seat in self.game.winners(),
                "score": int(self.game.scores()[self.seat]) if over else 0, "illegal": illegal,
                "action_mask": self._mask()}

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, as booleans (sb3-contrib's MaskablePPO asks for this)."""
        return self.game.legal_action_mask().astype(bool)

    def add_snapshot(self, path: str) -> None:
        """Add a learner snapshot to this environment's opponent pool."""
        self.opponents.add_snapshot(path)

    def _play_opponents(self) -> None:
        game = self.game
        while not game.is_over() and game.current_player != self.seat:
            seat = game.current_player
            game.apply(self.bots[seat].act(game, seat))
