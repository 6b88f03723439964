"""The pip extras as the installed package declares them (pyproject.toml's optional-dependencies),
and whether their packages can be imported here.

The extras and their packages are written down once, in pyproject.toml; this module reads them
from the package's metadata instead of keeping a second map. A package counts as present when
each of its top-level modules can be found, so the check sees what an import would see.
"""
from __future__ import annotations

import re
from functools import cache
from importlib.metadata import packages_distributions, requires
from importlib.util import find_spec

PACKAGE = "nefertiti-env"


class MissingExtra(Exception):
    """A command needs an extra whose packages are not all importable."""

    def __init__(self, extra: str, missing: list[str]):
        self.extra, self.missing = extra, missing
        super().__init__(f"needs the {extra!r} extra ({', '.join(missing)} not installed): "
                         f"pip install \"{PACKAGE}[{extra}]\"")


def _normal(name: str) -> str:
    """PEP 503's normal form of a distribution name (pyyaml, sb3-contrib, open-spiel)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def extras() -> dict[str, tuple[str, ...]]:
    """extra -> the distributions it installs (normal names), an extra that names another included."""
    direct: dict[str, list[str]] = {}
    for line in requires(PACKAGE) or ():
        spec, _, marker = line.partition(";")
        extra = re.search(r"""extra\s*==\s*['"]([^'"]+)['"]""", marker)
        if extra:
            direct.setdefault(extra.group(1), []).append(spec.strip())

    def expand(extra: str) -> list[str]:
        names = []
        for spec in direct.get(extra, ()):
            name = _normal(re.match(r"[A-Za-z0-9._-]+", spec).group())
            if name == PACKAGE:                  # nefertiti-env[lab]: the lab extra's packages too
                names += [n for inner in re.search(r"\[(.*)\]", spec).group(1).split(",")
                          for n in expand(inner.strip())]
            else:
                names.append(name)
        return list(dict.fromkeys(names))

    return {extra: tuple(expand(extra)) for extra in direct}


@cache
def _modules_of() -> dict[str, list[str]]:
    """Installed distribution (normal name) -> its top-level modules."""
    modules: dict[str, list[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            modules.setdefault(_normal(dist), []).append(module)
    return modules


def _importable(dist: str) -> bool:
    modules = [m for m in _modules_of().get(dist, ()) if not m.startswith("_")]
    try:
        return bool(modules) and all(find_spec(m) is not None for m in modules)
    except (ImportError, ValueError):          # a blocked or broken module
        return False


def missing(extra: str) -> list[str]:
    """The distributions of `extra` that cannot be imported here (empty: the extra is installed)."""
    return [dist for dist in extras()[extra] if not _importable(dist)]


def require(extra: str) -> None:
    """Raise MissingExtra (reported by `nefertiti` in one line) unless `extra` is installed."""
    absent = missing(extra)
    if absent:
        raise MissingExtra(extra, absent)


def extra_installing(module: str) -> str | None:
    """The smallest extra that installs the distribution named like `module` (torch, scipy, rich), if any."""
    name = _normal(module.partition(".")[0])
    holding = [extra for extra, dists in extras().items() if name in dists]
    return min(holding, key=lambda extra: len(extras()[extra]), default=None)
