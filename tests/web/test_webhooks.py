"""Webhooks: an owner registers a URL on the bot's page; a recorded match sends signed deliveries to
a real HTTP receiver (a local server of the test's own), a failed one is tried again with back-off,
and the bot's page shows the delivery log. The Celery hop is the one thing replaced: the test runs
each delivery task itself, as a worker would, and reads the countdown it was sent with."""
from __future__ import annotations

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from arena.fleet import webhooks
from arena.models import Match, Rating, RatingHistory, Webhook, WebhookDelivery
from arena.road.lifecycle import after_match

from .site_data import bot, match, user

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver():
    """A local HTTP server that answers 500 to its first request and 204 after, keeping each one."""
    got: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            got.append({"headers": dict(self.headers), "body": body})
            self.send_response(500 if len(got) == 1 else 204)
            self.end_headers()

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/hook", got
    server.shutdown()
    server.server_close()


def test_signed_deliveries_a_retry_after_a_failure_and_the_log(client, settings, receiver,
                                                                django_capture_on_commit_callbacks) -> None:
    url, got = receiver
    ann = user("ann")
    annie, other = bot(ann, "Annie"), bot(user("bob"), "Bobby")
    client.force_login(ann)
    refused = client.post(reverse("webhook_create", args=[annie.pk]), {"url": url, "events": ["match.finished"]},
                          follow=True)
    assertContains(refused, "is a private address")  # the platform is no way into its own network
    settings.PARLOUR_WEBHOOK_PRIVATE_ADDRESSES = True
    client.post(reverse("webhook_create", args=[annie.pk]), {"url": url, "events": ["match.finished", "bot.faulted"]})
    hook = Webhook.objects.get()
    assert client.post(reverse("webhook_create", args=[annie.pk]), {"url": url}).status_code == 302
    assert Webhook.objects.count() == 1  # no event picked: refused

    played = match([annie, other], ranks=[2, 1], scores=[1, 5])
    played.seats.filter(seat=0).update(status="forfeited")
    with mock.patch.object(webhooks.app, "send_task") as sent, django_capture_on_commit_callbacks(execute=True):
        after_match(Match.objects.get(pk=played.pk))  # what the road does once a match is recorded
    deliveries = list(WebhookDelivery.objects.order_by("pk"))
    assert [d.event for d in deliveries] == ["match.finished", "bot.faulted"]
    assert [c.kwargs["args"] for c in sent.call_args_list] == [[d.pk] for d in deliveries]

    first = deliveries[0]
    settings.PARLOUR_WEBHOOK_FIRST_DELAY = 7.0
    with mock.patch.object(webhooks.app, "send_task") as retry:
        assert webhooks.deliver(first.pk) == "pending"  # the receiver answered 500
    assert retry.call_args.kwargs["countdown"] == 7.0
    assert webhooks.deliver(first.pk) == "delivered"
    first.refresh_from_db()
    assert (first.attempts, first.last_code, first.state) == (2, 204, "delivered")
    for request in got:
        body = request["body"]
        expected = "sha256=" + hmac.new(hook.secret.encode(), body, hashlib.sha256).hexdigest()
        assert request["headers"]["X-Parlour-Signature"] == expected
        assert request["headers"]["X-Parlour-Event"] == "match.finished"
    payload = json.loads(got[-1]["body"])
    assert payload["event"] == "match.finished" and payload["bot"] == annie.pk
    assert [s["status"] for s in payload["data"]["seats"]] == ["forfeited", "ok"]

    settings.PARLOUR_WEBHOOK_ATTEMPTS = 1
    hook.url = "http://127.0.0.1:9/nobody"
    hook.save()
    assert webhooks.deliver(deliveries[1].pk) == "failed"  # out of attempts: given up
    page = client.get(reverse("bot", args=[annie.pk]))
    assertContains(page, hook.secret)
    assertContains(page, '<span class="status delivered">delivered</span>', html=False)
    assertContains(page, "could not reach it")


def test_a_rating_that_moves_by_more_than_sigma(settings) -> None:
    ann = user("ann")
    annie, other = bot(ann, "Annie"), bot(None, "random")
    Webhook.objects.create(bot=annie, url="http://example.invalid/", secret="s", events=["rating.changed"])
    rating = Rating.objects.create(ladder="l", bot_version=annie.versions.get(), mu=25, sigma=3)
    earlier, now = match([annie, other], ranks=[2, 1]), match([annie, other], ranks=[1, 2])
    RatingHistory.objects.create(rating=rating, match=earlier, mu=25, sigma=3)
    RatingHistory.objects.create(rating=rating, match=now, mu=28.5, sigma=2.9)
    with mock.patch.object(webhooks.app, "send_task"):
        webhooks.match_recorded(now)
    moved = WebhookDelivery.objects.get(event="rating.changed")
    assert (moved.payload["data"]["mu_before"], moved.payload["data"]["mu"]) == (25, 28.5)
