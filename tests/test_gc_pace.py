"""The garbage collector's pace in the platform's long-running processes (referee/gc_pace.py)."""
from __future__ import annotations

import gc
import os
import subprocess
import sys

from referee_process import ROOT

SHOW = "from referee.gc_pace import set_pace; set_pace(); import gc; print(*gc.get_threshold())"


def threshold(young: str | None) -> list[int]:
    """The collector's thresholds in a process that set its pace with PARLOUR_GC_YOUNG=young."""
    env = {k: v for k, v in os.environ.items() if k != "PARLOUR_GC_YOUNG"}
    if young is not None:
        env["PARLOUR_GC_YOUNG"] = young
    out = subprocess.run([sys.executable, "-c", SHOW], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True).stdout
    return [int(x) for x in out.split()]


def test_the_young_generation_is_collected_every_10000_allocations_unless_told_otherwise() -> None:
    cpython = list(gc.get_threshold())  # this test process keeps CPython's pace
    assert threshold(None) == [10_000, *cpython[1:]]  # the older generations keep theirs
    assert threshold("2500") == [2500, *cpython[1:]]
    assert threshold("0") == cpython
