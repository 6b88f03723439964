"""The PettingZoo AEC environment (`raw_env`) and its wrapped factory (`env`)."""
from .aec import REWARDS, env, final_rewards, raw_env

__all__ = ["REWARDS", "env", "final_rewards", "raw_env"]
