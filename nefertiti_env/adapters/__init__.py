"""Adapters to other RL libraries, one module each; import the one you need (each imports its library).

- `nefertiti_env.adapters.openspiel`: the pyspiel game "python_nefertiti" (explicit chance, MCTS and ISMCTS).
- `nefertiti_env.adapters.rllib`: a Ray RLlib MultiAgentEnv with action masks.
"""
