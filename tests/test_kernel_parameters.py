"""No kernel takes more than ten parameters: arrays that travel together travel
as one named record or NamedTuple (docs/engine.md "Arguments by name"), so a new one is added in one place
and no call passes a long row of arguments by position.

    python tests/test_kernel_parameters.py      # every kernel of the product code above ten, most first
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("nefertiti_env", "agents", "training", "balance")
MAKERS = {"njit", "kernel", "shared"}         # engine/entry.py's decorators
MOST = 10


def _name(node) -> str | None:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def kernels(folders=PRODUCT):
    """(parameters, file:line, name) of every function decorated by a kernel maker, or by a module's alias
    of one (`hot = njit(...)`)."""
    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text())
            makers = MAKERS | {t.id for node in tree.body if isinstance(node, ast.Assign)
                               and isinstance(node.value, ast.Call) and _name(node.value) in MAKERS
                               for t in node.targets if isinstance(t, ast.Name)}
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and any(_name(d) in makers for d in node.decorator_list):
                    a = node.args
                    count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
                    found.append((count, f"{path.relative_to(ROOT)}:{node.lineno}", node.name))
    return found


def test_no_kernel_takes_more_than_ten_parameters():
    found = kernels()
    assert len(found) > 200                   # the walk finds the kernels (engine, encoder, bots, tables)
    assert [k for k in found if k[0] > MOST] == []


if __name__ == "__main__":
    over = sorted((k for k in kernels() if k[0] > MOST), reverse=True)
    print(f"{len(kernels())} kernels; {len(over)} take more than {MOST} parameters")
    for count, where, name in over:
        print(f"{count:4d}  {name:28s} {where}")
