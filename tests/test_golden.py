"""The golden games replay identically (docs/golden.md).

Ten text playthroughs and a 5,040-game random corpus over every option set, recorded from
the engine; an intended change of play re-records them with `python tests/golden.py --write`.
"""
import pytest

import golden


@pytest.mark.parametrize("name, options", golden.PLAYTHROUGH_GAMES, ids=[n for n, _ in golden.PLAYTHROUGH_GAMES])
def test_playthrough(name, options):
    difference = golden.playthrough_difference(name, options)
    assert difference is None, difference


@pytest.fixture(scope="module")
def corpus():
    return golden.load_corpus()


def test_corpus_covers_every_option_set(corpus):
    assert len(corpus["seed"]) >= 5000
    assert sorted(set(corpus["option_set"].tolist())) == list(range(len(golden.OPTION_SETS)))
    assert corpus["length"].sum() == len(corpus["actions"]) == len(corpus["hashes"])


@pytest.mark.parametrize("part", range(golden.CHUNKS))
def test_corpus(corpus, part):
    problems = [p for n in golden.chunk(corpus, part) if (p := golden.check_game(corpus, n))]
    assert not problems, f"{len(problems)} golden games differ; first: {problems[0]}"


def test_a_changed_decision_is_found(corpus):
    """The check can fail: a corpus with one altered hash reports that game and decision."""
    altered = dict(corpus, hashes=corpus["hashes"].copy())
    start = int(corpus["length"][:3].sum())
    altered["hashes"][start + 5] ^= 1
    assert golden.check_game(corpus, 3) is None
    assert "decision 5 differs" in golden.check_game(altered, 3)


def test_a_difference_names_the_characters_played_before_it(corpus):
    """So a rule fix's diff shows at a glance that only games where its character was played changed."""
    altered = dict(corpus, hashes=corpus["hashes"].copy())
    last = int(corpus["length"][:4].sum()) - 1          # game 3's last decision
    altered["hashes"][last] ^= 1
    actions = corpus["actions"][int(corpus["length"][:3].sum()):last]
    game = golden.NefertitiGame(num_players=2)
    texts = [game.action_to_string(a) for a in actions]
    names = sorted({text[len("character "):] for text in texts if text.startswith("character ")})
    assert names and golden.check_game(altered, 3).endswith(f"characters played before it: {', '.join(names)}")


def test_a_changed_playthrough_line_is_found(tmp_path, monkeypatch):
    """The check can fail: an altered action line is reported with its decision."""
    name, options = golden.PLAYTHROUGH_GAMES[0]
    lines = (golden.PLAYTHROUGHS / f"{name}.txt").read_text(encoding="utf-8").split("\n")
    line = next(i for i, text in enumerate(lines) if text.startswith("action: ") and i > 200)
    decision = next(text for text in reversed(lines[:line]) if text.startswith("## decision"))
    lines[line] += " (altered)"
    (tmp_path / f"{name}.txt").write_text("\n".join(lines), encoding="utf-8")
    monkeypatch.setattr(golden, "PLAYTHROUGHS", tmp_path)
    assert f"first difference at line {line + 1} ({decision})" in golden.playthrough_difference(name, options)
