"""The website's Django tests (webui/tests/), run by Django's test runner in a subprocess with a
fresh PARLOUR_HOME: they need Django settings, which the rest of the suite does not configure."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_webui_django_tests() -> None:
    with tempfile.TemporaryDirectory(prefix="parlour-webui-") as home:
        env = dict(os.environ, PARLOUR_HOME=home, DJANGO_SETTINGS_MODULE="webui.settings")
        for name in ("DATABASE_URL", "PARLOUR_SANDBOX", "PARLOUR_UPLOAD_DIR", "PARLOUR_REPLAY_DIR"):
            env.pop(name, None)
        done = subprocess.run([sys.executable, "manage.py", "test", "webui.tests", "--noinput", "-v", "1"],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"webui tests failed:\n{done.stdout}\n{done.stderr}"
