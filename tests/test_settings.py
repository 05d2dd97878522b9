"""Settings declared once (docs/settings.md): every environment variable the code reads is declared,
with its type, default and doc, by its process kind; code reads it only through the declaration;
the settings document is the one generated from the declarations."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from parlour_site.declared import DJANGO_DECLARATIONS, variables
from parlour_site.settings_doc import all_declarations, settings_doc

ROOT = Path(__file__).resolve().parents[1]
# the code that runs as Parlour's processes (the tests set and read variables of their own)
SOURCES = ("referee", "bots_sdk", "sandbox", "arena", "webui", "parlour_site", "bench", "examples", "manage.py")
# the test suite's own switch (`make soak`), not a setting of any process of Parlour's
NOT_SETTINGS = {"PARLOUR_SOAK"}


def declared_names() -> set[str]:
    return {v.name for declaration in all_declarations() for v in variables(declaration)}


def source_files() -> list[Path]:
    files = []
    for name in SOURCES:
        path = ROOT / name
        files += [path] if path.is_file() else [p for p in path.rglob("*.py") if "tests" not in p.parts]
    return files


def is_environ(node: ast.AST) -> bool:
    """``os.environ``, or ``environ`` imported from os."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name)
            and node.value.id == "os") or (isinstance(node, ast.Name) and node.id == "environ")


def environment_reads(tree: ast.AST) -> list[tuple[int, str]]:
    """Where code reads the environment itself: ``os.environ[...]`` (not an assignment to it),
    ``os.environ.get``, ``os.getenv``, ``... in os.environ``, and ``getattr(settings, ...)`` with a
    default or a literal name (an undeclared Django setting read with a fallback)."""
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Subscript) and is_environ(node.value) and isinstance(node.ctx, ast.Load):
            found.append((line, ast.unparse(node)))
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "get" and is_environ(func.value):
                found.append((line, ast.unparse(node)))
            elif (isinstance(func, ast.Attribute) and func.attr == "getenv") or \
                    (isinstance(func, ast.Name) and func.id == "getenv"):
                found.append((line, ast.unparse(node)))
            elif (isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) >= 2
                  and isinstance(node.args[0], ast.Name) and node.args[0].id == "settings"
                  and (len(node.args) == 3 or isinstance(node.args[1], ast.Constant))):
                found.append((line, ast.unparse(node)))
        elif isinstance(node, ast.Compare) and any(is_environ(c) for c in node.comparators):
            found.append((line, ast.unparse(node)))
    return found


def test_code_reads_the_environment_only_through_the_declarations() -> None:
    """No module reads an environment variable by itself: each setting is read through its
    declaration (``environment()`` of the referee's, the sandbox's, the benches'; Django settings in
    the Django processes), which environ-config fills."""
    reads = [f"{path.relative_to(ROOT)}:{line}: {code}" for path in source_files()
             for line, code in environment_reads(ast.parse(path.read_text()))]
    assert not reads, "\n".join(reads)


def test_the_scan_finds_each_way_of_reading_the_environment() -> None:
    code = '''
import os
from os import environ, getenv
a = os.environ["SOME_VARIABLE"]
b = os.environ.get("SOME_VARIABLE", 1)
c = os.getenv("SOME_VARIABLE")
d = environ.get("SOME_VARIABLE")
e = getenv("SOME_VARIABLE")
f = "SOME_VARIABLE" in os.environ
g = getattr(settings, "SOME_VARIABLE", 3)
h = getattr(settings, name, 3)
os.environ["SOME_VARIABLE"] = "written, not read"
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")
child = dict(os.environ, SOME_VARIABLE="1")
known = getattr(settings, name)
'''
    assert [line for line, _ in environment_reads(ast.parse(code))] == list(range(4, 12))


