"""The lean install: importing the env pulls in no training or lab dependency, and a command whose
extra is missing says in one line which extra to install."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import metadata, packages_distributions, version

from nefertiti_cli import EXTRA_OF_MODULE, main


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_importing_the_env_loads_no_extra():
    code = ("import json, sys, nefertiti_env\n"
            "nefertiti_env.env(num_players=3).reset(seed=1)\n"
            "print(json.dumps(sorted({m.partition('.')[0] for m in sys.modules})))")
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    loaded = set(json.loads(result.stdout))
    assert "pettingzoo" in loaded and "numba" in loaded
    extras = set(EXTRA_OF_MODULE) - {"yaml"}        # numba reads its optional config file with yaml if present
    assert {"torch", "sb3_contrib", "matplotlib"} <= extras
    assert loaded.isdisjoint(extras), sorted(loaded & extras)


def test_a_missing_extra_is_named_in_one_line():
    blocked = [m for m, extra in EXTRA_OF_MODULE.items() if extra == "train"]
    code = (f"import sys\nfor m in {blocked!r}: sys.modules[m] = None   # as if not installed\n"
            "from nefertiti_cli import main\n"
            "sys.exit(main(['train', '--config', 'configs/quickstart.yaml', '--out', 'never']))")
    result = run_python(code)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "nefertiti train: error: needs the 'train' extra (module 'torch' is not installed): "
        "pip install \"nefertiti-env[train]\""]


def test_each_module_comes_with_the_extra_the_cli_names():
    requires = metadata("nefertiti-env").get_all("Requires-Dist")
    dists = packages_distributions()
    for module, extra in EXTRA_OF_MODULE.items():
        names = {re.split(r"[<>=!~; \[]", r)[0].lower().replace("_", "-") for r in requires
                 if f'extra == "{extra}"' in r}
        assert dists[module][0].lower().replace("_", "-") in names, (module, extra)


def test_version_comes_from_the_package_metadata(capsys):
    try:
        main(["--version"])
    except SystemExit as stop:
        assert stop.code == 0
    assert capsys.readouterr().out.split() == ["nefertiti", version("nefertiti-env")]


def test_packaged_configs_are_listed_valid_and_found_by_name(capsys):
    import yaml

    from nefertiti_env.balance.config import load
    from nefertiti_cli.configs import packaged, resolve
    from nefertiti_env.training.config import config_from_dict

    configs = packaged()
    assert {"quickstart", "tiny", "balance", "balance_random"} <= set(configs)
    for name, path in configs.items():          # each is a valid config of one of the two formats
        if name.startswith("balance"):
            load(path)
        else:                                   # a second stage's init_from is the first stage's run
            config_from_dict({**yaml.safe_load(path.read_text()), "init_from": ""}, source=name)
    assert resolve("quickstart") == configs["quickstart"] and resolve("configs/quickstart.yaml").samefile(configs["quickstart"])
    assert main(["configs"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert len(listing) == len(configs) and listing[2].split()[0] == sorted(configs)[2]
    assert main(["train", "--config", "quickstrat"]) == 2
    assert "config file not found: quickstrat (packaged configs: balance," in capsys.readouterr().err


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
