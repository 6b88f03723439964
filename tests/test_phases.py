"""The phase groups of core/phases.py: each phase belongs to the groups of the rules section that plays it
(docs/rules.md §2 a turn, §4 market resolution, §5.2 end of the game, §6 characters, §8 tutors), and the
engine dispatches on the groups, never on the phases' numeric order."""
import golden
import pytest

from nefertiti_env.core import actions as A
from nefertiti_env.core import phases as P

# phase -> (its groups, the docs/rules.md section that plays it)
EXPECTED = {
    P.PH_TURN: ({"servant", "turn"}, "§2.1-§2.3"),
    P.PH_PLACE: ({"servant", "turn"}, "§2.2"),
    P.PH_SECOND: ({"servant", "turn"}, "§6.1 Head Priest"),
    P.PH_TUTOR: ({"turn"}, "§8"),
    P.PH_CHARACTER: (set(), "§2.1, §6"),
    P.PH_HIGH: ({"resolution"}, "§4.1"),
    P.PH_SHAME: ({"resolution"}, "§4.1"),
    P.PH_OTHER: ({"resolution"}, "§4.2"),
    P.PH_TUTOR_RES: ({"resolution"}, "§4.3"),
    P.PH_TUTOR_DIST: ({"resolution"}, "§4.3"),
    P.PH_OVER: (set(), "§5.2"),
}
GROUPS = {"servant": P.SERVANT_PHASES, "turn": P.TURN_PHASES, "resolution": P.RESOLUTION_PHASES}


@pytest.mark.parametrize("phase", range(P.NUM_PHASES), ids=P.PHASE_NAMES)
def test_each_phase_is_in_the_groups_of_its_rules_section(phase):
    """docs/rules.md §2, §4, §5.2, §6, §8: a phase is in exactly the groups its section makes it part of."""
    groups, section = EXPECTED[phase]
    actual = {name for name, members in GROUPS.items() if phase in members}
    assert actual == groups, f"phase {P.PHASE_NAMES[phase]!r} ({section}): groups {actual}, expected {groups}"


def test_the_groups_partition_the_phases():
    """docs/rules.md §2, §4, §5.2, §6: every phase is played by exactly one part of the rules: the turn,
    a character's power, a market's resolution, or none once the game is over."""
    parts = (P.TURN_PHASES, (P.PH_CHARACTER,), P.RESOLUTION_PHASES, (P.PH_OVER,))
    members = [ph for part in parts for ph in part]
    assert sorted(members) == list(range(P.NUM_PHASES))
    assert set(P.SERVANT_PHASES) < set(P.TURN_PHASES)


def test_games_decide_in_each_group_as_its_rules_section_says():
    """docs/rules.md §2, §4, §6, §8: over random games of every option set, a turn phase's decision is the
    active seat's, a servant phase offers only placing, closing or a character, a resolution phase has a
    market being resolved (§4), and the character phase a character being played (§6)."""
    seen = set()

    def on_decision(g, legal, action):
        ph = g.phase
        seen.add(ph)
        if ph in P.TURN_PHASES:
            assert g.current_player == g.state.turn_player and g.state.res_market < 0 and g.state.char_index < 0
        if ph in P.SERVANT_PHASES:
            assert all(A.PLACE <= a < A.MARKET for a in legal), (P.PHASE_NAMES[ph], legal)
        if ph in P.RESOLUTION_PHASES:
            assert g.state.res_market >= 0 and g.state.char_index < 0
        if ph == P.PH_CHARACTER:
            assert g.state.char_index >= 0

    for s, options in enumerate(golden.OPTION_SETS[::5]):
        g = golden.play(options, golden.game_seed(s, 0), on_decision)
        assert g.phase == P.PH_OVER or g.is_truncated()
    assert seen == set(range(P.NUM_PHASES)) - {P.PH_OVER}
