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
