"""The lean install: importing the env pulls in no training or lab dependency, and every command
either runs or says in one line which extra to install."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import metadata, packages_distributions, version

import pytest

from nefertiti_env import NefertitiGame
from nefertiti_cli import main
from nefertiti_cli.extras import extra_installing, extras, missing


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def _extra_modules() -> set[str]:
    """Top-level modules of every package a user's extra installs (those installed here; not the dev tools)."""
    dists = {d for extra, names in extras().items() if extra != "dev" for d in names}
    return {m for m, owners in packages_distributions().items()
            if any(_normal(o) in dists for o in owners) and not m.startswith("_")}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# Runs `nefertiti` as in the lean install: an import finder placed first refuses every extra's modules
# (their metadata stays, but the CLI checks what can be imported).
LEAN = """import sys
BLOCKED = set({blocked!r})

class Lean:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)

sys.meta_path.insert(0, Lean())
"""


def run_lean(argv: list[str], cwd, **popen) -> subprocess.CompletedProcess | subprocess.Popen:
    """`nefertiti ARGV` in the lean install."""
    code = LEAN.format(blocked=sorted(_extra_modules())) + f"from nefertiti_cli import main\nsys.exit(main({argv!r}))\n"
    if popen:
        return subprocess.Popen([sys.executable, "-c", code], cwd=cwd, text=True, **popen)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=300)


def errors(result) -> list[str]:
    """stderr's lines but the compile notice (printed once on a fresh install)."""
    return [line for line in result.stderr.splitlines() if not line.startswith("nefertiti: compiling")]


def test_in_the_lean_install_the_gymnasium_env_is_made_by_id_and_steps():
    code = LEAN.format(blocked=sorted(_extra_modules())) + (
        "import gymnasium, numpy, nefertiti_env\n"
        "env = gymnasium.make('nefertiti/NefertitiSingleAgent-v0', num_players=3, opponents={'greedy': 1.0})\n"
        "obs, info = env.reset(seed=0)\n"
        "obs, reward, terminated, truncated, info = env.step(int(numpy.flatnonzero(info['action_mask'])[0]))\n"
        "print(info['illegal'], sorted(m for m in {m.partition('.')[0] for m in sys.modules} if m in BLOCKED))\n")
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "[]"]


def test_importing_the_env_loads_no_extra():
    code = ("import json, sys, nefertiti_env\n"
            "nefertiti_env.env(num_players=3).reset(seed=1)\n"
            "print(json.dumps(sorted({m.partition('.')[0] for m in sys.modules})))")
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout))
    assert "pettingzoo" in loaded and "numba" in loaded
    blocked = _extra_modules() - {"yaml", "scipy"}   # numba imports these two if present (config file, LAPACK)
    assert {"torch", "sb3_contrib", "matplotlib", "pydantic", "pyspiel"} <= blocked
    assert loaded.isdisjoint(blocked), sorted(loaded & blocked)


def test_extras_are_read_from_the_package_metadata():
    assert extras()["lab"][:2] == ("pyyaml", "pydantic") and "scipy" in extras()["lab"]
    assert set(extras()["lab"]) < set(extras()["train"])          # train includes nefertiti-env[lab]
    assert missing("train") == [] and extra_installing("torch") == "train" and extra_installing("scipy") == "lab"
    assert extra_installing("numpy") is None


@pytest.mark.parametrize(("argv", "extra"), [
    (["train", "--config", "tiny", "--out", "never"], "train"),
    (["tournament", "--bots", "random,random", "--games", "2", "--workers", "1", "--out", "never"], "lab"),
    (["ladder", "--bots", "random,greedy", "--players", "2", "--out", "never"], "lab"),
    (["balance", "--config", "balance_random", "--games", "2", "--out", "never"], "lab"),
    (["bench", "--seconds", "0.1", "--repeats", "1", "--no-startup"], "lab"),
    (["configs", "--schema", "train"], "lab"),
    (["play", "--bots", "champion,random", "--seed", "1"], "train"),      # the champion needs torch
    (["import-sb3", "model.zip", "never"], "train"),
], ids=lambda v: v[0] if isinstance(v, list) else v)
def test_in_the_lean_install_a_command_names_its_extra_in_one_line(tmp_path, argv, extra):
    result = run_lean(argv, tmp_path)
    assert result.returncode == 2, result.stderr
    [line] = errors(result)
    assert line.startswith(f"nefertiti {argv[0]}: error: needs the {extra!r} extra (")
    assert line.endswith(f'not installed): pip install "nefertiti-env[{extra}]"')
    assert not (tmp_path / "never").exists()               # stopped before it started


