"""``python -m arena demo`` (``make demo``): the whole platform on one machine.

SQLite, a demo account, the house bots, a referee, a private Redis, a Celery worker and beat, the
web server on 127.0.0.1:8000; one small Swiss tournament per game and the ladder fill the site in
while it runs, and when they are over another starts every few minutes, so that there is always
something to watch (``PARLOUR_DEMO_TOURNAMENTS=0`` leaves the tournaments out). Uploads are enabled.
Ctrl-C stops every process it started.
"""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.request

from django.conf import settings

from referee.games import GAMES

DEMO_USER = "demo"


def demo_account() -> tuple[str, str]:
    from django.contrib.auth import get_user_model

    User = get_user_model()
    password = secrets.token_urlsafe(9)
    user, _ = User.objects.get_or_create(username=DEMO_USER)
    user.set_password(password)
    user.save()
    return DEMO_USER, password


DEMO_PAUSE = 120.0  # seconds between looks for a finished demo tournament to follow with another


def demo_swiss(game_id: str, name: str) -> int:
    """A small Swiss of house bots in ``game_id``, started: its matches queue for the workers."""
    from .bots.house_entrants import house_specs
    from .competitions.tournaments import create_tournament, start_tournament

    size = max(GAMES[game_id].variant(None).player_counts)
    field = max(4, 2 * size) if size > 2 else 6
    lead = ["greedy"] if "greedy" in house_specs(game_id) else [f"random#{field}"]
    bots = lead + ["random"] + [f"random#{i}" for i in range(2, field)]
    tournament = create_tournament(game_id, "swiss", bots, rounds=3, name=name, table_size=min(size, 4))
    start_tournament(tournament)
    return tournament.pk


def demo_tournaments() -> list[int]:
    """One Swiss per game, once (a demo started again keeps its first ones)."""
    from .models import Tournament

    return [demo_swiss(game_id, f"Demo {GAMES[game_id].name} Swiss") for game_id in sorted(GAMES)
            if not Tournament.objects.filter(game=game_id, name__startswith="Demo").exists()]


def next_demo_tournament(turn: int) -> int | None:
    """So that the demo always has something to watch: when none of its tournaments is under way,
    another Swiss, of the games in turn; None while one still plays."""
    from .models import Tournament

    if Tournament.objects.filter(name__startswith="Demo", status__in=[Tournament.CREATED, Tournament.RUNNING]).exists():
        return None
    game_id = sorted(GAMES)[turn % len(GAMES)]
    return demo_swiss(game_id, f"Demo {GAMES[game_id].name} Swiss no. {turn + 2}")


def build_starter_kit() -> None:
    from .starter_kit import starter_kit

    try:
        starter_kit()
    except Exception as exc:  # noqa: BLE001 - the site builds it on request instead, and says why it cannot
        print(f"the starter kit was not built: {exc}", file=sys.stderr, flush=True)


def wait_for_site(url: str, server: subprocess.Popen, timeout: float = 120.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and server.poll() is None:
        try:
            urllib.request.urlopen(url, timeout=15)  # a loaded machine may take seconds for the first page
            return True
        except OSError:
            time.sleep(0.3)
    return False


def run_demo(host: str = "127.0.0.1", port: int = 8000) -> int:
    from sandbox import support

    from .bots.house_entrants import ensure_house_bots
    from .fleet.processes import platform_processes

    ensure_house_bots()
    username, password = demo_account()
    with platform_processes() as supervisor:  # every child dies with this process, even killed
        env = dict(os.environ)
        # the site tells remote bots the demo's own referee (unless the operator named another)
        env.setdefault("PARLOUR_PUBLIC_REFEREE", settings.REFEREE_ADDRESS)
        children = [supervisor.start([sys.executable, "-m", "arena", "beat"], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
                    supervisor.start([sys.executable, "-m", "webui", "serve", "--host", host, "--port", str(port)],
                                     env=env)]
        url = f"http://{host}:{port}/"
        try:
            if not wait_for_site(url, children[1]):
                ended = children[1].poll()
                print("error: the web server did not start" +
                      (f" (it exited with status {ended})" if ended is not None else " in time"), file=sys.stderr)
                return 1
            # built meanwhile, so the first visitor who downloads it does not wait
            threading.Thread(target=build_starter_kit, name="starter-kit", daemon=True).start()
            if settings.PARLOUR_DEMO_TOURNAMENTS:
                demo_tournaments()
            print(f"\nParlour is running at {url}\n"
                  f"  demo account: {username} / {password}\n"
                  f"  referee for remote bots: {env['PARLOUR_PUBLIC_REFEREE']}\n"
                  f"  {support().describe()}\n"
                  "  the demo tournaments and the ladder fill the site in as they play; when they are over,\n"
                  "  another starts every few minutes.\n"
                  "Press Ctrl-C to stop.", flush=True)
            signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop on SIGTERM as on Ctrl-C
            turn, looked = 0, time.monotonic()
            while all(child.poll() is None for child in children):
                for line in supervisor.heal():  # a dead worker, referee or Redis started again, said
                    print(line, flush=True)
                if settings.PARLOUR_DEMO_TOURNAMENTS and time.monotonic() - looked > DEMO_PAUSE:
                    looked = time.monotonic()  # the last one over: the next after a pause, not at once
                    if next_demo_tournament(turn) is not None:
                        turn += 1
                time.sleep(1.0)
        except KeyboardInterrupt:
            pass
        finally:
            print("stopping...", flush=True)
    return 0
