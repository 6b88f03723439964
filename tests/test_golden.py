"""The golden games replay identically (issue #20 part 1; docs/golden.md).

Ten text playthroughs and a 5,040-game random corpus over every option set, recorded from
the engine; an intended change of play re-records them with `python tests/golden.py --write`.
"""
import difflib

import pytest

import golden


@pytest.mark.parametrize("name, options", golden.PLAYTHROUGH_GAMES, ids=[n for n, _ in golden.PLAYTHROUGH_GAMES])
def test_playthrough(name, options):
    expected = (golden.PLAYTHROUGHS / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    actual = golden.playthrough(name, options).splitlines()
    if actual != expected:
        first = next(i for i, (a, b) in enumerate(zip(actual + [""], expected + [""])) if a != b)
        decision = next((line for line in reversed(expected[:first + 1]) if line.startswith("## ")), "")
        diff = "\n".join(list(difflib.unified_diff(expected, actual, "golden", "now", lineterm="", n=2))[:40])
        pytest.fail(f"{name}: first difference at line {first + 1} ({decision}):\n{diff}")


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
