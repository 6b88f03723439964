"""A league of exploiters: round k trains agent k from agent k-1 against every best response found so far at
one table (the league table), then a fresh best response learns to beat agent k. Why: an agent trained against
fixed opponents leaves a counter-strategy that PPO from scratch finds in 2M steps; training against each one
found, and playing the agents as a mixture, leaves less to find (docs/champion.md, "Exploitability").

The third stage of a training run (`league` in its config; the run folder's `league/`), and the loop that
benchmarks/exploiter_league.py measures round by round. A best response is PPO from scratch against n-1
frozen copies of an agent (`best_response_config`; benchmarks/exploitability.py measures with it).
"""
from __future__ import annotations

from pathlib import Path

from nefertiti_env.configs import resolve
from nefertiti_env.encoding.versions import version_of_size

from .config import Config, ConfigError, config_from_dict, load_config
from .evaluation import MatchResult
from .snapshot_tables import fixed_policies

STAGE_FOLDER = "league"


def league_table(base: Config) -> int:
    """Where the league table sits in the rounds' config `base`: its one table with opponents of its own (the
    best responses join them); else a ConfigError."""
    found = [i for i, t in enumerate(base.env.tables) if t.opponents]
    if len(found) != 1:
        raise ConfigError(f"a league config needs exactly one table with opponents of its own (the best responses "
                          f"join them); it has {len(found)}")
    return found[0]


def table_options(base: Config) -> dict:
    """The league table's game options, Memphis read as the game reads an unset one (forced at 5 players)."""
    table = base.env.tables[league_table(base)]
    return {**table.game_options(), "memphis": table.plays_memphis()}


def best_response_config(base: Config, spec: str, options: dict, out: Path, steps: int, every: int,
                         games: int, final_games: int, seed: int | None = None) -> Config:
    """The best-response config `base` at the table `options` (NefertitiGame's), in the run folder `out`, with
    the agent `spec` (one policy, or a mixture whose seats draw their members per game) as the only opponent and
    evaluation baseline, `steps` learner steps and its evaluation schedule (and `seed` in place of the config's,
    if given). The learner reads the agent's observation version: the env has one encoder."""
    data = base.to_dict()
    if seed is not None:
        data["seed"] = seed
    policies, _ = fixed_policies(spec, options["num_players"])      # a mixture's members read one version
    data["env"] = {**{k: v for k, v in data["env"].items() if k != "tables"}, **options,
                   "observation": version_of_size(policies[0].observation_space.shape[0])}
    data["opponents"] = {**data["opponents"], "weights": {spec: 1.0}, "snapshot_every": steps, "max_snapshots": 1}
    data["evaluation"] = {**data["evaluation"], "baselines": [spec], "every_steps": every, "games": games,
                          "final_games": final_games}
    data.update(total_timesteps=steps, out=str(out), checkpoint_every=min(data["checkpoint_every"], steps),
                init_from="")
    return config_from_dict(data, source=f"the best-response config at {options['num_players']} players")


def round_config(base: Config, k: int, start: str, responses: list[Path], seed: int, out: Path) -> Config:
    """Agent k's training: the rounds' config `base` from the model `start`, seed `seed` + k, and the best
    responses at the league table, as many games as its own opponents, shared equally."""
    data = base.to_dict()
    league = data["env"]["tables"][league_table(base)]
    share = sum(league["opponents"].values()) / len(responses)
    league["opponents"] = {**{f"ppo:path={r}": share for r in responses}, **league["opponents"]}
    data.update(seed=seed + k, init_from=start, out=str(out))
    return config_from_dict(data, source=f"the league config, round {k}")


def stage_configs(config: Config) -> tuple[Config, Config]:
    """The run's league section's two configs, loaded and checked: the rounds' and the best responses'."""
    league = config.league
    try:
        base, responses = load_config(resolve(league.config)), load_config(resolve(league.best_response))
    except FileNotFoundError as err:
        raise ConfigError(f"league: {err}") from None
    league_table(base)
    return base, responses


def run_stage(config: Config, start: str, resume: bool, force: bool, progress: bool,
              stop_at: int | None = None) -> list[MatchResult]:
    """The run's league (`config.league`) from the model `start`, in `out`/league: best response k-1 against
    agent k-1 (the start for k = 1), then agent k, for k = 1 .. rounds. Each finished step is kept: resumed,
    the stage skips them and continues the one that was stopped. Returns the last agent's final evaluation."""
    from .trainer import RunPaths

    league = config.league
    base, responses_base = stage_configs(config)
    seed = base.seed if league.seed is None else league.seed
    folder = Path(config.out) / STAGE_FOLDER
    agent, responses, results = str(start), [], []
    for k in range(1, league.rounds + 1):
        response = best_response_config(responses_base, f"ppo:path={agent}", table_options(base),
                                        folder / f"best_response_{k - 1}", league.steps, league.eval_every,
                                        league.eval_games, league.final_games, seed)
        if progress:
            print(f"league, round {k} of {league.rounds}: best response {k - 1}, against {agent} ({response.out})")
        run_once(response, resume, force, progress, stop_at)
        responses.append(RunPaths(response.out).final_model)
        trained = round_config(base, k, agent, responses, seed, folder / f"agent_{k}")
        if progress:
            print(f"league, round {k} of {league.rounds}: agent {k}, against best responses 0-{k - 1} ({trained.out})")
        results = run_once(trained, resume, force, progress, stop_at)
        agent = str(RunPaths(trained.out).final_model)
    return results


def run_once(config: Config, resume: bool, force: bool, progress: bool,
             stop_at: int | None = None) -> list[MatchResult]:
    """One run of a league: skipped when resumed and done, else run as a later stage's run is
    (`trainer.run_later_stage`)."""
    from .trainer import RunPaths, run_later_stage, stage_done

    if resume and stage_done(RunPaths(config.out), config.total_timesteps):
        return []
    return run_later_stage(config, resume, force, progress, stop_at)
