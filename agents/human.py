"""A human at the terminal: the board as text, legal moves by number and readable name.

Input is a move's number or its readable text (`place Gizeh 3`, `take half`; the
grammar of `nefertiti_env.core.actions`). `board` shows the board again, `moves`
lists the moves, `quit` ends the game. Bad input gets a message and a new prompt.
"""
from __future__ import annotations

import sys

from nefertiti_env.core.phases import PHASE_NAMES
from nefertiti_env.env.render import board_text

from .base import Agent

HELP = "type a move's number or its text (e.g. 'place Gizeh 3'); 'board', 'moves', 'quit'"


class QuitGame(Exception):
    """The human asked to stop (or input ended)."""


class HumanBot(Agent):
    name = "human"

    def __init__(self, seed: int | None = None, stdin=None, stdout=None):
        super().__init__(seed)
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def act(self, game, seat: int) -> int:
        legal = game.legal_actions()
        self.say(board_text(game))
        self.say(f"\nYou are P{seat}. Phase: {PHASE_NAMES[game.phase]}.")
        self._list(game, legal)
        while True:
            self.stdout.write(f"P{seat} move> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                raise QuitGame("input ended")
            text = line.strip()
            if text.lower() in ("quit", "exit"):
                raise QuitGame("quit")
            if text.lower() == "board":
                self.say(board_text(game))
                continue
            if text.lower() in ("moves", "help", "?", ""):
                self._list(game, legal)
                self.say(HELP)
                continue
            action, problem = self._read(game, legal, text)
            if problem:
                self.say(problem)
                continue
            return action

    def _list(self, game, legal: list[int]) -> None:
        self.say("Legal moves:")
        for i, a in enumerate(legal, 1):
            self.say(f"  {i:>3}) {game.action_to_string(a)}")

    @staticmethod
    def _read(game, legal: list[int], text: str) -> tuple[int, str]:
        """(action, '') or (-1, a message saying what is wrong with the input)."""
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(legal):
                return legal[number - 1], ""
            return -1, f"no move number {number}: choose 1..{len(legal)}"
        try:
            action = game.string_to_action(text)
        except ValueError as err:
            return -1, f"cannot read {text!r}: {err}"
        if action not in legal:
            return -1, f"'{game.action_to_string(action)}' is not legal now; {HELP}"
        return action, ""
