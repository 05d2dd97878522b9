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
