"""Golden bot decisions: the safety net for compiling the heuristic bots (issue #21 §1).

`tests/golden/bots.npz` holds games where every seat is the same heuristic bot (greedy,
collector, banker, and greedy with the search bot's `samples=1`), 4 seeded games per option
set (2 to 5 players, Memphis, expansion characters, advanced setup). For every decision where
the bot chose among two or more legal actions it keeps the decision's index in the game, the
bot's generator state just before deciding and the action chosen. tests/test_bots_golden.py
replays each game and, at each recorded decision, restores the generator and checks that the
bot picks the recorded action: a change of play shows at the decision where it arises.

    python tests/golden_bots.py --write     # re-record after an intended change of play
    python tests/golden_bots.py --diff      # which decisions differ from the file
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from nefertiti_env import NefertitiGame
from nefertiti_env.agents import make_bot

FILE = Path(__file__).parent / "golden" / "bots.npz"
BOTS = ("greedy", "collector", "banker", "greedy:samples=1")
OPTION_SETS = (
    dict(num_players=2, memphis=False, characters="base", setup="beginner"),
    dict(num_players=3, memphis=True, characters="expansion", setup="advanced"),
    dict(num_players=4, memphis=False, characters="base", setup="beginner"),
    dict(num_players=4, memphis=True, characters="expansion", setup="advanced"),
    dict(num_players=5, memphis=True, characters="race_for_the_nile", setup="beginner"),
)
GAMES_PER_SET = 4
MASK64 = (1 << 64) - 1


def corpus_games() -> list[tuple[int, int, int]]:
    """(bot index, option set index, seed) of every game, in order."""
    return [(b, s, 5_000_000 + 1000 * b + 100 * s + i)
            for b in range(len(BOTS)) for s in range(len(OPTION_SETS)) for i in range(GAMES_PER_SET)]


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
    """Actions, seat increments, and (decision index, generator words, action) of each bot choice."""
    g = NefertitiGame(seed=seed, **options)
    bots = [make_bot(bot, seed=[seed, seat]) for seat in range(g.num_players)]
    incs = [int(b.rng.bit_generator.state["state"]["inc"]) for b in bots]
    decisions = []
    while not g.is_over():
        seat = g.current_player
        if len(g.legal_actions()) >= 2:
            words = state_words(bots[seat].rng.bit_generator.state)
            action = bots[seat].act(g, seat)
            decisions.append((len(g.history), words, action))
        else:
            action = bots[seat].act(g, seat)
        g.apply(action)
    return list(g.history), incs, decisions


def write() -> None:
    games = corpus_games()
    lengths, actions, incs, index, words, chosen, per_game = [], [], [], [], [], [], []
    for n, (b, s, seed) in enumerate(games):
        acts, seat_incs, decisions = record_game(BOTS[b], OPTION_SETS[s], seed)
        print(f"game {n + 1}/{len(games)}: {BOTS[b]} {OPTION_SETS[s]}: {len(acts)} actions, "
              f"{len(decisions)} bot choices", file=sys.stderr)
        lengths.append(len(acts))
        actions += acts
        incs.append(seat_incs + [0] * (5 - len(seat_incs)))
        per_game.append(len(decisions))
        for i, w, a in decisions:
            index.append(i)
            words.append(w)
            chosen.append(a)
    np.savez_compressed(
        FILE, bot=np.array([b for b, _, _ in games], dtype=np.int8),
        option_set=np.array([s for _, s, _ in games], dtype=np.int8),
        seed=np.array([seed for _, _, seed in games], dtype=np.int64),
        length=np.array(lengths, dtype=np.int32), actions=np.array(actions, dtype=np.uint8),
        inc_hi=np.array([[i >> 64 for i in r] for r in incs], dtype=np.uint64),
        inc_lo=np.array([[i & MASK64 for i in r] for r in incs], dtype=np.uint64),
        choices=np.array(per_game, dtype=np.int32), index=np.array(index, dtype=np.int32),
        words=np.array(words, dtype=np.uint64), chosen=np.array(chosen, dtype=np.uint8))


def load() -> dict[str, np.ndarray]:
    with np.load(FILE, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def check_game(corpus: dict, number: int, bot_factory=make_bot) -> list[str]:
    """Replay game `number`; the decisions where the bot (from `bot_factory(spec)`) now chooses
    otherwise, as messages (empty: all as recorded)."""
    start = int(corpus["length"][:number].sum())
    actions = corpus["actions"][start:start + int(corpus["length"][number])].tolist()
    first = int(corpus["choices"][:number].sum())
    count = int(corpus["choices"][number])
    spec, options = BOTS[int(corpus["bot"][number])], OPTION_SETS[int(corpus["option_set"][number])]
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
            k += 1
        g.apply(action)
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="re-record tests/golden/bots.npz")
    parser.add_argument("--diff", action="store_true", help="list the decisions that differ from the file")
    args = parser.parse_args(argv)
    if args.write:
        write()
        print(f"wrote {FILE} ({FILE.stat().st_size // 1024} KB)")
        return 0
    if args.diff:
        corpus = load()
        problems = [p for n in range(len(corpus["seed"])) for p in check_game(corpus, n)]
        print("\n".join(problems) or "every recorded decision is played as recorded")
        return 1 if problems else 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
