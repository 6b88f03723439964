"""`nefertiti bench`: random-play decisions per second of the core, the AEC env and connect four.

One run measures (a) the raw rules core, (b) the Nefertiti AEC env through
`pettingzoo.make`, (c) PettingZoo's `classic/connect_four-v3` through
`pettingzoo.make`, and prints the ratio (b)/(c). It also measures (d) the
floor both share: an AEC env that does nothing (fixed 150-decision games)
under the same three wrappers the classic environments use, played by the same
loop, so the time (b) and (c) spend in their own code is their time per
decision minus the floor's. Each figure is decisions
(agent actions, not game resets) per second of process CPU time on one core,
the best of `--repeats` runs, so a busy machine disturbs it less. The ratio is
given twice: of the best figures, and the median over the repeats of the ratio
of one repeat's (b) and (c), measured back to back, which a drift of the
machine's speed between measurements affects less.
"""
from __future__ import annotations

import argparse
import random
import time

import numpy as np

from . import fail


def play_core_game(num_players: int, seed: int, rnd: random.Random) -> int:
    """One random game on NefertitiGame (legal_actions + apply, setup included); its decisions."""
    from nefertiti_env import NefertitiGame

    game, decisions = NefertitiGame(num_players, seed=seed), 0
    while not game.is_over():
        legal = game.legal_actions()
        game.apply(legal[rnd.randrange(len(legal))])
        decisions += 1
    return decisions


def make_env(env_id: str, **kwargs):
    """`pettingzoo.make("aec", env_id)`, with nefertiti/Nefertiti-v0 registered; "floor" is `floor_env()`."""
    if env_id == "floor":
        return floor_env()
    import pettingzoo

    import nefertiti_env  # noqa: F401  (registers nefertiti/Nefertiti-v0)

    return pettingzoo.make("aec", env_id, **kwargs)


def floor_env(decisions: int = 150):
    """A 4-agent AEC env whose step and observe do nothing (every one of our NUM_ACTIONS actions legal, a
    game is `decisions` steps), wrapped like the classic environments: what any env pays for PettingZoo's
    plumbing and the benchmark loop."""
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

    from nefertiti_env.core import NUM_ACTIONS

    class Floor(AECEnv):
        metadata = {"render_modes": [], "name": "floor_v0"}

        def __init__(self):
            super().__init__()
            self.possible_agents = [f"player_{i}" for i in range(4)]
            self.obs = {"observation": np.zeros(1, np.float32), "action_mask": np.ones(NUM_ACTIONS, np.int8)}
            self.space = spaces.Discrete(NUM_ACTIONS)
            self.obs_space = spaces.Dict({"observation": spaces.Box(0.0, 1.0, (1,), np.float32),
                                          "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})

        def action_space(self, agent):
            return self.space

        def observation_space(self, agent):
            return self.obs_space

        def reset(self, seed=None, options=None):
            self.agents, self.steps = self.possible_agents[:], 0
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
            self.terminations = dict.fromkeys(self.agents, False)
            self.truncations = dict.fromkeys(self.agents, False)
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.agents[0]

        def observe(self, agent):
            return self.obs

        def step(self, action):
            agent = self.agent_selection
            if self.terminations[agent]:
                self._was_dead_step(action)
                return
            self.steps += 1
            self._cumulative_rewards[agent] = 0.0
            if self.steps == decisions:
                self.rewards = dict.fromkeys(self.agents, 0.0)
                self.terminations = dict.fromkeys(self.agents, True)
                self._accumulate_rewards()
            else:
                self.agent_selection = self.agents[self.steps % 4]

    env = wrappers.TerminateIllegalWrapper(Floor(), illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(env))


def play_env_game(env, seed: int, rnd: random.Random) -> int:
    """One random legal game through an AEC env (last() + step()); its decisions."""
    env.reset(seed=seed)
    decisions = 0
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rnd.randrange(len(legal))])
            decisions += 1
        env.step(action)
    return decisions


