"""compose.yaml, run without Docker: each service's own command as a local process with that
service's environment (its hostnames mapped to 127.0.0.1, its ports shifted to free ones), two
referees and two workers on this machine's Redis (a database index of the test's own, flushed)
and PostgreSQL (a database of the test's own, dropped after), and a round-robin TCP proxy in
front of the referees standing in for the service name ``referee:50051``.

A Swiss tournament and the ladder run at once, a remote bot connected to the second referee
playing in both; the first referee is killed while it holds a match. Every match is recorded
once (ratings counted once per seat), the killed referee's match played again elsewhere, the
remote bot's matches played on its referee by the worker started for it."""
from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from fractions import Fraction
from pathlib import Path

import psycopg
import pytest
import redis
import yaml

from arena.road.live_frames import frames_key, referee_key
from referee_process import ROOT
from test_arena_e2e import POSTGRES, check_recorded_once, hand_standings, redis_db, wait_for

COMPOSE = yaml.safe_load((ROOT / "compose.yaml").read_text())
# what an operator's .env gives compose
DOTENV = {"PARLOUR_OPERATOR_TOKEN": secrets.token_urlsafe(12), "DJANGO_SECRET_KEY": secrets.token_urlsafe(32),
          "PARLOUR_SEED_KEY": secrets.token_urlsafe(32), "POSTGRES_PASSWORD": "unused-trust"}
# the operator's tunables for a short test: a ladder of one game ticking every second, retries soon
TUNING = {"PARLOUR_LADDER_GAMES": "tussie-mussie", "PARLOUR_LADDER_EVERY": "1", "PARLOUR_LADDER_OPEN": "2",
          "PARLOUR_LADDER_HOUSE_BOTS": "random,greedy", "PARLOUR_RETRY_MAX_DELAY": "2", "PARLOUR_WORKERS": "2",
          "PARLOUR_WEB_WORKERS": "1", "PARLOUR_RECONCILE_EVERY": "3"}


def interpolate(text: str) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?error}`` from the .env above."""
    def one(found: re.Match) -> str:
        name, op, arg = found.group(1), found.group(2) or "", found.group(3) or ""
        if name in DOTENV:
            return DOTENV[name]
        if op == ":?":
            raise AssertionError(f"compose needs {name}: {arg}")
        return arg

    return re.sub(r"\$\{(\w+)(:-|:\?)?([^}]*)\}", one, text)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RoundRobinProxy:
    """The service name ``referee:50051``: each new connection goes to the next referee that
    accepts it (a dead one is skipped, as a load balancer's health check would)."""

    def __init__(self, backends: list[int]) -> None:
        self.backends = backends
        self.turn = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(client,), daemon=True).start()

    def serve(self, client: socket.socket) -> None:
        for _ in range(len(self.backends)):
            port = self.backends[self.turn % len(self.backends)]
            self.turn += 1
            try:
                upstream = socket.create_connection(("127.0.0.1", port), timeout=2)
                upstream.settimeout(None)
                break
            except OSError:
                continue
        else:
            client.close()
            return
        threading.Thread(target=self.pipe, args=(upstream, client), daemon=True).start()
        self.pipe(client, upstream)

    @staticmethod
    def pipe(source: socket.socket, target: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, target):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()


