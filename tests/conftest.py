import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tests/engine_contract.py and friends

SOAK = os.environ.get("PARLOUR_SOAK") == "1"


def pytest_configure(config):
    config.addinivalue_line("markers", "soak: long runs, only with PARLOUR_SOAK=1 (make soak)")
    use_a_platform_of_the_tests_own(config)


def use_a_platform_of_the_tests_own(config) -> None:
    """Django's settings for the tests (pytest-django), on a fresh PARLOUR_HOME in a temporary folder.

    The settings make the home folder and its secret key when they load, so they must see
    PARLOUR_HOME first: that is why they load here and not from pytest-django's ini option, which
    loads them before any conftest. Processes the tests start inherit the same home.
    """
    home = tempfile.mkdtemp(prefix="parlour-tests-")
    config.add_cleanup(lambda: shutil.rmtree(home, ignore_errors=True))
    os.environ["PARLOUR_HOME"] = home
    for name in ("DATABASE_URL", "PARLOUR_SANDBOX", "PARLOUR_UPLOAD_DIR", "PARLOUR_REPLAY_DIR"):
        os.environ.pop(name, None)  # the developer's own platform stays out of the tests
    os.environ["DJANGO_SETTINGS_MODULE"] = "parlour_site.settings"
    from django.conf import settings

    settings.DATABASES  # noqa: B018 (loads them: pytest-django sets Django up after this hook)


def pytest_collection_modifyitems(config, items):
    if SOAK:
        return
    skip = pytest.mark.skip(reason="soak run: make soak")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)
