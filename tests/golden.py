"""Golden games: the safety net for rewriting the engine (docs/golden.md).

Two kinds, both recorded from the engine as it is and replayed by tests/test_golden.py:

- **Playthroughs** (`tests/golden/playthroughs/*.txt`, OpenSpiel style): ten games covering
  every option set, one text transcript each. Per decision: the board, who decides, the legal
  actions by name, the action taken, a hash of the deciding seat's observation.
- **Corpus** (`tests/golden/corpus.npz`): 5,040 random games, 72 per option set (players x
  Memphis x characters x setup). Per game: seed, options, actions, final scores, and per
  decision 4 bytes of a chained hash of (legal action mask, game state, the deciding seat's
  observation), so a difference shows at the first decision where it arises and
  cannot hide behind a later one.

The state hashed is the named arrays and values of `STATE_FIELDS`, read as a saved state holds
them (`state_io.fields`) and the deciding seat, not `to_json()`: a change of the saved format or of internal caches
leaves the golden files valid; only a change of play changes them.

    python tests/golden.py --write     # re-record after an intended rule change
    python tests/golden.py --diff      # which games differ from the files, at which decision
"""
from __future__ import annotations

import argparse
import difflib
import hashlib
import itertools
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from nefertiti_env import NefertitiGame
from nefertiti_env.core.actions import CHARACTER, MARKET
from nefertiti_env.core.state_io import fields
from nefertiti_env.encoding import observe
from nefertiti_env.env.render import board_text

FOLDER = Path(__file__).parent / "golden"
PLAYTHROUGHS = FOLDER / "playthroughs"
CORPUS = FOLDER / "corpus.npz"

CHARACTERS = ("base", "expansion", "curse_of_amon", "intrigue_at_court", "race_for_the_nile")
PLAYER_MEMPHIS = ((2, False), (2, True), (3, False), (3, True), (4, False), (4, True), (5, True))
OPTION_SETS = tuple(dict(num_players=n, memphis=m, characters=c, setup=s)
                    for (n, m), c, s in itertools.product(PLAYER_MEMPHIS, CHARACTERS, ("beginner", "advanced")))
GAMES_PER_SET = 72                       # 70 option sets: 5,040 games
CHUNKS = 20                              # the corpus test's parts (pytest -n shares them)

# Ten playthroughs: every player count, Memphis on and off, each character option, both setups.
PLAYTHROUGH_GAMES = (
    ("2p_base", dict(num_players=2, memphis=False, characters="base", setup="beginner")),
    ("2p_memphis_expansion", dict(num_players=2, memphis=True, characters="expansion", setup="advanced")),
    ("2p_intrigue", dict(num_players=2, memphis=False, characters="intrigue_at_court", setup="advanced")),
    ("3p_base_advanced", dict(num_players=3, memphis=False, characters="base", setup="advanced")),
    ("3p_memphis_curse", dict(num_players=3, memphis=True, characters="curse_of_amon", setup="beginner")),
    ("4p_base", dict(num_players=4, memphis=False, characters="base", setup="beginner")),
    ("4p_memphis_intrigue", dict(num_players=4, memphis=True, characters="intrigue_at_court", setup="advanced")),
    ("4p_race", dict(num_players=4, memphis=False, characters="race_for_the_nile", setup="beginner")),
    ("5p_expansion", dict(num_players=5, memphis=True, characters="expansion", setup="beginner")),
    ("5p_race_advanced", dict(num_players=5, memphis=True, characters="race_for_the_nile", setup="advanced")),
)

# What "the game state" means for the hash: the saved fields that hold the position, and the deciding seat.
STATE_FIELDS = ("money", "seals", "points", "servants", "tutors", "owned", "char_played", "side", "reserve",
                "char_avail", "discarded", "slots", "occ", "is_open", "dead", "face_down", "seal_on", "deck",
                "deck_pos", "akhenaton_drawn", "seal_supply", "deben_out", "phase", "current_player",
                "turn_player", "res_market", "res_order", "res_pos", "pending", "char_index", "char_step",
                "oracle_seat", "oracle_from", "oracle_given")