def test_in_the_lean_install_the_other_commands_run(tmp_path):
    played = run_lean(["play", "--bots", "random,random", "--seed", "1"], tmp_path)
    assert played.returncode == 0 and "winner: P" in played.stdout, played.stderr
    listed = run_lean(["configs"], tmp_path)
    assert listed.returncode == 0 and "quickstart" in listed.stdout, listed.stderr
    game = NefertitiGame(num_players=2, seed=1)
    while not game.is_over():
        game.apply(game.legal_actions()[0])
    (tmp_path / "game.json").write_text(json.dumps(game.record()))
    replayed = run_lean(["replay", "game.json", "--out", "game.html"], tmp_path)
    assert replayed.returncode == 0 and (tmp_path / "game.html").stat().st_size > 0, replayed.stderr
    server = run_lean(["serve", "--port", "0", "--bots", "random"], tmp_path, stdout=subprocess.PIPE,
                      stderr=subprocess.PIPE)
    try:
        assert server.stdout.readline().startswith("playing at http://127.0.0.1:")
    finally:
        server.terminate()
        server.communicate(timeout=30)


def test_version_comes_from_the_package_metadata(capsys):
    try:
        main(["--version"])
    except SystemExit as stop:
        assert stop.code == 0
    assert capsys.readouterr().out.split() == ["nefertiti", version("nefertiti-env")]


def test_packaged_configs_are_listed_valid_and_found_by_name(capsys):
    import yaml

    from nefertiti_env.balance import atlas
    from nefertiti_env.balance.config import load
    from nefertiti_env.configs import command_of, packaged, resolve
    from nefertiti_env.training.config import config_from_dict

    configs = packaged()
    assert {"quickstart", "tiny", "balance", "balance_random"} <= set(configs)
    commands = {}
    for name, path in configs.items():          # each is a valid config of one of the three formats
        raw = yaml.safe_load(path.read_text())
        if raw.get("kind") == "atlas":
            atlas.parse(raw, name)
            commands[name] = "balance"
        elif name.startswith("balance"):
            load(path)
            commands[name] = "balance"
        else:                                   # a second stage's init_from is the first stage's run
            config_from_dict({**raw, "init_from": ""}, source=name)
            commands[name] = "train"
    assert {name: command_of(path) for name, path in configs.items()} == commands
    assert resolve("quickstart") == configs["quickstart"] and resolve("configs/quickstart.yaml").samefile(configs["quickstart"])
    assert main(["configs"]) == 0
    listing = capsys.readouterr().out.splitlines()[1:]                  # below its header
    assert [line.split()[:3] for line in listing] == [[name, "nefertiti", commands[name]] for name in sorted(configs)]
    assert main(["train", "--config", "quickstrat"]) == 2
    train = ", ".join(name for name in configs if commands[name] == "train")
    assert f"config file not found: quickstrat (packaged train configs: {train})" in capsys.readouterr().err


def test_a_config_with_any_training_only_key_is_a_training_config(tmp_path):
    """`command_of` reads keys without a YAML parser, so its list is checked against the three config models."""
    from nefertiti_env.balance.atlas import AtlasConfig
    from nefertiti_env.balance.config import StudyConfig
    from nefertiti_env.configs import TRAIN_KEYS, command_of
    from nefertiti_env.training.config import Config

    assert TRAIN_KEYS == set(Config.model_fields) - set(StudyConfig.model_fields) - set(AtlasConfig.model_fields)
    path = tmp_path / "league_only.yaml"
    path.write_text("seed: 1\nleague: {rounds: 1}\n")
    assert command_of(path) == "train"


@pytest.mark.parametrize("command, config, right", [("train", "atlas", "balance"), ("balance", "quickstart", "train"),
                                                    ("balance", "configs/tiny.yaml", "train")])
def test_a_config_given_to_the_other_command_names_the_right_one(command, config, right, capsys):
    """One line, before anything runs, instead of every key the other format does not know."""
    assert main([command, "--config", config]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.endswith(f"run it with `nefertiti {right} --config {config}`"), err


def test_config_formats_print_their_json_schema(capsys):
    for kind, key in (("train", "ppo"), ("balance", "lineups")):
        assert main(["configs", "--schema", kind]) == 0
        schema = json.loads(capsys.readouterr().out)
        assert key in schema["properties"] and schema["additionalProperties"] is False


def test_every_package_folder_goes_into_the_wheel():
    """pyproject.toml lists the packages (configs/ is mapped to nefertiti_env.configs): a new
    subpackage left off the list would be missing from the wheel."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    setup = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {name: Path(folder) for name, folder in setup["package-dir"].items()}
    listed = {folders.get(name, Path(*name.split("."))) for name in setup["packages"]}
    found = {p.parent.relative_to(root) for p in root.glob("*/**/__init__.py")
             if not {"tests", "benchmarks", "notebooks", "build"} & set(p.relative_to(root).parts)
             and not p.relative_to(root).parts[0].startswith(".")}
    assert found == listed


def test_readme_tournament_commands_parse_and_write_to_folders_of_their_own():
    """Two commands with the same (default) --out: the second would refuse the first's folder."""
    import shlex
    from pathlib import Path

    from nefertiti_cli import build_parser

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    commands = [shlex.split(c) for c in re.findall(r"`(nefertiti tournament [^`]*)`", readme)]
    assert len(commands) >= 2
    outs = [build_parser().parse_args(words[1:]).out for words in commands]
    assert all("--out" in words for words in commands) and len(set(outs)) == len(outs), outs
