"""Decision phases and owner indices shared by the core modules."""
from .limits import MAX_PLAYERS

NEUTRAL = MAX_PLAYERS          # owner index of the 2-player neutral player
NUM_OWNERS = MAX_PLAYERS + 1
TUTOR = MAX_PLAYERS            # piece colour of a tutor = TUTOR + seat

# Decision phases: who decides and what the actions mean right now.
PH_TURN, PH_PLACE, PH_SECOND, PH_TUTOR, PH_CHARACTER, PH_HIGH, PH_SHAME, PH_OTHER, PH_TUTOR_RES, \
    PH_TUTOR_DIST, PH_OVER = range(11)
PHASE_NAMES = ("turn", "place", "second placement", "tutor placement", "character", "highest bidder",
               "shame discard", "buy or take half", "tutor", "tutor Deben", "game over")
NUM_PHASES = len(PHASE_NAMES)

# Phase groups: the phases one part of the rules plays, each group declared here once. Code asks whether a
# phase is in a group (`ph in TURN_PHASES`, which numba compiles to a compare against constants) and never
# relies on the phases' numeric order, so a new phase joins its groups by name. TURN_PHASES, PH_CHARACTER,
# RESOLUTION_PHASES and PH_OVER partition the phases (tests/test_phases.py).
SERVANT_PHASES = (PH_TURN, PH_PLACE, PH_SECOND)   # a seat places a servant or closes (§2.1-§2.3, Head Priest §6.1)
TURN_PHASES = SERVANT_PHASES + (PH_TUTOR,)        # the active seat's turn (§2, its tutor §8): engine/flow.py
RESOLUTION_PHASES = (PH_HIGH, PH_SHAME, PH_OTHER, PH_TUTOR_RES, PH_TUTOR_DIST)  # a market's (§4): resolution.py
