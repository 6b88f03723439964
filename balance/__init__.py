"""The balance lab: evaluate Nefertiti's balance by self-play (`nefertiti balance`).

A study (config: `config`) plays games between bots (`agents.make_bot` specs; restricted
play forbids one seat one option through the game's rules: `restrict`) in worker processes
(`runner`), records each game from the outside through the core's public state
(`record`) into CSV tables (`tables`), and turns them into numbers (`analysis`, `stats`),
figures (`plots`) and a Markdown report (`report`). `notebooks/balance.ipynb` redraws the figures
from the CSV files.
"""
