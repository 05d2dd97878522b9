"""The settings' declarations, one per process kind (``environ-config`` classes), and what can be
read from them: each variable's name, type, default and doc. ``parlour_site/settings.py`` makes the
Django processes' variables Django settings with these names; ``settings_doc`` writes
docs/settings.md; tests/test_settings.py checks that code reads no other variable."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import attrs
from environ._environ_config import CNF_KEY  # where environ-config keeps a variable's name and doc

from arena.settings import ArenaEnvironment
from bots_sdk.site_settings import SiteClientEnvironment
from referee.settings import RefereeEnvironment
from sandbox.settings import SandboxEnvironment
from webui.settings import WebEnvironment

# every declaration, in the order docs/settings.md lists them
DECLARATIONS = (RefereeEnvironment, SandboxEnvironment, ArenaEnvironment, WebEnvironment, SiteClientEnvironment)
# the ones whose variables Django settings hold (the platform's processes share the referee's
# decision cap, join timeout, operator token and seed key; the sandbox's are read by the sandbox)
DJANGO_DECLARATIONS = (RefereeEnvironment, ArenaEnvironment, WebEnvironment)


@dataclass(frozen=True)
class Variable:
    name: str  # the environment variable, and the Django setting of the same name
    attribute: str  # its attribute on the declaration's instance
    type: str
    default: Any
    doc: str


def variables(declaration: type) -> list[Variable]:
    """A declaration's variables, in the order it declares them."""
    found = []
    for field in attrs.fields(declaration):
        entry = field.metadata[CNF_KEY]
        name = entry.name or "_".join(p for p in (declaration._prefix, field.name) if p).upper()
        found.append(Variable(name, field.name, str(field.type), entry.default, entry.help or ""))
    return found


def as_django_settings(environment: Any) -> dict[str, Any]:
    """One declaration's values as the environment gives them, by variable name."""
    return {v.name: getattr(environment, v.attribute) for v in variables(type(environment))}


def declared_names() -> set[str]:
    return {v.name for declaration in DECLARATIONS for v in variables(declaration)}
