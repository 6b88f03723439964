"""The rules core imports in one direction: no module of nefertiti_env/core imports one that imports it back."""
import ast
from pathlib import Path

import nefertiti_env.core

CORE = Path(nefertiti_env.core.__file__).parent


def core_imports(path: Path) -> set[str]:
    """Names of the core modules `path` imports, at the top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:                 # from .resolution import x
                found.add(node.module.split(".")[0])
            elif node.level == 1:                                # from . import actions as A
                found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("nefertiti_env.core."):
                found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[2] for a in node.names if a.name.startswith("nefertiti_env.core."))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {p.stem: p for p in CORE.glob("*.py") if p.stem != "__init__"}
    return {name: core_imports(path) & modules.keys() for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle as a list of modules (first == last), or [] when there is none."""
    state = {}                                   # 1: on the current path, 2: done

    def visit(node, path):                       # path: the import chain ending with node
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt, path + [nxt])
                if cycle:
                    return cycle
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node, [node])
            if cycle:
                return cycle
    return []


def test_core_has_no_import_cycle():
    graph = import_graph()
    assert {"game", "resolution", "powers", "market", "scoring"} <= graph.keys()
    assert "market" in graph["powers"] and "powers" in graph["resolution"]   # the graph is really read
    assert find_cycle(graph) == []


def test_cycle_finder_reports_a_cycle():
    """The check itself can fail: a made-up cycle a -> b -> c -> a is found."""
    cycle = find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert cycle[0] == cycle[-1] and set(cycle) == {"a", "b", "c"}
