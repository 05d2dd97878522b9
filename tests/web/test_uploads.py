"""Bot uploads: disabled where the sandbox cannot run, size and zip checks; the upload returns at
once with the version pending, and its check match — an arena task, played here as a worker plays
it, through a real referee with the bot in its real sandbox — passes or fails it."""
from __future__ import annotations

import io
import json
import time
import zipfile
from datetime import timedelta
from types import SimpleNamespace
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertNotContains, assertRedirects

from arena.fleet import heartbeats
from arena.bots.uploads import sandbox_support
from arena.models import Bot, BotVersion, Match
from arena.fleet.tasks import run_match
from sandbox import Support

from .site_data import bot, user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("platform_redis")]

GOOD = b'''
from bots_sdk import Bot


class Steady(Bot):
    """Plays the first legal action."""

    def decide(self, decision):
        return decision.legal_actions[0]
'''

RAISES = b'''
import bots_sdk


class Boom(bots_sdk.Bot):
    def decide(self, decision):
        raise RuntimeError("kaboom from the bot")
'''

HELPER = b"def pick(actions):\n    return actions[-1]\n"
ZIPPED = b'''
from bots_sdk import RandomBot

from helper import pick


class Base(RandomBot):
    pass


class Zipped(Base):
    def decide(self, decision):
        return pick(decision.legal_actions)
'''


