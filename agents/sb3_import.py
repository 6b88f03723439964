"""Bring a user's SB3 MaskablePPO model in as a safe model file, without unpickling anything.

An SB3 `save` zip cannot be loaded safely (`agents.policy_file`): its `data` member holds
cloudpickled objects. Two of its parts need no unpickler, and they are all a bot needs:
`policy.pth`, the policy's state dict as a tensor file (`torch.load(weights_only=True)`),
and `data`, JSON text whose pickled entries also carry readable fields (the policy class's
module, `policy_kwargs` with the activation as text). The network's shape (net_arch, input
size, actions) is read from the weights themselves; the JSON only says whether the network is
one the project rebuilds (MaskableActorCriticPolicy, Tanh, the flat features). The weights are
then loaded into that rebuilt policy and written as a nefertiti model file
(`policy_file.save`), which `ppo:path=OUT` plays.
"""
from __future__ import annotations

import json
import pickle
import re
import zipfile
from pathlib import Path

from nefertiti_env import NUM_ACTIONS

from . import policy_file
from .policy_file import ModelFileError

MASKABLE_POLICIES = "sb3_contrib.common.maskable.policies"
# policy_kwargs that do not change the network the weights fit (how it was initialised or optimised)
NEUTRAL_KWARGS = {"net_arch", "activation_fn", "ortho_init", "optimizer_class", "optimizer_kwargs",
                  "share_features_extractor", "normalize_images", "features_extractor_class",
                  "features_extractor_kwargs"}
LAYER = re.compile(r"mlp_extractor\.(policy|value)_net\.(\d+)\.weight")


def import_sb3(zip_path: str | Path, out: str | Path) -> dict:
    """Write the policy of the SB3 MaskablePPO zip `zip_path` to the model file `out`; returns its meta.

    Raises ModelFileError naming the zip when it is not such a model or its network does not fit
    this project (another policy class, activation or feature extractor, another observation size
    or number of actions)."""
    import torch

    zip_path = Path(zip_path)
    if not zipfile.is_zipfile(zip_path):
        raise ModelFileError(f"{zip_path} is not a zip file (an SB3 model is saved as one by model.save)")
    with zipfile.ZipFile(zip_path) as archive:
        names = set(archive.namelist())
        if not {"data", "policy.pth"} <= names:
            raise ModelFileError(f"{zip_path} is not an SB3 model zip (it needs 'data' and 'policy.pth', "
                                 f"it has {', '.join(sorted(names))})")
        try:
            data = json.loads(archive.read("data"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise ModelFileError(f"{zip_path}: its 'data' member is not JSON: {err}") from None
        sb3_version = archive.read("_stable_baselines3_version").decode().strip() \
            if "_stable_baselines3_version" in names else "unknown"
        try:
            with archive.open("policy.pth") as weights:
                state = torch.load(weights, map_location="cpu", weights_only=True)
        except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as err:
            raise ModelFileError(f"{zip_path}: policy.pth is not a plain tensor file, not loaded: "
                                 f"{str(err).splitlines()[0]}") from None
    problems = _network_problems(data)
    meta = _shape_of(state) if isinstance(state, dict) and "action_net.weight" in state else None
    if meta is None:
        problems.append("policy.pth holds no actor-critic weights (no action_net)")
    elif meta["num_actions"] != NUM_ACTIONS:
        problems.append(f"the policy has {meta['num_actions']} actions, Nefertiti has {NUM_ACTIONS}: "
                        "it was trained on another environment")
    if problems:
        raise ModelFileError(f"{zip_path} cannot be imported: " + "; ".join(problems))
    try:
        policy = policy_file.build_policy(meta)
        policy.load_state_dict(state)
    except ModelFileError as err:
        raise ModelFileError(f"{zip_path}: {err}") from None
    except (RuntimeError, KeyError) as err:
        raise ModelFileError(f"{zip_path}: its weights do not fit a net_arch {meta['net_arch']} policy: "
                             f"{str(err).splitlines()[0]}") from None
    policy_file.save(out, policy, imported_from=f"stable-baselines3 {sb3_version} zip {zip_path.name}")
    return policy_file.read(out)[0]


def _network_problems(data) -> list[str]:
    """Why the zip's readable fields describe a network the project does not rebuild."""
    if not isinstance(data, dict):
        return ["its 'data' member is not a JSON object"]
    problems = []
    policy_class = data.get("policy_class")
    module = policy_class.get("__module__") if isinstance(policy_class, dict) else None
    if module != MASKABLE_POLICIES:
        problems.append(f"its policy class comes from {module!r}, not sb3-contrib's MaskablePPO policies")
    kwargs = data.get("policy_kwargs") or {}
    if not isinstance(kwargs, dict):
        return problems + ["policy_kwargs is not a JSON object"]
    readable = {k: v for k, v in kwargs.items() if not k.startswith(":")}
    unknown = sorted(set(readable) - NEUTRAL_KWARGS)
    if unknown:
        problems.append(f"policy_kwargs {', '.join(unknown)} shape a network this project does not rebuild")
    activation = str(readable.get("activation_fn", "Tanh"))
    if not activation.rstrip("'>").endswith("Tanh"):
        problems.append(f"activation_fn is {activation}; the project's policies use Tanh (SB3's default)")
    extractor = str(readable.get("features_extractor_class", "FlattenExtractor"))
    if not extractor.rstrip("'>").endswith("FlattenExtractor"):
        problems.append(f"features_extractor_class is {extractor}; the project's policies use FlattenExtractor")
    return problems


def _shape_of(state: dict) -> dict:
    """net_arch, obs_size and num_actions as the weights' shapes give them."""
    layers = {"policy": {}, "value": {}}
    for key, tensor in state.items():
        match = LAYER.fullmatch(key)
        if match:
            layers[match[1]][int(match[2])] = tuple(tensor.shape)
    pi, vf = ([shape[0] for _, shape in sorted(layers[net].items())] for net in ("policy", "value"))
    first = layers["policy"].get(0) or tuple(state["action_net.weight"].shape)
    return {"net_arch": pi if pi == vf else {"pi": pi, "vf": vf}, "obs_size": int(first[1]),
            "num_actions": int(state["action_net.weight"].shape[0])}
