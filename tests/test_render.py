"""The board picture: SVG from the state and its ruleset, rgb_array via resvg."""
from __future__ import annotations

import copy
from collections import Counter
import random
import tomllib
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from nefertiti_env import NefertitiGame, raw_env
from nefertiti_env.core import actions as A
from nefertiti_env.core.limits import MAX_SLOTS
from nefertiti_env.core.phases import PH_CHARACTER
from nefertiti_env.core.ruleset import DEFAULT_RULESET
from nefertiti_env.encoding.observation import card_name
from nefertiti_env.render import board_svg
from nefertiti_env.render.board import SEAT_COLOURS, _context_market

SVG = "{http://www.w3.org/2000/svg}"


def played(seed: int, steps: int, **options) -> NefertitiGame:
    game, rng = NefertitiGame(seed=seed, **options), random.Random(seed)
    for _ in range(steps):
        if game.is_over():
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def squares(root) -> dict[int, ET.Element]:
    """Bid-square groups of the picture by their place action id."""
    found = {}
    for group in root.iter(f"{SVG}g"):
        ids = [int(a) for a in group.get("data-actions", "").split()]
        if len(ids) == 1 and A.PLACE <= ids[0] < A.CLOSE:
            found[ids[0]] = group
    return found


@pytest.mark.parametrize("options", [dict(num_players=4), dict(num_players=2, memphis=True, characters="expansion"),
                                     dict(num_players=5, setup="advanced")])
def test_svg_draws_every_visible_square_and_piece(options):
    game = played(3, 80, **options)
    root = ET.fromstring(board_svg(game))
    drawn = squares(root)
    markets = [m for m in range(5) if m < 4 or game.options["memphis"]]
    expected = {A.PLACE + 13 * m + v for m in markets for v in np.flatnonzero(game.square_exists[m, game.state.side[m]])}
    assert set(drawn) == expected
    text = "".join(root.itertext())
    for m in markets:
        assert game.names.markets[m] in text
    pieces = sum(len(list(g.iter(f"{SVG}circle"))) + len(list(g.iter(f"{SVG}path"))) for g in drawn.values())
    symbols = sum(int(game.square_symbol[m, game.state.side[m]].astype(bool).sum()) for m in markets)
    assert pieces - symbols == int((game.state.occ[markets] >= 0).sum())
    assert f"decision {len(game.history)}" in text
    on_table = Counter(card_name(game, c) + (" (face down)" if game.state.face_down[m, k] else "")
                       for m in markets for k, c in enumerate(game.state.slots[m]) if c >= 0)
    titles = Counter(el.text for el in root.iter(f"{SVG}title"))
    assert {name: titles[name] for name in on_table} == on_table and sum(on_table.values()) > 0


def test_closed_markets_and_game_over_are_shown():
    game = played(1, 10_000)
    assert game.is_over()
    text = "".join(ET.fromstring(board_svg(game)).itertext())
    assert "Game over" in text and "winner" in text
    closed = NefertitiGame(seed=0)                   # Louqsor starts under the Market Closed tile
    assert not closed.state.is_open[3] and "Market Closed" in board_svg(closed)


def test_corrected_ruleset_draws_without_code_changes():
    data = tomllib.loads(DEFAULT_RULESET.read_text(encoding="utf-8"))
    data = copy.deepcopy(data)
    data["markets"][0]["name"] = "Thebes"
    data["markets"][0]["right"]["squares"] = [["0", "1c", "2"], ["3", "4", "12x"]]
    game = NefertitiGame(seed=0, ruleset=data)
    root = ET.fromstring(board_svg(game))
    assert "Thebes" in "".join(root.itertext())
    assert {a for a in squares(root) if a < 13} == {0, 1, 2, 3, 4, 12}


def test_rgb_array_render_is_the_board_picture():
    pytest.importorskip("resvg_py")
    env = raw_env(num_players=3, render_mode="rgb_array")
    env.reset(seed=4)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[1] == 1280 and image.shape[0] > 400
    colours = {tuple(c) for c in image.reshape(-1, 3)[::7]}
    for hexcode in SEAT_COLOURS[:3]:            # each seat's panel header is drawn in its colour
        assert tuple(int(hexcode[i:i + 2], 16) for i in (1, 3, 5)) in colours


def test_missing_rasteriser_names_the_extra(monkeypatch):
    import sys

    from nefertiti_env.render import svg_to_png

    monkeypatch.setitem(sys.modules, "resvg_py", None)          # import resvg_py now raises ImportError
    with pytest.raises(ImportError, match=r'pip install "nefertiti-env\[viz\]"'):
        svg_to_png(board_svg(NefertitiGame(seed=0)))


def test_a_characters_card_choice_is_clickable_at_the_market_it_chose():
    """The card step of the Thief, the Roaming Thief and the Trader takes a gift at the market chosen the step
    before (its `market` choice in the table of powers): the picture makes that market's cards clickable, not
    those of the market char_sel starts with (the Roaming Thief's excluded market, the Trader's count)."""
    seen = Counter()
    for seed in range(30):
        g, rng = NefertitiGame(num_players=3, seed=seed, characters="expansion"), random.Random(seed)
        while not g.is_over():
            legal = g.legal_actions()
            power = g.rules.characters[g.state.char_index].power if g.phase == PH_CHARACTER else None
            if power in ("thief", "roaming_thief", "trader") and all(A.CARD <= a < A.CARD + MAX_SLOTS for a in legal):
                after = g.clone()
                after.apply(legal[0])
                changed = np.flatnonzero((after.state.slots != g.state.slots).any(axis=1))
                if len(changed):                        # (a Trader may give a gift of the kind it takes)
                    assert changed.tolist() == [_context_market(g)], (power, seed)
                    seen[power] += 1
            g.apply(rng.choice(legal))
    assert set(seen) == {"thief", "roaming_thief", "trader"}, seen
