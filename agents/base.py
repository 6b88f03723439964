"""The bot interface: a bot decides from the NefertitiGame it is given, for one seat.

The same object is reachable inside the PettingZoo env as `env.unwrapped.game`,
so every bot plays both on the raw core and in the env (`act_in_env`). A bot may
read everything its seat can see on the table but never the order of the undrawn
deck nor the game's random generator: lookahead goes through `hidden.determinize`.
"""
from __future__ import annotations

import time

import numpy as np


class Agent:
    """A seat's decision maker. Subclasses set `name` and implement `act`."""

    name = "agent"
    bounds: dict[str, str] = {}     # spec parameter -> its range, e.g. {"iterations": ">= 1"}

    def __init__(self, seed: int | None = None):
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game: reseed the bot's own generator (same seed, same decisions)."""
        self.rng = np.random.default_rng(seed)

    def act(self, game, seat: int) -> int:
        """A legal action id for `seat`, which must be `game.current_player`."""
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


def seat_of(env, agent: str) -> int:
    """The seat of a PettingZoo agent name ('player_2' -> 2)."""
    return env.unwrapped.possible_agents.index(agent)


def act_in_env(env, bot: Agent):
    """The action `bot` takes for `env.agent_selection` (None once that agent is done)."""
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        return None
    game = env.unwrapped.game
    seat = seat_of(env, agent)
    if seat != game.current_player:
        raise RuntimeError(f"env selects {agent} but the game waits for seat {game.current_player}")
    return bot.act(game, seat)


def agent_for_env(env, bot: Agent):
    """A policy callable `policy(observation, agent) -> action` for PettingZoo loops."""
    def policy(observation=None, agent=None):
        return act_in_env(env, bot)
    return policy


def compile_here(agents, **game_args) -> None:
    """One decision of each agent at a fresh table (`game_args`), and the results every game ends with,
    in this process: numba compiles their code here, once, before worker processes start (forked ones
    inherit it, others load it from the cache) instead of in every worker at once, the same code
    compiled side by side on a fresh install."""
    from nefertiti_env import NefertitiGame

    game = NefertitiGame(seed=0, **game_args)
    for agent in agents:
        agent.act(game, game.current_player)
    game.winners()


def play_game(game, bots: list[Agent], on_decision=None):
    """Play `game` to the end with bots[seat] deciding for each seat; returns the game.

    `on_decision(seat, action, cpu_seconds)` is called after each decision (timing, logs);
    the bot's thinking time is measured in CPU time, which a busy machine does not inflate.
    """
    while not game.is_over():
        seat = game.current_player
        start = time.process_time()
        action = bots[seat].act(game, seat)
        elapsed = time.process_time() - start
        game.apply(action)
        if on_decision is not None:
            on_decision(seat, action, elapsed)
    return game
