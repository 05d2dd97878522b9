"""A bot's log line as the platform keeps it: terminal control characters (C0 but tab, DEL, C1:
the escape sequences that move a cursor, recolour or retitle a terminal, or hide text) are written
out as ``\\xNN``, so a line read later in a terminal (``replay show``, the CLI) or on a page shows
what the bot printed and does nothing else."""
from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def printable(line: str) -> str:
    """``line`` with every control character but tab escaped as ``\\xNN``."""
    return _CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", line)
