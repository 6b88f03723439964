"""Observation encoding over the rules core: a float32 vector per seat and a readable dict view."""
from .observation import OBS_SIZE, observation_dict, observation_high, observe

__all__ = ["OBS_SIZE", "observation_dict", "observation_high", "observe"]
