"""Self-play MaskablePPO training: environments, schedules, checkpoints, resume, final report.

A run folder holds everything a run needs to continue or be reported:

    nefertiti-run.json           marks the folder as a training run (agents.run_folder)
    config.yaml                  the resolved configuration (a resumed run reads this one)
    checkpoints/step_N/          model.pt (policy, optimiser, step counter) + state.json
    checkpoints/latest           name of the newest complete checkpoint (written last)
    snapshots/step_N.pt          frozen learner policies for the opponent pool
    logs/progress.csv, logs/events.*   SB3 logger output (CSV and TensorBoard), appended on resume
    evaluations.csv              periodic evaluation rows (learning curve)
    final_model.pt, results.csv, results.md, learning_curve.png, summary.json   written at the end

Schedules (snapshot, evaluation, checkpoint) are checked when a rollout starts, i.e.
after the policy has learnt from every step counted so far, so a checkpoint never
holds a step that was not trained on; `--resume` restarts from the newest one
with the step counter, the opponent pool and the schedules as they were, and
drops log rows written after it (they are replayed). Model files are `agents.policy_file`
files: they load without unpickling anything. The run writes only into a new or empty
folder or into its own run folder (`--force` starts it over, replacing only its own files).
"""
from __future__ import annotations

import contextlib
import csv
import json
import time
from collections import defaultdict, deque
from pathlib import Path

import numpy as np
import torch
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat
from stable_baselines3.common.vec_env import VecMonitor
from tqdm import tqdm

from nefertiti_env.agents import policy_file
from nefertiti_env.agents.config import read_yaml
from nefertiti_env.agents.policy_file import ModelFileError
from nefertiti_env.agents.ppo import FINAL_MODEL, model_file
from nefertiti_env.agents.run_folder import RunFolderError, prepare, write_text
from nefertiti_env.agents.progress import progress_bar

from .batched_vec_env import OPPONENT_PARTS, BatchedVecEnv
from .config import Config, ConfigError, FineTuneConfig, LeagueConfig, TableConfig, config_from_dict, split_envs
from .evaluation import MatchResult, evaluate
from .opponents import OpponentPool
from .report import plot_learning_curve, print_table, read_evaluations, save_results
from .table_mix import TableMixVecEnv

RUN_KIND = "training"
EVAL_FIELDS = ("timesteps", "baseline", "games", "wins", "win_rate", "ci_low", "ci_high", "mean_score", "parity")


class RunPaths:
    """File layout of one run folder."""

    def __init__(self, out: str | Path):
        self.out = Path(out)
        self.config = self.out / "config.yaml"
        self.checkpoints = self.out / "checkpoints"
        self.latest = self.checkpoints / "latest"
        self.snapshots = self.out / "snapshots"
        self.logs = self.out / "logs"
        self.progress = self.logs / "progress.csv"
        self.evaluations = self.out / "evaluations.csv"
        self.eval_policy = self.out / "eval_policy.pt"
        self.final_model = self.out / FINAL_MODEL
        self.results_csv = self.out / "results.csv"
        self.results_md = self.out / "results.md"
        self.curve = self.out / "learning_curve.png"
        self.eval_games = self.out / "evaluation_games.jsonl"    # the final evaluation's games, for `nefertiti replay`
        self.summary = self.out / "summary.json"

    def checkpoint(self, step: int) -> Path:
        return self.checkpoints / f"step_{step:010d}"

    def latest_checkpoint(self) -> Path | None:
        """The checkpoint `latest` names, if whole; else (a damaged pointer or checkpoint) the newest whole
        one, so that a damaged file never hides a checkpoint that can be resumed; None if there is none."""
        with contextlib.suppress(OSError, UnicodeDecodeError):
            named = self.checkpoints / self.latest.read_text(encoding="utf-8").strip()
            if named.parent == self.checkpoints and read_checkpoint_state(named) is not None:
                return named
        for folder in sorted(self.checkpoints.glob("step_*"), reverse=True):
            if read_checkpoint_state(folder) is not None:
                return folder
        return None

    def own_files(self) -> list[Path]:
        """The files a run writes outside its checkpoint folders (what `--force` replaces, with the
        checkpoints): nothing else in the folder is touched."""
        fixed = [self.config, self.latest, self.progress, self.evaluations, self.eval_policy, self.final_model,
                 self.results_csv, self.results_md, self.curve, self.summary]
        return fixed + sorted(self.snapshots.glob("step_*.pt")) + sorted(self.logs.glob("events.out.tfevents.*"))


