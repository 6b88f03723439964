"""`nefertiti play`: a game at the terminal against bots, or a whole bot game with its result."""
from __future__ import annotations

import argparse
import time

from nefertiti_env.agents import BOTS

from . import add_game_options, fail, game_options


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "play", help="play against bots at the terminal, or watch a bot game's result",
        description="With --seat you play that seat at the terminal (the board is shown as text, moves "
                    "are listed by number and name; type the number or the text) and --bots fill the "
                    "other seats in order. Without --seat the bots play a whole game and the final "
                    "scores are printed.",
        epilog="examples:\n  nefertiti play --seat 0 --bots mcts,greedy,greedy\n"
               "  nefertiti play --bots random,random,random,random --seed 1\n"
               f"bots: {', '.join(BOTS)}; parameters as name:key=value, e.g. mcts:iterations=400",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bots", required=True, help="comma-separated bots for the seats not played by you")
    p.add_argument("--seat", type=int, default=None, help="your seat (0 = first listed seat); omit to watch bots")
    p.add_argument("--seed", type=int, default=None, help="game seed (default: random)")
    add_game_options(p)
    p.add_argument("--verbose", action="store_true", help="print every decision of a bot game")
    p.add_argument("--svg", default=None, metavar="FILE",
                   help="write the board picture (SVG) to FILE after every decision, so a viewer shows the "
                        "game as it goes and the final board at the end")
    p.set_defaults(func=run)


def run(args) -> int:
    from nefertiti_env.agents import make_bot, play_game
    from nefertiti_env.agents.human import HumanBot, QuitGame
    from nefertiti_env import NefertitiGame

    specs = [b.strip() for b in args.bots.split(",") if b.strip()]
    players = len(specs) + (args.seat is not None)
    if args.seat is not None and not 0 <= args.seat < players:
        return fail("play", f"--seat must be 0..{players - 1} for {players} players, got {args.seat}")
    if args.seat is not None:
        specs.insert(args.seat, "human")
    try:
        game = NefertitiGame(players, seed=args.seed, **game_options(args))
        bots = [HumanBot() if s == "human" else make_bot(s, seed=game.seed * 10 + seat)
                for seat, s in enumerate(specs)]
    except (ValueError, NotImplementedError) as err:
        return fail("play", str(err))

    print(f"Nefertiti, {players} players, seed {game.seed}; first player P{game.state.first_player}")
    print("seats: " + ", ".join(f"P{seat} {s}" for seat, s in enumerate(specs)))
    show = args.verbose or args.seat is not None

    def report(seat, action, elapsed):
        if show and specs[seat] != "human":
            print(f"  P{seat} ({specs[seat]}): {game.action_to_string(action)}")
        if args.svg:
            write_svg(args.svg, game)

    if args.svg:
        write_svg(args.svg, game)
    start = time.perf_counter()
    try:
        play_game(game, bots, report)
    except QuitGame:
        print("game abandoned")
        return 0
    print_result(game, specs, time.perf_counter() - start)
    return 0


def write_svg(path: str, game) -> None:
    """The board picture, replaced atomically so a viewer never reads half a file."""
    from pathlib import Path

    from nefertiti_env.render import board_svg

    target = Path(path)
    partial = target.with_name(target.name + ".partial")
    partial.write_text(board_svg(game), encoding="utf-8")
    partial.replace(target)


def print_result(game, specs: list[str], seconds: float) -> None:
    from nefertiti_env.core.scoring import gift_points

    scores, gifts, winners = game.scores(), gift_points(game), game.winners()
    width = max(22, max(map(len, specs)) + 2)
    print(f"\n{'seat':<5}{'player':<{width}}{'points':>7}{'gifts':>7}{'Deben':>7}{'seals':>7}{'in play':>8}")
    for p, spec in enumerate(specs):
        mark = "  winner" if p in winners else ""
        print(f"P{p:<4}{spec:<{width}}{scores[p]:>7}{gifts[p]:>7}{game.state.money[p]:>7}{game.state.seals[p]:>7}"
              f"{game.state.points[p]:>8}{mark}")
    names = ", ".join(f"P{p} ({specs[p]})" for p in winners)
    print(f"winner{'s' if len(winners) > 1 else ''}: {names}; {len(game.history)} decisions in {seconds:.2f} s")
