"""Owner-only pages and actions (tried as the owner, another user and nobody), API tokens, replays."""
from __future__ import annotations

import gzip
import json

from django.urls import reverse

from arena.models import ApiToken, Bot, BotVersion, Match

from .helpers import WebTestCase, bot, match, replay_file, user


class OwnerOnlyTest(WebTestCase):
    def setUp(self):
        self.owner = user("olivia")
        self.other = user("oscar")
        self.remote = bot(self.owner, "Farcaller", kind=Bot.REMOTE)
        self.uploaded = bot(self.owner, "Uploaded")
        version = self.uploaded.versions.get()
        version.smoke_report = json.dumps({"error": "secret smoke details", "stderr": "trace"})
        version.save()
        self.token, _ = ApiToken.issue(self.remote)

    def actions(self):
        """(method, url, data) of every owner-only action."""
        return [
            ("post", reverse("bot_active", args=[self.remote.pk]), {"active": "0"}),
            ("post", reverse("token_create", args=[self.remote.pk]), {}),
            ("post", reverse("token_revoke", args=[self.remote.pk, self.token.pk]), {}),
            ("get", reverse("version_report", args=[self.uploaded.pk, 1]), None),
        ]

    def test_nobody_is_sent_to_log_in(self):
        for method, url, data in self.actions():
            response = getattr(self.client, method)(url, data)
            self.assertEqual(response.status_code, 302, url)
            self.assertTrue(response["Location"].startswith(reverse("login")), url)
        for url in (reverse("my_bots"), reverse("upload"), reverse("remote_new")):
            self.assertTrue(self.client.get(url)["Location"].startswith(reverse("login")), url)
        self.assertEqual(ApiToken.objects.count(), 1)
        self.assertTrue(Bot.objects.get(pk=self.remote.pk).active)

    def test_another_user_is_refused(self):
        self.client.force_login(self.other)
        for method, url, data in self.actions():
            self.assertEqual(getattr(self.client, method)(url, data).status_code, 403, url)
        self.assertEqual(ApiToken.objects.count(), 1)
        self.token.refresh_from_db()
        self.assertIsNone(self.token.revoked)
        self.assertTrue(Bot.objects.get(pk=self.remote.pk).active)
        page = self.client.get(reverse("bot", args=[self.remote.pk])).content.decode()
        self.assertNotIn("API tokens", page)
        self.assertNotIn("Log lines", page)
        self.assertNotIn("Deactivate", page)
        self.assertNotContains(self.client.get(reverse("bot", args=[self.uploaded.pk])), "report")
        self.assertNotContains(self.client.get(reverse("my_bots")), "Farcaller")

    def test_owner_can_deactivate_and_reactivate(self):
        self.client.force_login(self.owner)
        self.assertContains(self.client.get(reverse("bot", args=[self.remote.pk])), "Deactivate")
        self.client.post(reverse("bot_active", args=[self.remote.pk]), {"active": "0"})
        self.assertFalse(Bot.objects.get(pk=self.remote.pk).active)
        self.client.post(reverse("bot_active", args=[self.remote.pk]), {"active": "1"})
        self.assertTrue(Bot.objects.get(pk=self.remote.pk).active)
        self.assertEqual(self.client.get(reverse("bot_active", args=[self.remote.pk])).status_code, 405)
        self.assertContains(self.client.get(reverse("version_report", args=[self.uploaded.pk, 1])), "secret smoke details")
        self.assertContains(self.client.get(reverse("my_bots")), "Farcaller")

    def test_api_token_shown_once_stored_hashed_and_revocable(self):
        self.client.force_login(self.owner)
        response = self.client.post(reverse("token_create", args=[self.remote.pk]))
        self.assertEqual(response.status_code, 200)
        token = response.context["token"]
        self.assertContains(response, token)
        self.assertContains(response, "serve-remote")
        stored = ApiToken.objects.get(token_hash=ApiToken.hash(token))
        self.assertFalse(ApiToken.objects.filter(token_hash=token).exists())
        self.assertEqual(len(stored.token_hash), 64)
        page = self.client.get(reverse("bot", args=[self.remote.pk]))
        self.assertNotContains(page, token)  # shown once only
        self.assertContains(page, "serve-remote")
        self.assertContains(page, "Revoke")
        self.client.post(reverse("token_revoke", args=[self.remote.pk, stored.pk]))
        stored.refresh_from_db()
        self.assertIsNotNone(stored.revoked)
        from arena.tokens import verify

        self.assertIsNone(verify(token))
        # tokens are for remote bots only; a token of another bot cannot be revoked through this one
        self.assertEqual(self.client.post(reverse("token_create", args=[self.uploaded.pk])).status_code, 403)
        theirs = bot(self.other, "Theirs", kind=Bot.REMOTE)
        their_token, _ = ApiToken.issue(theirs)
        self.assertEqual(self.client.post(reverse("token_revoke", args=[self.remote.pk, their_token.pk])).status_code, 404)

    def test_create_a_remote_bot(self):
        self.client.force_login(self.other)
        response = self.client.post(reverse("remote_new"), {"name": "Faraway", "game": "misty"})
        made = Bot.objects.get(name="Faraway")
        self.assertRedirects(response, reverse("bot", args=[made.pk]))
        self.assertEqual((made.kind, made.owner, made.game), (Bot.REMOTE, self.other, "misty"))
        self.assertEqual(made.versions.get().state, BotVersion.ACTIVE)
        again = self.client.post(reverse("remote_new"), {"name": "Faraway", "game": "misty"})
        self.assertEqual(again.status_code, 200)
        self.assertContains(again, "already have a bot")
        self.assertContains(self.client.post(reverse("remote_new"), {"name": "random", "game": "misty"}), "reserved")


