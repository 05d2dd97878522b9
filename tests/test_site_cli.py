"""The authors' command line against a real running site (tests/browser_site.py: gunicorn, SQLite,
Redis): a fresh token submits a bot, the real road plays its check (run here as a worker runs it),
the command prints the report; a bot that raises exits 1 with its traceback; status, ladder, matches
and a replay download that `replay check` accepts; a read-only token cannot submit, a revoked one
gets 401 at once. Each command takes --json."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.browser_site import ROOT, running_site

pytestmark = pytest.mark.slow

GOOD = '''from bots_sdk import Bot


class Steady(Bot):
    def decide(self, decision):
        self.log("steady as she goes")
        return decision.legal_actions[0]
'''

RAISES = '''import bots_sdk


class Boom(bots_sdk.Bot):
    def decide(self, decision):
        raise RuntimeError("kaboom from the bot")
'''


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with running_site(tmp_path_factory.mktemp("site")) as running:
        tokens = running.django("""
            from django.contrib.auth.models import User
            from arena.models import AccessToken
            ann = User.objects.create_user("ann", password="pw-ann-123")
            print(AccessToken.issue(ann, "laptop", ["read", "submit"])[1])
            print(AccessToken.issue(ann, "reader", ["read"])[1])
            print(AccessToken.issue(ann, "player", ["read", "play"])[1])
            """).split()
        running.tokens = {"submit": tokens[0], "read": tokens[1], "play": tokens[2]}
        yield running


def cli(site, *args: str, token: str = "submit", cwd: Path | None = None, background: bool = False):
    env = dict(os.environ, PARLOUR_SITE=site.url, PARLOUR_TOKEN=site.tokens.get(token, token),
               PARLOUR_SITE_CONFIG="/nonexistent", PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "bots_sdk", "site", *args]
    if background:
        return subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def play_checks(site) -> None:
    """What a worker does with the check matches the uploads scheduled (the site runs no worker)."""
    site.django("""
        from arena.models import Match
        from arena.fleet.tasks import run_match
        for match in Match.objects.filter(check_of__isnull=False, status="scheduled"):
            run_match(match.pk)
        """)


def submit_and_check(site, tmp_path: Path, source: str, spec: str, name: str) -> subprocess.CompletedProcess:
    (tmp_path / spec.split(":")[0]).write_text(source)
    waiting = cli(site, "submit", spec, "--bot", name, "--game", "misty", cwd=tmp_path, background=True)
    deadline = time.monotonic() + 60
    while "pending" not in site.django(f"""
            from arena.models import BotVersion
            print(list(BotVersion.objects.filter(bot__name="{name}").values_list("state", flat=True)))"""):
        assert waiting.poll() is None, waiting.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.2)
    play_checks(site)
    out, err = waiting.communicate(timeout=60)
    return subprocess.CompletedProcess(waiting.args, waiting.returncode, out, err)


def test_submit_report_status_ladder_matches_and_a_replay(site, tmp_path) -> None:
    accepted = submit_and_check(site, tmp_path, GOOD, "steady_bot.py:Steady", "Steady")
    assert accepted.returncode == 0, accepted.stderr
    assert "Steady v1 (misty): ACCEPTED" in accepted.stdout
    assert "steady as she goes" in accepted.stdout  # the bot's own log lines, in the report
    assert "sandbox:" in accepted.stdout

    status = json.loads(cli(site, "status", "--json").stdout)
    steady = next(b for b in status["bots"] if b["name"] == "Steady")
    assert steady["state"] == "active" and steady["versions"][0]["state"] == "active"
    assert "Steady" in cli(site, "status").stdout

    ladder = cli(site, "ladder", "misty", "--json")
    assert ladder.returncode == 0 and json.loads(ladder.stdout)["game"] == "misty"
    matches = json.loads(cli(site, "matches", "--bot", "Steady", "--json").stdout)
    check = matches[0]
    assert check["status"] == "finished" and check["seats"][0]["name"] == "Steady"
    assert "finished (check)" in cli(site, "matches", "--bot", "Steady").stdout

    saved = cli(site, "replay", "download", str(check["id"]), "--json", cwd=tmp_path)
    replay = Path(tmp_path / json.loads(saved.stdout)["file"])
    assert replay.read_bytes()[:2] == b"\x1f\x8b"  # gzipped, as stored
    checked = subprocess.run([sys.executable, "-m", "bots_sdk", "replay", "check", str(replay)], cwd=ROOT,
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    challenged = cli(site, "challenge", "--bot", "Steady", "--opponent", "house:greedy", "--json", token="play")
    assert challenged.returncode == 0, challenged.stderr
    assert [s["name"] for s in json.loads(challenged.stdout)["seats"]] == ["Steady", "greedy"]
    compared = cli(site, "compare", "--bot", "Steady", "v1", "random", "--no-wait", token="play")
    assert compared.returncode == 0 and "Steady v1 vs random v1: scheduled" in compared.stdout, compared.stderr


def test_a_rejected_upload_exits_1_with_its_traceback(site, tmp_path) -> None:
    rejected = submit_and_check(site, tmp_path, RAISES, "boom.py:Boom", "Boom")
    assert rejected.returncode == 1, rejected.stderr
    assert "REJECTED" in rejected.stdout
    assert "kaboom from the bot" in rejected.stdout
    assert 'File "boom.py", line 6, in decide' in rejected.stdout  # the traceback


def test_scopes_and_revocation(site, tmp_path) -> None:
    (tmp_path / "steady.py").write_text(GOOD)
    reader = cli(site, "submit", "steady.py:Steady", "--bot", "Reader", "--game", "misty", token="read", cwd=tmp_path)
    assert reader.returncode == 2 and "lacks the 'submit' scope" in reader.stderr and "HTTP 403" in reader.stderr
    site.django("""
        from django.utils import timezone
        from arena.models import AccessToken
        AccessToken.objects.filter(name="reader").update(revoked=timezone.now())
        """)
    revoked = cli(site, "status", token="read")
    assert revoked.returncode == 2 and "revoked" in revoked.stderr and "HTTP 401" in revoked.stderr
    missing = cli(site, "submit", "nothing.py:X", "--bot", "X", cwd=tmp_path)
    assert missing.returncode == 2 and "no file nothing.py" in missing.stderr
