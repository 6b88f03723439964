"""Model files that load without running code: a model may come from anywhere.

SB3's own files unpickle arbitrary objects when loaded (a `MaskablePPO.save` zip through
cloudpickle, a `policy.save` file through `torch.load(weights_only=False)`), so a model
downloaded or shared could run code on `nefertiti tournament --bots ppo:path=...`. A
nefertiti model file (`.pt`) is instead a dict of tensors and plain values only, read with
`torch.load(weights_only=True)` (torch's restricted loader refuses anything else):

    format, version     "nefertiti-ppo", 1
    meta                JSON text: net_arch, obs_size (which names the observation version), num_actions (and a checkpoint's counters)
    policy              the policy's state dict
    optimizer           the Adam state dict (checkpoints and final models; snapshots have none)

A file made to play only (`save_actor`) holds the actor alone, in float16, and says so in its meta
(`actor_only`): half the bytes of a float32 actor and none for the critic, which is what lets several
policies ship in the package's weights budget. Its tensors are widened to float32 when loaded; its critic
is left as built, untrained, so nothing may read it (`PPOAgent` refuses to value a search's leaves with it).

The network is rebuilt from `meta`, then the weights are loaded into it. SB3 files are refused
with an error naming the file as an unsafe legacy format; nothing in them is read here
(`agents.sb3_import` converts a MaskablePPO zip by reading only its tensors and JSON).
"""
from __future__ import annotations

import contextlib
import json
import pickle
import zipfile
from pathlib import Path

FORMAT, VERSION = "nefertiti-ppo", 1
ACTOR_ONLY = "actor_only"        # the meta key of a file that holds the actor alone (`save_actor`)


class ModelFileError(ValueError):
    """A model file that cannot be loaded safely, or does not fit; the message names the file."""


def save(path: str | Path, policy, optimizer: bool = False, **meta) -> None:
    """Write `policy` (and its optimiser's state) to `path`, atomically (temporary file, then rename)."""
    meta = {"net_arch": policy.net_arch, "obs_size": int(policy.observation_space.shape[0]),
            "num_actions": int(policy.action_space.n), **meta}
    data = {"format": FORMAT, "version": VERSION, "meta": json.dumps(meta), "policy": policy.state_dict()}
    if optimizer:
        data["optimizer"] = policy.optimizer.state_dict()
    _write(Path(path), data)


def save_actor(source: str | Path, path: str | Path) -> None:
    """Write the actor of the model file `source` to `path` for play only: float16 tensors, no critic and no
    optimiser (`actor_only` in its meta). The moves it plays are the source's up to float16 rounding."""
    import torch

    meta, data = read(source)
    meta = {"net_arch": meta["net_arch"], "obs_size": meta["obs_size"], "num_actions": meta["num_actions"],
            ACTOR_ONLY: True}
    actor = {k: data["policy"][k].to(torch.float16) for k in weight_shapes(meta)}
    _write(Path(path), {"format": FORMAT, "version": VERSION, "meta": json.dumps(meta), "policy": actor})


def _write(path: Path, data: dict) -> None:
    """torch.save to a temporary file, then rename: a reader never sees half a file."""
    import torch

    tmp = path.with_name(f".{path.name}.tmp")
    try:
        torch.save(data, tmp)
        tmp.replace(path)
    except (OSError, RuntimeError) as err:     # torch's writer reports a full disk as a RuntimeError
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(err, OSError):
            raise
        raise OSError(f"cannot write {path}: {str(err).splitlines()[0]}") from None


def read(path: str | Path) -> tuple[dict, dict]:
    """(meta, the file's dict) of a nefertiti model file, loaded without unpickling any object."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no PPO model at {path}")
    legacy = (f"{path} holds pickled objects (an SB3 model or another unsafe legacy format), which could run "
              "code when loaded: not loaded; train the model again with this version, or convert an SB3 "
              "MaskablePPO zip with `nefertiti import-sb3 ZIP OUT`")
    if _is_sb3_zip(path):
        raise ModelFileError(legacy)
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise ModelFileError(legacy) from None
    except (RuntimeError, OSError, EOFError, ValueError, TypeError, KeyError, AttributeError, IndexError) as err:
        first = (str(err).splitlines() or [type(err).__name__])[0]
        raise ModelFileError(f"{path} is not a readable model file: {first}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ModelFileError(f"{path} is not a nefertiti model file (no {FORMAT!r} format tag)")
    if data.get("version") != VERSION:
        raise ModelFileError(f"{path} has model format version {data.get('version')}, this version reads {VERSION}")
    try:
        meta = json.loads(data["meta"])
    except (KeyError, TypeError, ValueError) as err:
        raise ModelFileError(f"{path}: meta is not the model's JSON description ({err!r})") from None
    problem = meta_problem(meta) or _weights_problem(meta, data)
    if problem:
        raise ModelFileError(f"{path}: {problem}")
    return meta, data


# The largest network a model file may describe: its meta is checked, and the shapes of its weights
# against it, before any network is built (a 1 KB file claiming [8000, 8000] once built 1.7 GB for minutes).
MAX_LAYERS, MAX_WIDTH = 8, 4096


def meta_problem(meta) -> str | None:
    """Why `meta` cannot describe a model of this version (None: it can)."""
    from nefertiti_env.core.actions import NUM_ACTIONS

    if not isinstance(meta, dict):
        return "meta must be a JSON object"
    arch, size = meta.get("net_arch"), meta.get("obs_size")
    if not (isinstance(arch, (list, dict)) and all(_layers_fit(widths) for widths in layers(arch).values())):
        return (f"meta.net_arch must list 1..{MAX_LAYERS} layer sizes of 1..{MAX_WIDTH} (or give such lists as "
                f"pi and vf), got {arch!r}")
    if type(size) is not int or size < 1:
        return f"meta.obs_size must be a positive integer, got {size!r}"
    if meta.get("num_actions") != NUM_ACTIONS:
        return f"meta.num_actions must be {NUM_ACTIONS}, got {meta.get('num_actions')!r}"
    if type(meta.get(ACTOR_ONLY, False)) is not bool:
        return f"meta.{ACTOR_ONLY} must be true or false, got {meta[ACTOR_ONLY]!r}"
    return None


def layers(arch) -> dict:
    """{"pi": widths, "vf": widths}: SB3's net_arch, one list for both networks or one each."""
    return {"pi": arch, "vf": arch} if isinstance(arch, list) else {k: arch.get(k) for k in ("pi", "vf")}


