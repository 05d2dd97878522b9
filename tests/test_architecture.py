"""Who may import whom (DESIGN.md), checked on the source."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

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


def test_every_game_package_imports_only_the_standard_library_and_the_engines_interface() -> None:
    """A game package, Parlour's or installed from outside (examples/kuhn-poker), is pure: its engine,
    policy and search hooks run in a bot's sandbox (docs/engines.md)."""
    from referee.games.registry import packages

    for game in packages().values():
        own = game.package.__name__.split(".")[0]
        for path in game.folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module else []
                for name in names:
                    top = name.split(".")[0]
                    assert top in sys.stdlib_module_names or top == "__future__" or top == own \
                        or name == "referee.games" or name.startswith("referee.games."), f"{path}: imports {name}"


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
    """One road: the operator's client is used by the arena's runner (and its pool of warm bots),
    never by the rest of the arena or the web."""
    for folder in ("arena", "webui"):
        for path, names in imports_of(folder).items():
            if path.name in ("runner.py", "bot_pool.py", "platform.py"):
                continue
            assert "referee.client" not in names, f"{path}: imports referee.client"


def test_the_arena_has_no_import_circles() -> None:
    """Within arena/, module imports (at any depth of the code) form no cycle."""
    import networkx

    graph = networkx.DiGraph()
    for path, _ in imports_of("arena").items():
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        graph.add_node(module)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module
                target = f"{package}.{node.module}" if node.module else package
                for alias in node.names if not node.module else [None]:
                    graph.add_edge(module, target if alias is None else f"{package}.{alias.name}")
    cycles = list(networkx.simple_cycles(graph))
    assert not cycles, cycles
