"""The garbage collector's pace in the platform's long-running processes.

CPython starts a young-generation collection every 700 net allocations. A referee hosting Bszzzz!
matches builds views, messages and log entries by the thousand per match and keeps
few of them: with a young collection every 10,000 allocations, its CPU per match fell by ~15 %
(8 matches at once, one house-bot process, alternating runs). Only cyclic garbage waits longer
(at most that many allocations), and the older generations keep CPython's pace.
"""
from __future__ import annotations

import gc

from .settings import environment


def set_pace() -> None:
    """Collect the young generation every ``PARLOUR_GC_YOUNG`` (10,000) net allocations; 0 leaves
    CPython's own pace."""
    young = environment().gc_young
    if young > 0:
        gc.set_threshold(young, *gc.get_threshold()[1:])
