"""`nefertiti bench`: the engine's speeds in one run, next to their peers (docs/performance.md).

(a) the scalar engine from Python: random play through `NefertitiGame` (legal_actions + apply,
    setup included), beside OpenSpiel's goofspiel (4 players, simultaneous: each player's move
    counts as a decision), tarok (4 players) and hearts through pyspiel when `open_spiel` is installed,
    each ratio also timed in turns (the engine and the peers in alternation, so a load cancels out);
(b) batched random play with the legal choice made in compiled code (`vector.random_play`, no
    observation) on one thread: decisions per core;
(c) the batched env (`vector.NefertitiVectorEnv`, 1,024 games, v0 observations and masks) with the
    actions chosen in Python (numpy), on one and on --threads numba threads, and on --threads with
    the compact v1 observations (a fifth of v0's floats: v0's 13 MB a step make the two threads
    share the memory's bandwidth): decisions per wall-clock second;
(d) the PettingZoo AEC env through `pettingzoo.make` beside `classic/connect_four-v3`, and the
    floor both share: an AEC env that does nothing (fixed 150-decision games) under the same
    three wrappers, played by the same loop, so an env's own time per decision is its time
    minus the floor's;
and what search needs: NefertitiGame clone + apply per second and the memory of a stored state;
and the compiled code's start-up, each a fresh Python process importing the package: the first run
(an empty NUMBA_CACHE_DIR) of a game and an observation (what NefertitiGame and the AEC env
compile), then the batched env's first use on top of it, then a later run of both (cached).

Figures (a), (b), (d) and clone+apply are decisions (agent actions, not resets or chance
events) per second of process CPU time on one core, the best of `--repeats` runs, so a busy
machine disturbs them less; (c) uses several threads, so it is per wall-clock second (a busy
machine lowers it). The (a) and (d) ratios are given three times: of the best figures; the median over
the repeats of the ratio of one repeat's two figures, measured back to back; and of figures timed in
turns of 0.25 s, each for as long as all its repeats (`timed_in_turns`), the one a drift of the
machine's speed disturbs least, with its 95% interval (a paired bootstrap over the rounds of turns:
scipy, in the `lab` extra). (d)'s microseconds beyond the floor come from the last.
"""
from __future__ import annotations

import argparse
import itertools
import random
import time
from typing import NamedTuple

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


def core_player(num_players: int, seed: int):
    """play() -> the decisions of the next random game on NefertitiGame (seeds seed, seed + 1, ...),
    after one untimed game: a new process loads the compiled engine on its first call."""
    rnd, seeds = random.Random(seed), itertools.count(seed)
    play_core_game(num_players, seed, rnd)
    return lambda: play_core_game(num_players, next(seeds), rnd)


def env_player(env_id: str, seed: int, **kwargs):
    """play() -> the decisions of the next random legal game through `pettingzoo.make(env_id)`,
    after one untimed game (the observation encoder's compiled code loads on its first call)."""
    env, rnd, seeds = make_env(env_id, **kwargs), random.Random(seed), itertools.count(seed)
    play_env_game(env, seed, rnd)
    return lambda: play_env_game(env, next(seeds), rnd)


def openspiel_player(name: str, params: dict, seed: int):
    """play() -> the agent decisions of one random game of an OpenSpiel game through pyspiel (chance
    outcomes drawn by their probabilities and not counted; at a simultaneous node every player's
    move counts), after one untimed game."""
    import pyspiel

    game, rnd = pyspiel.load_game(name, params), random.Random(seed)

    def play() -> int:
        state, decisions = game.new_initial_state(), 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(rnd.choices(outcomes, probs)[0])
            elif state.is_simultaneous_node():
                moves = [rnd.choice(state.legal_actions(p)) for p in range(game.num_players())]
                state.apply_actions(moves)
                decisions += len(moves)
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rnd.randrange(len(legal))])
                decisions += 1
        return decisions

    play()
    return play