def game_seed(set_index: int, game_index: int) -> int:
    return 1_000_000 + 1000 * set_index + game_index


def policy_rng(seed: int) -> np.random.Generator:
    """The random player's own generator: separate from the game's, so it chooses alike in any engine."""
    return np.random.default_rng([seed, 7])


def state_bytes(g: NefertitiGame) -> bytes:
    parts, saved = [], fields(g) | {"current_player": g.current_player}
    for name in STATE_FIELDS:
        value = saved[name]
        parts.append(np.asarray(value, dtype=np.int64).tobytes() + b"|")
    return b"".join(parts)


def decision_digest(g: NefertitiGame, previous: bytes) -> bytes:
    """Chained hash of the mask, the state and the deciding seat's observation."""
    h = hashlib.blake2b(previous, digest_size=16)
    h.update(np.asarray(g.legal_action_mask()).tobytes())
    h.update(state_bytes(g))
    h.update(observe(g, g.current_player).tobytes())
    return h.digest()


def play(options: dict, seed: int, on_decision=None) -> NefertitiGame:
    """A seeded random game; `on_decision(game, legal, action)` is called before each action."""
    g = NefertitiGame(seed=seed, **options)
    rng = policy_rng(seed)
    while not g.is_over():
        legal = g.legal_actions()
        action = legal[int(rng.integers(len(legal)))]
        if on_decision:
            on_decision(g, legal, action)
        g.apply(action)
    return g


# ---------------------------------------------------------------- playthroughs
def playthrough(name: str, options: dict) -> str:
    seed = 100 + [n for n, _ in PLAYTHROUGH_GAMES].index(name)
    lines = [f"# golden playthrough {name}: seed {seed}, options {options}", ""]

    def on_decision(g, legal, action):
        seat = g.current_player
        obs = hashlib.blake2b(observe(g, seat).tobytes(), digest_size=8).hexdigest()
        lines.extend([f"## decision {len(g.history)}", board_text(g),
                      f"deciding: P{seat}  observation hash: {obs}",
                      "legal: " + "; ".join(g.action_to_string(a) for a in legal),
                      f"action: {action} {g.action_to_string(action)}", ""])

    g = play(options, seed, on_decision)
    lines += ["## end", board_text(g), f"scores: {g.scores().tolist()}  winners: {g.winners()}", ""]
    return "\n".join(lines)