def core_rate(num_players: int, seconds: float, seed: int) -> tuple[float, int]:
    """Decisions per CPU second of random play on the core, and the games played."""
    rnd = random.Random(seed)
    decisions, games, start = 0, 0, time.process_time()
    while time.process_time() - start < seconds:
        decisions += play_core_game(num_players, seed + games, rnd)
        games += 1
    return decisions / (time.process_time() - start), games


def aec_rate(env_id: str, seconds: float, seed: int, **kwargs) -> tuple[float, int]:
    """Decisions per CPU second of random legal play through `pettingzoo.make`, and the games played.

    One untimed game first: a new process loads the observation encoder's compiled code on its first call."""
    env = make_env(env_id, **kwargs)
    rnd = random.Random(seed)
    play_env_game(env, seed, rnd)
    decisions, games, start = 0, 0, time.process_time()
    while time.process_time() - start < seconds:
        decisions += play_env_game(env, seed + games, rnd)
        games += 1
    env.close()
    return decisions / (time.process_time() - start), games


def run(args) -> int:
    from nefertiti_env.agents.progress import progress_bar

    if args.seconds <= 0 or args.repeats < 1:
        return fail("bench", f"--seconds must be > 0 and --repeats >= 1, got {args.seconds:g} and {args.repeats}")
    rates = {"core": [], "env": [], "connect_four": [], "floor": []}
    # updated only between measurements, so the bar costs the timed loops nothing
    bar = progress_bar(total=args.repeats * len(rates), desc="bench", unit="measurement", leave=False)
    for _ in range(args.repeats):
        rates["core"].append(core_rate(args.players, args.seconds, args.seed)[0])
        bar.update()
        rates["env"].append(aec_rate("nefertiti/Nefertiti-v0", args.seconds, args.seed,
                                     num_players=args.players)[0])
        bar.update()
        try:
            rates["connect_four"].append(aec_rate("classic/connect_four-v3", args.seconds, args.seed)[0])
        except Exception as err:    # pettingzoo's classic extra (pygame) missing
            bar.write(f"connect_four-v3 unavailable: {err}")
        bar.update()
        rates["floor"].append(aec_rate("floor", args.seconds, args.seed)[0])
        bar.update()
    bar.close()
    best = {k: max(v, default=0.0) for k, v in rates.items()}
    rows = [("(a) raw core, NefertitiGame", best["core"]),
            ("(b) AEC env via pettingzoo.make", best["env"]),
            ("(c) classic/connect_four-v3 via pettingzoo.make", best["connect_four"]),
            ("(d) floor: a no-op AEC env, same wrappers and loop", best["floor"])]
    print(f"random-play decisions per second, {args.players} players, best of {args.repeats} x {args.seconds:g} s "
          "CPU time")
    for name, rate in rows:
        print(f"  {name:50s} {rate:>10,.0f}")
    if best["connect_four"]:
        print(f"  {'ratio (b)/(c) of the best figures':50s} {best['env'] / best['connect_four']:>10.2f}")
        # (b) and (c) of one repeat run back to back, so a drift of the machine's speed cancels out
        paired = np.median(np.array(rates["env"]) / np.array(rates["connect_four"]))
        print(f"  {'ratio (b)/(c), median over the repeats':50s} {paired:>10.2f}")
    print("microseconds per decision beyond the floor (d): the env's own code")
    for name, key in (("this env: 1/(b) - 1/(d)", "env"), ("connect four: 1/(c) - 1/(d)", "connect_four")):
        if best[key]:
            print(f"  {name:50s} {1e6 / best[key] - 1e6 / best['floor']:>10.1f}")
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench", help="measure random-play decisions per second (core, AEC env, connect four)",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6), help="player count (default 4)")
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per measurement (default 5)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="measurements per figure; the best counts, and the median of the paired ratios "
                             "(default 3)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.set_defaults(func=run)