class ReplayTest(WebTestCase):
    def setUp(self):
        self.alice, self.bob, self.eve = user("alice"), user("bob"), user("eve")
        self.staff = user("root", is_staff=True)
        self.a = bot(self.alice, "A-bot")
        self.b = bot(self.bob, "B-bot")
        self.replay = json.loads(gzip.decompress(replay_file().read_bytes()))
        self.assertTrue({e["seat"] for e in self.replay["bot_logs"]} == {0, 1})

    def get(self, match_obj, who=None) -> dict:
        if who:
            self.client.force_login(who)
        else:
            self.client.logout()
        response = self.client.get(reverse("replay_json", args=[match_obj.pk]))
        self.assertEqual(response.status_code, 200)
        return response.json()

    def test_live_match_shows_only_the_header_without_seed_and_the_public_views(self):
        live = match([self.a, self.b], status=Match.RUNNING, replay=replay_file())
        for who in (None, self.alice, self.staff):
            data = self.get(live, who)
            self.assertEqual(set(data), {"header", "public"})
            self.assertNotIn("seed", data["header"])
            self.assertTrue(data["header"]["live"])
            self.assertEqual(data["public"], self.replay["public"])
            self.assertNotIn("views", data)
        download = self.client.get(reverse("replay_download", args=[live.pk]))
        self.assertEqual(set(json.loads(gzip.decompress(download.content))), {"header", "public"})

    def test_finished_match_gives_everything_but_logs_only_to_their_owners(self):
        done = match([self.a, self.b], ranks=[1, 2], scores=[3, 1], replay=replay_file())
        anonymous = self.get(done)
        for key in ("header", "log", "public", "views", "result"):
            self.assertEqual(anonymous[key], self.replay[key])
        self.assertEqual(anonymous["header"]["seed"], 1)
        self.assertEqual(anonymous["bot_logs"], [])
        self.assertEqual(self.get(done, self.eve)["bot_logs"], [])
        alice = self.get(done, self.alice)["bot_logs"]
        self.assertTrue(alice)
        self.assertEqual({e["seat"] for e in alice}, {0})
        self.assertEqual({e["seat"] for e in self.get(done, self.bob)["bot_logs"]}, {1})
        self.assertEqual(self.get(done, self.staff)["bot_logs"], self.replay["bot_logs"])

    def test_download_is_the_same_gzipped_as_an_attachment(self):
        done = match([self.a, self.b], ranks=[1, 2], scores=[3, 1], replay=replay_file())
        self.client.force_login(self.alice)
        response = self.client.get(reverse("replay_download", args=[done.pk]))
        self.assertEqual(response.status_code, 200)
        self.assertIn("attachment", response["Content-Disposition"])
        self.assertEqual(json.loads(gzip.decompress(response.content)),
                         self.client.get(reverse("replay_json", args=[done.pk])).json())

    def test_no_replay_yet(self):
        pending = match([self.a, self.b], status=Match.SCHEDULED)
        data = self.client.get(reverse("replay_json", args=[pending.pk])).json()
        self.assertEqual(data["public"], [])
        self.assertEqual([s["bot"] for s in data["header"]["seats"]], ["A-bot", "B-bot"])
        self.assertTrue(data["header"]["live"])
        aborted = match([self.a, self.b], status=Match.ABORTED)
        self.assertEqual(self.client.get(reverse("replay_json", args=[aborted.pk])).status_code, 404)
        self.assertEqual(self.client.get(reverse("replay_download", args=[aborted.pk])).status_code, 404)
        self.assertContains(self.client.get(reverse("match", args=[aborted.pk])), "No replay yet")

    def test_bot_page_shows_log_lines_to_the_owner_only(self):
        match([self.a, self.b], ranks=[1, 2], scores=[3, 1], replay=replay_file())
        self.client.force_login(self.alice)
        page = self.client.get(reverse("bot", args=[self.a.pk])).content.decode()
        self.assertIn("seat 0 says hello", page)
        self.assertNotIn("seat 1 says hello", page)
        for who in (self.bob, None):
            if who:
                self.client.force_login(who)
            else:
                self.client.logout()
            self.assertNotContains(self.client.get(reverse("bot", args=[self.a.pk])), "says hello")
