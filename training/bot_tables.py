"""Heuristic bots at the batched env's tables, played in compiled code.

A bot table's opponent seats are all one heuristic bot (greedy, collector, banker, or a spec of
theirs such as "banker:samples=1"). `play_bots` moves every such game on, in place and across the
numba threads, until the learner's seat decides or the game ends; `NefertitiVectorEnv.resume` then
restarts the ended games and observes. The bots' decisions are `HeuristicBot.act`'s, kernel for
kernel (`agents.heuristic.best_action`), each table drawing from its own generator words.
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.agents import BOTS, HeuristicBot, make_bot, parse_spec
from nefertiti_env.core import actions as A
from nefertiti_env.core.engine import layout as L
from nefertiti_env.core.engine import step
from nefertiti_env.core.engine.rng import rng_words
from nefertiti_env.agents.heuristic import best_action
from nefertiti_env.agents.kernel_cache import KERNEL_SOURCES
from nefertiti_env.core.engine.cache import compiled_in
from nefertiti_env.core.engine.entry import njit
from nefertiti_env.vector import in_threads, numba_threads

compiled_in([__file__], KERNEL_SOURCES)      # its kernels compile the bots' in


def seats_at_bot_tables(spec: str) -> bool:
    """Whether the batched env can play `spec` at a bot table: a heuristic bot (greedy, collector,
    banker, or a spec of theirs)."""
    return issubclass(BOTS[parse_spec(spec)[0]], HeuristicBot)


def bot_parameters(spec: str) -> tuple[np.ndarray, int, int]:
    """(weights array, samples, power_depth) of a heuristic bot spec; a ValueError for any other bot."""
    if not seats_at_bot_tables(spec):
        raise ValueError(f"{spec!r} is not a heuristic bot (greedy, collector, banker): the batched env "
                         "plays only those at bot tables")
    bot = make_bot(spec, seed=0)
    return bot.weights.array(), bot.samples, bot.power_depth


def generator_words(seed: int) -> np.ndarray:
    """A table's generator, `np.random.default_rng(seed)`, as the words the kernels draw from."""
    return rng_words(np.random.default_rng(seed).bit_generator.state)


@njit(cache=True, nogil=True)
def play_bot_rows(R, rows, active, learner, G, W, samples, depth, lo, hi) -> None:
    """In every game i (lo <= i < hi) with active[i]: the bot of weights W[i] (samples[i], depth[i])
    plays every seat but learner[i] until that seat decides or the game is over; G[i] is the
    table's generator. A single legal action is played without drawing, as `HeuristicBot.act` does."""
    legal, mask = np.empty(A.NUM_ACTIONS, np.int64), np.empty(A.NUM_ACTIONS, np.int8)
    keys = np.empty(A.NUM_ACTIONS, np.int64)
    values = np.empty(A.NUM_ACTIONS, np.float64)
    for i in range(lo, hi):
        if not active[i]:
            continue
        S = rows[i]
        s = L.state(S)
        while not step.is_over(R, S) and s.actor != learner[i]:
            if step.legal_list_into(R, S, legal, mask) == 1:
                action = legal[0]
            else:
                action = best_action(R, S, s.actor, G[i], W[i], samples[i], depth[i], keys, values)
            step.apply(R, S, action)


def play_bots(R, rows, active, learner, G, W, samples, depth) -> None:
    """`play_bot_rows` over all rows, on every thread as soon as two games wait (a bot's move costs far
    more than waking a thread; `vector.in_threads`)."""
    chunks = max(1, min(numba_threads(), int(active.sum())))
    in_threads(play_bot_rows, len(rows), chunks, R, rows, active, learner, G, W, samples, depth, what="the bot tables")
