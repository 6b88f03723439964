"""The values each field of the state takes in random games, to choose its natural width (docs/engine.md,
"Natural widths"): every field's observed min and max over every decision of random games at every option
set (2-5 players, Memphis, the expansion's characters and scenarios, the advanced setup), the width those
values fit twice over, the width the layout gives the field, and the state's size at each.

Random play is no proof of a bound: a width is chosen from the rules' own bound where one exists (a seat's
Deben are at most the game's Deben), and the observed range only says which fields need the margin.

    python benchmarks/state_ranges.py --games 200 --seed 0
"""
from __future__ import annotations

import argparse
import itertools

import numpy as np
from tqdm import tqdm

from nefertiti_env import NefertitiGame
from nefertiti_env.core.engine import layout as L
from nefertiti_env.encoding.observation import VECTOR_SIZE, state_vector

CHARACTERS = ("base", "expansion", "curse_of_amon", "intrigue_at_court", "race_for_the_nile")


def option_sets():
    """Every table the ruleset sets up: Memphis both ways where it is optional (mandatory with 5)."""
    for players, setup, characters in itertools.product((2, 3, 4, 5), ("beginner", "advanced"), CHARACTERS):
        for memphis in ((True,) if players == 5 else (False, True)):
            yield dict(num_players=players, setup=setup, memphis=memphis, characters=characters)


def observe_ranges(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Element-wise min and max of S's values (its words, `layout.STATE_WORDS`, as the observation copies
    them) over every position of `games` random games per option set."""
    low = np.full(L.STATE_WORDS, np.iinfo(np.int64).max)
    high = np.full(L.STATE_WORDS, np.iinfo(np.int64).min)
    vec = np.empty(VECTOR_SIZE, np.int64)
    rng, positions = np.random.default_rng(seed), 0
    tables = list(option_sets())
    for options, game in tqdm(list(itertools.product(tables, range(games))), desc="games", unit="game"):
        g = NefertitiGame(seed=int(rng.integers(2**62)), **options)
        while True:
            state_vector(g.R, g.S, 0, vec)
            np.minimum(low, vec[:L.STATE_WORDS], out=low)
            np.maximum(high, vec[:L.STATE_WORDS], out=high)
            positions += 1
            legal = g.legal_actions()
            if not legal:
                break
            g.apply(legal[int(rng.integers(len(legal)))])
    return low, high, positions


def width(low: int, high: int) -> int:
    """Bytes of the narrowest signed integer holding twice the observed magnitude."""
    reach = 2 * max(abs(low), abs(high))
    return next(b for b, top in ((1, 127), (2, 32767), (4, 2**31 - 1), (8, 2**63 - 1)) if reach <= top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--games", type=int, default=200, help="random games per option set")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games' seeds and of the random player")
    args = parser.parse_args()
    low, high, positions = observe_ranges(args.games, args.seed)
    print(f"{positions:,} positions of {args.games} games at each of {len(list(option_sets()))} option sets")
    print("| field | values | min | max | bytes each (observed x2) | bytes | bytes each (layout) |\n"
          "|---|---|---|---|---|---|---|")
    total = 0
    for name, (part, shape, what) in L.field_slices().items():
        counts = [(name, part)] + ([(name + "_n", slice(part.stop, part.stop + 1))] if what == "list" else [])
        for field, words in counts:
            lo, hi = int(low[words].min()), int(high[words].max())
            each = 8 if field == "rng" else width(lo, hi)
            size = each * (words.stop - words.start)
            total += size
            print(f"| `{field}` | {words.stop - words.start} | {lo} | {hi} | {each} | {size} | "
                  f"{L.STATE_RECORD.fields[field][0].base.itemsize} |")
    print(f"values that vary: {int((low != high).sum())} of {L.STATE_WORDS}")
    print(f"state: {total:,} bytes at the observed widths (unaligned), {L.STATE_BYTES:,} in the layout "
          f"(`layout.STATE_RECORD`), {L.STATE_WORDS * 8:,} as int64 words")


if __name__ == "__main__":
    main()
