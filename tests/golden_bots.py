"""Golden bot decisions: the safety net for compiling the bots.

Two corpora. `tests/golden/bots.npz` holds games where every seat is the same heuristic bot
(greedy, collector, banker, and greedy with the search bot's `samples=1`), 4 seeded games per
option set (2 to 5 players, Memphis, expansion characters, advanced setup);
`tests/golden/mcts.npz` the same for the search bot at 50 iterations (its default options, and
a wide root with random rollout turns), 2 games per option set; `tests/golden/agents.npz` for the
shipped agent's policy alone, deterministic and sampling, 2 games per option set. For every decision where the
bot chose among two or more legal actions a corpus keeps the decision's index in the game, the
bot's generator state just before deciding and the action chosen (the MCTS corpus also the
state just after, so a change in how the search draws shows even when the move does not).
tests/test_bots_golden.py replays each game and, at each recorded decision, restores the
generator and checks that the bot picks the recorded action: a change of play shows at the
decision where it arises.

    python tests/golden_bots.py --write [--corpus NAME]   # re-record after an intended change of play
    python tests/golden_bots.py --diff [--corpus NAME]    # which decisions differ from the file
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot

BOTS = ("greedy", "collector", "banker", "greedy:samples=1")
OPTION_SETS = (
    dict(num_players=2, memphis=False, characters="base", setup="beginner"),
    dict(num_players=3, memphis=True, characters="expansion", setup="advanced"),
    dict(num_players=4, memphis=False, characters="base", setup="beginner"),
    dict(num_players=4, memphis=True, characters="expansion", setup="advanced"),
    dict(num_players=5, memphis=True, characters="race_for_the_nile", setup="beginner"),
)
MASK64 = (1 << 64) - 1


@dataclass(frozen=True)
class Corpus:
    """Which games a corpus file holds: every bot spec on every option set, seeded from `seed`."""

    file: Path
    bots: tuple[str, ...]
    games_per_set: int
    seed: int
    option_sets: tuple[dict, ...] = OPTION_SETS

    def games(self) -> list[tuple[int, int, int]]:
        """(bot index, option set index, seed) of every game, in order."""
        return [(b, s, self.seed + 1000 * b + 100 * s + i) for b in range(len(self.bots))
                for s in range(len(self.option_sets)) for i in range(self.games_per_set)]


HEURISTICS = Corpus(Path(__file__).parent / "golden" / "bots.npz", BOTS, 4, 5_000_000)
MCTS = Corpus(Path(__file__).parent / "golden" / "mcts.npz",
              ("mcts:iterations=50", "mcts:iterations=50:width=0:rollout_turns=3"), 2, 6_000_000)
AGENTS = Corpus(Path(__file__).parent / "golden" / "agents.npz", ("champion", "champion:deterministic=0"), 2, 7_000_000)
CORPORA = {"heuristics": HEURISTICS, "mcts": MCTS, "agents": AGENTS}


def state_words(state: dict) -> list[int]:
    """A PCG64 state as four uint64 words (state high, low, buffered 32 bits, has_uint32); the
    increment is fixed per generator and stored per seat."""
    s = int(state["state"]["state"])
    return [s >> 64, s & MASK64, int(state["uinteger"]), int(state["has_uint32"])]


def words_state(words, inc: int) -> dict:
    hi, lo, uinteger, has = (int(w) for w in words)
    return {"bit_generator": "PCG64", "state": {"state": (hi << 64) | lo, "inc": inc},
            "has_uint32": has, "uinteger": uinteger}


def record_game(bot: str, options: dict, seed: int):
    """Actions, seat increments, and (decision index, generator words before and after, action) of
    each bot choice."""
    g = NefertitiGame(seed=seed, **options)
    bots = [make_bot(bot, seed=[seed, seat]) for seat in range(g.num_players)]
    incs = [int(b.rng.bit_generator.state["state"]["inc"]) for b in bots]
    decisions = []
    while not g.is_over():
        seat = g.current_player
        if len(g.legal_actions()) >= 2:
            words = state_words(bots[seat].rng.bit_generator.state)
            action = bots[seat].act(g, seat)
            decisions.append((len(g.history), words, state_words(bots[seat].rng.bit_generator.state), action))
        else:
            action = bots[seat].act(g, seat)
        g.apply(action)
    return list(g.history), incs, decisions


def write(spec: Corpus) -> None:
    games = spec.games()
    lengths, actions, incs, index, words, after, chosen, per_game = [], [], [], [], [], [], [], []
    for n, (b, s, seed) in enumerate(games):
        acts, seat_incs, decisions = record_game(spec.bots[b], spec.option_sets[s], seed)
        print(f"game {n + 1}/{len(games)}: {spec.bots[b]} {spec.option_sets[s]}: {len(acts)} actions, "
              f"{len(decisions)} bot choices", file=sys.stderr)
        lengths.append(len(acts))
        actions += acts
        incs.append(seat_incs + [0] * (5 - len(seat_incs)))
        per_game.append(len(decisions))
        for i, w, w_after, a in decisions:
            index.append(i)
            words.append(w)
            after.append(w_after)
            chosen.append(a)
    np.savez_compressed(
        spec.file, bot=np.array([b for b, _, _ in games], dtype=np.int8),
        option_set=np.array([s for _, s, _ in games], dtype=np.int8),
        seed=np.array([seed for _, _, seed in games], dtype=np.int64),
        length=np.array(lengths, dtype=np.int32), actions=np.array(actions, dtype=np.uint8),
        inc_hi=np.array([[i >> 64 for i in r] for r in incs], dtype=np.uint64),
        inc_lo=np.array([[i & MASK64 for i in r] for r in incs], dtype=np.uint64),
        choices=np.array(per_game, dtype=np.int32), index=np.array(index, dtype=np.int32),
        words=np.array(words, dtype=np.uint64), after=np.array(after, dtype=np.uint64),
        chosen=np.array(chosen, dtype=np.uint8))


def load(spec: Corpus = HEURISTICS) -> dict:
    """The corpus file's arrays, and its `Corpus` under "spec"."""
    with np.load(spec.file, allow_pickle=False) as data:
        return {"spec": spec, **{k: data[k] for k in data.files}}


