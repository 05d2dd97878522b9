"""Who may import whom (docs/architecture.md), checked on the source."""
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


def test_a_bot_process_imports_no_settings_library_and_no_django() -> None:
    """A bot's process (the SDK playing seats through a referee, in a sandbox or not) reads no
    setting: only a match host and the platform's processes do (docs/settings.md), so it imports
    neither the settings library nor Django."""
    import subprocess

    code = ("import sys, bots_sdk.cli, bots_sdk.remote; "
            "sys.exit(1 if {'environ', 'attr', 'django'} & set(sys.modules) else 0)")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_the_web_never_imports_the_referee_or_the_sdk() -> None:
    """The site shows replays from their recorded views and asks the arena for the rest (games,
    live frames, checks): it never plays a match nor speaks gRPC (docs/architecture.md)."""
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


# ------------------------------------------------------------------ packages and their cycles
# The project's own top-level packages (``parlour/`` is the protocol's generated code). The plain
# install's are what a bot author gets; the others need the ``server`` extra.
PACKAGES = ("referee", "bots_sdk", "sandbox", "arena", "webui", "parlour_site")
PLAIN_PACKAGES = ("referee", "bots_sdk", "sandbox", "parlour")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def modules_imported(path: Path) -> set[str]:
    """Every module a file imports, anywhere in its code (in functions and ``TYPE_CHECKING``
    blocks too: a circle there is still a circle), relative imports resolved; ``from a import b``
    names ``a.b`` when that is a module of the project, else ``a``."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module
            for alias in node.names:
                found.add(f"{origin}.{alias.name}" if is_module(f"{origin}.{alias.name}") else origin)
    return found


def import_graph() -> dict[str, set[str]]:
    """Each module of the project's packages, and the modules it imports."""
    return {module_name(path): modules_imported(path)
            for package in PACKAGES for path in (ROOT / package).rglob("*.py")}


def test_no_import_cycles_between_packages() -> None:
    """The packages import each other in layers: the referee never imports the SDK (it imports
    nothing of the project but the engines and the protocol), the sandbox nothing but the
    protocol, the web only the arena; no chain of imports comes back to where it started."""
    import networkx

    packages = networkx.DiGraph()
    for module, names in import_graph().items():
        for name in names:
            source, target = module.split(".")[0], name.split(".")[0]
            if target in PACKAGES and target != source:
                packages.add_edge(source, target, example=f"{module} imports {name}")
    cycles = list(networkx.simple_cycles(packages))
    assert not cycles, [[packages.edges[a, b]["example"] for a, b in zip(c, c[1:] + c[:1])] for c in cycles]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycles_inside_a_package(package: str) -> None:
    """Within each package, its modules' imports (at any depth of the code) form no cycle."""
    import networkx

    graph = networkx.DiGraph()
    for module, names in import_graph().items():
        if module.split(".")[0] == package:
            graph.add_node(module)
            graph.add_edges_from((module, name) for name in names if name.split(".")[0] == package)
    cycles = list(networkx.simple_cycles(graph))
    assert not cycles, cycles


def test_the_referee_and_the_sandbox_stand_alone() -> None:
    """The referee imports nothing of the SDK, the sandbox or the platform; the sandbox (the
    operator's jail, used by the SDK's ``--sandboxed`` and by the arena) imports nothing of the
    project but the protocol's generated code: it starts the SDK as a command, never imports it."""
    for module, names in import_graph().items():
        tops = {name.split(".")[0] for name in names}
        if module.split(".")[0] == "referee":
            assert not tops & {"bots_sdk", "sandbox", "arena", "webui", "parlour_site"}, f"{module}: {sorted(names)}"
        if module.split(".")[0] == "sandbox":
            assert not tops & {*PACKAGES} - {"sandbox"}, f"{module}: {sorted(names)}"


def test_the_plain_install_needs_no_server_dependency() -> None:
    """What a plain install holds for a bot author (the engines, the SDK, the referee, the sandbox)
    imports the standard library, the plain install's own dependencies and itself: never Django,
    Celery, Redis or anything else of the ``server`` extra. The referee's and the sandbox's settings
    are declared with environ-config, a plain dependency (pure Python, with attrs alone)."""
    import importlib.metadata
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    plain = {re.split(r"[<>=!\[;\s]", requirement, maxsplit=1)[0].lower() for requirement in project["dependencies"]}
    providers = importlib.metadata.packages_distributions()
    for package in PLAIN_PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for name in modules_imported(path):
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top in PLAIN_PACKAGES or top == "__future__":
                    continue
                assert top not in PACKAGES, f"{path}: imports {name}, which a plain install does not run"
                distributions = {d.lower() for d in providers.get(top, [])}
                assert distributions & plain, f"{path}: imports {name} ({sorted(distributions)}), not a plain dependency"


def test_only_the_arena_talks_to_celery_and_only_the_referee_serves_grpc() -> None:
    """Celery (and its transport) is the arena's alone; a gRPC server is made only by the referee
    and by the sandbox's seat relay, the one door a sandboxed bot has to it (it serves ``Play``
    for its own seat and forwards it to the referee)."""
    servers = set()
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if package != "arena":
                tops = {name.split(".")[0] for name in modules_imported(path)}
                assert not tops & {"celery", "kombu"}, f"{path}: imports Celery"
            for node in ast.walk(ast.parse(path.read_text())):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "server"
                        and ast.unparse(node.func.value) in ("grpc", "grpc.aio")):
                    servers.add(str(path.relative_to(ROOT)))
    assert servers == {"referee/server.py", "sandbox/relay.py"}, servers
