"""Snapshot opponents at the batched env's tables, decided in one compiled call.

A snapshot table's opponent seats are all one frozen copy of the learner. One torch forward pass
per distinct snapshot costs the same whatever the batch, and an opponent decision needed up to
one pass per snapshot in the pool, so a full pool slowed training (`benchmarks/train_speed.py
--mixes champion --snapshots 20` measures it).
Here the actor networks of the pool are stacked in one array and all waiting tables are decided by
one call, each row through its own snapshot's layers, skipping the observation's zero entries
(most of them) in the first layer. The logits are the torch policy's up to float32 rounding. The
kernel calls no other compiled code, so numba's own cache check (this file's time stamp) suffices.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from nefertiti_env.agents import BOTS, PPOAgent, make_bot, parse_spec

ACTIVATIONS = ("Tanh", "ReLU")


def plays_at_snapshot_tables(spec: str) -> bool:
    """Whether the batched env can play `spec` like a snapshot: a fixed trained policy (`champion`,
    `ppo:path=...`) without search at play time (a search is no single forward pass)."""
    name, params = parse_spec(spec)
    return issubclass(BOTS[name], PPOAgent) and not params.get("search", 0)


def fixed_policy(spec: str):
    """(policy, deterministic) of a `plays_at_snapshot_tables` spec: a fixed opponent such as the
    agent a best response is trained against (benchmarks/exploitability.py)."""
    if not plays_at_snapshot_tables(spec):
        raise ValueError(f"{spec!r} is not a trained policy without search (champion, ppo:path=...): the "
                         "batched env plays only those like snapshots")
    bot = make_bot(spec, seed=0)
    return bot.policy, bot.deterministic


def actor_layers(policy) -> tuple[list[np.ndarray], np.ndarray, str]:
    """The actor of a MaskableActorCriticPolicy as (per layer: its weights transposed, then its
    bias; flattened), its layer sizes (inputs, then each layer's outputs) and its hidden activation.
    A ValueError for networks this module cannot run."""
    import torch

    modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    linear = [m for m in modules if isinstance(m, torch.nn.Linear)]
    hidden = {type(m).__name__ for m in modules if not isinstance(m, torch.nn.Linear)}
    flat = type(policy.pi_features_extractor).__name__ == "FlattenExtractor"
    if not flat or len(hidden) > 1 or not hidden <= set(ACTIVATIONS) or len(modules) != 2 * len(linear) - 1:
        raise ValueError("a snapshot must be an MlpPolicy actor (flattened observation, linear layers with one "
                         f"activation of {', '.join(ACTIVATIONS)}); got {policy.mlp_extractor.policy_net}")
    parts = [np.concatenate([m.weight.detach().numpy().T.ravel(), m.bias.detach().numpy()]) for m in linear]
    sizes = np.array([linear[0].in_features] + [m.out_features for m in linear], dtype=np.int64)
    return parts, sizes, hidden.pop() if hidden else ACTIVATIONS[0]


class SnapshotStack:
    """The actors of the snapshots in play, one row of `params` each (`add` returns its row)."""

    def __init__(self):
        self.params = None
        self.sizes = None
        self.activation = None

    def __len__(self) -> int:
        return 0 if self.params is None else len(self.params)

    def add(self, policy) -> int:
        parts, sizes, activation = actor_layers(policy)
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
    """out[r] = the actor of snapshot row which[r] on obs[r]: its layers (sizes[0] inputs, then
    sizes[1:] outputs each), the activation after every layer but the last."""
    width = sizes.max()
    x = np.empty(width, dtype=np.float32)
    y = np.empty(width, dtype=np.float32)
    for r in range(len(which)):
        p = params[which[r]]
        n_in = sizes[0]
        x[:n_in] = obs[r]
        off = 0
        for layer in range(len(sizes) - 1):
            n_out = sizes[layer + 1]
            off = _layer(p, off, x, y, n_in, n_out)
            if layer < len(sizes) - 2:
                for k in range(n_out):
                    y[k] = max(y[k], 0.0) if relu else np.tanh(y[k])
            x[:n_out] = y[:n_out]
            n_in = n_out
        out[r] = x[:n_in]


@njit(cache=True, nogil=True, fastmath=True)
def _layer(p, off, x, y, n_in, n_out):
    """y = b + x W for the layer stored at p[off:]: W transposed (row j: input j's weights to every
    output, so a zero input is skipped), then b. Returns the next layer's offset. (A function of its
    own: inlined in the loop above, the inner loop was not vectorised.)"""
    bias = off + n_in * n_out
    for k in range(n_out):
        y[k] = p[bias + k]
    for j in range(n_in):
        v = x[j]
        if v != 0.0:
            w = p[off + j * n_out: off + (j + 1) * n_out]
            for k in range(n_out):
                y[k] += v * w[k]
    return bias + n_out
