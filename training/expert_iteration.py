"""Rounds of expert iteration: search self-play games with the current policy as the prior, then the policy
fitted to them (`search_games`, `distill`), round after round, each round's policy guiding the next search.

A run folder holds `rounds.json` (the settings and one row per finished round: its training rows, losses
and times) and `rounds/round_NNN.pt` (the policy and its optimiser after round NNN, a nefertiti model file).
A round depends only on the previous round's file and its own seed (`seed + round`), so a run stopped
between rounds and resumed (`resume=True`) gives the same files as one that went through; a round stopped
midway is played again.

`nefertiti train` runs the rounds after the PPO stage (or instead of it) when its config has an
`expert_iteration` section (`run_stage`), in the run folder's `expert_iteration/`.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from nefertiti_env.agents import policy_file
from nefertiti_env.agents.ppo import model_file
from nefertiti_env.agents.progress import progress_bar
from nefertiti_env.agents.run_folder import RunFolderError, prepare, write_text

from .search_games import distill, search_games

RUN_KIND = "expert_iteration"


def _load_with_optimizer(path: Path):
    """The policy stored at `path` with its optimiser's state when the file has one (a PPO checkpoint or
    final model, a round), else a fresh one (a shipped policy)."""
    meta, data = policy_file.read(path)
    policy = policy_file.build_policy(meta)
    policy_file.load_into(policy, path, data, optimizer=True)
    return policy


def expert_iteration(start: str, out: str | Path, tables: list[dict], rounds: int, games: int | list[int],
                     iterations: int = 800, learning_rate: float = 1e-4, epochs: int = 2, batch_size: int = 256,
                     seed: int = 0, workers: int = 1, resume: bool = False, force: bool = False,
                     progress: bool = True, ray: str | None = None, leaf_value: float = 0.0,
                     vf_coef: float = 0.5, temperature: float = 0.0, q_scale: float = 0.0) -> list[dict]:
    """Play rounds up to `rounds` (the first from the model `start`, a model file or run folder): each round
    `games` search self-play games per table (game options dicts; or one count per table), then `epochs`
    passes of `distill`.
    The search games run on `workers` processes or the Ray cluster at `ray`, with the same rows either way;
    `leaf_value` weighs the policy's critic at the search's leaves, `vf_coef` its loss in `distill`;
    `temperature` sharpens the visits into the moves and, unless `q_scale` > 0 makes them the prior reweighted by
    the search's values (`search_games.improved_policy`), into the targets.
    Returns the rows of every round, resumed ones included."""
    out = prepare(out, RUN_KIND, resume=resume, force=force)
    log = out / "rounds.json"
    settings = {"start": str(model_file(start)), "tables": tables, "games": games, "iterations": iterations,
                "learning_rate": learning_rate, "epochs": epochs, "batch_size": batch_size, "seed": seed,
                "leaf_value": leaf_value, "vf_coef": vf_coef, "temperature": temperature, "q_scale": q_scale}
    state = json.loads(log.read_text()) if resume and log.is_file() else {"settings": settings, "rounds": []}
    if state["settings"] != settings:
        changed = sorted(k for k in settings if state["settings"].get(k) != settings[k])
        raise RunFolderError(f"{out}: the run was started with other settings ({', '.join(changed)}): resume it "
                             "with the same ones, or start it over with force")
    (out / "rounds").mkdir(exist_ok=True)
    bar = progress_bar(total=rounds, initial=len(state["rounds"]), desc="rounds", unit="round", disable=not progress)
    for k in range(len(state["rounds"]) + 1, rounds + 1):
        model = out / "rounds" / f"round_{k - 1:03d}.pt" if k > 1 else model_file(start)
        clock, cpu = time.perf_counter(), time.process_time()
        data = search_games(str(model), tables, games, seed=seed + k * 1_000_003, iterations=iterations,
                            workers=workers, ray=ray, leaf_value=leaf_value, temperature=temperature,
                            q_scale=q_scale)
        search_seconds = time.perf_counter() - clock
        policy = _load_with_optimizer(model)
        losses = distill(policy, data, learning_rate, epochs=epochs, batch_size=batch_size, vf_coef=vf_coef,
                         seed=seed + k)
        policy_file.save(out / "rounds" / f"round_{k:03d}.pt", policy, optimizer=True, round=k)
        state["rounds"].append({"round": k, "rows": len(data.obs), "loss_first_epoch": round(losses[0], 5),
                                "loss_last_epoch": round(losses[-1], 5), "search_seconds": round(search_seconds, 1),
                                "seconds": round(time.perf_counter() - clock, 1),
                                "cpu_seconds": round(time.process_time() - cpu, 1)})
        write_text(log, json.dumps(state, indent=1))          # written last: the round is complete
        bar.update(1)
    bar.close()
    return state["rounds"]


STAGE_FOLDER = "expert_iteration"


def table_games(games: int, weights: list[float]) -> int | list[int]:
    """Search games per table and round: `games` times each table's weight (at least one), so that a mixture
    searches its tables in the shares it trains them; `games` itself when every weight is 1."""
    if all(w == 1 for w in weights):
        return games
    return [max(1, round(games * w)) for w in weights]


def run_stage(config, start: str | Path, resume: bool = False, force: bool = False,
              progress: bool = True) -> list[dict]:
    """The `expert_iteration` section of a training config (training/config.py) as rounds in
    `config.out`/expert_iteration, from the model `start`, at the run's tables and seed."""
    from .trainer import game_args

    ei = config.expert_iteration
    tables = config.env.table_list()
    return expert_iteration(str(start), Path(config.out) / STAGE_FOLDER, [game_args(config, t) for t in tables],
                            ei.rounds, table_games(ei.games, [t.weight for t in tables]),
                            iterations=ei.iterations, learning_rate=ei.learning_rate, epochs=ei.epochs,
                            batch_size=ei.batch_size, seed=config.seed, workers=ei.workers, resume=resume,
                            force=force, progress=progress, ray=ei.ray, leaf_value=ei.leaf_value,
                            vf_coef=ei.vf_coef, temperature=ei.temperature, q_scale=ei.q_scale)
