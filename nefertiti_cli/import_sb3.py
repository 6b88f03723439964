"""`nefertiti import-sb3`: a user's SB3 MaskablePPO zip as a safe model file for `ppo:path=`."""
from __future__ import annotations

import argparse
from pathlib import Path

from . import fail


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "import-sb3", help="convert an SB3 MaskablePPO zip into a model file bots load safely",
        description="Reads the policy weights (policy.pth, a tensor file) and the readable JSON of an SB3 "
                    "MaskablePPO zip saved by model.save, without unpickling anything, and writes a nefertiti "
                    "model file (.pt) that `ppo:path=OUT` plays in tournaments, ladders and games. Refused, with "
                    "the reason, when the network is not one the project rebuilds (MaskableActorCriticPolicy, "
                    "Tanh, flat features) or does not fit Nefertiti (observation size v0 3,225 or v1 657 floats, "
                    "147 actions). Train it with training.single_agent.SingleAgentEnv (or "
                    "nefertiti/NefertitiSingleAgent-v0).",
        epilog="examples:\n  nefertiti import-sb3 my_model.zip models/mine.pt\n"
               "  nefertiti tournament --bots ppo:path=models/mine.pt,banker,banker,banker --games 100",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("zip", help="the SB3 model zip (MaskablePPO.save)")
    p.add_argument("out", help="the model file to write (.pt)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.set_defaults(func=run, extra="train")


def run(args) -> int:
    from nefertiti_env.agents.policy_file import ModelFileError
    from nefertiti_env.agents.sb3_import import import_sb3

    source, out = Path(args.zip), Path(args.out)
    if not source.is_file():
        return fail("import-sb3", f"no such file: {source}")
    if out.exists() and not args.force:
        return fail("import-sb3", f"{out} exists: give --force to replace it")
    try:
        meta = import_sb3(source, out)
    except (ModelFileError, OSError) as err:
        return fail("import-sb3", str(err))
    print(f"wrote {out}: net_arch {meta['net_arch']}, {meta['obs_size']} observation features; "
          f"play it with ppo:path={out}")
    return 0
