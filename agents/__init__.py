"""Bots for Nefertiti: one interface (`Agent.act(game, seat)`), usable on the core and in the env.

Make a bot from a spec string: `make_bot("mcts:iterations=400:c=1.0", seed=0)`; the part
before the first colon names the bot (see `BOTS`), each `key=value` sets a constructor
parameter documented on the bot's class.
"""
from __future__ import annotations

import dataclasses
import inspect
import typing

from . import kernel_cache  # noqa: F401  (declares what the bots' kernels compile in, before any compiles)
from .base import Agent, act_in_env, agent_for_env, play_game
from .champion import ChampionBot
from .evaluation import Weights
from .heuristic import BankerBot, CollectorBot, GreedyBot, HeuristicBot
from .mcts import MCTSBot
from .mixture import MixtureBot
from .policy_file import ModelFileError
from .ppo import PPOAgent
from .random_bot import RandomBot

BOTS: dict[str, type[Agent]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "collector": CollectorBot,
    "banker": BankerBot,
    "mcts": MCTSBot,
    "ppo": PPOAgent,          # ppo:path=RUN_FOLDER (or a model .pt)
    "champion": ChampionBot,  # the shipped PPO agent (agents/champion.pt, docs/champion.md)
    "mixture": MixtureBot,    # mixture:paths=A.pt+B.pt: one of several trained policies, drawn per game
}

# The shipped bots `nefertiti ladder` rates by default (agents/ladder.py), one line each. MCTS at
# two budgets: its default (800 iterations) and 50, to show what thinking buys; and the champion,
# the shipped PPO agent.
LADDER_BOTS = [
    "random",
    "greedy",
    "collector",
    "banker",
    "mcts:iterations=50",
    "mcts",
    "champion",
]


def parse_spec(spec: str) -> tuple[str, dict]:
    """'mcts:iterations=400:c=1.0' -> ('mcts', {'iterations': 400, 'c': 1.0}).

    Each value is converted to the type its bot's constructor declares and checked against the
    bot's `bounds`; a wrong type, an unknown or repeated key or a value out of range is a ValueError
    that names the bot, the key and the value."""
    name, *parts = spec.strip().split(":")
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (known: {', '.join(BOTS)})")
    types = parameter_types(BOTS[name])
    params = {}
    for part in parts:
        key, sep, text = part.partition("=")
        if not sep or not key:
            raise ValueError(f"bot parameter {part!r} in {spec!r} must be key=value")
        if key not in types:
            raise ValueError(f"{name}: unknown parameter {key!r} (known: {', '.join(types) or 'none'})")
        if key in params:                       # else the last would win unseen, e.g. a setting appended to a spec
            raise ValueError(f"{name}: parameter {key!r} is given twice in {spec!r}")
        params[key] = _convert(name, key, text, types[key])
        _check_bound(name, key, params[key], BOTS[name].bounds.get(key))
    return name, params


def parameter_types(cls: type[Agent]) -> dict[str, type]:
    """The spec parameters of a bot class and their types: its constructor's arguments that a text
    converts to (but the seed, which the caller gives; not a callable such as MCTS's `prior`), plus
    the evaluation weights if it takes `**weights`."""
    signature = inspect.signature(cls.__init__)
    hints = typing.get_type_hints(cls.__init__)
    types = {key: _base_type(hints.get(key, str)) for key, p in signature.parameters.items()
             if key not in ("self", "seed") and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    types = {key: t for key, t in types.items() if t in (int, float, bool, str)}
    if any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values()):
        types.update({f.name: float for f in dataclasses.fields(Weights)})
    return types


def _base_type(hint) -> type:
    """int | None -> int, str | Path -> str: the type a spec's text converts to."""
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return (str if str in args else args[0]) if args else hint


_TYPE_WORDS = {int: "an integer", float: "a number", bool: "0 or 1 (or true/false)"}
_BOOLS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}


def _convert(bot: str, key: str, text: str, kind: type):
    try:
        if kind is bool:
            return _BOOLS[text.lower()]
        return kind(text) if kind in (int, float) else text
    except (KeyError, ValueError):
        raise ValueError(f"{bot}: {key} must be {_TYPE_WORDS[kind]}, got {text!r}") from None


_COMPARE = {">=": float.__ge__, ">": float.__gt__, "<=": float.__le__, "<": float.__lt__}


def _check_bound(bot: str, key: str, value, bound: str | None) -> None:
    """`bound` is a bot's declared range for `key`, such as '>= 1' (None: any value)."""
    if bound is None:
        return
    op, limit = bound.split()
    if not _COMPARE[op](float(value), float(limit)):
        raise ValueError(f"{bot}: {key} must be {bound}, got {value}")


def make_bot(spec: str, seed: int | None = None) -> Agent:
    """A bot from its spec string, seeded; raises ValueError naming a bad name or parameter."""
    name, params = parse_spec(spec)
    try:
        bot = BOTS[name](seed=seed, **params)
    except TypeError as err:
        raise ValueError(f"bad parameters for bot {name!r} in {spec!r}: {err}") from None
    except (FileNotFoundError, ModelFileError) as err:
        raise ValueError(f"bot {spec!r}: {err}") from None
    bot.name = spec.strip()
    return bot


__all__ = ["Agent", "BOTS", "LADDER_BOTS", "BankerBot", "ChampionBot", "CollectorBot", "GreedyBot", "HeuristicBot",
           "MCTSBot", "MixtureBot", "PPOAgent", "RandomBot", "act_in_env", "agent_for_env", "make_bot", "parse_spec",
           "play_game"]