def read_checkpoint_state(folder: Path) -> dict | None:
    """The counters of the checkpoint in `folder` (its state.json), or None if it is not whole: a model
    file beside a state.json with the counters the trainer reads."""
    try:
        state = json.loads((folder / "state.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    kinds = {"num_timesteps": int, "train_seconds": (int, float), "eval_seconds": (int, float),
             "session_seeds": list, "pool": dict}
    if not (isinstance(state, dict) and all(isinstance(state.get(k), t) for k, t in kinds.items())
            and (folder / "model.pt").is_file()):
        return None
    return state


def remove_checkpoint(folder: Path) -> None:
    """A checkpoint folder's own two files, then the folder if that left it empty."""
    for name in ("model.pt", "state.json"):
        (folder / name).unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        folder.rmdir()


def resume_hint(out: str | Path) -> str:
    """Where `--resume` continues the run in `out`, and the command; or that there is nothing to continue yet.
    A run trains its stages one after another, each in a run folder of its own (`out`, `out`/fine_tune, the
    league's runs), so the stage in progress is the one started last: its checkpoint is the one that counts."""
    command = f"`nefertiti train --resume --out {out}`"
    started = [config.parent for config in Path(out).glob("**/config.yaml")]
    stage = RunPaths(max(started, key=lambda folder: (folder / "config.yaml").stat().st_mtime, default=out))
    where = "" if stage.out == Path(out) else f" of the stage in {stage.out}"
    latest = stage.latest_checkpoint()
    if latest is None and where:
        return f"the stage in {stage.out} saved no checkpoint yet; {command} starts that stage again"
    if latest is None:
        return ("no checkpoint was saved yet: start the run over with "
                f"`nefertiti train --config FILE --out {out} --force`")
    if stage.summary.is_file():
        return f"the stage in {stage.out} is finished; {command} goes on with the next stage"
    step = read_checkpoint_state(latest)["num_timesteps"]
    return f"the checkpoint at step {step:,}{where} is saved; continue with {command}"


def load_run_config(out: str | Path, total_timesteps: int | None = None) -> Config:
    """The saved configuration of the run in `out` (for --resume), optionally with a new step total.

    The run continues in `out` itself, whatever folder the saved config names (a run folder
    may have been moved or copied). `init_from` is dropped: the weights come from the checkpoint,
    and the model it named need not exist any more."""
    paths = RunPaths(out)
    if not paths.config.is_file():
        raise ConfigError(f"{out}: no run to resume here (missing {paths.config})")
    try:
        saved = read_yaml(paths.config.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        raise ConfigError(f"{paths.config}: damaged ({' '.join(str(err).split())}); restore it, or start the run "
                          "over with --force") from None
    if not isinstance(saved, dict):
        raise ConfigError(f"{paths.config}: damaged (not a mapping of keys); restore it, or start over with --force")
    data = {**saved, "out": str(out), "init_from": ""}
    if isinstance(saved.get("env", {}), dict):          # saved before the key existed: it observed v0, the default then
        data["env"] = {"observation": "v0", **saved.get("env", {})}
    if total_timesteps is not None:
        data["total_timesteps"] = total_timesteps
    return config_from_dict(data, source=str(paths.config))


def game_args(config: Config, table: TableConfig) -> dict:
    """The NefertitiGame options of one of the run's tables."""
    return {"ruleset": config.env.ruleset, **table.game_options()}


def table_args(config: Config, table: TableConfig) -> dict:
    """The training env's options at one of the run's tables: its game options, and its own opponent weights
    where it names them."""
    return {**game_args(config, table), **({} if table.opponents is None else {"opponents": table.opponents})}


class LegEnded(Exception):
    """The session reached its `stop_at`: it ended at the checkpoint it had just written, which `--resume`
    continues from. A leg that ends at a given checkpoint instead of at a moment (Ctrl-C, SIGTERM) makes a run
    in legs repeatable: a resumed session deals new games from its checkpoint's step, so the same legs give
    the same weights bit for bit."""

    def __init__(self, out: Path, step: int):
        super().__init__(f"the leg ended at the checkpoint at step {step:,} in {out}")
        self.out, self.step = out, step


class Trainer:
    """One training run in `config.out`; `run()` trains (or resumes) and reports. With `stop_at`, the session
    ends (`LegEnded`) at the first periodic checkpoint it writes at or past that step."""

    def __init__(self, config: Config, resume: bool = False, progress: bool = True, force: bool = False,
                 stop_at: int | None = None):
        self.config = config
        self.stop_at = stop_at
        self.paths = RunPaths(config.out)
        self.progress = progress
        self.resume = resume
        prepare(self.paths.out, RUN_KIND, resume=resume, force=force)
        latest = self.paths.latest_checkpoint()
        if resume and latest is None:
            raise RunFolderError(f"{self.paths.out}: no checkpoint to resume yet (pass --force instead of "
                                 "--resume to start the run over)")
        self.checkpoint_dir = latest
        self.state = read_checkpoint_state(latest) if resume else {
            "num_timesteps": 0, "last_snapshot": None, "last_eval": None, "last_checkpoint": 0,
            "train_seconds": 0.0, "eval_seconds": 0.0, "session_seeds": [], "timing": _timing(0),
            "pool": OpponentPool(config.opponents.weights, max_snapshots=config.opponents.max_snapshots,
                                 snapshot_deterministic=config.opponents.snapshot_deterministic).state()}
        self.pool = OpponentPool(**{**self.state["pool"], "snapshots": [str(self.paths.out / p) for p in
                                                                         self.state["pool"]["snapshots"]]})
        # a checkpoint saved before the time was split (or split otherwise) is split from its step on
        if set(self.state.get("timing", {})) != set(_timing(0)):
            self.state["timing"] = _timing(self.state["num_timesteps"])
        self._rollout_end = None
        self.model = None
        self.venv = None

    # ------------------------------------------------------------ set up
    def _setup(self):
        cfg, paths = self.config, self.paths
        for folder in (paths.checkpoints, paths.snapshots, paths.logs):
            folder.mkdir(parents=True, exist_ok=True)
        if not self.resume:                     # a new run, or this run started over (--force)
            for path in paths.own_files():
                path.unlink(missing_ok=True)
            for folder in paths.checkpoints.glob("step_*"):
                remove_checkpoint(folder)
            write_text(paths.config, yaml.safe_dump(cfg.to_dict(), sort_keys=False))
        else:
            step = self.state["num_timesteps"]
            _truncate_csv(paths.progress, "time/total_timesteps", step)
            _truncate_csv(paths.evaluations, "timesteps", step)

        torch.set_num_threads(cfg.torch_threads)
        session_seed = cfg.seed + self.state["num_timesteps"]
        tables = cfg.env.table_list()
        common = dict(opponents=cfg.opponents.weights, snapshots=self.pool.snapshots,
                      max_snapshots=cfg.opponents.max_snapshots, deterministic=cfg.opponents.snapshot_deterministic,
                      seed=session_seed, observation=cfg.env.observation, reward=cfg.env.reward)
        if len(tables) == 1:
            venv = BatchedVecEnv(cfg.env.n_envs, **{**common, **table_args(cfg, tables[0])})
        else:                                   # one batch per table (training/table_mix.py says why)
            counts = split_envs(cfg.env.n_envs, [t.weight for t in tables])
            venv = TableMixVecEnv([(t.label(), n, table_args(cfg, t)) for t, n in zip(tables, counts)], **common)
        self.games = venv
        self.venv = VecMonitor(venv)
        self.state["session_seeds"].append(session_seed)
        p = cfg.ppo
        self.model = MaskablePPO(
            "MlpPolicy", self.venv, n_steps=p.n_steps, batch_size=p.batch_size, n_epochs=p.n_epochs,
            learning_rate=p.learning_rate, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range,
            ent_coef=p.ent_coef, vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm,
            policy_kwargs={"net_arch": list(p.net_arch)}, seed=session_seed, device="cpu", verbose=0)
        if self.resume:                         # weights, optimiser and counters from the checkpoint
            model = self.checkpoint_dir / "model.pt"
            meta = policy_file.load_into(self.model.policy, model)
            if not all(type(meta.get(k)) is int for k in ("num_timesteps", "n_updates")):
                raise ModelFileError(f"{model}: meta lacks the checkpoint's counters (num_timesteps, n_updates)")
            self.model.num_timesteps, self.model._n_updates = meta["num_timesteps"], meta["n_updates"]
            self.model.set_random_seed(session_seed)
        elif cfg.init_from:
            self._load_initial_weights(model_file(cfg.init_from))
        self.tensorboard = TensorBoardOutputFormat(str(paths.logs))
        self.model.set_logger(Logger(str(paths.logs), [AppendingCSV(paths.progress), self.tensorboard]))

    def _load_initial_weights(self, model: Path) -> None:
        """Fine-tuning: the new run starts from another model's policy (and optimiser state: `init_optimizer`)."""
        try:
            policy_file.load_into(self.model.policy, model, optimizer=self.config.init_optimizer)
        except ModelFileError as err:
            raise ConfigError(f"init_from: {err} (this run's ppo.net_arch is {self.config.ppo.net_arch}, "
                              f"observation {self.config.env.observation})") from None

    # ------------------------------------------------------------ schedule actions
    def snapshot(self, step: int) -> None:
        """Freeze the current policy into the opponent pool of every environment."""
        path = self.paths.snapshots / f"step_{step:010d}.pt"
        policy_file.save(path, self.model.policy)
        self.pool.add_snapshot(str(path))
        self.venv.env_method("add_snapshot", str(path))
        for old in self.paths.snapshots.glob("step_*.pt"):
            if str(old) not in self.pool.snapshots:
                old.unlink()
        self.state["last_snapshot"] = step

    def evaluate(self, step: int, games: int) -> list[MatchResult]:
        """`games` games against each baseline at each table; at a mixture each result's baseline is
        named "<table> <baseline>" ("3p beginner expansion Memphis banker")."""
        cfg = self.config.evaluation
        start = time.perf_counter()
        policy_file.save(self.paths.eval_policy, self.model.policy)
        tables = self.config.env.table_list()
        results = []
        for table in tables:
            found = evaluate(str(self.paths.eval_policy), cfg.baselines, games, game_args(self.config, table),
                             seed=self.config.seed * 1_000_003 + 7, deterministic=cfg.deterministic,
                             workers=cfg.workers, progress=self.progress, ray=cfg.ray)
            for result in found if len(tables) > 1 else ():
                result.baseline = f"{table.label()} {result.baseline}"
            results += found
        self.state["eval_seconds"] += time.perf_counter() - start
        return results

    def periodic_evaluation(self, step: int) -> None:
        results = self.evaluate(step, self.config.evaluation.games)
        new = not self.paths.evaluations.exists()
        with open(self.paths.evaluations, "a", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
            if new:
                writer.writeheader()
            writer.writerows(r.row(step) for r in results)
        self.log_evaluation(step, results)
        self._say(f"step {step:,}: " + ", ".join(
            f"{r.baseline} {r.win_rate:.0%} [{r.ci[0]:.0%}-{r.ci[1]:.0%}]" for r in results))
        self.state["last_eval"] = step

    def log_evaluation(self, step: int, results: list[MatchResult]) -> None:
        """Evaluation scalars in TensorBoard at the step the policy was evaluated: written now,
        not recorded for SB3's next dump (one rollout later, and never after the last one)."""
        values = {f"eval/{r.baseline}/{name}": value for r in results
                  for name, value in (("win_rate", r.win_rate), ("ci_low", r.ci[0]), ("ci_high", r.ci[1]),
                                      ("mean_score", r.mean_score))}
        self.tensorboard.write(values, dict.fromkeys(values), step)
        self.tensorboard.writer.flush()

    def checkpoint(self, step: int) -> None:
        """model.pt + state.json in a new folder, then `latest` points at it; older ones beyond two go."""
        folder = self.paths.checkpoint(step)
        folder.mkdir(parents=True, exist_ok=True)
        policy_file.save(folder / "model.pt", self.model.policy, optimizer=True, num_timesteps=step,
                         n_updates=self.model._n_updates)
        self.state["num_timesteps"] = step
        self.state["last_checkpoint"] = step
        pool = self.pool.state()
        pool["snapshots"] = [str(Path(p).relative_to(self.paths.out)) for p in pool["snapshots"]]
        self.state["pool"] = pool
        write_text(folder / "state.json", json.dumps(self.state, indent=1))
        write_text(self.paths.latest, folder.name)
        for old in sorted(self.paths.checkpoints.glob("step_*"))[:-2]:
            remove_checkpoint(old)

    def on_rollout_start(self, step: int) -> None:
        """Between two PPO iterations (the policy has learnt from every step counted so far)."""
        cfg = self.config
        self._updated()
        self.state["train_seconds"] += time.perf_counter() - self._clock
        if step - (self.state["last_snapshot"] or 0) >= cfg.opponents.snapshot_every:
            self.snapshot(step)
        if step - (self.state["last_eval"] or 0) >= cfg.evaluation.every_steps:
            self.periodic_evaluation(step)
        if step - self.state["last_checkpoint"] >= cfg.checkpoint_every:
            self.checkpoint(step)
            if self.stop_at is not None and step >= self.stop_at:
                raise LegEnded(self.paths.out, step)
        self._clock = self._rollout_start = time.perf_counter()
        self._games_timing = self.games.timing()

    def on_rollout_end(self) -> None:
        """Add the rollout's seconds and its opponents' thinking (the env's counters since it started)."""
        timing, now = self.state["timing"], self.games.timing()
        self._rollout_end = time.perf_counter()
        timing["rollout_seconds"] += self._rollout_end - self._rollout_start
        for part, total in now["opponent_seconds"].items():
            timing["opponent_seconds"][part] += total - self._games_timing["opponent_seconds"][part]
        timing["searched_decisions"] += now["searched_decisions"] - self._games_timing["searched_decisions"]

    def _updated(self) -> None:
        """Add the PPO update that followed the last rollout (SB3 runs it between the callbacks)."""
        if self._rollout_end is not None:
            self.state["timing"]["update_seconds"] += time.perf_counter() - self._rollout_end
            self._rollout_end = None

    # ------------------------------------------------------------ run
    def run(self) -> list[MatchResult]:
        """Train to `total_timesteps` (continuing a resumed run), then evaluate, report and return the results."""
        cfg = self.config
        try:
            self._setup()
            if self.state["last_snapshot"] is None:
                self.snapshot(0)
            if self.state["last_eval"] is None:
                self.periodic_evaluation(0)
            remaining = cfg.total_timesteps - self.model.num_timesteps
            if remaining > 0:
                self._clock = time.perf_counter()
                self.model.learn(remaining, callback=TrainingCallback(self), reset_num_timesteps=not self.resume)
                self._updated()
                self.state["train_seconds"] += time.perf_counter() - self._clock
            step = self.model.num_timesteps
            if self.state["last_checkpoint"] != step:
                self.checkpoint(step)
            policy_file.save(self.paths.final_model, self.model.policy, optimizer=True, num_timesteps=step,
                             n_updates=self.model._n_updates)
            results = self.evaluate(step, cfg.evaluation.final_games)
            self.log_evaluation(step, results)
        finally:
            if self.venv is not None:          # _setup may fail after starting the workers, or before
                self.venv.close()
        self.report(results, step)
        return results

    def report(self, results: list[MatchResult], step: int) -> None:
        cfg, paths = self.config, self.paths
        tables = cfg.env.table_list()
        n = tables[0].num_players
        title = (f"{Path(cfg.out).name}: learner vs {n - 1} copies of each baseline ({step:,} steps, {n} players)"
                 if len(tables) == 1 else
                 f"{Path(cfg.out).name}: learner vs n-1 copies of each baseline ({step:,} steps, {len(tables)} tables)")
        save_results(results, step, paths.results_csv, paths.results_md, title)
        games = [{"baseline": r.baseline, **e} for r in results for e in sorted(r.records, key=lambda e: e["index"])]
        paths.eval_games.write_text("".join(json.dumps({"game": g, **e}) + "\n" for g, e in enumerate(games)))
        plot_learning_curve(read_evaluations(paths.evaluations), results, step, paths.curve, title)
        train_s = self.state["train_seconds"]
        summary = {"timesteps": step, "train_seconds": round(train_s, 1),
                   "eval_seconds": round(self.state["eval_seconds"], 1),
                   "steps_per_second": round(step / train_s, 1) if train_s else None,
                   "time": _time_split(self.state["timing"], train_s),
                   # a run replays bit for bit only on the same torch and CPU kernel (AVX2, AVX512, ...)
                   "torch": torch.__version__, "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
                   "results": [r.row(step) for r in results]}
        paths.summary.write_text(json.dumps(summary, indent=1))
        if self.progress:
            print_table(results, title)
            print(f"training {train_s:.0f} s ({summary['steps_per_second']} env steps/s), evaluation "
                  f"{self.state['eval_seconds']:.0f} s; results in {paths.results_md}, curve in {paths.curve}")
            print(where_the_time_went(summary["time"]))

    def _say(self, text: str) -> None:
        if self.progress:
            tqdm.write(text)


def _timing(step: int) -> dict:
    return {"from_step": step, "rollout_seconds": 0.0, "update_seconds": 0.0,
            "opponent_seconds": dict.fromkeys(OPPONENT_PARTS, 0.0), "searched_decisions": 0}


def _time_split(timing: dict, train_seconds: float) -> dict:
    """Where the training time went, from step `from_step` on: the rollouts (the games stepped, the learner's
    forward passes, and the opponents' thinking: by kind, summed over the threads that think at once), the PPO
    updates, and the rest (start-up, the first compile; known when the split began with the run)."""
    search = timing["opponent_seconds"]["search"]
    return {**timing, "rollout_seconds": round(timing["rollout_seconds"], 3),     # to the ms: a short run's
            "update_seconds": round(timing["update_seconds"], 3),               # parts are not 0 s
            "other_seconds": round(train_seconds - timing["rollout_seconds"] - timing["update_seconds"], 3)
            if timing["from_step"] == 0 else None,
            "opponent_seconds": {part: round(seconds, 3) for part, seconds in timing["opponent_seconds"].items()},
            "searched_decisions_per_second": round(timing["searched_decisions"] / search, 1) if search else None}


def where_the_time_went(split: dict) -> str:
    """One line of `_time_split`: what the rollouts and the opponents took, and the search's speed."""
    parts = ", ".join(f"{part} {seconds:.0f} s" for part, seconds in split["opponent_seconds"].items() if seconds)
    since = f"from step {split['from_step']:,}: " if split["from_step"] else ""
    line = (f"{since}rollouts {split['rollout_seconds']:.0f} s (opponents thinking: {parts or 'none'}), "
            f"PPO updates {split['update_seconds']:.0f} s")
    if split["other_seconds"] is not None:
        line += f", start-up and the rest {split['other_seconds']:.0f} s"
    if split["searched_decisions"]:
        line += (f"; {split['searched_decisions']:,} searched decisions, "
                 f"{split['searched_decisions_per_second']:,} per second of search")
    return line


class TrainingCallback(BaseCallback):
    """Progress bar, training win rate, and the trainer's schedules between PPO iterations."""

    def __init__(self, trainer: Trainer):
        super().__init__()
        self.trainer = trainer
        self.wins = deque(maxlen=200)
        self.wins_against = defaultdict(lambda: deque(maxlen=200))     # by opponent kind
        self.wins_at = defaultdict(lambda: deque(maxlen=200))          # by table, at a mixture

    def _on_training_start(self):
        self.bar = progress_bar(total=self.trainer.config.total_timesteps, initial=self.model.num_timesteps,
                                desc="training", unit="step", disable=not self.trainer.progress, smoothing=0.05)

    def _on_step(self):
        self.bar.update(self.training_env.num_envs)
        for done, info in zip(self.locals["dones"], self.locals["infos"]):
            if done:
                self.wins.append(info["win"])
                self.wins_against[info["opponents"]].append(info["win"])
                if "table" in info:
                    self.wins_at[info["table"]].append(info["win"])
        return True

    def _on_rollout_start(self):
        self.trainer.on_rollout_start(self.model.num_timesteps)

    def _on_rollout_end(self):
        self.trainer.on_rollout_end()
        for kind, wins in self.wins_against.items():
            self.logger.record(f"rollout/win_rate_vs/{kind}", float(np.mean(wins)))
        for table, wins in self.wins_at.items():
            self.logger.record(f"rollout/win_rate_at/{table.replace(' ', '_')}", float(np.mean(wins)))
        if self.wins:
            self.logger.record("rollout/win_rate", float(np.mean(self.wins)))
            self.bar.set_postfix(train_win=f"{np.mean(self.wins):.0%}")

    def _on_training_end(self):
        self.bar.close()


class AppendingCSV(CSVOutputFormat):
    """SB3's CSV log format, continuing an existing file (resume) instead of overwriting it."""

    def __init__(self, filename: Path):
        exists = filename.is_file() and filename.stat().st_size > 0
        self.file = open(filename, "r+" if exists else "w+")
        header = self.file.readline().rstrip("\n") if exists else ""
        self.keys = header.split(",") if header else []
        self.file.seek(0, 2)
        self.separator = ","
        self.quotechar = '"'


def _truncate_csv(path: Path, column: str, max_value: int) -> None:
    """Drop the rows of a CSV log whose `column` is beyond `max_value` (written after the checkpoint)."""
    if not path.is_file():
        return
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or column not in rows[0]:
        return
    at = rows[0].index(column)
    kept = [rows[0]] + [r for r in rows[1:] if len(r) == len(rows[0]) and (r[at] == "" or _at_most(r[at], max_value))]
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(kept)


def _at_most(text: str, limit: int) -> bool:
    """A log row's step is a number up to `limit` (a damaged row, not a number, is dropped too)."""
    try:
        return float(text) <= limit
    except ValueError:
        return False


def train(config: Config, resume: bool = False, progress: bool = True, force: bool = False,
          stop_at: int | None = None) -> list[MatchResult]:
    """Run (or resume, or with `force` start over) the training described by `config`: the PPO stage, then
    its expert iteration rounds if any (`config.expert_iteration`; instead of the PPO stage when it names its
    `start`) or its fine-tuning stage (`config.fine_tune`; instead of the PPO stage too when it names its
    `start`), then its league (`config.league`; instead of the stages before when it names its `start`).
    Returns the last PPO run's final evaluation results (none without one, or when resumed with it done).
    `stop_at` ends the session at the first checkpoint at or past that step of the PPO run it is training
    (each counts its own steps; `LegEnded`); expert iteration's rounds end only when stopped."""
    ei, tune, league = config.expert_iteration, config.fine_tune.total_timesteps, config.league
    paths = RunPaths(config.out)
    results = []
    if config.skips_ppo_stage:                             # a later stage from a given model
        prepare(paths.out, RUN_KIND, resume=resume, force=force)
        if not resume:
            write_text(paths.config, yaml.safe_dump(config.to_dict(), sort_keys=False))
    elif not (resume and config.stage_follows and stage_done(paths, config.total_timesteps)):
        results = Trainer(config, resume=resume, progress=progress, force=force, stop_at=stop_at).run()
    if ei.rounds:
        from .expert_iteration import STAGE_FOLDER, run_stage
        run_stage(config, ei.start or paths.final_model, resume=resume and (paths.out / STAGE_FOLDER).is_dir(),
                  force=force, progress=progress)
    last = paths.final_model
    if tune and not league.start:
        stage = fine_tune_config(config)
        last = RunPaths(stage.out).final_model
        if not (resume and league.rounds and stage_done(RunPaths(stage.out), stage.total_timesteps)):
            results = run_later_stage(stage, resume, force, progress, stop_at)
    if league.rounds:
        from .league import run_stage as run_league
        results = run_league(config, league.start or str(last), resume=resume, force=force, progress=progress,
                             stop_at=stop_at)
    return results


FINE_TUNE_FOLDER = "fine_tune"


def fine_tune_config(config: Config) -> Config:
    """The fine-tuning stage of `config` as a run of its own in `out`/fine_tune: from the PPO stage's final
    policy (or the stage's `start`) with a fresh optimiser, with the stage's steps, tables, opponents, learning
    rate and batch shape, the rest as the run's."""
    tune = config.fine_tune
    data = {**config.to_dict(), "env": tune.stage_env(config.env).model_dump()}
    if tune.opponents is not None:
        data["opponents"] = tune.opponents.model_dump()
    if tune.learning_rate is not None:
        data["ppo"]["learning_rate"] = tune.learning_rate
    if tune.n_steps is not None:
        data["ppo"]["n_steps"] = tune.n_steps
    data.update(total_timesteps=tune.total_timesteps, init_from=tune.start or str(RunPaths(config.out).final_model),
                init_optimizer=False,       # from the policy alone, as from a shipped file: the same stage either way
                out=str(Path(config.out) / FINE_TUNE_FOLDER), fine_tune=FineTuneConfig().model_dump(),
                league=LeagueConfig().model_dump())
    return config_from_dict(data, source=f"{config.out}: fine_tune")


def run_later_stage(config: Config, resume: bool, force: bool, progress: bool,
                    stop_at: int | None = None) -> list[MatchResult]:
    """A run of a later stage (`fine_tune`, a league's runs): continued when resumed from a checkpoint, else
    started, over its own files only when a resumed stage had stopped before its first checkpoint."""
    again = resume and RunPaths(config.out).latest_checkpoint() is not None
    return Trainer(config, resume=again, progress=progress, force=force or (resume and not again),
                   stop_at=stop_at).run()


def stage_done(paths: RunPaths, total_timesteps: int) -> bool:
    """A PPO run ended (its final model and summary written) at `total_timesteps`: a resumed run goes on to
    its next stage without evaluating it again."""
    if not (paths.final_model.is_file() and paths.summary.is_file()):
        return False
    return json.loads(paths.summary.read_text()).get("timesteps", -1) >= total_timesteps

