"""The rules core: state, legal actions, apply, scoring. No RL imports here."""
from .actions import NUM_ACTIONS
from .game import HIDDEN, IllegalActionError, NefertitiGame
from .state_io import StateError
from .ruleset import Ruleset, RulesetError, load_ruleset

__all__ = ["HIDDEN", "NUM_ACTIONS", "IllegalActionError", "NefertitiGame", "Ruleset", "RulesetError", "StateError", "load_ruleset"]