def playthrough_difference(name: str, options: dict) -> str | None:
    """None if the engine plays playthrough `name` as recorded, else where it first differs and a short diff."""
    expected = (PLAYTHROUGHS / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    actual = playthrough(name, options).splitlines()
    if actual == expected:
        return None
    first = next(i for i, (a, b) in enumerate(zip(actual + [""], expected + [""])) if a != b)
    decision = next((line for line in reversed(expected[:first + 1]) if line.startswith("## ")), "")
    diff = "\n".join(list(difflib.unified_diff(expected, actual, "golden", "now", lineterm="", n=2))[:40])
    return f"playthrough {name}: first difference at line {first + 1} ({decision}):\n{diff}"


# ---------------------------------------------------------------- corpus
def corpus_games() -> list[tuple[int, int, int]]:
    """(game number, option set index, seed) of every corpus game, in order."""
    return [(s * GAMES_PER_SET + i, s, game_seed(s, i))
            for s in range(len(OPTION_SETS)) for i in range(GAMES_PER_SET)]


def record_game(set_index: int, seed: int) -> tuple[list[int], list[bytes], list[int]]:
    """Actions, per-decision chained digests and final scores of one corpus game."""
    digests, chain = [], b""

    def on_decision(g, legal, action):
        nonlocal chain
        chain = decision_digest(g, chain)
        digests.append(chain)

    g = play(OPTION_SETS[set_index], seed, on_decision)
    return list(g.history), digests, g.scores().tolist()


def _record_many(games):
    return [record_game(s, seed) for _, s, seed in games]


def write_corpus(workers: int = 2) -> None:
    games = corpus_games()
    parts = [games[i::workers * 8] for i in range(workers * 8)]
    by_number = {}
    with ProcessPoolExecutor(workers) as pool:
        for part, results in zip(parts, pool.map(_record_many, parts)):
            by_number.update((number, result) for (number, _, _), result in zip(part, results))
    actions, hashes, lengths, scores = [], [], [], np.full((len(games), 5), -1, dtype=np.int16)
    for number, _, _ in games:
        acts, digests, final = by_number[number]
        actions += acts
        hashes += [d[:4] for d in digests]
        lengths.append(len(acts))
        scores[number, :len(final)] = final
    np.savez_compressed(
        CORPUS, option_set=np.array([s for _, s, _ in games], dtype=np.int16),
        seed=np.array([seed for _, _, seed in games], dtype=np.int64),
        length=np.array(lengths, dtype=np.int32), actions=np.array(actions, dtype=np.uint8),
        hashes=np.frombuffer(b"".join(hashes), dtype=np.uint32), scores=scores)


def load_corpus() -> dict[str, np.ndarray]:
    with np.load(CORPUS, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def check_game(corpus: dict, number: int) -> str | None:
    """Replay corpus game `number` (its actions, from its seed); None if identical, else what differs."""
    start = int(corpus["length"][:number].sum())
    length = int(corpus["length"][number])
    actions = corpus["actions"][start:start + length].tolist()
    expected = corpus["hashes"][start:start + length]
    options = OPTION_SETS[int(corpus["option_set"][number])]
    g = NefertitiGame(seed=int(corpus["seed"][number]), **options)
    where = f"corpus game {number} (seed {int(corpus['seed'][number])}, {options})"
    chain = b""
    for i, action in enumerate(actions):
        if g.is_over():
            return f"{where}: over after {i} decisions, the corpus has {length}"
        chain = decision_digest(g, chain)
        if np.frombuffer(chain[:4], dtype=np.uint32)[0] != expected[i]:
            return (f"{where}: decision {i} differs (mask, state or observation), before action {action}; "
                    f"characters played before it: {', '.join(characters_played(g)) or 'none'}")
        g.apply(action)
    if not g.is_over():
        return f"{where}: not over after its {length} decisions"
    final = corpus["scores"][number][:g.num_players].tolist()
    if g.scores().tolist() != final:
        return f"{where}: final scores {g.scores().tolist()}, golden {final}"
    return None


def characters_played(g: NefertitiGame) -> list[str]:
    """The characters played so far, by name: a rule fix's diff should touch only games where its character was."""
    return sorted({g.action_to_string(a).removeprefix("character ") for a in g.history
                   if CHARACTER <= a < MARKET})


def chunk(corpus: dict, part: int) -> range:
    n = len(corpus["seed"])
    return range(part * n // CHUNKS, (part + 1) * n // CHUNKS)


# ---------------------------------------------------------------- command line
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Record or compare the golden games (docs/golden.md).")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="re-record every golden file from the engine")
    mode.add_argument("--diff", action="store_true", help="list the golden games the engine now plays differently")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if args.write:
        PLAYTHROUGHS.mkdir(parents=True, exist_ok=True)
        for name, options in PLAYTHROUGH_GAMES:
            (PLAYTHROUGHS / f"{name}.txt").write_text(playthrough(name, options), encoding="utf-8")
        write_corpus(args.workers)
        print(f"wrote {len(PLAYTHROUGH_GAMES)} playthroughs and {len(corpus_games())} corpus games to {FOLDER}")
        return 0
    changed = [d for name, options in PLAYTHROUGH_GAMES if (d := playthrough_difference(name, options))]
    for difference in changed:
        print(difference.split("\n")[0])
    print(f"playthroughs changed: {len(changed)} of {len(PLAYTHROUGH_GAMES)}")
    corpus = load_corpus()
    with ProcessPoolExecutor(args.workers) as pool:
        problems = [p for part in pool.map(_check_part, range(CHUNKS)) for p in part]
    for problem in problems:
        print(problem)
    print(f"corpus games changed: {len(problems)} of {len(corpus['seed'])}")
    return 1 if changed or problems else 0


def _check_part(part: int) -> list[str]:
    corpus = load_corpus()
    return [p for n in chunk(corpus, part) if (p := check_game(corpus, n))]


if __name__ == "__main__":
    sys.exit(main())
