"""The sandbox service (``python -m sandbox serve``): a real service process on a Unix socket, a real
referee, a real sandboxed bot launched through the service (sandbox/service.py, docs/security.md)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bots_sdk.via_referee import play_via_referee
from referee.client import LocalReferee
from referee.timecontrol import TimeControl
from sandbox import support
from sandbox.relay import RefereeSocket
from sandbox.service import SECRETS, ServiceDown, ServiceSandbox

pytestmark = pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0,
                                reason="the full sandbox needs root on Linux (docs/security.md)")

BOT = '''
from bots_sdk import RandomBot


class Upload(RandomBot):
    pass
'''


def start_service(path: Path, **extra: str) -> subprocess.Popen:
    """The service as compose starts it: an environment with no platform secret in it."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH", "LANG", "HOME")} | extra
    process = subprocess.Popen([sys.executable, "-m", "sandbox", "serve", "--socket", str(path)], env=env,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not path.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    return process


@pytest.fixture(scope="module")
def referee():
    if not support().full:
        pytest.fail(f"running as root, yet {support().describe()}")
    with LocalReferee(env={"PARLOUR_RECONNECT_GRACE": "0.3", "PARLOUR_JOIN_TIMEOUT": "15"}) as ref:
        yield ref


@pytest.fixture
def service(tmp_path):
    path = tmp_path / "sandbox.sock"
    process = start_service(path)
    assert path.exists(), process.stderr.read() if process.poll() is not None else "no socket"
    yield process, path
    if process.poll() is None:
        process.kill()
    process.wait()


def test_the_service_holds_no_secret_and_refuses_to_start_with_one(service, tmp_path):
    process, _ = service
    names = {entry.split(b"=", 1)[0].decode() for entry in Path(f"/proc/{process.pid}/environ").read_bytes().split(b"\0")
             if entry}
    assert not names & set(SECRETS)
    refused = start_service(tmp_path / "refused.sock", DJANGO_SECRET_KEY="not-for-bots")
    assert refused.wait(20) != 0
    assert "DJANGO_SECRET_KEY" in refused.stderr.read()
    assert not (tmp_path / "refused.sock").exists()


def test_a_bot_launched_through_the_service_plays_a_match(service, referee, tmp_path, monkeypatch):
    _, path = service
    monkeypatch.setenv("PARLOUR_SANDBOX_SERVICE", str(path))
    (tmp_path / "upload").mkdir()
    bot = tmp_path / "upload" / "upload.py"
    bot.write_text(BOT)
    replay = play_via_referee(referee, "tussie-mussie", "standard", {}, 7, TimeControl(2.0, 10.0),
                              [f"{bot}:Upload", "random"], ["upload", "random"], timeout=120, sandboxed=True)
    assert replay["result"]["statuses"] == ["ok", "ok"]
    assert any(e["seat"] == 0 and e["source"] == "bot" for e in replay["log"])


def test_a_killed_service_is_a_platform_failure_and_takes_its_bots_with_it(service, referee, tmp_path):
    process, path = service
    (tmp_path / "upload").mkdir()
    bot = tmp_path / "upload" / "upload.py"
    bot.write_text(BOT)
    relay = RefereeSocket(referee.address, referee.unix_path)
    try:
        sandbox = ServiceSandbox(str(path), f"{bot}:Upload", relay.path)
        sandbox.start()
        assert sandbox.pid and sandbox.poll() is None  # running, waiting for its seat
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        with pytest.raises(ServiceDown):  # a ConnectionError: the road hands the match back
            sandbox.feed("a-seat-token")
        deadline = time.monotonic() + 10
        while Path(f"/proc/{sandbox.pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{sandbox.pid}").exists(), "the bot outlived its service"
        assert "went away" in sandbox.close().output
    finally:
        relay.close()


def test_a_worker_with_a_service_reports_the_services_sandbox_and_says_when_it_is_gone(service, monkeypatch):
    """What the website says about uploads comes from the workers' heartbeats: an unprivileged worker
    of compose reports what its sandbox service can do, not its own (refused) sandbox."""
    from arena.fleet.heartbeats import worker_sandbox

    process, path = service
    monkeypatch.setenv("PARLOUR_SANDBOX_SERVICE", str(path))
    runs, says = worker_sandbox()
    assert runs and says == f"{support().describe()} (the sandbox service)"
    process.kill()
    process.wait()
    path.unlink()
    runs, says = worker_sandbox()
    assert not runs and says.startswith(f"uploads closed: the sandbox service at {path} cannot be reached")
