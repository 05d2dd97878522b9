"""docs/settings.md, written from the settings' declarations: ``make settings-doc``, which runs
``python -m parlour_site.settings_doc > docs/settings.md`` (tests/test_settings.py keeps the file
equal to this text)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .declared import DECLARATIONS, variables

ROOT = Path(__file__).resolve().parents[1]

# the environment's spelling of each declared type (a new type needs its line here)
TYPE_NAMES = {
    "str": "text", "bytes | None": "text", "int": "integer", "int | None": "integer", "float": "number",
    "float | None": "number", "bool": "boolean (1, true or yes)", "Path": "path", "Path | None": "path",
    "list[str]": "comma-separated list", "list[str] | None": "comma-separated list",
}

HEADER = """\
# Settings

<!-- Generated from the declarations by `make settings-doc` (`python -m parlour_site.settings_doc >
docs/settings.md`): edit the declarations, not this file; tests/test_settings.py checks it is current. -->

Every setting is an environment variable, declared once, with its type, default and one line of doc,
by the process kind that reads it: `referee/settings.py`, `sandbox/settings.py`, `arena/settings.py`,
`webui/settings.py`, `bots_sdk/site_settings.py` and `bench/settings.py` (classes of [environ-config](https://pypi.org/project/environ-config/)).
Code reads a setting only through its declaration: the referee's and the sandbox's code through their
`environment()` (read when the value is needed), the Django processes through Django settings of the
same names, which `parlour_site/settings.py` fills from the referee's, the arena's and the web's
declarations. A test fails when code reads any other variable.

| process | reads |
|---|---|
| the referee (`python -m referee serve`) | the referee's |
| the SDK and bot processes (`parlour-play`) | none of their own: local play bounds log lines by the referee's `PARLOUR_LOG_LIMIT_KB`; `--sandboxed` reads the sandbox's; `python -m bots_sdk site` the site client's |
| the arena's processes (a Celery worker, beat, the `python -m arena` commands) | the arena's; the referee's (they share its decision cap, join timeout, operator token and seed key); a worker, the sandbox's |
| the web (`python -m webui serve`) | the web's and the arena's; the sandbox's (whether uploads are open, when no worker has said) |
| the benches (`make bench`) | the benches' |

A secret (`PARLOUR_OPERATOR_TOKEN`, `PARLOUR_SEED_KEY`, `PARLOUR_TOKEN`, `DJANGO_SECRET_KEY`, the password in
`DATABASE_URL`) comes from the environment only, never from the repository (docs/deploy.md).
"""


def bench_declarations() -> list[type]:
    """The benches' declaration (``bench/`` is no installed package: this checkout's)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench.settings import BenchEnvironment

    return [BenchEnvironment]


def all_declarations() -> list[type]:
    return [*DECLARATIONS, *bench_declarations()]


def shown(default: Any) -> str:
    if default is None or default == "":
        return "unset"
    if isinstance(default, bool):
        return "yes" if default else "no"
    if isinstance(default, float):
        return f"`{default:g}`"
    return f"`{default}`"


def section(declaration: type) -> str:
    module = declaration.__module__.replace(".", "/") + ".py"
    doc = " ".join((declaration.__doc__ or "").split())
    rows = [f"| `{v.name}` | {TYPE_NAMES[v.type]} | {shown(v.default)} | {v.doc} |" for v in variables(declaration)]
    return "\n".join([f"## `{module}`: {declaration.__name__}", "", doc, "",
                      "| variable | type | default | what it sets |", "|---|---|---|---|", *rows])


def settings_doc() -> str:
    return "\n\n".join([HEADER.rstrip("\n"), *map(section, all_declarations())]) + "\n"


if __name__ == "__main__":
    sys.stdout.write(settings_doc())
