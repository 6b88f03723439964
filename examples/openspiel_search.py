"""Play Nefertiti in OpenSpiel: an MCTS bot and an ISMCTS bot against random bots.

    python examples/openspiel_search.py --players 3 --simulations 20

Chance (card draws, dice) is explicit, so the bots' clones and determinisations
never see the order of the deck (docs/adapters.md, OpenSpiel). Python MCTS is slow:
each decision runs `--simulations` random playouts to the end of the game.
"""
import argparse

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot

import nefertiti_env.adapters.openspiel  # noqa: F401  (registers python_nefertiti)


def main(argv=None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=3, choices=(2, 3, 4, 5))
    parser.add_argument("--simulations", type=int, default=20, help="MCTS simulations per decision (default 20)")
    parser.add_argument("--decisions", type=int, default=None, help="stop after this many decisions (default: the "
                                                                          "whole game)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = pyspiel.load_game("python_nefertiti", {"players": args.players})
    rs = np.random.RandomState(args.seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [mcts.MCTSBot(game, uct_c=2.0, max_simulations=args.simulations, evaluator=evaluator, random_state=rs),
            ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=args.simulations, random_state=rs)]
    bots += [UniformRandomBot(p, rs) for p in range(2, args.players)]
    state, decisions = game.new_initial_state(), 0
    while not state.is_terminal() and (args.decisions is None or decisions < args.decisions):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rs.choice(outcomes, p=probs)))
        else:
            state.apply_action(bots[state.current_player()].step(state))
            decisions += 1
    print(f"{decisions} decisions; returns (MCTS, ISMCTS, random...): {state.returns()}")
    return state.returns()


if __name__ == "__main__":
    main()
