"""A value for the search's leaves: a small critic fitted to game outcomes at every seat, beside a policy's
unchanged actor.

The search is capped by its leaf evaluation (docs/champion.md): with the heuristic at the leaves, 3,200
iterations win no more than 800. PPO's critic did not help there either: it was fitted to the learner's
discounted returns at its own turns, while a leaf is any seat's position after a rollout. This module fits
what a leaf needs. It plays games of a line-up (by default the search bot in every seat, the opponents and
the search's own tree policy), takes every seat's observation at a random share of the decisions, labels it
with that seat's outcome (`game.returns()`: +1 winners, -1 the others) and fits a fresh critic of small
width to it. A critic of 64 units costs a fraction of the 256x256 one at each leaf, where it runs once per
seat. The policy's actor is copied bit for bit, so the policy alone plays exactly as before and only
`ppo:path=<out>/value.pt:search=N:leaf_value=1` changes.

Expert iteration (`training/search_games.py`) also plays games and fits a network to them, but other rows
for another part: the deciding seat's search visits and outcome in the policy's own searched self-play, to
train the whole policy with its optimiser. A leaf needs every seat's outcome, in games of any line-up, and a
critic fitted alone with early stopping on held-out games; so each keeps its own game loop and fit.

    python -m nefertiti_env.training.value_fit --start champion --players 4 --games 3000 --out runs/value_fit
    python -m nefertiti_env.training.value_fit --tables whole_game --games 500     # every table the agent trains at
    python -m nefertiti_env.training.value_fit --from runs/value_fit --evaluate agents/champion_value.pt \
        runs/value_fit/value.pt      # two critics on the games the fit above held out, per table

The games run through the tournament's game pool (`agents.workers.ordered_map`, `--workers` or `--ray`),
one job per game, results in order, so the data is the same on any number of workers. The last tenth of
each table's games is held out; the epoch with the lowest held-out error is kept, and the fit stops after
`--patience` epochs without a lower one (`value_fit.json` logs each epoch's error).
With `--tables` one critic is fitted to the games of every table of a training config: the observation (v2)
tells the critic the table, as it tells the policy.
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot, policy_file
from nefertiti_env.agents.ppo import model_file
from nefertiti_env.agents.progress import progress_bar
from nefertiti_env.agents.workers import ordered_map
from nefertiti_env.encoding.versions import OBSERVATIONS, version_of_size

HOLDOUT = 0.1             # share of the games (the last ones) whose rows measure the fit


@dataclass(frozen=True)
class ValueJob:
    lineup: tuple             # a bot spec per seat
    options: tuple            # NefertitiGame options as sorted (key, value) pairs
    seed: int
    share: float              # of the decisions at which every seat's observation is taken
    observation: str          # the observation version the critic reads


def play_value_game(job: ValueJob) -> tuple[np.ndarray, np.ndarray]:
    """One game: (every seat's observation at the sampled decisions [rows, size], its outcome [rows])."""
    n = len(job.lineup)
    game = NefertitiGame(n, seed=job.seed, **dict(job.options))
    bots = [make_bot(spec, seed=job.seed * 8 + s) for s, spec in enumerate(job.lineup)]
    observe, size = OBSERVATIONS[job.observation].observe, OBSERVATIONS[job.observation].size
    rng = np.random.default_rng(job.seed)
    obs, seats = [], []
    while not game.is_over():
        seat = game.current_player
        if rng.random() < job.share:
            obs += [observe(game, s) for s in range(n)]
            seats += range(n)
        game.apply(bots[seat].act(game, seat))
    return np.array(obs, np.float32).reshape(-1, size), game.returns()[seats].astype(np.float32)


def value_games(lineup: list[str], options: dict, games: int, seed: int, share: float = 0.5,
                observation: str = "v2", workers: int = 1, ray: str | None = None,
                progress: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
    """`games` games of `lineup` (seeds seed, seed + 1, ...), each game's rows in game order."""
    jobs = [ValueJob(tuple(lineup), tuple(sorted(options.items())), seed + i, share, observation)
            for i in range(games)]
    rows = []
    with ordered_map(workers, ray=ray, bots=tuple(lineup)) as map_, \
            progress_bar(total=games, desc="value games", unit="game", disable=not progress) as bar:
        for game in map_(play_value_game, jobs):
            rows.append(game)
            bar.update(1)
    return rows


def held_out(games: int) -> int:
    """How many of a table's `games` (the last ones) are held out to measure a fit."""
    return max(1, round(games * HOLDOUT))


def critic_value(policy, rows):
    """The policy's critic on observation rows, as the search's leaves read it (before the (1 + V) / 2)."""
    return policy.value_net(policy.mlp_extractor.value_net(rows)).squeeze(1)


def fit_value(start: str, tables: list[list[tuple[np.ndarray, np.ndarray]]], widths: list[int], epochs: int = 12,
              learning_rate: float = 1e-3, batch_size: int = 512, seed: int = 0, patience: int | None = None):
    """The policy at `start` with a fresh critic of `widths` fitted by squared error to the outcomes of the games
    of `tables` (each table's games in order) but the last HOLDOUT of each table's; the epoch with the lowest
    held-out error is kept, and the fit stops after `patience` epochs in a row without a lower one (a critic
    fitted to a million rows of outcomes overfits after a few passes, so later epochs only cost). Returns
    (policy, meta, log: per epoch the held-out error, and the error of the training rows' mean outcome as a
    yardstick)."""
    import torch

    start_meta, _ = policy_file.read(model_file(start))
    meta = {**start_meta, "net_arch": {"pi": policy_file.layers(start_meta["net_arch"])["pi"], "vf": list(widths)}}
    torch.manual_seed(seed)
    policy = policy_file.build_policy(meta)
    actor = {k: v for k, v in policy_file.load_policy(model_file(start)).state_dict().items()
             if k.startswith(("mlp_extractor.policy_net", "action_net"))}
    policy.load_state_dict({**policy.state_dict(), **actor})
    train, test = [], []
    for games in tables:
        held = held_out(len(games))
        if len(games) - held < 1:
            raise ValueError(f"{len(games)} games at a table: give at least 2 (the last {HOLDOUT:.0%} are held out)")
        train += games[:-held]
        test += games[-held:]
    x, y = (torch.as_tensor(np.concatenate(column)) for column in zip(*train))
    x_test, y_test = (torch.as_tensor(np.concatenate(column)) for column in zip(*test))
    critic = list(policy.mlp_extractor.value_net.parameters()) + list(policy.value_net.parameters())
    optimizer = torch.optim.Adam(critic, lr=learning_rate)
    generator = torch.Generator().manual_seed(seed)

    log = {"rows": len(y), "held_out_rows": len(y_test),
           "constant_error": float(((y_test - y.mean()) ** 2).mean()), "held_out_error": []}
    best, kept, waited = float("inf"), None, 0
    for _ in range(epochs):
        order = torch.randperm(len(y), generator=generator)
        for begin in range(0, len(y), batch_size):
            rows = order[begin:begin + batch_size]
            loss = torch.nn.functional.mse_loss(critic_value(policy, x[rows]), y[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            error = float(((critic_value(policy, x_test) - y_test) ** 2).mean())
        log["held_out_error"].append(round(error, 5))
        if error < best:
            best, kept, waited = error, {k: v.clone() for k, v in policy.state_dict().items()}, 0
        else:
            waited += 1
            if patience is not None and waited >= patience:
                break
    policy.load_state_dict(kept)
    policy.set_training_mode(False)
    log["kept_epoch"] = int(np.argmin(log["held_out_error"])) + 1
    return policy, meta, log


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nefertiti_env.training.value_fit", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--start", default="champion", help="the policy whose actor is kept: a model .pt, a run "
                        "folder, or champion (the shipped agent; default)")
    parser.add_argument("--lineup", default="mcts", help="one bot spec for every seat, or one per seat, comma-"
                        "separated (default mcts: the search bot, 800 iterations)")
    parser.add_argument("--players", type=int, default=4, help="players per game (default 4)")
    parser.add_argument("--setup", default="beginner", choices=["beginner", "advanced"])
    parser.add_argument("--memphis", action="store_true", help="use the Port of Memphis (always with 5)")
    parser.add_argument("--characters", default="base", help="base, expansion or a scenario name (default base)")
    parser.add_argument("--tables", metavar="CONFIG", help="instead of the one table above, every table of this "
                        "training config (a packaged name such as whole_game, or a YAML path), --games at each")
    parser.add_argument("--games", type=int, default=3000, help="games to play, at each table (default 3000)")
    parser.add_argument("--share", type=float, default=0.5, help="share of the decisions whose positions are "
                        "kept, every seat's (default 0.5)")
    parser.add_argument("--widths", default="64", help="the critic's hidden layers, comma-separated (default 64)")
    parser.add_argument("--epochs", type=int, default=12, help="passes over the rows, at most (default 12)")
    parser.add_argument("--patience", type=int, default=3, help="stop after this many epochs in a row without a "
                        "lower held-out error (default 3)")
    parser.add_argument("--learning-rate", type=float, default=1e-3)
    parser.add_argument("--batch-size", type=int, default=512)
    parser.add_argument("--seed", type=int, default=900_000, help="game i has seed SEED + i (default 900000)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing the games (default 2)")
    parser.add_argument("--ray", metavar="ADDRESS", help="play the games on a Ray cluster (docs/cluster.md)")
    parser.add_argument("--evaluate", nargs="+", metavar="MODEL", help="fit nothing: play only the held-out games "
                        "these settings hold out (the same games, bit for bit) and give each model's critic error on "
                        "them, per table (held_out_errors.json in --out); e.g. the shipped critic beside a new one")
    parser.add_argument("--from", dest="fit", metavar="FOLDER", help="with --evaluate: take the tables, line-ups, "
                        "--games, --share and --seed from this fit's value_fit.json (its folder or the file), so "
                        "that the games replayed are the ones it held out")
    parser.add_argument("--out", default="runs/value_fit", help="folder for value.pt and value_fit.json")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    import torch

    from nefertiti_env.agents.champion import CHAMPION_FILE

    torch.set_num_threads(1)              # two threads under contention ran several times slower

    start = str(CHAMPION_FILE) if args.start == "champion" else args.start
    lineup = [s.strip() for s in args.lineup.split(",")]
    widths = [int(w) for w in args.widths.split(",")]
    if args.tables:
        tables = [table.game_options() for table in _config_tables(args.tables, parser)]
    else:
        tables = [dict(num_players=args.players, setup=args.setup, memphis=args.memphis or None,
                       characters=args.characters)]
    lineups = [lineup * table["num_players"] if len(lineup) == 1 else lineup for table in tables]
    if args.fit:
        tables, lineups = _fit_settings(args, parser)
    if (len(lineup) > 1 and (args.tables or len(lineup) != args.players)) or args.games < 2 \
            or not 0 < args.share <= 1 or min(widths) < 1 or args.patience < 1:
        parser.error("give one bot or one per seat (at one table only), --games >= 2, --share in (0, 1], positive "
                     "--widths and --patience >= 1")
    meta, _ = policy_file.read(model_file(args.evaluate[0] if args.evaluate else start))
    observation = version_of_size(meta["obs_size"])         # the one the critic reads
    clock = time.perf_counter()
    first, count = (args.games - held_out(args.games), held_out(args.games)) if args.evaluate else (0, args.games)
    games = []
    for t, (table, seats) in enumerate(zip(tables, lineups)):
        options = {k: v for k, v in table.items() if k != "num_players"}
        games.append(value_games(seats, options, count, args.seed + t * args.games + first, args.share, observation,
                                 args.workers, args.ray, progress=not args.quiet))
    if args.evaluate:
        from .config import TableOptions

        return _evaluate(args.evaluate, [TableOptions(**table).label() for table in tables], games, Path(args.out))
    play_seconds = time.perf_counter() - clock
    policy, meta, log = fit_value(start, games, widths, args.epochs, args.learning_rate, args.batch_size, args.seed,
                                   args.patience)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    policy_file.save(out / "value.pt", policy, **meta)
    table_options = ("players", "setup", "memphis", "characters") if args.tables else ()    # --tables replaces them
    settings = {k: v for k, v in vars(args).items() if k not in table_options}
    log = {"settings": {**settings, "start": start, "tables": tables, "lineups": lineups},
           "play_seconds": round(play_seconds, 1),
           "fit_seconds": round(time.perf_counter() - clock - play_seconds, 1), **log}
    (out / "value_fit.json").write_text(json.dumps(log, indent=1))
    print(f"held-out squared error {min(log['held_out_error']):.4f} (the mean outcome: {log['constant_error']:.4f}) "
          f"on {log['held_out_rows']} rows; wrote {out}/value.pt; search with it as "
          f"ppo:path={out}/value.pt:search=3200:leaf_value=1")
    return 0


def _evaluate(models: list[str], labels: list[str], games: list, out: Path) -> int:
    """Each model's critic squared error on the held-out rows, per table and over all, beside the rows' own
    outcome variance (the error of their mean, a yardstick)."""
    import torch

    rows = [tuple(torch.as_tensor(np.concatenate(c)) for c in zip(*table_games)) for table_games in games]
    rows.append(tuple(torch.cat(c) for c in zip(*rows)))
    names = [*labels, "all"]
    errors = {"rows": {n: len(y) for n, (_, y) in zip(names, rows)},
              "variance": {n: float(y.var(unbiased=False)) for n, (_, y) in zip(names, rows)}}
    for model in models:
        policy = policy_file.load_policy(model_file(model))
        with torch.no_grad():
            errors[model] = {n: float(((critic_value(policy, x) - y) ** 2).mean()) for n, (x, y) in zip(names, rows)}
    out.mkdir(parents=True, exist_ok=True)
    (out / "held_out_errors.json").write_text(json.dumps(errors, indent=1))
    columns = ["variance", *models]
    print("| table | rows | " + " | ".join(columns) + " |\n|---|---|" + "---|" * len(columns))
    for n in names:
        print(f"| {n} | {errors['rows'][n]} | " + " | ".join(f"{errors[c][n]:.4f}" for c in columns) + " |")
    return 0


def _fit_settings(args, parser) -> tuple[list[dict], list[list[str]]]:
    """A fit's tables and line-ups from its value_fit.json; its --games, --share and --seed go into `args`.
    These decide which games are held out and what is kept of them, so `--evaluate` replays the same rows."""
    if not args.evaluate or args.tables:
        parser.error("--from goes with --evaluate, and in place of --tables")
    path = Path(args.fit)
    path = path / "value_fit.json" if path.is_dir() else path
    try:
        settings = json.loads(path.read_text())["settings"]
        args.games, args.share, args.seed = settings["games"], settings["share"], settings["seed"]
        return settings["tables"], settings["lineups"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        parser.error(f"--from: {path} is not a fit's value_fit.json ({type(err).__name__}: {err})")


def _config_tables(config: str, parser):
    """The tables of the training config `config` (a packaged name or a path), or a usage error naming it."""
    from nefertiti_env.configs import WrongCommandError, resolve

    from .config import ConfigError, load_config
    try:
        return load_config(resolve(config, "train")).env.table_list()
    except (FileNotFoundError, WrongCommandError, ConfigError) as err:
        parser.error(f"--tables: {err}")


if __name__ == "__main__":       # the package's own module, so that worker processes find the game function
    from nefertiti_env.training.value_fit import main as package_main
    raise SystemExit(package_main())
