"""Observation encoding over the rules core: a float32 vector per seat (v0, the compact v1, or v2: v1 and the
table), a readable dict view, and the global state vector (hidden information included) for centralised critics."""
from .compact import V1_SIZE, observe_v1
from .observation import OBS_SIZE, observation_dict, observation_high, observe
from .state import global_state, state_high, state_size
from .table import V2_SIZE, observe_v2
from .versions import OBSERVATIONS, observation_version

__all__ = ["OBSERVATIONS", "OBS_SIZE", "V1_SIZE", "V2_SIZE", "global_state", "observation_dict", "observation_high",
           "observation_version", "observe", "observe_v1", "observe_v2", "state_high", "state_size"]
