"""A bot's webhooks, on its page, for its owner: register a URL for some events, remove one, and
the delivery log (what arena.fleet.webhooks sent and how the receiver answered)."""
from __future__ import annotations

import secrets

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from arena.fleet.webhooks import refused_address
from arena.models import Webhook, WebhookDelivery

from .common import owned_bot_or_403, owner_only

DELIVERIES_SHOWN = 20
WEBHOOKS_PER_BOT = 5


def webhook_context(bot) -> dict:
    """What the bot's page shows its owner of its webhooks."""
    return {"webhooks": list(bot.webhooks.order_by("created")), "webhook_events": Webhook.EVENTS,
            "deliveries": list(WebhookDelivery.objects.filter(webhook__bot=bot).select_related("webhook")
                               .order_by("-created", "-pk")[:DELIVERIES_SHOWN])}


@owner_only
@require_POST
def webhook_create(request, bot_id: int):
    bot = owned_bot_or_403(request, bot_id)
    url = request.POST.get("url", "").strip()
    events = [e for e, _ in Webhook.EVENTS if e in request.POST.getlist("events")]
    problem = refused_address(url) if url else "give the URL to POST to"
    if problem is None and not events:
        problem = "pick at least one event"
    if problem is None and bot.webhooks.count() >= WEBHOOKS_PER_BOT:
        problem = f"at most {WEBHOOKS_PER_BOT} webhooks per bot"
    if problem:
        messages.error(request, f"Webhook not added: {problem}.")
    else:
        Webhook.objects.create(bot=bot, url=url, events=events, secret=secrets.token_hex(32))
        messages.info(request, "Webhook added: check the signature of each delivery with its secret.")
    return redirect("bot", bot_id=bot.pk)


@owner_only
@require_POST
def webhook_delete(request, bot_id: int, webhook_id: int):
    bot = owned_bot_or_403(request, bot_id)
    get_object_or_404(Webhook, pk=webhook_id, bot=bot).delete()
    messages.info(request, "Webhook removed.")
    return redirect("bot", bot_id=bot.pk)
