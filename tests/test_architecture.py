"""Who may import whom (DESIGN.md), checked on the source."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def imports_of(folder: str) -> dict[Path, set[str]]:
    found = {}
    for path in (ROOT / folder).rglob("*.py"):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
        found[path] = names
    return found


def test_engines_import_only_the_standard_library() -> None:
    for path, names in imports_of("referee/games").items():
        for name in names:
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top == "__future__", f"{path}: imports {name}"


def test_sdk_and_referee_never_import_the_platform() -> None:
    for folder in ("bots_sdk", "referee"):
        for path, names in imports_of(folder).items():
            for name in names:
                top = name.split(".")[0]
                assert top not in ("arena", "webui", "parlour_site", "django", "celery"), f"{path}: imports {name}"


def test_sdk_imports_no_grpc_at_play_time() -> None:
    """A local match needs no grpc: the match host is transport-free."""
    import subprocess

    code = ("import sys, bots_sdk.cli, bots_sdk.local, referee.replay; "
            "sys.exit(1 if 'grpc' in sys.modules else 0)")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_the_web_never_imports_the_referee_or_the_sdk() -> None:
    """The site shows replays from their recorded views and asks the arena for the rest (games,
    live frames, checks): it never plays a match nor speaks gRPC (DESIGN.md)."""
    for path, names in imports_of("webui").items():
        if "tests" in path.relative_to(ROOT).parts:
            continue
        for name in names:
            top = name.split(".")[0]
            assert top not in ("referee", "bots_sdk", "grpc", "parlour"), f"{path}: imports {name}"


def test_only_the_arena_runner_plays_recorded_matches() -> None:
    """One road: the operator's client is used by the road (and its pool of warm bots, and the
    one-machine processes that start a referee), never by the rest of the arena or the web."""
    allowed = {"arena/road/lifecycle.py", "arena/bots/warm_pool.py", "arena/fleet/processes.py"}
    for folder in ("arena", "webui"):
        for path, names in imports_of(folder).items():
            if path.relative_to(ROOT).as_posix() in allowed:
                continue
            assert "referee.client" not in names, f"{path}: imports referee.client"


def module_graph(top: str):
    """The modules of a package (``arena``, ``webui``) and who imports whom among them, at any depth
    of the code (a function's import counts): relative imports, and absolute ones of the package."""
    import networkx

    modules = {}
    for path in (ROOT / top).rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = networkx.DiGraph()
    for module, path in modules.items():
        graph.add_node(module)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # from .x / ..x: that many packages up from this module's
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            for target in targets:
                while target and target not in modules:  # ``import a.b.c`` of a name: its module
                    target = target.rpartition(".")[0]
                if target and target != module:
                    graph.add_edge(module, target)
    return graph


def packages(top: str) -> list[str]:
    return sorted(".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / top).rglob("__init__.py")
                  if "migrations" not in p.parts)


@pytest.mark.parametrize("package", packages("arena") + packages("webui"))
def test_no_import_circles_inside_a_package(package: str) -> None:
    """Within each package of the arena and the web (their subpackages included: the road, the
    bots, the fleet, the competitions, the pages), module imports form no cycle."""
    import networkx

    graph = module_graph(package.split(".")[0])
    inside = graph.subgraph([m for m in graph if m == package or m.startswith(package + ".")])
    cycles = list(networkx.simple_cycles(inside))
    assert not cycles, cycles