def check_game(corpus: dict, number: int, bot_factory=make_bot) -> list[str]:
    """Replay game `number`; the decisions where the bot (from `bot_factory(spec)`) now chooses
    otherwise, or leaves its generator in another state than recorded (when the corpus has
    it), as messages (empty: all as recorded)."""
    start = int(corpus["length"][:number].sum())
    actions = corpus["actions"][start:start + int(corpus["length"][number])].tolist()
    first = int(corpus["choices"][:number].sum())
    count = int(corpus["choices"][number])
    spec = corpus["spec"].bots[int(corpus["bot"][number])]
    options = corpus["spec"].option_sets[int(corpus["option_set"][number])]
    g = NefertitiGame(seed=int(corpus["seed"][number]), **options)
    bot = bot_factory(spec)
    problems, k = [], first
    for i, action in enumerate(actions):
        if k < first + count and int(corpus["index"][k]) == i:
            seat = g.current_player
            inc = (int(corpus["inc_hi"][number, seat]) << 64) | int(corpus["inc_lo"][number, seat])
            bot.rng.bit_generator.state = words_state(corpus["words"][k], inc)
            got = bot.act(g, seat)
            if got != int(corpus["chosen"][k]) or got != action:
                problems.append(f"game {number} ({spec}, seed {int(corpus['seed'][number])}, {options}) decision "
                                f"{i}: chose {got} ({g.action_to_string(got)}), recorded {action} "
                                f"({g.action_to_string(action)})")
            elif "after" in corpus and state_words(bot.rng.bit_generator.state) != corpus["after"][k].tolist():
                problems.append(f"game {number} ({spec}, seed {int(corpus['seed'][number])}, {options}) decision "
                                f"{i}: chose as recorded but drew another amount of random numbers")
            k += 1
        g.apply(action)
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="re-record the corpus")
    parser.add_argument("--diff", action="store_true", help="list the decisions that differ from the file")
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="heuristics",
                        help="which corpus (default heuristics: tests/golden/bots.npz; mcts: tests/golden/mcts.npz; "
                             "agents: tests/golden/agents.npz)")
    args = parser.parse_args(argv)
    spec = CORPORA[args.corpus]
    if args.write:
        write(spec)
        print(f"wrote {spec.file} ({spec.file.stat().st_size // 1024} KB)")
        return 0
    if args.diff:
        corpus = load(spec)
        problems = [p for n in range(len(corpus["seed"])) for p in check_game(corpus, n)]
        print("\n".join(problems) or "every recorded decision is played as recorded")
        return 1 if problems else 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
