"""Observation encoding over the rules core: a float32 vector per seat and a readable dict view."""
from .observation import OBS_HIGH, OBS_SIZE, observation_dict, observe

__all__ = ["OBS_HIGH", "OBS_SIZE", "observation_dict", "observe"]