def _layers_fit(layers) -> bool:
    return (isinstance(layers, list) and 1 <= len(layers) <= MAX_LAYERS
            and all(type(w) is int and 1 <= w <= MAX_WIDTH for w in layers))


def weight_shapes(meta: dict) -> dict[str, tuple[int, ...]]:
    """The policy's state dict shapes for `meta` (MaskableActorCriticPolicy: separate policy and value
    MLPs of net_arch, then the action and value heads; the actor's alone for an `actor_only` file)."""
    shapes, last = {}, {}
    for net, key in (("policy_net", "pi"), ("value_net", "vf")):
        before = meta["obs_size"]
        for i, width in enumerate(layers(meta["net_arch"])[key]):
            shapes[f"mlp_extractor.{net}.{2 * i}.weight"], shapes[f"mlp_extractor.{net}.{2 * i}.bias"] = \
                (width, before), (width,)
            before = width
        last[key] = before
    shapes.update({"action_net.weight": (meta["num_actions"], last["pi"]), "action_net.bias": (meta["num_actions"],),
                   "value_net.weight": (1, last["vf"]), "value_net.bias": (1,)})
    if meta.get(ACTOR_ONLY):
        return {k: v for k, v in shapes.items() if not k.startswith(("mlp_extractor.value_net.", "value_net."))}
    return shapes


def _weights_problem(meta: dict, data: dict) -> str | None:
    import torch

    weights = data.get("policy")
    if not isinstance(weights, dict) or not all(isinstance(v, torch.Tensor) for v in weights.values()):
        return "policy must be the network's state dict (names to tensors)"
    found = {k: tuple(v.shape) for k, v in weights.items()}
    want = weight_shapes(meta)
    if found != want:
        wrong = sorted(k for k in found.keys() | want.keys() if found.get(k) != want.get(k))
        return (f"the weights do not fit meta.net_arch {meta['net_arch']} (obs_size {meta['obs_size']}): "
                f"{wrong[0]} is {found.get(wrong[0], 'missing')}, expected {want.get(wrong[0], 'no such tensor')}")
    return None


def _is_sb3_zip(path: Path) -> bool:
    """An SB3 `save` archive: its `data` member holds cloudpickled objects."""
    if not zipfile.is_zipfile(path):
        return False
    with zipfile.ZipFile(path) as archive:
        return "data" in archive.namelist()


def build_policy(meta: dict):
    """A fresh MaskableActorCriticPolicy of the architecture `meta` describes (CPU, untrained)."""
    import numpy as np
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from nefertiti_env.encoding.versions import version_of_size

    try:                                 # its input size names the observation version it reads
        version_of_size(meta["obs_size"])
    except ValueError as err:
        raise ModelFileError(f"the model sees {meta['obs_size']} observation features: {err}; "
                             "train it again with this version") from None
    # the bounds do not shape the network (a vector observation is not rescaled), so none are stored
    observation_space = spaces.Box(low=0.0, high=np.inf, shape=(meta["obs_size"],), dtype=np.float32)
    return MaskableActorCriticPolicy(observation_space, spaces.Discrete(meta["num_actions"]),
                                     lambda _: 0.0, net_arch=meta["net_arch"])


def load_policy(path: str | Path):
    """The policy stored at `path`, rebuilt and loaded, in evaluation mode."""
    meta, data = read(path)
    try:
        policy = build_policy(meta)
    except ModelFileError as err:
        raise ModelFileError(f"{path}: {err}") from None
    load_into(policy, path, data, optimizer=False)
    policy.set_training_mode(False)
    policy.actor_only = bool(meta.get(ACTOR_ONLY))      # its critic untrained: `PPOAgent` reads this
    return policy


def load_into(policy, path: str | Path, data: dict | None = None, optimizer: bool = True) -> dict:
    """Load the model file at `path` into an existing `policy` (and its optimiser if the file has
    its state); returns the file's meta. A network of another shape is a ModelFileError. An `actor_only` file
    loads its actor and leaves the critic as it was (a fine-tuning from it trains the critic anew)."""
    meta, data = read(path) if data is None else (json.loads(data["meta"]), data)
    try:
        policy.load_state_dict(data["policy"], strict=not meta.get(ACTOR_ONLY))
        if optimizer and "optimizer" in data:
            policy.optimizer.load_state_dict(data["optimizer"])
    except (RuntimeError, ValueError, KeyError) as err:
        raise ModelFileError(f"{path} does not fit this network (its net_arch is {meta['net_arch']}): "
                             f"{str(err).splitlines()[0]}") from None
    return meta