def _play_for(seconds: float, play, clock=time.process_time) -> tuple[int, float]:
    """Calls play() (returning decisions made) until `seconds` of `clock` passed: the decisions and
    the seconds taken."""
    decisions, start = 0, clock()
    while clock() - start < seconds:
        decisions += play()
    return decisions, clock() - start


def _timed(seconds: float, play, clock=time.process_time) -> float:
    """`_play_for`'s decisions per second."""
    decisions, elapsed = _play_for(seconds, play, clock)
    return decisions / elapsed


class Turns(NamedTuple):
    """What `timed_in_turns` measured: per play, the decisions and CPU seconds of each round's turn."""
    decisions: dict[str, np.ndarray]
    seconds: dict[str, np.ndarray]

    def rate(self, key: str) -> float:
        """Decisions per CPU second of play `key` over all its turns."""
        return self.decisions[key].sum() / self.seconds[key].sum()

    def ratio(self, key: str, other: str) -> float:
        """rate(key) / rate(other)."""
        return self.rate(key) / self.rate(other)

    def interval(self, key: str, other: str) -> tuple[float, float]:
        """The 95% bootstrap interval of `ratio(key, other)` over the rounds, resampled in pairs (a round's
        turns ran back to back: what slowed one likely slowed the other). Needs scipy (the `lab` extra)."""
        from scipy.stats import bootstrap

        def ratio(d, s, d_other, s_other, axis=-1):
            return d.sum(axis) / s.sum(axis) / (d_other.sum(axis) / s_other.sum(axis))

        data = (self.decisions[key], self.seconds[key], self.decisions[other], self.seconds[other])
        interval = bootstrap(data, ratio, paired=True, vectorized=True, n_resamples=2000, method="percentile",
                             rng=np.random.default_rng(0)).confidence_interval
        return interval.low, interval.high


def timed_in_turns(plays: dict, seconds: float, slice_seconds: float = 0.25) -> Turns:
    """Each play() of `plays` timed in turns of `slice_seconds` of CPU time (the order rotating every
    round) until each had about `seconds`: a change of the machine's speed then falls on all of them
    alike, where a shared machine's speed moves separately timed figures, and their ratios, by tens of
    percent between runs minutes apart. Two rounds at least, so that a ratio has an interval."""
    keys, rounds = list(plays), max(2, round(seconds / slice_seconds))
    decisions, spent = {key: np.zeros(rounds) for key in keys}, {key: np.zeros(rounds) for key in keys}
    for r in range(rounds):
        for key in keys[r % len(keys):] + keys[:r % len(keys)]:
            decisions[key][r], spent[key][r] = _play_for(slice_seconds, plays[key])
    return Turns(decisions, spent)


def batched_random_rate(num_players: int, seconds: float, seed: int, envs: int = 64, decisions: int = 500) -> float:
    """(b) Decisions per CPU second of `vector.random_play` on one numba thread."""
    import numba

    from nefertiti_env.vector import NefertitiVectorEnv, random_play

    venv = NefertitiVectorEnv(envs, num_players, seed=seed)
    venv.reset()
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        random_play(venv, 1, 1)                                           # loads the compiled code
        return _timed(seconds, lambda: random_play(venv, decisions, 1).size * decisions)
    finally:
        numba.set_num_threads(before)


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of `masks` (int8 [N, NUM_ACTIONS], each row with one
    legal action or more), in numpy: the legal cells in row order, then one drawn within each row's
    run of them: a cumulative sum over the whole mask would take as long as the games' step itself."""
    cells = np.flatnonzero(masks.view(np.bool_))
    counts = np.add.reduce(masks, axis=1, dtype=np.int64)
    picks = np.cumsum(counts) - counts + (rng.random(len(masks)) * counts).astype(np.int64)
    return cells[picks] % masks.shape[1]


