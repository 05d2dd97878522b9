"""docs/security.md promises nothing a test does not check: every test it names exists."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r"`((?:tests|webui/tests)/[\w/]+\.py)((?:::\w+)+)`")


def defined_names(path: Path) -> set[tuple[str, ...]]:
    """Every test function and class as its pytest path: ("test_x",), ("SomeTest", "test_y")."""
    tree = ast.parse(path.read_text())
    found: set[tuple[str, ...]] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add((node.name,))
        elif isinstance(node, ast.ClassDef):
            found.add((node.name,))
            found.update((node.name, item.name) for item in node.body if isinstance(item, ast.FunctionDef))
    return found


def test_every_test_named_in_the_threat_model_exists() -> None:
    text = (ROOT / "docs" / "security.md").read_text()
    references = REFERENCE.findall(text)
    assert len(references) >= 30
    missing = []
    for file, names in references:
        path = ROOT / file
        if not path.is_file() or tuple(names.strip(":").split("::")) not in defined_names(path):
            missing.append(f"{file}{names}")
    assert missing == []
    # and every hostile-bot test is in the threat model
    hostile = {name for (name, *_) in defined_names(ROOT / "tests" / "test_sandbox.py") if name.startswith("test_")}
    named = {names.strip(":") for file, names in references if file == "tests/test_sandbox.py"}
    assert hostile - named == set()
