"""A policy's networks as flat float32 arrays and their forward pass, compiled: a trained agent's actor
(`ppo.PPOAgent`, one observation a decision), the actor of frozen snapshots at the batched env's
tables (training/snapshot_tables.py) and the critic at the search's leaves (`mcts`, `leaf_value`): at
batch size 1 a torch call costs several times the arithmetic. The outputs are torch's up to float32
rounding."""
from __future__ import annotations

import numpy as np

from nefertiti_env.core.engine.entry import njit

ACTIVATIONS = ("Tanh", "ReLU")
HEADS = ("actor", "critic")


def mlp_layers(policy, head: str = "actor") -> tuple[list[np.ndarray], np.ndarray, str]:
    """The actor (logits) or critic (value) of a MaskableActorCriticPolicy as (per layer: its weights
    transposed, then its bias; flattened), its layer sizes (inputs, then each layer's outputs) and its
    hidden activation. A ValueError for networks this module cannot run."""
    import torch

    if head not in HEADS:
        raise ValueError(f"head must be one of {', '.join(HEADS)}; got {head!r}")
    actor = head == "actor"
    body = policy.mlp_extractor.policy_net if actor else policy.mlp_extractor.value_net
    modules = list(body) + [policy.action_net if actor else policy.value_net]
    linear = [m for m in modules if isinstance(m, torch.nn.Linear)]
    hidden = {type(m).__name__ for m in modules if not isinstance(m, torch.nn.Linear)}
    extractor = policy.pi_features_extractor if actor else policy.vf_features_extractor
    flat = type(extractor).__name__ == "FlattenExtractor"
    if not flat or len(hidden) > 1 or not hidden <= set(ACTIVATIONS) or len(modules) != 2 * len(linear) - 1:
        raise ValueError(f"the {head} must be an MlpPolicy's (flattened observation, linear layers with one "
                         f"activation of {', '.join(ACTIVATIONS)}); got {body}")
    parts = [np.concatenate([m.weight.detach().numpy().T.ravel(), m.bias.detach().numpy()]) for m in linear]
    sizes = np.array([linear[0].in_features] + [m.out_features for m in linear], dtype=np.int64)
    return parts, sizes, hidden.pop() if hidden else ACTIVATIONS[0]


class Network:
    """One network of a policy ready for `forward`: params (float32, flat), sizes, relu. Called on one
    observation, it returns the network's output (a new float64 array)."""

    def __init__(self, policy, head: str = "actor"):
        parts, self.sizes, activation = mlp_layers(policy, head)
        self.params = np.concatenate(parts).astype(np.float32)
        self.relu = activation == "ReLU"
        self._x = np.empty(self.sizes.max(), dtype=np.float32)
        self._y = np.empty_like(self._x)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        x = self._x
        x[:self.sizes[0]] = observation
        n = forward(self.params, self.sizes, self.relu, x, self._y)
        return x[:n].astype(np.float64)


@njit(cache=True, nogil=True, fastmath=True)
def forward(p, sizes, relu, x, y) -> int:
    """The network stored at p (layers of sizes[0] inputs, then sizes[1:] outputs each; the activation
    after every layer but the last) on x[:sizes[0]]; its output is left in x[:sizes[-1]], y is work space
    (both of length sizes.max()). Returns the output's size."""
    n_in = sizes[0]
    off = 0
    for layer in range(len(sizes) - 1):
        n_out = sizes[layer + 1]
        off = _layer(p, off, x, y, n_in, n_out)
        if layer < len(sizes) - 2:
            for k in range(n_out):
                y[k] = max(y[k], 0.0) if relu else np.tanh(y[k])
        x[:n_out] = y[:n_out]
        n_in = n_out
    return n_in


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
