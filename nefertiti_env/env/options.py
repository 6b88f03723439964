"""Keyword checks shared by every registered env, so a mistake fails at construction, not at reset().

Tools pass keywords blindly (SB3's `make_vec_env` adds `render_mode`, TorchRL's `GymEnv` adds
`frameskip` and drops it again on a TypeError that says "unexpected keyword argument"), and a typo
such as `num_player=3` must not pass silently into the game options.
"""
from __future__ import annotations

import inspect

from ..core import NefertitiGame

RENDER_MODES = ["ansi", "human", "rgb_array"]
# NefertitiGame's keywords an env passes through as game options (the seed comes from reset())
GAME_OPTIONS = tuple(name for name in inspect.signature(NefertitiGame).parameters
                     if name not in ("num_players", "ruleset", "seed", "setup"))


def check_options(env_class: type, options: dict) -> None:
    """Every keyword left over by `env_class`'s own parameters must be a game option.

    The error is a TypeError in Python's own wording ("got an unexpected keyword argument") that
    also lists the known keywords."""
    unknown = [key for key in options if key not in GAME_OPTIONS]
    if unknown:
        own = [name for name in inspect.signature(env_class).parameters if name != "options"]
        raise TypeError(f"{env_class.__name__}() got an unexpected keyword argument {unknown[0]!r} "
                        f"(known: {', '.join(own + list(GAME_OPTIONS))})")


def check_render_mode(render_mode: str | None) -> None:
    """Gymnasium's convention: None or one of metadata["render_modes"]."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {RENDER_MODES}; got {render_mode!r}")
