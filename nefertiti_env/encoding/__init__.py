"""Observation encoding over the rules core: a float32 vector per seat, a readable dict view, and
the global state vector (hidden information included) for centralised critics."""
from .observation import OBS_SIZE, observation_dict, observation_high, observe
from .state import global_state, state_high, state_size

__all__ = ["OBS_SIZE", "global_state", "observation_dict", "observation_high", "observe", "state_high", "state_size"]
