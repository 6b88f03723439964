"""Fixed sizes of the action and observation spaces, identical for every ruleset."""

MAX_PLAYERS = 5
NUM_MARKETS = 5          # four classic markets + the Port of Memphis (index 4)
MEMPHIS = 4
NUM_BIDS = 13            # bid values 0..12
MAX_SLOTS = 12           # card places above one market
MAX_KINDS = 24           # card kinds in a ruleset
MAX_TYPES = 12           # gift types in a ruleset
MAX_CHARACTERS = 16      # character entries in a ruleset
MAX_DECK = 128           # cards in a game's deck (gifts and the Akhenaton card); the published game deals 56 at most
MAX_ORACLE_CARDS = 8     # bottom deck cards an Oracle may see: the observation has a row for each it knows
# square symbols, the one definition: codes (as in `square_symbol`), letters of the ruleset files, names
NO_SYMBOL, COIN, SINGLE, EXTRA = range(4)
SYMBOL_CODES = (COIN, SINGLE, EXTRA)          # the symbols a square may bear
SYMBOL_LETTERS = ("", "c", "s", "x")
SYMBOL_NAMES = ("", "coin", "single", "extra")
SYMBOLS = {letter: code for code, letter in enumerate(SYMBOL_LETTERS)}
SIDES = ("left", "right")


