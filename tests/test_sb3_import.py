"""`nefertiti import-sb3`: an SB3 MaskablePPO zip becomes a safe model file without unpickling (agents/sb3_import.py)."""
import base64
import json
import pickle
import zipfile

import gymnasium
import numpy as np
import pytest

from conftest import import_extra

torch = import_extra("torch", "train")
sb3_contrib = import_extra("sb3_contrib", "train")

from nefertiti_cli import main  # noqa: E402
from nefertiti_env import NUM_ACTIONS, NefertitiGame  # noqa: E402
from nefertiti_env.agents import PPOAgent, policy_file  # noqa: E402
from nefertiti_env.agents.sb3_import import import_sb3  # noqa: E402
from nefertiti_env.encoding.versions import OBSERVATIONS  # noqa: E402
from nefertiti_env.training.single_agent import SingleAgentEnv  # noqa: E402

MaskablePPO = sb3_contrib.MaskablePPO


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny MaskablePPO trained a few hundred steps on the single-agent env, saved as SB3 saves it."""
    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(num_players=3, observation="v1"), n_steps=128, batch_size=64,
                        n_epochs=2, policy_kwargs={"net_arch": dict(pi=[32, 16], vf=[24])}, seed=0)
    model.learn(384)
    path = tmp_path_factory.mktemp("sb3") / "mine.zip"
    model.save(path)
    return model, path


def test_the_imported_model_plays_as_the_trained_policy(trained, tmp_path):
    model, path = trained
    out = tmp_path / "mine.pt"
    meta = import_sb3(path, out)
    assert meta["net_arch"] == {"pi": [32, 16], "vf": [24]} and meta["obs_size"] == OBSERVATIONS["v1"].size
    assert meta["num_actions"] == NUM_ACTIONS and "stable-baselines3" in meta["imported_from"]
    imported = policy_file.load_policy(out)
    for name, tensor in model.policy.state_dict().items():
        assert torch.equal(imported.state_dict()[name], tensor), name
    bot, game = PPOAgent(out), NefertitiGame(3, seed=5)
    while not game.is_over():
        seat = game.current_player
        obs = OBSERVATIONS["v1"].observe(game, seat)
        want, _ = model.predict(obs, action_masks=game.legal_action_mask().astype(bool), deterministic=True)
        action = bot.act(game, seat)
        assert action == int(want), f"decision {len(game.history)}"
        game.apply(action)
    assert game.is_terminated()


def test_import_command_then_a_tournament_with_the_model(trained, tmp_path, capsys):
    out = tmp_path / "mine.pt"
    assert main(["import-sb3", str(trained[1]), str(out)]) == 0
    assert f"ppo:path={out}" in capsys.readouterr().out
    assert main(["import-sb3", str(trained[1]), str(out)]) == 2
    assert "exists: give --force" in capsys.readouterr().err
    assert main(["tournament", "--players", "3", "--bots", f"ppo:path={out},random,random", "--games", "2",
                 "--out", str(tmp_path / "t"), "--quiet"]) == 0
    lines = (tmp_path / "t" / "records.jsonl").read_text().splitlines()
    assert len(lines) == 2 and all(f"ppo:path={out}" in json.loads(line)["bots"] for line in lines)


class Marker:
    """Unpickling this writes a file: the import must never unpickle the zip's `data` entries."""
    path = None

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_pickled_entries_of_the_zip_are_never_run(trained, tmp_path):
    marker = tmp_path / "ran"
    Marker.path = str(marker)
    payload = base64.b64encode(pickle.dumps(Marker())).decode()
    rewritten = tmp_path / "booby_trapped.zip"
    with zipfile.ZipFile(trained[1]) as source, zipfile.ZipFile(rewritten, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name == "data":
                entries = json.loads(data)
                for entry in entries.values():
                    if isinstance(entry, dict) and ":serialized:" in entry:
                        entry[":serialized:"] = payload
                data = json.dumps(entries)
            target.writestr(name, data)
    import_sb3(rewritten, tmp_path / "out.pt")
    assert not marker.exists()
    pickled = tmp_path / "pickled_weights.zip"
    with zipfile.ZipFile(trained[1]) as source, zipfile.ZipFile(pickled, "w") as target:
        for name in source.namelist():
            target.writestr(name, pickle.dumps(Marker(), protocol=2) if name == "policy.pth" else source.read(name))
    with pytest.raises(policy_file.ModelFileError, match="policy.pth is not a plain tensor file"):
        import_sb3(pickled, tmp_path / "out2.pt")
    assert not marker.exists()


class Boxed(gymnasium.Env):
    """An environment of another shape, to make models that do not fit Nefertiti."""

    def __init__(self, obs_size, actions):
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (obs_size,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(actions)

    def action_masks(self):
        return np.ones(self.action_space.n, bool)


@pytest.mark.parametrize("obs_size, actions, kwargs, reason", [
    (10, NUM_ACTIONS, {}, "no observation version has 10 floats"),
    (OBSERVATIONS["v1"].size, 5, {}, f"the policy has 5 actions, Nefertiti has {NUM_ACTIONS}"),
    (OBSERVATIONS["v1"].size, NUM_ACTIONS, {"activation_fn": torch.nn.ReLU}, "activation_fn is .*ReLU"),
])
def test_a_network_that_does_not_fit_is_refused_with_the_reason(tmp_path, obs_size, actions, kwargs, reason):
    path = tmp_path / "other.zip"
    MaskablePPO("MlpPolicy", Boxed(obs_size, actions), policy_kwargs={"net_arch": [8], **kwargs}).save(path)
    with pytest.raises(policy_file.ModelFileError, match=reason) as err:
        import_sb3(path, tmp_path / "out.pt")
    assert str(path) in str(err.value) and not (tmp_path / "out.pt").exists()


def test_a_plain_ppo_or_a_file_that_is_no_sb3_zip_is_refused(tmp_path, capsys):
    from stable_baselines3 import PPO

    path = tmp_path / "ppo.zip"
    PPO("MlpPolicy", Boxed(OBSERVATIONS["v1"].size, NUM_ACTIONS), policy_kwargs={"net_arch": [8]}).save(path)
    with pytest.raises(policy_file.ModelFileError, match="not sb3-contrib's MaskablePPO policies"):
        import_sb3(path, tmp_path / "out.pt")
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert main(["import-sb3", str(other), str(tmp_path / "out.pt")]) == 2
    assert "is not an SB3 model zip (it needs 'data' and 'policy.pth'" in capsys.readouterr().err
