"""Nefertiti (Matagot, 2008) as a reinforcement-learning environment.

Layers, one direction of dependency: `core` (rules) <- `encoding` (observations)
<- `env` (PettingZoo). Importing this package registers the PettingZoo
environment "nefertiti/Nefertiti-v0".
"""
from .core import NUM_ACTIONS, IllegalActionError, NefertitiGame, Ruleset, RulesetError, load_ruleset

__all__ = ["NUM_ACTIONS", "IllegalActionError", "NefertitiGame", "Ruleset", "RulesetError", "load_ruleset"]
