"""The rules core imports in one direction: no module of nefertiti_env/core (the compiled engine
included) imports one that imports it back."""
import ast
from pathlib import Path

import nefertiti_env.core

CORE = Path(nefertiti_env.core.__file__).parent


def module_name(path: Path) -> str:
    """A core module's dotted name relative to nefertiti_env.core ("game", "engine.flow")."""
    parts = path.relative_to(CORE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def core_imports(path: Path) -> set[str]:
    """Dotted names (relative to nefertiti_env.core) of what `path` imports, at the top or in a function."""
    package = module_name(path).split(".")[:-1] if path.stem != "__init__" else module_name(path).split(".")
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
            if node.module:                                      # from .resolution import x
                found.add(".".join(base + node.module.split(".")))
            else:                                                # from . import actions as A
                found.update(".".join(base + [alias.name]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nefertiti_env.core."):
            found.add(node.module.removeprefix("nefertiti_env.core."))
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in CORE.rglob("*.py") if p.stem != "__init__"}
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
    assert {"game", "scoring", "engine.flow", "engine.powers", "engine.resolution", "engine.board"} <= graph.keys()
    assert {"engine.board", "engine.powers"} <= graph["engine.resolution"]      # the graph is really read
    assert "actions" in graph["engine.flow"] and "engine.step" in graph["game"]
    assert find_cycle(graph) == []


def test_cycle_finder_reports_a_cycle():
    """The check itself can fail: a made-up cycle a -> b -> c -> a is found."""
    cycle = find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})
    assert cycle[0] == cycle[-1] and set(cycle) == {"a", "b", "c"}
