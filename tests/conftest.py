"""Shared helpers for the rules tests: build a game, then edit its state arrays into a position.

Rule tests set up the exact position a rule talks about (who is to play, money,
Reserves, the cards above a market, servants already on squares) by writing the
game's public state arrays, then play the rule through `apply` with readable
action strings, so every step goes through the real legality checks.

The game may cache what it derives from its arrays (legal mask, free squares), so
every hand edit ends with `refresh(g)`; the helpers below do it themselves.
"""
from __future__ import annotations

import importlib
import os
import subprocess

import numpy as np
import pytest

from nefertiti_env import NefertitiGame
from nefertiti_env.core import phases
from nefertiti_env.core.actions import DONE
from nefertiti_env.core.state_io import set_list

GIZEH, AKHET_ATON, ABOU_SIMBEL, LOUQSOR = range(4)
MARKET_NAMES = ("Gizeh", "Akhet-Aton", "Abou Simbel", "Louqsor")
LEFT, RIGHT = 0, 1


def new_game(players: int = 4, seed: int = 0, **options) -> NefertitiGame:
    return NefertitiGame(num_players=players, seed=seed, **options)


def act(g: NefertitiGame, *texts: str) -> None:
    """Apply readable actions in order (each must be legal)."""
    for text in texts:
        g.apply(g.string_to_action(text))


def legal(g: NefertitiGame) -> set[str]:
    """The legal actions right now, as readable strings."""
    return {g.action_to_string(a) for a in g.legal_actions()}


def kind(g: NefertitiGame, name: str) -> int:
    return g.rules.kind_names.index(name)


def character(g: NefertitiGame, key: str) -> int:
    return [c.key for c in g.rules.characters].index(key)


def refresh(g: NefertitiGame) -> None:
    """After a hand edit: forget the legal actions known for the position. Not through from_json,
    which rejects what a hand-made position is free to be (Deben or cards from nowhere)."""
    g.board_changed()


def finish(g: NefertitiGame) -> None:
    """End the game here, as the rules end it (the last market closed after the Akhenaton card)."""
    g.state.phase, g.state.actor = phases.PH_OVER, -1


def set_turn(g: NefertitiGame, seat: int) -> None:
    """Make `seat` the player to act at the start of a fresh turn."""
    g.state.turn_player = g.state.actor = seat
    g.state.phase = phases.PH_TURN
    g.state.character_used = False
    g.state.extra_placements = 0
    set_list(g.state, "placed", [])
    refresh(g)


def put(g: NefertitiGame, market: int, value: int, seat: int) -> None:
    """A servant of `seat` already stands on bid square `value` (taken from its supply)."""
    assert g.state.occ[market, value] < 0 and g.state.servants[seat] > 0
    g.state.occ[market, value] = seat
    g.state.servants[seat] -= 1
    refresh(g)


def set_cards(g: NefertitiGame, market: int, names: list[str | None], seal: bool = True) -> None:
    """Cards above a market: names[0] is the upper card, then the lower row (None = empty)."""
    g.state.slots[market] = -1
    for k, name in enumerate(names):
        if name is not None:
            g.state.slots[market, k] = kind(g, name)
    if g.state.seal_on[market] and not seal:
        g.state.seal_supply += 1
    elif seal and not g.state.seal_on[market]:
        g.state.seal_supply -= 1
    g.state.seal_on[market] = seal
    refresh(g)


def give(g: NefertitiGame, seat: int, **cards: int) -> None:
    """Seat owns exactly these cards (kind name -> count)."""
    g.state.owned[seat] = 0
    for name, n in cards.items():
        g.state.owned[seat, kind(g, name)] = n
    refresh(g)


def position(players: int = 4, seed: int = 0, turn: int = 0, money=None, seals=None, reserve=None,
             cards: dict[int, list] | None = None, **options) -> NefertitiGame:
    """A fresh game edited into a position: `turn` plays next with the given money, seals and Reserves.

    `money`/`seals` are lists by seat; `reserve` a list for the four classic markets;
    `cards` maps a market to the names of its cards (upper first).
    """
    g = new_game(players, seed, **options)
    set_turn(g, turn)
    if money is not None:
        g.state.money[:players] = money
    if seals is not None:
        held = sum(seals) - int(g.state.seals.sum())
        g.state.seals[:players] = seals
        g.state.seal_supply -= held
    if reserve is not None:
        g.state.reserve[:4] = reserve
    for m, names in (cards or {}).items():
        set_cards(g, m, names)
    refresh(g)
    return g


def close_with(g: NefertitiGame, market: int, pieces: dict[int, int], value: int) -> None:
    """Servants stand on `pieces` (bid value -> seat); the player to act places on `value`, closing the market."""
    for v, seat in pieces.items():
        put(g, market, v, seat)
    act(g, f"place {MARKET_NAMES[market]} {value}")
    assert g.state.res_market == market or not g.state.is_open[market], "the placement was meant to close the market"


