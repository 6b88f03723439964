"""Nefertiti (Matagot, 2008) as a reinforcement-learning environment.

Layers, one direction of dependency: `core` (rules) <- `encoding` (observations)
<- `env` (PettingZoo). Importing this package registers the PettingZoo
environments "nefertiti/Nefertiti-v0", "nefertiti/Nefertiti-v1" and "nefertiti/Nefertiti-v2", each
with the observation version its id names (v0 the full 3,225 floats, v1 the same in 657, v2 v1 and the
table; `env()` and `raw_env()`, exported like PettingZoo's classic environments, default to v1), and
registers the single-agent Gymnasium view "nefertiti/NefertitiSingleAgent-v0" (the learner at one
seat, opponents played inside; `training.single_agent`, imported only by `gymnasium.make`; v0
observations unless `observation=` says otherwise: a registered id keeps what it gave).
"""
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec

from .core import NUM_ACTIONS, IllegalActionError, NefertitiGame, Ruleset, RulesetError, StateError, load_ruleset

try:
    __version__ = version("nefertiti-env")
except PackageNotFoundError:                     # the source tree, not installed
    __version__ = "0+unknown"

__all__ = ["NUM_ACTIONS", "IllegalActionError", "NefertitiGame", "Ruleset", "RulesetError", "StateError", "load_ruleset"]

if find_spec("pettingzoo") is not None:          # the rules core also works without the RL stack
    import pettingzoo as _pettingzoo

    from .env.aec import env, raw_env

    # each id names its observation version, whatever raw_env's default
    _pettingzoo.register("aec", "nefertiti/Nefertiti-v0", entry_point="nefertiti_env.env.aec:env",
                         kwargs={"observation": "v0"})
    _pettingzoo.register("aec", "nefertiti/Nefertiti-v1", entry_point="nefertiti_env.env.aec:env",
                         kwargs={"observation": "v1"})
    _pettingzoo.register("aec", "nefertiti/Nefertiti-v2", entry_point="nefertiti_env.env.aec:env",
                         kwargs={"observation": "v2"})
    __all__ += ["env", "raw_env"]

    import gymnasium as _gymnasium

    # an illegal action loses (reward -1) instead of raising: env checkers and unmasked agents send any action
    _gymnasium.register("nefertiti/NefertitiSingleAgent-v0", entry_point="nefertiti_env.training.single_agent:SingleAgentEnv",
                        kwargs={"illegal": "lose", "observation": "v0"})