class Deployment:
    """compose.yaml's services as local processes."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.database = f"parlour_deploy_{secrets.token_hex(4)}"
        with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {self.database}")
        self.redis_url = redis_db()
        self.processes: dict[str, subprocess.Popen] = {}
        self.referee_ports = [free_port(), free_port()]
        self.proxy = RoundRobinProxy(self.referee_ports)
        self.web_port = free_port()

    def mapped(self, value: str) -> str:
        """A service's setting with compose's hostnames and ports replaced by this machine's."""
        value = interpolate(str(value))
        value = re.sub(r"postgres://[^@]*@postgres:5432/\w+", f"{POSTGRES}/{self.database}", value)
        value = re.sub(r"redis://redis:6379/\d+", self.redis_url, value)
        value = value.replace("referee:50051", f"127.0.0.1:{self.proxy.port}")
        return value.replace("/var/lib/parlour", str(self.tmp))  # the shared volume

    def environment(self, service: str, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "LANG", "HOME")}
        env.update({k: self.mapped(v) for k, v in COMPOSE["services"][service].get("environment", {}).items()})
        return env | TUNING | extra

    def command(self, service: str, ports: dict[str, int]) -> list[str]:
        argv = [self.mapped(a) for a in COMPOSE["services"][service]["command"]]
        argv = [sys.executable if a == "python" else "127.0.0.1" if a == "0.0.0.0" else str(ports.get(a, a))
                for a in argv]
        return argv

    def start(self, name: str, service: str, ports: dict[str, int], **extra: str) -> subprocess.Popen:
        log = open(self.tmp / f"{name}.log", "w")
        process = subprocess.Popen(self.command(service, ports), env=self.environment(service, **extra), cwd=ROOT,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.processes[name] = process
        return process

    def healthcheck(self, service: str, ports: dict[str, int]) -> bool:
        """The service's own compose healthcheck, run here."""
        test = COMPOSE["services"][service]["healthcheck"]["test"]
        assert test[0] == "CMD"
        argv = [sys.executable if a == "python" else a for a in test[1:]]
        for inside, outside in ports.items():
            argv = [a.replace(f"localhost:{inside}", f"localhost:{outside}") for a in argv]
        done = subprocess.run(argv, env=self.environment(service), cwd=ROOT, capture_output=True, timeout=30)
        return done.returncode == 0

    def sql(self, query: str, *args) -> list[tuple]:
        with psycopg.connect(f"{POSTGRES}/{self.database}", autocommit=True) as conn:
            return conn.execute(query, args).fetchall()

    def arena(self, *args: str, timeout: float = 60) -> str:
        done = subprocess.run([sys.executable, "-m", "arena", *args], env=self.environment("worker"), cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    def close(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        self.proxy.close()
        with psycopg.connect(f"{POSTGRES}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)")
        redis.Redis.from_url(self.redis_url).flushdb()


def test_every_compose_service_restarts_and_checks_its_health() -> None:
    """Nothing stays down: every service restarts unless an operator stopped it, and has a health
    check (the worker's: its heartbeat in Redis; the referee's: gRPC health), with a timeout."""
    for name, service in COMPOSE["services"].items():
        assert service.get("restart") == "unless-stopped", name
        check = service.get("healthcheck", {})
        assert check.get("test", [None])[0] == "CMD" and check.get("interval"), name
    assert COMPOSE["services"]["worker"]["healthcheck"]["test"][1:] == ["python", "-m", "arena", "health", "worker"]
    assert "grpc_health" in " ".join(COMPOSE["services"]["referee"]["healthcheck"]["test"])
    assert not any(s.get("privileged") for s in COMPOSE["services"].values())


SECRETS = ("DATABASE_URL", "REDIS_URL", "PARLOUR_OPERATOR_TOKEN", "DJANGO_SECRET_KEY", "PARLOUR_SEED_KEY",
           "POSTGRES_PASSWORD")


def test_the_sandbox_service_holds_no_secret_and_reaches_no_store() -> None:
    """Uploaded bots run in the sandbox service: nothing secret in its environment, only the
    capabilities namespaces need, the uploads read-only, and alone on an internal network."""
    sandbox = COMPOSE["services"]["sandbox"]
    assert sandbox["command"][1:4] == ["-m", "sandbox", "serve"]
    assert not set(sandbox.get("environment", {})) & set(SECRETS)
    assert "${" not in json.dumps(sandbox.get("environment", {}))  # nothing taken from the operator's .env
    assert "SYS_ADMIN" in sandbox["cap_add"] and not sandbox.get("privileged")
    assert any(v.endswith(":/var/lib/parlour:ro") for v in sandbox["volumes"])
    networks = sandbox["networks"]
    assert COMPOSE["networks"]["bots"]["internal"] is True and list(networks) == ["bots"]
    for name in ("postgres", "redis"):
        assert "bots" not in COMPOSE["services"][name].get("networks", [])
    worker = COMPOSE["services"]["worker"]
    assert worker["environment"]["PARLOUR_SANDBOX_SERVICE"] == sandbox["command"][-1]


SETUP = """
from arena.bots.house_entrants import ensure_house_bots
from arena.models import ApiToken, Bot, BotVersion
from django.contrib.auth.models import User
ensure_house_bots()
owner = User.objects.create(username="far-away")
bot = Bot.objects.create(owner=owner, game="tussie-mussie", name="faraway", kind=Bot.REMOTE)
BotVersion.objects.create(bot=bot, number=1, spec="remote")
print(bot.pk, ApiToken.issue(bot)[1])
"""


@pytest.fixture
def deployment(tmp_path):
    made = Deployment(tmp_path)
    yield made
    made.close()


def test_compose_runs_two_referees_and_two_workers_and_survives_a_referee_killed(deployment, settings) -> None:
    d = deployment
    settings.REDIS_URL = d.redis_url
    from arena.fleet.heartbeats import alive_workers

    began = time.monotonic()

    def phase(what: str) -> None:  # printed: where the time went, when it fails
        print(f"{time.monotonic() - began:5.1f} s  {what}", flush=True)

    referee_ids = ["referee-1", "referee-2"]
    for rid, port in zip(referee_ids, d.referee_ports):
        # each replica's own host name (a container's), mapped to 127.0.0.1 here
        d.start(rid, "referee", {"50051": port}, REFEREE_ID=rid, HOSTNAME="127.0.0.1")
    d.start("web", "web", {"8000": d.web_port})
    wait_for(lambda: d.healthcheck("web", {"8000": d.web_port}), 40, "the web's healthcheck (it migrates first)", 0.5)
    for rid, port in zip(referee_ids, d.referee_ports):
        assert d.healthcheck("referee", {"50051": port}), rid
    phase("web healthy, referees healthy")
    made = subprocess.run([sys.executable, "manage.py", "shell", "-c", SETUP], env=d.environment("web"), cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr[-2000:]
    bot_pk, api_token = made.stdout.split()[-2:]
    remote = f"bot-{bot_pk}"
    assert not d.healthcheck("worker", {}), "no worker beats yet: the worker's health check fails"
    workers = [d.start(f"worker-{n}", "worker", {}, PARLOUR_WORKER_REFEREE=rid) for n, rid in enumerate(referee_ids, 1)]
    # beat starts once both workers beat, so the remote bot's first ladder match finds its
    # referee's queue served (before, arena.fleet.routing would send it to the default queue)
    wait_for(lambda: {q for w in alive_workers().values() for q in w.get("queues", [])} >=
             {"referee.referee-1", "referee.referee-2"}, 30, "both workers' heartbeats", 0.2)
    assert d.healthcheck("worker", {}), "a worker beating here is healthy"
    phase("workers beating")
    d.start("beat", "beat", {})
    far = subprocess.Popen([sys.executable, "-m", "bots_sdk", "serve-remote", "random", "--referee",
                            f"127.0.0.1:{d.referee_ports[1]}", f"--api-token={api_token}"],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    d.processes["remote bot"] = far
    assert far.stdout.readline().strip() == f"connected as {remote}"

    entrants = ["greedy", "random", "random#2", "random#3", "random#4", "random#5", "random#6", "faraway"]
    d.arena("tournament", "create", "tussie-mussie", "--format", "swiss", "--rounds", "3", "--table-size", "2",
            "--seed", "5", "--bots", ",".join(entrants))
    run = subprocess.Popen([sys.executable, "-m", "arena", "tournament", "run", "1"], env=d.environment("worker"),
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    d.processes["tournament run"] = run
    live = redis.Redis.from_url(d.redis_url)

    def held_by_first() -> list[int]:
        """Matches on the first referee still early in play (under 10 of a match's ~30 steps), so
        the kill finds them unfinished: a match near its end could be recorded in between."""
        running = [pk for pk, in d.sql("SELECT id FROM arena_match WHERE status='running' AND tournament_id=1")]
        return [pk for pk in running if live.get(referee_key(pk)) == b"referee-1" and live.llen(frames_key(pk)) < 10]

    phase("tournament created and running")
    held = wait_for(held_by_first, 40, "a tournament match on the first referee", 0.02)
    os.killpg(d.processes["referee-1"].pid, signal.SIGKILL)
    phase("referee-1 killed")
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err[-3000:]

    phase("tournament finished")
    export = json.loads(d.arena("tournament", "standings", "1", "--json"))
    check_recorded_once(export, 3 * 4)  # 8 entrants at tables of 2, three rounds
    hand = hand_standings(export)
    for row in export["standings"]:
        assert Fraction(row["points"]).limit_denominator(1000) == hand[row["label"]][0]
    again = {m["id"]: m for m in export["matches"] if m["id"] in held}
    assert again and all(m["failures"] >= 1 and m["attempts"] >= 2 for m in again.values()), again
    assert all(m["last_failure"] for m in again.values()), again  # each says why it was played again

    # the ladder: beat keeps it playing; wait for a match of the remote bot on it
    def remote_ladder_matches() -> list[tuple]:
        return d.sql("SELECT m.id, m.worker, s.status FROM arena_match m JOIN arena_matchseat s ON s.match_id = m.id "
                     "JOIN arena_botversion v ON v.id = s.bot_version_id "
                     "WHERE m.ladder <> '' AND m.status = 'finished' AND v.bot_id = %s", int(bot_pk))

    wait_for(remote_ladder_matches, 40, "a ladder match of the remote bot", 0.5)
    phase("remote ladder match recorded")
    remote_matches = remote_ladder_matches() + d.sql(
        "SELECT m.id, m.worker, s.status FROM arena_match m JOIN arena_matchseat s ON s.match_id = m.id "
        "JOIN arena_botversion v ON v.id = s.bot_version_id WHERE m.tournament_id = 1 AND v.bot_id = %s", int(bot_pk))
    # played where it is connected (its seat joined: no forfeit), by the worker started for its referee
    assert all(status == "ok" for _, _, status in remote_matches), remote_matches
    assert all(worker.startswith(f"w{workers[1].pid}@") for _, worker, _ in remote_matches), remote_matches

    # every match recorded once: each rated seat counted once in the ratings
    with psycopg.connect(f"{POSTGRES}/{d.database}", autocommit=False) as conn:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        (rated_seats,), = conn.execute("SELECT COUNT(*) FROM arena_matchseat s JOIN arena_match m ON m.id = s.match_id "
                                       "WHERE m.status = 'finished' AND m.rated").fetchall()
        (games,), = conn.execute("SELECT COALESCE(SUM(games), 0) FROM arena_rating").fetchall()
    assert games == rated_seats > 3 * 4 * 2
    keys = d.sql("SELECT key, COUNT(*) FROM arena_match GROUP BY key HAVING COUNT(*) > 1")
    assert keys == []
    assert far.poll() is None, "the remote bot stayed connected to its referee throughout"
