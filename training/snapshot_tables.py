"""Snapshot opponents at the batched env's tables, decided in one compiled call.

A snapshot table's opponent seats are all one frozen copy of the learner. One torch forward pass
per distinct snapshot costs the same whatever the batch, and an opponent decision needed up to
one pass per snapshot in the pool, so a full pool slowed training (`benchmarks/train_speed.py
--mixes champion --snapshots 20` measures it).
Here the actor networks of the pool are stacked in one array and all waiting tables are decided by
one call, each row through its own snapshot's layers, skipping the observation's zero entries
(most of them) in the first layer (`agents.network`, whose forward pass the search's learnt leaf
value shares). The logits are the torch policy's up to float32 rounding.
"""
from __future__ import annotations

import numpy as np

from nefertiti_env.agents import BOTS, MixtureBot, PPOAgent, make_bot, parse_spec
from nefertiti_env.agents import network
from nefertiti_env.agents.network import forward, mlp_layers
from nefertiti_env.core.engine.cache import compiled_in
from nefertiti_env.core.engine.entry import njit

compiled_in([__file__], [network.__file__])       # its kernels compile the networks' forward pass in


def plays_at_snapshot_tables(spec: str) -> bool:
    """Whether the batched env can play `spec` like a snapshot: a fixed trained policy (`champion`,
    `ppo:path=...`) or a mixture of them (`mixture:paths=...`, `champion:league=1`), without search at play time
    (a search is no single forward pass)."""
    name, params = parse_spec(spec)
    return issubclass(BOTS[name], (PPOAgent, MixtureBot)) and not params.get("search", 0)


def fixed_policies(spec: str, num_players: int):
    """(policies, deterministic) of a `plays_at_snapshot_tables` spec at a table of `num_players`: the policies it
    may play there, one drawn per game and seat as the bot draws them (one for a single policy), such as the
    agent a best response is trained against (benchmarks/exploitability.py)."""
    if not plays_at_snapshot_tables(spec):
        raise ValueError(f"{spec!r} is not a trained policy or a mixture of them without search (champion, "
                         "ppo:path=..., mixture:paths=...): the batched env plays only those like snapshots")
    members = make_bot(spec, seed=0).members_at(num_players)        # they share the spec's `deterministic`
    return [member.policy for member in members], members[0].deterministic


class SnapshotStack:
    """The actors of the snapshots in play, one row of `params` each (`add` returns its row)."""

    def __init__(self):
        self.params = None
        self.sizes = None
        self.activation = None

    def __len__(self) -> int:
        return 0 if self.params is None else len(self.params)

    def add(self, policy) -> int:
        parts, sizes, activation = mlp_layers(policy, "actor")
        row = np.concatenate(parts).astype(np.float32)[None]
        if self.params is None:
            self.params, self.sizes, self.activation = row, sizes, activation
        elif not np.array_equal(sizes, self.sizes) or activation != self.activation:
            raise ValueError(f"a snapshot's actor has layers {sizes.tolist()} ({activation}) but the pool's have "
                             f"{self.sizes.tolist()} ({self.activation})")
        else:
            self.params = np.concatenate([self.params, row])
        return len(self.params) - 1

    def keep(self, rows: np.ndarray) -> None:
        """Keep only these rows (sorted), in this order."""
        self.params = self.params[rows]

    def logits(self, which: np.ndarray, obs: np.ndarray) -> np.ndarray:
        """The actor logits of observation i under snapshot row which[i]."""
        out = np.empty((len(which), self.sizes[-1]), dtype=np.float32)
        actor_logits(self.params, self.sizes, self.activation == "ReLU", which.astype(np.int64), obs, out)
        return out


@njit(cache=True, nogil=True, fastmath=True)
def actor_logits(params, sizes, relu, which, obs, out):
    """out[r] = the actor of snapshot row which[r] on obs[r] (`network.forward`)."""
    width = sizes.max()
    x = np.empty(width, dtype=np.float32)
    y = np.empty(width, dtype=np.float32)
    for r in range(len(which)):
        x[:sizes[0]] = obs[r]
        n = forward(params[which[r]], sizes, relu, x, y)
        out[r] = x[:n]
