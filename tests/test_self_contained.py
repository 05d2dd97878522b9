"""The repository stands alone: its tests, docs and code read nothing outside the checkout (no
`../shared`), so a clone anywhere collects the same tests."""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# a path into the rulebook folder that sits beside the checkout on the developers' machines
OUTSIDE = re.compile(r"\.\./shared\b|\bshared/rules\b|^shared$")
MARKDOWN_LINK_OUTSIDE = re.compile(r"\]\((\.\./)+shared/")
COMMENT = re.compile(r"^\s*(#|//)")
SELF = "tests/test_self_contained.py"  # names the pattern on purpose


def repository_files() -> list[str]:
    """What a clone holds (plus files not yet committed, so a work tree checks what it will commit)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    return sorted(name for name in set(listed.split("\0")) if name and (ROOT / name).is_file())


def collect(root: Path, home: Path) -> list[str]:
    """`pytest --collect-only` in ``root``: one line per test file with its count of tests."""
    env = dict(os.environ, PYTHONPATH=str(root), PARLOUR_HOME=str(home))
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if re.match(r"^tests/\S+\.py: \d+$", line)]
    assert lines, done.stdout[-2000:]
    return lines


def test_a_copy_with_nothing_beside_it_collects_the_same_tests(tmp_path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    copy = tmp_path / "a" / "b" / "repo"  # b holds the copy and nothing else: no ../shared to lean on
    for name in repository_files():
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    shutil.copytree(ROOT / "parlour", copy / "parlour",  # the generated protobuf package (gitignored)
                    ignore=shutil.ignore_patterns("__pycache__"))
    assert [p.name for p in copy.parent.iterdir()] == ["repo"]
    assert collect(copy, tmp_path / "home-copy") == collect(ROOT, tmp_path / "home")


def outside_reads_in_python(source: str) -> list[str]:
    """String constants (docstrings aside) that name a path outside the repository."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and OUTSIDE.search(node.value)]


def test_the_detector_finds_a_read_of_the_shared_folder() -> None:
    assert outside_reads_in_python('VECTORS = Path(__file__).parents[2] / "shared" / "rules"') == ["shared"]
    assert outside_reads_in_python('open("../shared/rules/vectors/x.json")') == ["../shared/rules/vectors/x.json"]
    assert outside_reads_in_python('"""From ../shared/rules/components.md."""\nX = 1') == []


def test_no_file_reads_the_shared_folder() -> None:
    found = []
    for name in repository_files():
        path = ROOT / name
        if name.startswith("tests/data/") or name == SELF or path.suffix in {".png", ".gz", ".ico", ".woff2"}:
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".py":
            found += [f"{name}: {value!r}" for value in outside_reads_in_python(text)]
        elif path.suffix == ".md":  # prose may name the rulebooks; a link must stay inside the repository
            found += [f"{name}: {line.strip()}" for line in text.splitlines()
                      if MARKDOWN_LINK_OUTSIDE.search(line)]
        else:  # Makefile, CI, compose, Docker, configs, JavaScript, templates: comments aside
            found += [f"{name}: {line.strip()}" for line in text.splitlines()
                      if OUTSIDE.search(line) and not COMMENT.match(line)]
    assert not found, "\n".join(found)
