"""Webhooks: what happens to a bot, POSTed to the URLs its owner registered (arena.models.Webhook).

Events: ``version.checked`` (the verdict of an upload's check), ``match.finished`` (for each bot of
the match that has a webhook), ``bot.faulted`` (its seat ended other than ``ok``),
``rating.changed`` (its μ moved by more than its σ before the match) and ``comparison.decided``.
Each event is a ``WebhookDelivery`` row, delivered by a Celery task sent by name once the
transaction commits: a JSON body ``{"event", "delivery", "bot", "data"}`` with the headers
``X-Parlour-Event``, ``X-Parlour-Delivery`` and ``X-Parlour-Signature: sha256=<hex>``, the
HMAC-SHA256 of the body under the webhook's secret. A receiver that does not answer 2xx within
``TIMEOUT`` is tried again after ``PARLOUR_WEBHOOK_FIRST_DELAY`` seconds, doubling, up to
``PARLOUR_WEBHOOK_ATTEMPTS`` attempts; the bot's page shows the log.

Loopback, private and link-local addresses are refused (the platform must not be a way into its own
network) unless ``PARLOUR_WEBHOOK_PRIVATE_ADDRESSES`` is set.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import socket
import urllib.error
import urllib.request
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ..models import BotVersion, Comparison, Match, RatingHistory, Webhook, WebhookDelivery
from .celery_app import DELIVER_WEBHOOK, app

TIMEOUT = 5.0  # seconds a receiver has to answer
log = logging.getLogger("parlour.arena")


def sign(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def notify(bot_ids: Iterable[int], event: str, data: dict) -> list[int]:
    """Record a delivery of ``event`` for each webhook of these bots that asked for it, each sent
    once the current transaction commits; their ids."""
    made = []
    for webhook in Webhook.objects.filter(bot_id__in=set(bot_ids), bot__deleted=None):
        if event in webhook.events:
            made.append(WebhookDelivery.objects.create(webhook=webhook, event=event,
                                                       payload={"bot": webhook.bot_id, "data": data}).pk)
    for pk in made:
        transaction.on_commit(lambda pk=pk: send(pk, 0.0))
    return made


def send(delivery_id: int, delay: float) -> None:
    try:
        app.send_task(DELIVER_WEBHOOK, args=[delivery_id], countdown=delay or None)
    except Exception as exc:  # noqa: BLE001 - the broker down: the delivery stays pending in its log
        log.warning("webhook delivery %s: its task could not be sent (%s)", delivery_id, exc)


def refused_address(url: str) -> str | None:
    """Why the platform will not POST there, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "only http and https URLs"
    if settings.PARLOUR_WEBHOOK_PRIVATE_ADDRESSES:
        return None
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(parts.hostname, parts.port or 443)}
    except OSError as exc:
        return f"{parts.hostname} does not resolve ({exc})"
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_reserved or ip.is_multicast:
            return f"{parts.hostname} is a private address ({ip})"
    return None


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not a new address to POST to (it could point inside the network)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


OPENER = urllib.request.build_opener(NoRedirects)


def deliver(delivery_id: int) -> str:
    """One attempt at a delivery (the task); on failure the next attempt is sent with its back-off."""
    delivery = WebhookDelivery.objects.select_related("webhook").get(pk=delivery_id)
    if delivery.state != WebhookDelivery.PENDING:
        return delivery.state
    webhook = delivery.webhook
    body = json.dumps({"event": delivery.event, "delivery": delivery.pk, **delivery.payload},
                      separators=(",", ":")).encode()
    code, error = None, refused_address(webhook.url)
    if error is None:
        request = urllib.request.Request(webhook.url, data=body, method="POST", headers={
            "Content-Type": "application/json", "User-Agent": "Parlour-Webhooks/1",
            "X-Parlour-Event": delivery.event, "X-Parlour-Delivery": str(delivery.pk),
            "X-Parlour-Signature": sign(webhook.secret, body)})
        try:
            with OPENER.open(request, timeout=TIMEOUT) as response:
                code = response.status
        except urllib.error.HTTPError as exc:
            code, error = exc.code, f"the receiver answered {exc.code}"
        except (urllib.error.URLError, OSError) as exc:
            error = f"could not reach it: {getattr(exc, 'reason', exc)}"
    delivery.attempts += 1
    delivery.last_code, delivery.last_error = code, (error or "")[:300]
    if error is None:
        delivery.state, delivery.finished = WebhookDelivery.DELIVERED, timezone.now()
    elif delivery.attempts >= settings.PARLOUR_WEBHOOK_ATTEMPTS:
        delivery.state, delivery.finished = WebhookDelivery.FAILED, timezone.now()
    delivery.save(update_fields=["attempts", "last_code", "last_error", "state", "finished"])
    if delivery.state == WebhookDelivery.PENDING:
        send(delivery.pk, settings.PARLOUR_WEBHOOK_FIRST_DELAY * 2 ** (delivery.attempts - 1))
    return delivery.state


# ---------------------------------------------------------------------- the events
def version_checked(version: BotVersion, report: dict) -> None:
    notify([version.bot_id], Webhook.CHECKED, {
        "version": version.number, "state": version.state, "error": report.get("error", ""),
        "match": report.get("match")})


def match_recorded(match: Match) -> None:
    """A recorded match's events for the bots that played it: finished, faulted, rating moved."""
    if match.status != Match.FINISHED or match.check_of_id is not None:
        return  # a check's own event is version.checked
    # one query on every recorded match (most bots have no webhook); the rest only for those that do
    if not Webhook.objects.filter(bot__versions__seats__match=match).exists():
        return
    seats = list(match.seats.select_related("bot_version"))
    bots = {s.bot_version.bot_id for s in seats}
    summary = {"match": match.pk, "game": match.game, "variant": match.variant, "rated": match.rated,
               "seats": [{"seat": s.seat, "bot": s.bot_version.bot_id, "version": s.bot_version.number,
                          "status": s.status, "score": s.score, "rank": s.rank} for s in seats]}
    notify(bots, Webhook.FINISHED, summary)
    for seat in seats:
        if seat.status and seat.status != "ok":
            notify([seat.bot_version.bot_id], Webhook.FAULTED, {"match": match.pk, "seat": seat.seat,
                                                                 "status": seat.status})
    for change in RatingHistory.objects.filter(match=match).select_related("rating__bot_version"):
        before = (RatingHistory.objects.filter(rating=change.rating, created__lte=change.created)
                  .exclude(pk=change.pk).order_by("-created", "-pk").first())
        if before is not None and abs(change.mu - before.mu) > before.sigma:
            notify([change.rating.bot_version.bot_id], Webhook.RATING, {
                "ladder": change.rating.ladder, "version": change.rating.bot_version.number, "match": match.pk,
                "mu": change.mu, "sigma": change.sigma, "mu_before": before.mu, "sigma_before": before.sigma})


def comparison_decided(comparison: Comparison) -> None:
    notify([comparison.bot_id], Webhook.COMPARISON, {
        "comparison": comparison.pk, "a": str(comparison.a), "b": str(comparison.b), "status": comparison.status,
        "verdict": comparison.verdict, "error": comparison.error})
