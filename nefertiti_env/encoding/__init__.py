"""Observation encoding over the rules core: a float32 vector per seat (v0, or the compact v1), a readable
dict view, and the global state vector (hidden information included) for centralised critics."""
from .compact import V1_SIZE, observe_v1
from .observation import OBS_SIZE, observation_dict, observation_high, observe
from .state import global_state, state_high, state_size
from .versions import OBSERVATIONS, observation_version

__all__ = ["OBSERVATIONS", "OBS_SIZE", "V1_SIZE", "global_state", "observation_dict", "observation_high",
           "observation_version", "observe", "observe_v1", "state_high", "state_size"]