def batched_env_rate(num_players: int, seconds: float, seed: int, threads: int, envs: int = 1024,
                     observation: str = "v0") -> float:
    """(c) Decisions per wall-clock second of `NefertitiVectorEnv.step` on `threads` numba threads,
    each step's actions drawn from the masks in numpy (`random_legal`), observations of version `observation`."""
    import numba

    from nefertiti_env.vector import NefertitiVectorEnv

    venv = NefertitiVectorEnv(envs, num_players, seed=seed, observation=observation)
    _, masks, *_ = venv.reset()
    rng = np.random.default_rng(seed)
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))

    def play() -> int:
        nonlocal masks
        _, masks, *_ = venv.step(random_legal(masks, rng))
        return envs

    try:
        play()
        return _timed(seconds, play, time.perf_counter)
    finally:
        numba.set_num_threads(before)


def clone_apply_rate(num_players: int, seconds: float, seed: int) -> float:
    """NefertitiGame.clone() + apply() of a random legal action per CPU second, from the
    positions of a random game (what a search does per node)."""
    from nefertiti_env import NefertitiGame

    rnd, game = random.Random(seed), NefertitiGame(num_players, seed=seed)
    positions = []
    while not game.is_over():
        positions.append(game.clone())
        legal = game.legal_actions()
        game.apply(legal[rnd.randrange(len(legal))])

    def play() -> int:
        for g in positions:
            child = g.clone()
            legal = child.legal_actions()
            child.apply(legal[rnd.randrange(len(legal))])
        return len(positions)

    return _timed(seconds, play)


def state_memory(num_players: int, seed: int) -> tuple[int, int]:
    """Bytes of a stored position: the engine's state array S, and a whole NefertitiGame clone
    (S, R shared or not, the history lists: measured with tracemalloc) mid-game."""
    import tracemalloc

    from nefertiti_env import NefertitiGame

    rnd, game = random.Random(seed), NefertitiGame(num_players, seed=seed)
    for _ in range(80):
        legal = game.legal_actions()
        game.apply(legal[rnd.randrange(len(legal))])
    tracemalloc.start()
    clones = [game.clone() for _ in range(100)]
    size = tracemalloc.get_traced_memory()[0] // len(clones)
    tracemalloc.stop()
    return game.S.nbytes, size


SCALAR_SCRIPT = """
from nefertiti_env import NefertitiGame
from nefertiti_env.encoding import observe
g = NefertitiGame(4, seed=0)
while not g.is_over():
    g.apply(g.legal_actions()[0])
observe(g, 0)
"""
STARTUP_SCRIPT = SCALAR_SCRIPT + """
from nefertiti_env.vector import NefertitiVectorEnv, random_play
v = NefertitiVectorEnv(2, seed=0, observation="v0")
_, masks, *_ = v.reset()
v.step(masks.argmax(axis=1))
random_play(v, 10, 1)
"""


