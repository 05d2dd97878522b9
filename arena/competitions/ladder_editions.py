"""Editions of a game's ladder pages: the site caches a ladder page under its game's edition token,
and every change to what the page shows makes a new token (so a cached page is never stale).

What a ladder page shows: the ratings (recorded matches, refits), the bots' names and switches
(active, deleted) and the owners' names. ``save()`` and ``delete()`` of those models renew the
edition through the signals below; a bulk write (``QuerySet.update``, ``bulk_update``,
``batch_updates.update_rows``) must call :func:`renew` itself (recording a rated match,
``refit_ladder``, a bot's deletion). Tokens are random, not counters: a database rebuilt under a
cache that outlived it cannot meet an old token again.

A new token is written once the change is committed, in a statement of its own: a transaction never
holds the edition's row lock (a recording that held it while waiting for a rating that a refit
holds, the refit waiting for it, would deadlock). A page read between the commit and the new token
may be served from the old token's cache for that instant; one whose token was read before the
commit and data after it is cached under the old token, never the new one.
"""
from __future__ import annotations

import uuid

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models.signals import post_delete, post_save

from ..models import Bot, LadderEdition, Rating
from .ratings import ladder_game


def renew(game: str) -> None:
    """A new edition of the game's ladder pages once the current transaction commits (at once
    outside one)."""
    transaction.on_commit(lambda: new_token(game))


def new_token(game: str) -> str:
    token = uuid.uuid4().hex
    for _ in range(2):  # a concurrent first renewal may create the row between the two tries
        if LadderEdition.objects.filter(game=game).update(token=token):
            return token
        try:
            with transaction.atomic():
                LadderEdition.objects.create(game=game, token=token)
            return token
        except IntegrityError:
            continue
    return token


def current(game: str) -> str:
    """The game's edition token, read before the page's data: what is cached under it is at least
    as new as the token. A game nobody changed through the models yet gets its first one now."""
    token = LadderEdition.objects.filter(game=game).values_list("token", flat=True).first()
    return token or new_token(game)


def _rating_changed(sender, instance: Rating, **kwargs) -> None:
    renew(ladder_game(instance.ladder))


def _bot_changed(sender, instance: Bot, **kwargs) -> None:
    renew(instance.game)


def _user_changed(sender, instance, created: bool = False, update_fields=None, **kwargs) -> None:
    # a login saves last_login alone, a sign-up a user without bots: neither shows on a ladder
    if created or (update_fields is not None and "username" not in update_fields):
        return
    # every game's: the owner's bots may be anywhere
    transaction.on_commit(lambda: LadderEdition.objects.update(token=uuid.uuid4().hex))


def connect() -> None:
    """Renew the editions on every save and delete of what ladder pages show (ArenaConfig.ready)."""
    for signal in (post_save, post_delete):
        signal.connect(_rating_changed, sender=Rating, dispatch_uid=f"edition-rating-{signal is post_save}")
        signal.connect(_bot_changed, sender=Bot, dispatch_uid=f"edition-bot-{signal is post_save}")
    post_save.connect(_user_changed, sender=get_user_model(), dispatch_uid="edition-user")
