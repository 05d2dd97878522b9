"""The website's tests: Django's test client on pytest-django's test database."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LOG_BOT = '''
from bots_sdk import Bot


class Chatty(Bot):
    def decide(self, decision):
        self.log(f"seat {self.seat} says hello at decision {decision.decision_id}")
        return self.rng.choice(decision.legal_actions)
'''


@pytest.fixture(autouse=True)
def fast_passwords(settings) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def replay_file(tmp_path_factory) -> Path:
    """A finished two-seat Tussie Mussie replay whose two bots both log (made by the SDK's command line)."""
    folder = tmp_path_factory.mktemp("replay")
    bot = folder / "chatty.py"
    bot.write_text(LOG_BOT)
    subprocess.run([sys.executable, "-m", "bots_sdk", "play", "tussie-mussie", f"{bot}:Chatty", f"{bot}:Chatty",
                    "--seed", "1", "--replay", str(folder / "m.replay.json.gz")], cwd=ROOT, check=True,
                   capture_output=True)
    return folder / "m.replay.json.gz"