def startup_times(scripts=(SCALAR_SCRIPT, STARTUP_SCRIPT, STARTUP_SCRIPT)) -> list[tuple[float, float]]:
    """(wall-clock, CPU) seconds of fresh processes running `scripts` in turn on one new, empty
    NUMBA_CACHE_DIR. By default: the scalar engine's first run (a game and an observation: what
    compiles for `NefertitiGame` and the AEC env), then the batched env's kernels compiled on top
    of that cache, then the whole script again with everything cached."""
    import os
    import resource
    import subprocess
    import sys
    import tempfile

    def children_cpu() -> float:
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    with tempfile.TemporaryDirectory(prefix="nefertiti-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for script in scripts:
            start, cpu = time.perf_counter(), children_cpu()
            subprocess.run([sys.executable, "-c", script], env=env, check=True)
            times.append((time.perf_counter() - start, children_cpu() - cpu))
    return times


def run(args) -> int:
    from nefertiti_env.agents.progress import progress_bar

    if args.seconds <= 0 or args.repeats < 1 or args.threads < 1:
        return fail("bench", f"--seconds must be > 0, --repeats >= 1 and --threads >= 1, got {args.seconds:g}, "
                             f"{args.repeats} and {args.threads}")
    try:
        import pyspiel  # noqa: F401
        peers = {"goofspiel": ("goofspiel", {"players": 4}), "tarok": ("tarok", {"players": 4}), "hearts": ("hearts", {})}
    except ImportError:
        peers = {}
    rates = {k: [] for k in ("core", *peers, "batched", "vector_1", "vector", "vector_v1", "env", "connect_four",
                             "floor", "clone")}
    # updated only between measurements, so the bar costs the timed loops nothing
    bar = progress_bar(total=args.repeats * len(rates) + 2 + 3 * args.startup, desc="bench", unit="measurement",
                       leave=False)
    if not peers:
        bar.write("OpenSpiel not installed (pip install open_spiel): no peer figures")
    measure = {
        "core": lambda: _timed(args.seconds, core_player(args.players, args.seed)),
        **{key: (lambda name=name, params=params: _timed(args.seconds, openspiel_player(name, params, args.seed)))
           for key, (name, params) in peers.items()},
        "batched": lambda: batched_random_rate(args.players, args.seconds, args.seed),
        "vector_1": lambda: batched_env_rate(args.players, args.seconds, args.seed, 1),
        "vector": lambda: batched_env_rate(args.players, args.seconds, args.seed, args.threads),
        "vector_v1": lambda: batched_env_rate(args.players, args.seconds, args.seed, args.threads, observation="v1"),
        "env": lambda: _timed(args.seconds, env_player("nefertiti/Nefertiti-v0", args.seed, num_players=args.players)),
        "connect_four": lambda: _timed(args.seconds, env_player("classic/connect_four-v3", args.seed)),
        "floor": lambda: _timed(args.seconds, env_player("floor", args.seed)),
        "clone": lambda: clone_apply_rate(args.players, args.seconds, args.seed),
    }
    for _ in range(args.repeats):
        for key, rate in measure.items():
            try:
                rates[key].append(rate())
            except Exception as err:       # pettingzoo's classic extra (pygame) missing
                if key != "connect_four":
                    raise
                bar.write(f"connect_four-v3 unavailable: {err}")
            bar.update()
    # (a)'s and (d)'s figures again, timed in turns of 0.25 s, each for as long as all its repeats
    seconds, core_turns, env_turns = args.seconds * args.repeats, None, None
    if peers:
        core_turns = timed_in_turns({"core": core_player(args.players, args.seed),
                                     **{key: openspiel_player(*peer, args.seed) for key, peer in peers.items()}},
                                    seconds)
    bar.update()
    if rates["connect_four"]:
        env_turns = timed_in_turns({"env": env_player("nefertiti/Nefertiti-v0", args.seed, num_players=args.players),
                                    "connect_four": env_player("classic/connect_four-v3", args.seed),
                                    "floor": env_player("floor", args.seed)}, seconds)
    bar.update()
    startup = None
    if args.startup:
        startup = startup_times()
        bar.update(3)
    bar.close()
    best = {k: max(v, default=0.0) for k, v in rates.items()}
    peer = best.get("goofspiel", 0.0)

    def line(name, value, fmt="{:>12,.0f}"):
        print(f"  {name:58s} {fmt.format(value)}")

    def ratio(name, value):
        if peer:
            line(f"{name} / goofspiel 4p", value / peer, "{:>12.2f}")

    def in_turns(name, turns, key, other):
        line(f"{name}, in turns of 0.25 s", turns.ratio(key, other), "{:>12.2f}")
        label = f"  95% interval, bootstrap over its {len(turns.seconds[key])} rounds"
        try:
            line(label, "[{:.2f}, {:.2f}]".format(*turns.interval(key, other)), "{:>12s}")
        except ImportError:
            line(label, "needs scipy: pip install 'nefertiti-env[lab]'", "{}")

    print(f"decisions per second of random play, {args.players} players, best of {args.repeats} x "
          f"{args.seconds:g} s")
    print("(a) scalar engine from Python (CPU time, one core)")
    line("NefertitiGame legal_actions + apply, setup included", best["core"])
    if peers:
        line("OpenSpiel goofspiel 4p via pyspiel (every player's move)", best["goofspiel"])
        line("OpenSpiel tarok 4p via pyspiel", best["tarok"])
        line("OpenSpiel hearts via pyspiel", best["hearts"])
        ratio("ratio NefertitiGame", best["core"])
        # the two of one repeat run back to back, so a drift of the machine's speed cancels out
        line("ratio NefertitiGame / goofspiel 4p, median over repeats",
             np.median(np.array(rates["core"]) / np.array(rates["goofspiel"])), "{:>12.2f}")
        for key, name in (("goofspiel", "goofspiel 4p"), ("tarok", "tarok 4p"), ("hearts", "hearts")):
            in_turns(f"ratio NefertitiGame / {name}", core_turns, "core", key)
    print("(b) batched random play, legal choice compiled, no observation (CPU time, one thread)")
    line("vector.random_play per core", best["batched"])
    ratio("ratio per core", best["batched"])
    print("(c) batched env with observations and masks, actions from Python (wall clock)")
    line("NefertitiVectorEnv.step, 1 thread", best["vector_1"])
    line(f"NefertitiVectorEnv.step, {args.threads} threads", best["vector"])
    line(f"NefertitiVectorEnv.step, {args.threads} threads, compact v1 observations", best["vector_v1"])
    print("(d) PettingZoo AEC envs via pettingzoo.make (CPU time, one core)")
    line("Nefertiti-v0", best["env"])
    line("classic/connect_four-v3", best["connect_four"])
    line("floor: a no-op AEC env, same wrappers and loop", best["floor"])
    if best["connect_four"]:
        line("ratio Nefertiti-v0 / connect_four-v3, of the best figures", best["env"] / best["connect_four"],
             "{:>12.2f}")
        # both of one repeat run back to back, so a drift of the machine's speed cancels out
        paired = np.median(np.array(rates["env"]) / np.array(rates["connect_four"]))
        line("ratio Nefertiti-v0 / connect_four-v3, median over repeats", paired, "{:>12.2f}")
        in_turns("ratio Nefertiti-v0 / connect_four-v3", env_turns, "env", "connect_four")
        for name, key in (("connect four", "connect_four"), ("Nefertiti-v0", "env")):
            line(f"us per decision beyond the floor, in turns: {name}", 1e6 / env_turns.rate(key)
                 - 1e6 / env_turns.rate("floor"), "{:>12.1f}")
    else:
        line("microseconds per decision beyond the floor: Nefertiti-v0", 1e6 / best["env"] - 1e6 / best["floor"],
             "{:>12.1f}")
    print("search")
    line("NefertitiGame clone + apply per second (CPU time)", best["clone"])
    array_bytes, clone_bytes = state_memory(args.players, args.seed)
    line("bytes per stored state: the state array S", array_bytes)
    line("bytes per stored state: a NefertitiGame clone mid-game", clone_bytes)
    if startup:
        (scalar, scalar_cpu), (batched, batched_cpu), (later, later_cpu) = startup
        print("start-up of a fresh process importing the package (seconds: wall clock; CPU time)")
        line("first run, a game and an observation (empty NUMBA_CACHE_DIR)", scalar, "{:>12.1f}")
        line("  CPU time", scalar_cpu, "{:>12.1f}")
        line("first use of the batched env and random_play, on top", batched, "{:>12.1f}")
        line("  CPU time", batched_cpu, "{:>12.1f}")
        line("first run, all of it: the two above", scalar + batched, "{:>12.1f}")
        line("  CPU time", scalar_cpu + batched_cpu, "{:>12.1f}")
        line("later run, all of it (cached)", later, "{:>12.1f}")
    return 0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench", help="measure random-play speeds: scalar engine vs OpenSpiel, batched engine, batched env, "
                      "PettingZoo env vs connect four, clone+apply, memory, compile and start-up times",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4, choices=range(2, 6), help="player count (default 4)")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement (default 5)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="measurements per figure; the best counts, and the median of the paired ratios "
                             "(default 3)")
    parser.add_argument("--threads", type=int, default=2, help="numba threads for (c), the batched env (default 2)")
    parser.add_argument("--no-startup", dest="startup", action="store_false",
                        help="skip the start-up times (the first-run one compiles everything: minutes on a "
                             "busy machine)")
    parser.add_argument("--seed", type=int, default=0, help="first game seed (default 0)")
    parser.set_defaults(func=run, extra="lab")