def zipped(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()



def play_check(version: BotVersion) -> BotVersion:
    """What a worker does with the check match an upload scheduled; the version's verdict."""
    match = Match.objects.get(check_of=version)
    assert match.status == Match.SCHEDULED and not match.rated
    run_match(match.pk)
    version.refresh_from_db()
    return version


@pytest.fixture
def uma(client, settings, tmp_path) -> SimpleNamespace:
    """A logged-in user, and the folder uploads are stored in."""
    upload_dir = tmp_path / "uploads"
    upload_dir.mkdir()
    settings.PARLOUR_UPLOAD_DIR = upload_dir
    made = user("uma")
    client.force_login(made)
    return SimpleNamespace(user=made, upload_dir=upload_dir)


def post(client, name: str, content: bytes, bot_name: str = "Steady", game: str = "tussie-mussie"):
    return client.post(reverse("upload"), {"name": bot_name, "game": game, "file": SimpleUploadedFile(name, content)})


def rejected(response, message: str) -> None:
    assert response.status_code == 400
    assertContains(response, message, status_code=400)
    assert not BotVersion.objects.exists()


def test_disabled_where_the_sandbox_cannot_run(client, uma) -> None:
    refused = Support(False, "refused", "the sandbox's namespaces, uid change and cgroups need root")
    with mock.patch("sandbox.support", return_value=refused):
        assertContains(client.get(reverse("upload")), "Uploads are disabled")
        response = post(client, "good.py", GOOD)
        assertContains(response, "Uploads are disabled")
    assert not BotVersion.objects.exists()


def test_uploads_follow_what_the_live_workers_say_of_their_sandbox(client, uma, redis_client) -> None:
    """The workers play uploaded bots, so their heartbeats decide, not the website's own machine
    (which then needs no sandbox privileges)."""
    refused = Support(False, "refused", "the sandbox's namespaces, uid change and cgroups need root")
    heartbeats.beat("able@host", time.time())  # a worker where the sandbox runs (this machine)
    with mock.patch("sandbox.support", return_value=refused):  # the website's own machine refuses it
        assertNotContains(client.get(reverse("upload")), "Uploads are disabled")
        assert "1 of 1 live worker(s) run uploaded bots" in sandbox_support()[1]
        heartbeats.gone("able@host")
        heartbeats.beat("unable@host", time.time())  # the only live worker refuses it
    page = client.get(reverse("upload"))  # though this machine could run it
    assertContains(page, "Uploads are disabled")
    assert "need root" in sandbox_support()[1] and "on every live worker" in sandbox_support()[1]
    heartbeats.gone("unable@host")
    assertNotContains(client.get(reverse("upload")), "Uploads are disabled")  # no worker heard from: looks here


def test_the_upload_returns_at_once_with_the_version_pending(client, uma) -> None:
    response = post(client, "steady_bot.py", GOOD)
    made = Bot.objects.get(owner=uma.user, name="Steady")
    assertRedirects(response, reverse("bot", args=[made.pk]))
    version = made.versions.get()
    assert version.state == BotVersion.PENDING  # nothing was played inside the request
    check = Match.objects.get(check_of=version)
    assert check.status == Match.SCHEDULED
    page = client.get(reverse("bot", args=[made.pk]))
    assertContains(page, f'<a href="{reverse("match", args=[check.pk])}">being played…</a>', html=False)
    assertContains(page, '<meta http-equiv="refresh"')  # the page follows the check until its verdict


def test_a_good_bot_passes_its_check_match_and_becomes_active(client, uma) -> None:
    assertContains(client.get(reverse("upload")), "enctype=\"multipart/form-data\"")
    post(client, "steady_bot.py", GOOD)
    made = Bot.objects.get(owner=uma.user, name="Steady")
    version = play_check(made.versions.get())
    assert made.kind == Bot.UPLOAD
    assert version.state == BotVersion.ACTIVE, version.smoke_report
    stored = uma.upload_dir / str(made.pk) / "1" / "steady_bot.py"
    assert version.spec == f"{stored.resolve()}:Steady"
    assert stored.read_bytes() == GOOD
    assert len(version.sha256) == 64
    report = json.loads(version.smoke_report)
    assert report["sandbox"].startswith("sandbox: full isolation"), report["sandbox"]
    assert report["result"]["statuses"][0] == "ok"
    # a second upload is version 2; the first one retires when the second becomes active
    post(client, "steady_bot.py", GOOD)
    play_check(made.versions.get(number=2))
    assertNotContains(client.get(reverse("bot", args=[made.pk])), '<meta http-equiv="refresh"')
    assert [(v.number, v.state) for v in made.versions.order_by("number")] == \
        [(1, BotVersion.RETIRED), (2, BotVersion.ACTIVE)]


def test_a_bot_that_raises_is_rejected_with_its_report(client, uma) -> None:
    post(client, "boom.py", RAISES, bot_name="Boom")
    version = play_check(BotVersion.objects.get(bot__name="Boom"))
    assert version.state == BotVersion.REJECTED
    report = json.loads(version.smoke_report)
    assert "crash: RuntimeError: kaboom from the bot (at boom.py:7, in decide)" in report["error"]
    # counted the way the bot counts (its first decision), the match's step beside it; three strikes
    assert report["error"].startswith(f"the bot faulted on its decision 1 (step {report['fault_step']} of the match)")
    assert "(3 faults in all)" in report["error"]
    assert any('File "boom.py", line 7, in decide' in line for line in report["log"]), report["log"]
    page = client.get(reverse("version_report", args=[version.bot_id, 1]))
    assertContains(page, "kaboom from the bot")
    assertContains(page, f'#step={report["fault_step"]}&amp;view=seat-0')  # the replay at the fault
    assertNotContains(page, "\\n")  # lines are lines, not a literal backslash-n


def test_a_zip_with_several_modules(client, uma) -> None:
    post(client, "bot.zip", zipped({"zipped/main.py": ZIPPED, "zipped/helper.py": HELPER, "README.txt": b"hi"}),
         bot_name="Zippy", game="misty")
    version = play_check(BotVersion.objects.get(bot__name="Zippy"))
    assert version.spec.endswith("zipped/main.py:Zipped"), version.spec
    assert version.state == BotVersion.ACTIVE, version.smoke_report


def test_too_large(client, uma, settings) -> None:
    settings.PARLOUR_UPLOAD_LIMIT = 1024
    rejected(post(client, "big.py", GOOD + b"#" * 2000), "larger than 1 KiB")


def test_zip_path_traversal_and_absolute_paths(client, uma) -> None:
    rejected(post(client, "evil.zip", zipped({"../evil.py": GOOD})), "unsafe path")
    rejected(post(client, "evil.zip", zipped({"ok/../../evil.py": GOOD})), "unsafe path")
    rejected(post(client, "evil.zip", zipped({"/etc/evil.py": GOOD})), "unsafe path")
    assert not any(uma.upload_dir.parent.glob("evil.py"))


def test_zip_too_large_uncompressed(client, uma) -> None:
    rejected(post(client, "bomb.zip", zipped({"bot.py": GOOD, "pad.txt": b"0" * (2 * 1024 * 1024)})),
             "more than 2 MiB")


def test_no_bot_class_several_classes_bad_python_bad_type(client, uma) -> None:
    rejected(post(client, "none.py", b"x = 1\n"), "no Bot subclass")
    rejected(post(client, "two.py", GOOD + RAISES), "several Bot subclasses")
    rejected(post(client, "broken.py", b"def (:\n"), "not valid Python")
    rejected(post(client, "bot.exe", GOOD), "upload a .py file or a .zip")
    rejected(post(client, "bad.zip", b"not a zip"), "not a valid zip")
    rejected(post(client, "good.py", GOOD, bot_name="../x"), "letters, digits")


def test_a_remote_bots_name_is_not_reused(client, uma) -> None:
    bot(uma.user, "Steady", kind=Bot.REMOTE)
    response = post(client, "good.py", GOOD)
    assert response.status_code == 400
    assert BotVersion.objects.count() == 1


def test_at_most_ten_uploads_per_hour(client, uma) -> None:
    made = bot(uma.user, "Steady")
    for number in range(2, 11):  # accepted or pending uploads count (rejected ones do not: test_author.py)
        BotVersion.objects.create(bot=made, number=number, spec="x", state=BotVersion.RETIRED)
    old = BotVersion.objects.create(bot=made, number=11, spec="x", state=BotVersion.RETIRED)
    BotVersion.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(hours=2))
    assertContains(client.get(reverse("upload")), "Upload")
    response = post(client, "good.py", GOOD)
    assert response.status_code == 400
    assertContains(response, "at most 10 uploads per hour", status_code=400)
    assert BotVersion.objects.count() == 11


# ---------------------------------------------------------------------- the check's report
def test_a_bot_that_fails_to_import_is_rejected_with_the_error(client, uma) -> None:
    """What the owner reads when the check fails (the hostile bots are tests/test_sandbox.py)."""
    post(client, "b.py", b"from bots_sdk import Bot\nimport no_such_module\nclass B(Bot):\n    pass\n",
         bot_name="Broken", game="misty")
    version = play_check(BotVersion.objects.get(bot__name="Broken"))
    assert version.state == BotVersion.REJECTED
    report = json.loads(version.smoke_report)
    assert report["result"]["statuses"][0] == "forfeited"
    assert any("No module named 'no_such_module'" in line for line in report["log"]), report["log"]
