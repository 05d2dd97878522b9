"""Bot uploads: disabled where the sandbox cannot run, size and zip checks, a smoke match that passes and one that fails."""
from __future__ import annotations

import io
import json
import shutil
import tempfile
import zipfile
from datetime import timedelta
from pathlib import Path
from unittest import mock

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from arena.models import Bot, BotVersion
from bots_sdk.sandbox import Support

from .helpers import WebTestCase, bot, user

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


class UploadTest(WebTestCase):
    def setUp(self):
        self.upload_dir = Path(tempfile.mkdtemp(prefix="parlour-uploads-"))
        self.addCleanup(shutil.rmtree, self.upload_dir, True)
        settings_override = override_settings(UPLOAD_DIR=self.upload_dir)
        settings_override.enable()
        self.addCleanup(settings_override.disable)
        self.user = user("uma")
        self.client.force_login(self.user)

    def post(self, name: str, content: bytes, bot_name: str = "Steady", game: str = "tussie-mussie"):
        return self.client.post(reverse("upload"), {"name": bot_name, "game": game,
                                                    "file": SimpleUploadedFile(name, content)})

    def test_disabled_where_the_sandbox_cannot_run(self):
        refused = Support(False, "refused", "the sandbox's namespaces, uid change and cgroups need root")
        with mock.patch("bots_sdk.sandbox.support", return_value=refused):
            self.assertContains(self.client.get(reverse("upload")), "Uploads are disabled")
            response = self.post("good.py", GOOD)
            self.assertContains(response, "Uploads are disabled")
        self.assertFalse(BotVersion.objects.exists())

    def test_a_good_bot_passes_its_smoke_match_and_becomes_active(self):
        self.assertContains(self.client.get(reverse("upload")), "enctype=\"multipart/form-data\"")
        response = self.post("steady_bot.py", GOOD)
        made = Bot.objects.get(owner=self.user, name="Steady")
        self.assertRedirects(response, reverse("bot", args=[made.pk]))
        version = made.versions.get()
        self.assertEqual(made.kind, Bot.UPLOAD)
        self.assertEqual(version.state, BotVersion.ACTIVE, version.smoke_report)
        stored = self.upload_dir / str(made.pk) / "1" / "steady_bot.py"
        self.assertEqual(version.spec, f"{stored.resolve()}:Steady")
        self.assertEqual(stored.read_bytes(), GOOD)
        self.assertEqual(len(version.sha256), 64)
        report = json.loads(version.smoke_report)
        self.assertTrue(report["sandbox"].startswith("sandbox: full isolation"), report["sandbox"])
        self.assertEqual(report["result"]["statuses"][0], "ok")
        # a second upload is version 2; the first one retires when the second becomes active
        self.post("steady_bot.py", GOOD)
        self.assertEqual([(v.number, v.state) for v in made.versions.order_by("number")],
                         [(1, BotVersion.RETIRED), (2, BotVersion.ACTIVE)])

    def test_a_bot_that_raises_is_rejected_with_its_report(self):
        self.post("boom.py", RAISES, bot_name="Boom")
        version = BotVersion.objects.get(bot__name="Boom")
        self.assertEqual(version.state, BotVersion.REJECTED)
        self.assertIn("kaboom from the bot", version.smoke_report)
        page = self.client.get(reverse("version_report", args=[version.bot_id, 1]))
        self.assertContains(page, "kaboom from the bot")

    def test_a_zip_with_several_modules(self):
        self.post("bot.zip", zipped({"zipped/main.py": ZIPPED, "zipped/helper.py": HELPER, "README.txt": b"hi"}),
                  bot_name="Zippy", game="misty")
        version = BotVersion.objects.get(bot__name="Zippy")
        self.assertTrue(version.spec.endswith("zipped/main.py:Zipped"), version.spec)
        self.assertEqual(version.state, BotVersion.ACTIVE, version.smoke_report)

    def rejected(self, response, message: str) -> None:
        self.assertEqual(response.status_code, 400)
        self.assertContains(response, message, status_code=400)
        self.assertFalse(BotVersion.objects.exists())

    def test_too_large(self):
        with override_settings(PARLOUR_UPLOAD_LIMIT=1024):
            self.rejected(self.post("big.py", GOOD + b"#" * 2000), "larger than 1 KiB")

    def test_zip_path_traversal_and_absolute_paths(self):
        self.rejected(self.post("evil.zip", zipped({"../evil.py": GOOD})), "unsafe path")
        self.rejected(self.post("evil.zip", zipped({"ok/../../evil.py": GOOD})), "unsafe path")
        self.rejected(self.post("evil.zip", zipped({"/etc/evil.py": GOOD})), "unsafe path")
        self.assertFalse(any(self.upload_dir.parent.glob("evil.py")))

    def test_zip_too_large_uncompressed(self):
        self.rejected(self.post("bomb.zip", zipped({"bot.py": GOOD, "pad.txt": b"0" * (2 * 1024 * 1024)})),
                      "more than 2 MiB")

    def test_no_bot_class_several_classes_bad_python_bad_type(self):
        self.rejected(self.post("none.py", b"x = 1\n"), "no Bot subclass")
        self.rejected(self.post("two.py", GOOD + RAISES), "several Bot subclasses")
        self.rejected(self.post("broken.py", b"def (:\n"), "not valid Python")
        self.rejected(self.post("bot.exe", GOOD), "upload a .py file or a .zip")
        self.rejected(self.post("bad.zip", b"not a zip"), "not a valid zip")
        self.rejected(self.post("good.py", GOOD, bot_name="../x"), "letters, digits")

    def test_a_remote_bots_name_is_not_reused(self):
        bot(self.user, "Steady", kind=Bot.REMOTE)
        response = self.post("good.py", GOOD)
        self.assertEqual(response.status_code, 400)
        self.assertEqual(BotVersion.objects.count(), 1)

    def test_at_most_ten_uploads_per_hour(self):
        made = bot(self.user, "Steady")
        for number in range(2, 11):
            BotVersion.objects.create(bot=made, number=number, spec="x", state=BotVersion.REJECTED)
        old = BotVersion.objects.create(bot=made, number=11, spec="x", state=BotVersion.REJECTED)
        BotVersion.objects.filter(pk=old.pk).update(created=timezone.now() - timedelta(hours=2))
        self.assertContains(self.client.get(reverse("upload")), "Upload")
        response = self.post("good.py", GOOD)
        self.assertEqual(response.status_code, 400)
        self.assertContains(response, "at most 10 uploads per hour", status_code=400)
        self.assertEqual(BotVersion.objects.count(), 11)


class SmokeReportTest(WebTestCase):
    """What the owner reads when the smoke match fails (the hostile bots are tests/test_sandbox.py)."""

    def test_a_bot_that_fails_to_import_is_rejected_with_the_error(self):
        from webui.smoke import run_smoke

        folder = Path(tempfile.mkdtemp(prefix="parlour-smoke-test-"))
        self.addCleanup(shutil.rmtree, folder, True)
        (folder / "b.py").write_text("from bots_sdk import Bot\nimport no_such_module\nclass B(Bot):\n    pass\n")
        result = run_smoke("misty", f"{folder / 'b.py'}:B")
        self.assertFalse(result.passed)
        self.assertEqual(result.report["result"]["statuses"][0], "forfeited")
        self.assertTrue(any("No module named 'no_such_module'" in line for line in result.report["log"]),
                        result.report["log"])
