import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/engine_contract.py and friends

SOAK = os.environ.get("PARLOUR_SOAK") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "soak: long runs, only with PARLOUR_SOAK=1 (make soak)")


def pytest_collection_modifyitems(config, items):
    if SOAK:
        return
    skip = pytest.mark.skip(reason="soak run: make soak")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)