def test_every_variable_named_in_the_code_and_the_docs_is_declared() -> None:
    """A variable the code passes to a child, reads as a Django setting, or a document, the
    Makefile or compose.yaml names, is one the declarations know (no stale or misspelt name)."""
    pattern = re.compile(r"\b(?:PARLOUR_[A-Z0-9_]*[A-Z0-9]|REFEREE_(?:ID|ADDRESS|ADVERTISE)|DJANGO_(?:SECRET_KEY|DEBUG|"
                         r"ALLOWED_HOSTS)|REDIS_URL|DATABASE_URL)\b")
    texts = [*source_files(), *ROOT.joinpath("docs").rglob("*.md"), *ROOT.joinpath("tests").rglob("*.py"),
             ROOT / "README.md", ROOT / "Makefile", ROOT / "compose.yaml", ROOT / "Dockerfile"]
    known = declared_names() | NOT_SETTINGS | {declaration._prefix for declaration in all_declarations()}
    unknown = sorted({f"{path.relative_to(ROOT)}: {name}" for path in texts
                      for name in pattern.findall(path.read_text()) if name not in known})
    assert not unknown, unknown


def test_the_settings_document_is_the_one_generated_from_the_declarations() -> None:
    """docs/settings.md is `make settings-doc`'s output, and names every declared variable."""
    document = (ROOT / "docs" / "settings.md").read_text()
    assert document == settings_doc(), "docs/settings.md is stale: run `make settings-doc`"
    for name in declared_names():
        assert f"| `{name}` |" in document, name


def test_each_variable_is_declared_once_with_a_doc() -> None:
    names = [v.name for declaration in all_declarations() for v in variables(declaration)]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)
    assert all(v.doc for declaration in all_declarations() for v in variables(declaration))


def test_the_django_processes_hold_every_variable_of_the_referee_the_arena_and_the_web() -> None:
    """parlour_site/settings.py makes each declared variable a Django setting of its name, typed,
    with its default when unset and the environment's value when set."""
    from django.conf import settings

    from arena.settings import ArenaEnvironment
    from parlour_site.declared import as_django_settings
    from referee.settings import RefereeEnvironment

    for declaration in DJANGO_DECLARATIONS:
        for v in variables(declaration):
            assert hasattr(settings, v.name), v.name
    given = {"PARLOUR_LADDER_GAMES": "misty,bszzzz", "PARLOUR_WORKERS": "", "PARLOUR_HOME": "/srv/parlour",
             "PARLOUR_DECISION_CAP": "7", "PARLOUR_SEED_KEY": "k3y"}
    arena = as_django_settings(ArenaEnvironment.from_environ(given))
    referee = as_django_settings(RefereeEnvironment.from_environ(given))
    assert arena["PARLOUR_LADDER_GAMES"] == ["misty", "bszzzz"] and arena["PARLOUR_WORKERS"] is None  # empty: unset
    assert arena["PARLOUR_UPLOAD_DIR"] == Path("/srv/parlour/uploads") and arena["PARLOUR_LADDER_OPEN"] == 2
    assert referee["PARLOUR_DECISION_CAP"] == 7 and referee["PARLOUR_SEED_KEY"] == b"k3y"
    assert referee["PARLOUR_JOIN_TIMEOUT"] == 30.0


def test_a_referee_and_the_sandbox_read_their_settings_when_they_need_them(monkeypatch) -> None:
    """Tests (and operators' wrappers) change a plain process's settings with the environment:
    the declaration is read when the value is needed."""
    from referee.games import get_game
    from referee.match import Match
    from sandbox import SandboxLimits

    monkeypatch.setenv("PARLOUR_SANDBOX_MEMORY_MB", "100")
    monkeypatch.setenv("PARLOUR_LOG_LIMIT_KB", "1")
    assert SandboxLimits.declared().memory_bytes == 100 * 1024 * 1024
    game = get_game("tussie-mussie")
    match = Match(game, game.configure(2), seed=1)
    for _ in range(40):
        match.add_bot_log(0, 0, "x" * 99)
    lines = [entry["line"] for entry in match.bot_logs]
    assert lines[-1] == "[over 1024 bytes of log lines in this match: the rest is dropped]" and len(lines) == 11


def test_a_bad_value_stops_the_referee_with_an_error_before_it_serves(monkeypatch, capsys) -> None:
    from referee.__main__ import main

    monkeypatch.setenv("PARLOUR_JOIN_TIMEOUT", "half a minute")
    assert main(["serve", "--port", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "'half a minute'" in err
