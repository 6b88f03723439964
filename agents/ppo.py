"""A trained MaskablePPO policy as a bot, so trained agents enter tournaments like any other.

`PPOAgent(path)` loads a model file (`.pt`: a run's `final_model.pt`, a checkpoint's
`model.pt` or an opponent-pool snapshot) or a run folder (its final model), without
unpickling anything (`agents.policy_file`). It observes its seat with the encoder it was
trained on (v0 or v1, told by the policy's input size) and chooses among the legal actions only. Sampled actions
(`deterministic=False`) come from the bot's own seeded generator, so the same
seed gives the same decisions. torch and sb3-contrib load on first use.

With `search=N` the policy plays through the search bot instead: N iterations of MCTS whose root
is guided by the policy's probabilities (`MCTSBot`'s `prior`: one forward pass per decision); with
`leaf_value=1` its leaves are evaluated by the policy's own critic instead of the heuristic
(`MCTSBot`'s `value`; between 0 and 1, a mix of the two).
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from nefertiti_env.encoding import OBSERVATIONS
from nefertiti_env.encoding.versions import version_of_size

from . import policy_file
from .base import Agent
from .mcts import ROOT_WIDTH, UCB_C, MCTSBot
from .network import Network


FINAL_MODEL, LEGACY_FINAL_MODEL = "final_model.pt", "final_model.zip"
CHAMPION = "champion"        # the name `SHIPPED` knows the champion's weights by
# In a worker of a Ray cluster (agents/cluster.py): the model files the head sent by value, by the
# name a bot spec gives them (its path, or CHAMPION) -> this machine's copy; empty elsewhere.
SHIPPED: dict[str, Path] = {}


def model_file(path: str | Path) -> Path:
    """The model file a path names: the file itself, or a run folder's final model (an older run's
    final_model.zip is named, so that loading it says it is an unsafe legacy format)."""
    path = Path(path)
    if not path.is_dir():
        return path
    legacy = path / LEGACY_FINAL_MODEL
    return legacy if legacy.is_file() and not (path / FINAL_MODEL).is_file() else path / FINAL_MODEL


def load_policy(path: str | Path):
    """The MaskableActorCriticPolicy stored at `path` (model file or run folder), on CPU.

    Loaded once per process and file version (bots are made per game; the policy is only read)."""
    path = model_file(SHIPPED.get(str(path), path))
    if not path.is_file():
        raise FileNotFoundError(f"no PPO model at {path}")
    return _load(str(path.resolve()), path.stat().st_mtime_ns)


@lru_cache(maxsize=32)
def _load(path: str, mtime_ns: int):
    return policy_file.load_policy(path)


PUCT = 1.0          # the PUCT term's weight at a policy-guided root (docs/champion.md, "With search at play time")


class PPOAgent(Agent):
    """Plays a trained policy: the most likely legal action, or one sampled from its probabilities.

    path: a model `.pt` file or a run folder.
    deterministic: 1 (default) plays the most likely action, 0 samples.
    search: if > 0, search this many MCTS iterations per decision with the policy as the root's prior
        (`MCTSBot`: the root searches the policy's `width` most likely actions, with the PUCT term
        weighted `puct`) and play the most visited action (`deterministic` then unused); 0 (default)
        plays the policy alone.
    leaf_value: with search, the weight of the policy's critic in the leaves' evaluation (`MCTSBot`): 0
        (default) the heuristic rollout alone, 1 the critic alone.
    c, widen: with search, the UCB exploration constant and the progressive widening below the root
        (`MCTSBot`'s; defaults `UCB_C` and 0, off).
    """

    name = "ppo"
    bounds = {"search": ">= 0", "width": ">= 0", "puct": ">= 0", "leaf_value": ">= 0", "c": ">= 0", "widen": ">= 0"}

    def __init__(self, path: str | Path, deterministic: bool = True, seed: int | None = None, search: int = 0,
                 width: int = ROOT_WIDTH, puct: float = PUCT, leaf_value: float = 0.0, c: float = UCB_C,
                 widen: float = 0.0):
        self.path = str(path)
        self.deterministic = bool(deterministic)
        self.policy = load_policy(path)
        self.observe = OBSERVATIONS[version_of_size(self.policy.observation_space.shape[0])].observe
        if leaf_value and not search:
            raise ValueError(f"leaf_value evaluates the search's leaves: give search > 0 with it (got search={search})")
        if leaf_value and self.policy.actor_only:
            raise ValueError(f"{path} holds the actor alone, no critic to value the search's leaves: leave "
                             "leaf_value at 0")
        self.actor = Network(self.policy, "actor")
        value = Network(self.policy, "critic") if leaf_value else None
        self.searcher = MCTSBot(seed, iterations=search, width=width, prior=self.probabilities, puct=puct,
                                value=value, leaf_value=leaf_value, c=c, widen=widen) if search else None
        super().__init__(seed)

    @property
    def weights_files(self) -> list[Path]:
        """The files this agent's weights were loaded from, here its one model file (a resumed run checks they have
        not changed: agents/weights.py)."""
        return [model_file(SHIPPED.get(self.path, self.path))]

    def members_at(self, num_players: int) -> list["PPOAgent"]:
        """The policies this bot plays at a table of `num_players`, one drawn per game: itself. A mixture has
        several; the batched training env reads them to play the bot at its opponent seats (snapshot_tables.py)."""
        return [self]

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if self.searcher is not None:
            self.searcher.reset(seed)

    def probabilities(self, game, seat: int) -> np.ndarray:
        """The policy's probability of each action (zero for illegal ones) for `seat` now."""
        logits = self.logits(game, seat)
        legal = game.legal_action_mask().astype(bool)
        p = np.zeros_like(logits)
        p[legal] = np.exp(logits[legal] - logits[legal].max())
        return p / p.sum()

    def logits(self, game, seat: int) -> np.ndarray:
        """The actor's raw scores of every action (legal or not): the compiled actor (`network.Network`),
        torch's up to float32 rounding at a fraction of a torch call's cost."""
        return self.actor(self.observe(game, seat))

    def act(self, game, seat: int) -> int:
        if self.searcher is not None:
            return self.searcher.act(game, seat)
        if self.deterministic:
            logits = self.logits(game, seat)
            legal = game.legal_actions()
            return legal[int(np.argmax(logits[legal]))]
        return sample(self.rng, self.probabilities(game, seat))


def sample(rng, probs: np.ndarray) -> int:
    """An action drawn from `probs` with numpy's `Generator.choice(len(probs), p=probs)` arithmetic (the
    cumulative sum, scaled to end at 1, searched for one uniform draw): the same draw from the same
    generator state, without the argument checks that cost more than the draw."""
    cdf = probs.cumsum()
    cdf /= cdf[-1]
    return int(cdf.searchsorted(rng.random(), side="right"))