def play_random(g: NefertitiGame, rng: np.random.Generator, steps: int | None = None) -> list[int]:
    """Apply random legal actions (all of them to the end, or `steps`); returns the actions."""
    done = []
    while not g.is_over() and (steps is None or len(done) < steps):
        actions = np.flatnonzero(g.legal_action_mask())
        a = int(actions[rng.integers(len(actions))])
        g.apply(a)
        done.append(a)
    return done


# --- expansion helpers: tutors, the Port of Memphis, the deck order -------------------------------

MEMPHIS = 4                      # market index of the Port of Memphis (core.limits.MEMPHIS)


def put_tutor(g: NefertitiGame, market: int, value: int, seat: int) -> None:
    """A tutor of `seat` already stands on bid square `value` (taken from its supply)."""
    assert g.state.occ[market, value] < 0 and g.state.tutors[seat] > 0
    g.state.occ[market, value] = phases.TUTOR + seat
    g.state.tutors[seat] -= 1
    refresh(g)


def holdings(g: NefertitiGame, owner: int) -> dict[str, int]:
    """Cards an owner holds, by kind name (owner 5 is the 2-player neutral player)."""
    return {g.rules.kind_names[k]: int(n) for k, n in enumerate(g.state.owned[owner]) if n}


def card_code(g: NefertitiGame, name: str) -> int:
    """Card code of a kind name, or of 'akhenaton' / 'roaming thief' (the two cards that are not gifts)."""
    return {"akhenaton": g.kind_akhenaton, "roaming thief": g.kind_roaming}.get(name) or kind(g, name)


def stack_deck(g: NefertitiGame, names: list[str]) -> None:
    """The next undrawn cards are `names`, in order: each is swapped in from later in the deck,
    so the deck keeps its multiset (only the order of the undrawn cards changes)."""
    for i, name in enumerate(names):
        pos, code = g.state.deck_pos + i, card_code(g, name)
        later = [j for j in range(pos, len(g.deck)) if g.deck[j] == code]
        assert later, f"no {name} left in the undrawn deck after place {pos}"
        g.deck[[pos, later[0]]] = g.deck[[later[0], pos]]
    refresh(g)


def set_memphis(g: NefertitiGame, names: list[str]) -> None:
    """The cards lying at the Port of Memphis, in place order."""
    g.state.slots[MEMPHIS] = -1
    g.state.slots[MEMPHIS, :len(names)] = [kind(g, name) for name in names]
    refresh(g)


def reopen_louqsor(g: NefertitiGame, seat: int) -> None:
    """`seat` closes Abou Simbel (its servants on 7 and 6, then its placement on 4: bid sum 17) and
    resolves it (upper card, then half the Reserve twice), so the closed Louqsor reopens and is
    refilled from the top of the deck. Needs 3 servants and 7 Deben."""
    set_cards(g, ABOU_SIMBEL, ["statuette", "harp", "chair", "gold"])
    put(g, ABOU_SIMBEL, 7, seat)
    put(g, ABOU_SIMBEL, 6, seat)
    set_turn(g, seat)
    act(g, "place Abou Simbel 4", "card upper", "take half", "take half")


def last_legal(legal: list[int]) -> int:
    """The highest legal action other than `done` when another exists: a policy that can bid above what
    anyone pays, or repeat an optional choice, for ever."""
    return legal[-1] if legal[-1] != DONE or len(legal) == 1 else legal[-2]


def import_extra(module: str, extra: str):
    """An optional library the tests of one extra need: skipped where it is not installed, but a
    failure in CI (CI=true), where the README's test command installs the `dev` extras."""
    try:
        return importlib.import_module(module)
    except ImportError:
        message = f"{module} is not installed: pip install -c constraints.txt -e '.[{extra}]'"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"cannot run in CI: {message}", pytrace=False)
        pytest.skip(message, allow_module_level=True)



def run_with_a_cold_cache(argv: list[str], cache_dir) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run `argv` with an empty numba cache, as on a fresh install, and numba's cache log on (stdout, the
    worker processes' too): the finished process and the cache files saved more than once, i.e. code
    compiled in more than one process."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir), "NUMBA_DEBUG_CACHE": "1"}
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1200)
    saved = [line for line in result.stdout.splitlines() if line.startswith("[cache] data saved to")]
    assert result.returncode != 0 or len(saved) > 20, "no compile was logged: was the cache empty?"
    return result, sorted(line for line in set(saved) if saved.count(line) > 1)

@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_tmp(tmp_path_factory):
    """SB3 models whose logger a test does not set write to $SB3_LOGDIR, else to a new /tmp/SB3-* folder
    each that nothing removes: keep them in pytest's temporary folders."""
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3"))
