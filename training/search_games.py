"""Expert iteration's two steps: self-play games searched by the compiled MCTS with the policy as its
root prior (`search_games`), and the policy and value networks fitted to what the search found
(`distill`).

PPO against a fixed opponent mix plateaued below the search bot (docs/champion.md); learning from the
search is the usual way past it. At every searched decision the policy's target comes from the root's
statistics (`MCTSBot.search`): the visits sharpened by a temperature (`sharpen`), or with `q_scale` the
prior reweighted by the search's values (`improved_policy`); the value's target is the game's outcome for
the deciding seat (win_loss: +1 winners, -1 others). Every seat is the same searching agent (self-play).
Decisions with one legal action and the choices inside a character's power (left to the heuristic by
the search, as in `mcts`) give no target. The move played is drawn from the sharpened visits (the most
visited at temperature 0) with the game's own seeded generator, so a game follows from its seed.

The temperature matters: at 800 iterations over at most 8 root actions the visits are flat (about 1.4
nats of entropy where the policy has far less), and fitting the policy to them at temperature 1 flattened
it into a much weaker player within one round. None of the targets made the shipped agent stronger
(docs/champion.md, "Expert iteration from the shipped agent").

The games run through the tournament's game pool (`agents.workers.ordered_map`), one job per game,
results in job order, so the data of a run is the same on any number of workers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from nefertiti_env import NUM_ACTIONS, NefertitiGame
from nefertiti_env.agents.ppo import PPOAgent
from nefertiti_env.agents.workers import ordered_map
from nefertiti_env.core.phases import PH_CHARACTER


class SearchData(NamedTuple):
    """One row per searched decision."""
    obs: np.ndarray           # [rows, obs size] float32: the deciding seat's observation (the policy's encoder)
    mask: np.ndarray          # [rows, NUM_ACTIONS] bool: the legal actions
    target: np.ndarray        # [rows, NUM_ACTIONS] float32: the policy's target (sums to 1)
    value: np.ndarray         # [rows] float32: the game's outcome for the deciding seat

    @staticmethod
    def join(parts) -> "SearchData":
        return SearchData(*(np.concatenate(column) for column in zip(*parts)))


@dataclass(frozen=True)
class SearchJob:
    model: str                # model file of the policy (the prior)
    options: tuple            # NefertitiGame options as sorted (key, value) pairs (a job is hashable)
    seed: int
    iterations: int
    temperature: float = 0.0  # target and move in proportion to visits ** (1 / temperature); 0: the most visited
    leaf_value: float = 0.0   # the policy's critic at the search's leaves (`MCTSBot`)
    q_scale: float = 0.0      # > 0: the target is `improved_policy` at this scale instead of the visits


def play_search_game(job: SearchJob) -> SearchData:
    """One self-play game searched at every decision; its rows."""
    game = NefertitiGame(seed=job.seed, **dict(job.options))
    agent = PPOAgent(job.model, seed=job.seed, search=job.iterations, leaf_value=job.leaf_value)
    rng = np.random.default_rng(job.seed)
    obs, masks, targets, seats = [], [], [], []
    while not game.is_over():
        seat = game.current_player
        legal = game.legal_actions()
        if len(legal) == 1 or game.phase == PH_CHARACTER:
            game.apply(agent.act(game, seat))
            continue
        stats = agent.searcher.search(game, seat)
        actions = np.array(list(stats))
        visits, q = (np.array(column, dtype=np.float64) for column in zip(*stats.values()))
        share = sharpen(visits, job.temperature)
        target = np.zeros(NUM_ACTIONS, np.float32)
        if job.q_scale:
            target[:] = improved_policy(agent.probabilities(game, seat), actions, visits, q, job.q_scale)
        else:
            target[actions] = share
        obs.append(agent.observe(game, seat))
        masks.append(game.legal_action_mask().astype(bool))
        targets.append(target)
        seats.append(seat)
        pick = rng.choice(len(actions), p=share) if job.temperature else int(np.argmax(share))
        game.apply(int(actions[pick]))
    outcome = game.returns()
    size = agent.policy.observation_space.shape[0]
    return SearchData(np.array(obs, np.float32).reshape(-1, size), np.array(masks, bool).reshape(-1, NUM_ACTIONS),
                      np.array(targets, np.float32).reshape(-1, NUM_ACTIONS), outcome[seats].astype(np.float32))


def sharpen(visits: np.ndarray, temperature: float) -> np.ndarray:
    """The distribution visits ** (1 / temperature), normalised; at temperature 0 all on the most visited
    (the first of equals)."""
    if temperature == 0:
        share = np.zeros(len(visits))
        share[np.argmax(visits)] = 1.0
        return share
    share = (visits / visits.max()) ** (1.0 / temperature)
    return share / share.sum()


def improved_policy(prior: np.ndarray, actions: np.ndarray, visits: np.ndarray, q: np.ndarray,
                    scale: float) -> np.ndarray:
    """The prior reweighted by the search: softmax(log prior + scale * q) over the legal actions (prior > 0),
    q the searched actions' mean rewards and, for the actions not searched, their visit-weighted mean
    (Gumbel MuZero's completed Q). Where the search finds no difference the target is the prior itself,
    so the policy moves only where the search's values say it should, unlike fitting the visits, which
    the PUCT term and the noise of determinised rollouts spread."""
    completed = np.full(prior.size, visits @ q / visits.sum())
    completed[actions] = q
    legal = prior > 0
    logits = np.full(prior.size, -np.inf)
    logits[legal] = np.log(prior[legal]) + scale * (completed[legal] - completed[legal].max())
    target = np.exp(logits - logits.max())
    return target / target.sum()


def search_games(model: str, tables: list[dict], games: int | list[int], seed: int, iterations: int = 800,
                 workers: int = 1, temperature: float = 0.0, ray: str | None = None,
                 leaf_value: float = 0.0, q_scale: float = 0.0) -> SearchData:
    """`games` self-play games per table (game options dicts), or one count per table; the games are seeded
    seed, seed + 1, ... in table order. On `workers` processes, or on the Ray cluster at `ray` (the model
    sent by value: docs/cluster.md); `temperature`: of the targets and moves (`sharpen`); `leaf_value`: the
    weight of the policy's critic at the search's leaves; `q_scale` > 0: targets from `improved_policy`."""
    counts = [games] * len(tables) if isinstance(games, int) else list(games)
    if len(counts) != len(tables):
        raise ValueError(f"{len(counts)} game counts for {len(tables)} tables")
    options = [tuple(sorted(table.items())) for table, n in zip(tables, counts) for _ in range(n)]
    jobs = [SearchJob(str(model), table, seed + i, iterations, temperature, leaf_value, q_scale)
            for i, table in enumerate(options)]
    with ordered_map(workers, ray=ray, bots=(f"ppo:path={model}",)) as map_:
        return SearchData.join(list(map_(play_search_game, jobs)))


def distill(policy, data: SearchData, learning_rate: float, epochs: int = 1, batch_size: int = 256,
            vf_coef: float = 0.5, seed: int = 0) -> list[float]:
    """Fit a MaskableActorCriticPolicy to the search: cross-entropy of its masked action distribution to
    the visit distribution, plus vf_coef times the squared error of its value to the outcome; with the
    policy's own optimiser (its state kept, its learning rate set). Returns the mean loss of each epoch."""
    import torch

    for group in policy.optimizer.param_groups:
        group["lr"] = learning_rate

    obs, mask = torch.as_tensor(data.obs), torch.as_tensor(data.mask)
    target, value = torch.as_tensor(data.target), torch.as_tensor(data.value)
    generator = torch.Generator().manual_seed(seed)
    losses = []
    policy.set_training_mode(True)
    for _ in range(epochs):
        total, order = 0.0, torch.randperm(len(obs), generator=generator)
        for start in range(0, len(obs), batch_size):
            rows = order[start:start + batch_size]
            features = policy.extract_features(obs[rows])       # a pair when actor and critic have their own
            pi_features, vf_features = features if isinstance(features, tuple) else (features, features)
            latent_pi = policy.mlp_extractor.forward_actor(pi_features)
            latent_vf = policy.mlp_extractor.forward_critic(vf_features)
            logits = policy.action_net(latent_pi).masked_fill(~mask[rows], -1e8)
            loss = -(target[rows] * torch.log_softmax(logits, dim=1)).sum(dim=1).mean() \
                + vf_coef * torch.nn.functional.mse_loss(policy.value_net(latent_vf).squeeze(1), value[rows])
            policy.optimizer.zero_grad()
            loss.backward()
            policy.optimizer.step()
            total += loss.item() * len(rows)
        losses.append(total / len(obs))
    policy.set_training_mode(False)
    return losses
