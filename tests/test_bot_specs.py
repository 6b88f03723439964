"""Bot specs: every parameter is typed from the bot's constructor and range-checked."""
import pytest

from nefertiti_env.agents import make_bot, parse_spec


def test_values_take_the_constructor_types():
    assert parse_spec("mcts:iterations=40:c=1:seconds=0.5") == ("mcts", {"iterations": 40, "c": 1.0, "seconds": 0.5})
    assert parse_spec("greedy:samples=1:money=0.3") == ("greedy", {"samples": 1, "money": 0.3})
    assert parse_spec("ppo:path=runs/7:deterministic=0") == ("ppo", {"path": "runs/7", "deterministic": False})
    bot = make_bot("mcts:iterations=3:c=1", seed=0)
    assert (bot.iterations, type(bot.c)) == (3, float)


@pytest.mark.parametrize("spec, message", [
    ("mcts:iterations=abc", "mcts: iterations must be an integer, got 'abc'"),
    ("greedy:samples=1.5", "greedy: samples must be an integer, got '1.5'"),
    ("mcts:c=high", "mcts: c must be a number, got 'high'"),
    ("ppo:path=x:deterministic=maybe", "ppo: deterministic must be 0 or 1 (or true/false), got 'maybe'"),
    ("mcts:iterations=0", "mcts: iterations must be >= 1, got 0"),
    ("mcts:seconds=0", "mcts: seconds must be > 0, got 0.0"),
    ("greedy:samples=0", "greedy: samples must be >= 1, got 0"),
    ("mcts:temperature=nan", "mcts: temperature must be > 0, got nan"),
    ("mcts:iterations=800:c=1:iterations=3200", "mcts: parameter 'iterations' is given twice in "
                                                "'mcts:iterations=800:c=1:iterations=3200'"),
])
def test_bad_values_are_named(spec, message):
    for parse in (parse_spec, make_bot):
        with pytest.raises(ValueError) as err:
            parse(spec)
        assert str(err.value) == message


def test_unknown_keys_list_the_known_ones():
    with pytest.raises(ValueError, match=r"mcts: unknown parameter 'iteration' \(known: iterations, seconds, c, "
                                         r"width, .*, money, seal"):
        parse_spec("mcts:iteration=4")
    with pytest.raises(ValueError, match=r"random: unknown parameter 'x' \(known: none\)"):
        parse_spec("random:x=1")


def test_a_callable_parameter_is_not_a_spec_parameter():
    """MCTS's `prior` (a policy's probabilities, given in Python by champion:search) cannot be set from text."""
    with pytest.raises(ValueError, match="mcts: unknown parameter 'prior'"):
        parse_spec("mcts:prior=x")
    assert parse_spec("champion:search=800:puct=0.5:width=4") == ("champion", {"search": 800, "puct": 0.5, "width": 4})
