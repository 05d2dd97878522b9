"""Games are discovered, never listed (docs/engines.md, "Every place a new game touches"): no source
file outside a game's own package names a game in code. Every registered game's id and package
name are looked for in the platform's code (Python, JavaScript, CSS, templates), comments and
docstrings aside; tests, docs, migrations and bench may name games (they check and measure them),
and so may the few places docs/engines.md lists (the registration, the typed messages)."""
from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

from referee.games.registry import packages

ROOT = Path(__file__).resolve().parents[1]
ASIDE = ("tests/", "docs/", "bench/", "examples/", "protos/", "arena/migrations/")  # docs/engines.md
CODE = (".py", ".js", ".css", ".html")


def source_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split("\0")
    games = [p.folder for p in packages().values()]
    files = []
    for name in listed:
        path = ROOT / name
        if not name.endswith(CODE) or name.startswith(ASIDE) or not path.is_file():
            continue
        if any(path.resolve().is_relative_to(folder) for folder in games):
            continue
        files.append(path)
    return files


def python_code(text: str) -> list[str]:
    """The names and strings of a module, its comments and docstrings left out."""
    docstrings = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                docstrings.add((first.lineno, first.col_offset))
    return [token.string for token in tokenize.generate_tokens(io.StringIO(text).readline)
            if token.type in (tokenize.NAME, tokenize.STRING) and token.start not in docstrings]


def web_code(text: str) -> list[str]:
    """A script, a style sheet or a template, its comments left out."""
    text = re.sub(r"/\*.*?\*/|<!--.*?-->|\{#.*?#\}|\{% comment %\}.*?\{% endcomment %\}", " ", text, flags=re.S)
    return [re.sub(r"(^|\s)//.*$", " ", line) for line in text.splitlines()]


def names_in(path: Path, words: re.Pattern) -> set[str]:
    text = path.read_text(encoding="utf-8")
    pieces = python_code(text) if path.suffix == ".py" else web_code(text)
    return {found for piece in pieces for found in words.findall(piece)}


def test_no_source_outside_the_game_packages_names_a_game() -> None:
    games = packages().values()
    names = {p.id for p in games} | {p.module for p in games}
    assert {"kuhn-poker", "parlour_kuhn_poker", "tussie-mussie", "tussie_mussie", "misty", "bszzzz"} <= names
    words = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")(?![\w-])")
    files = source_files()
    assert len(files) > 100 and any(f.name == "viewer.js" for f in files)
    found = {str(f.relative_to(ROOT)): sorted(hits) for f in files if (hits := names_in(f, words))}
    assert not found, f"games named outside their packages (derive them from the registry): {found}"


def test_the_scan_finds_a_game_named_in_code(tmp_path) -> None:
    words = re.compile(r"(?<![\w-])(misty)(?![\w-])")
    named = tmp_path / "named.py"
    named.write_text('"""A docstring may say misty."""\n# so may a comment: misty\nGAME = "misty"\n')
    assert names_in(named, words) == {"misty"}
    named.write_text('"""A docstring may say misty."""\n# so may a comment: misty\nGAME = "other"\n')
    assert names_in(named, words) == set()
    script = tmp_path / "named.js"
    script.write_text('/* misty */ var x = "misty"; // misty\nvar y = "misty-ish";\n')
    assert names_in(script, words) == {"misty"} and words.findall(" ".join(web_code(script.read_text()))) == ["misty"]
