"""Bots for Nefertiti: one interface (`Agent.act(game, seat)`), usable on the core and in the env.

Make a bot from a spec string: `make_bot("mcts:iterations=400:c=1.0", seed=0)`; the part
before the first colon names the bot (see `BOTS`), each `key=value` sets a constructor
parameter documented on the bot's class.
"""
from __future__ import annotations

from .base import Agent, act_in_env, agent_for_env, play_game
from .heuristic import BankerBot, CollectorBot, GreedyBot, HeuristicBot
from .mcts import MCTSBot
from .ppo import PPOAgent
from .random_bot import RandomBot

BOTS: dict[str, type[Agent]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "collector": CollectorBot,
    "banker": BankerBot,
    "mcts": MCTSBot,
    "ppo": PPOAgent,          # ppo:path=RUN_FOLDER (or a model .zip / policy .pt)
}


def parse_spec(spec: str) -> tuple[str, dict]:
    """'mcts:iterations=400:c=1.0' -> ('mcts', {'iterations': 400, 'c': 1.0})."""
    name, *parts = spec.strip().split(":")
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})")
    params = {}
    for part in parts:
        key, sep, text = part.partition("=")
        if not sep or not key:
            raise ValueError(f"bot parameter {part!r} in {spec!r} must be key=value")
        params[key] = _number(text)
    return name, params


def _number(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def make_bot(spec: str, seed: int | None = None) -> Agent:
    """A bot from its spec string, seeded; raises ValueError naming a bad name or parameter."""
    name, params = parse_spec(spec)
    try:
        bot = BOTS[name](seed=seed, **params)
    except TypeError as err:
        raise ValueError(f"bad parameters for bot {name!r} in {spec!r}: {err}") from None
    except FileNotFoundError as err:
        raise ValueError(f"bot {spec!r}: {err}") from None
    bot.name = spec.strip()
    return bot


__all__ = ["Agent", "BOTS", "BankerBot", "CollectorBot", "GreedyBot", "HeuristicBot", "MCTSBot", "PPOAgent",
           "RandomBot", "act_in_env", "agent_for_env", "make_bot", "parse_spec", "play_game"]
