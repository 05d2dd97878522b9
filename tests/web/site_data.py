"""Test data made through the models (the tests that call these use the database)."""
from __future__ import annotations

from itertools import count
from pathlib import Path

from django.contrib.auth.models import User
from django.utils import timezone

from arena.models import Bot, BotVersion, Match, MatchSeat

SCRIPT = "<script>alert(1)</script>"
FIRST_BOT = """
from bots_sdk import Bot


class First(Bot):
    def decide(self, decision):
        return decision.legal_actions[0]
"""  # an uploaded bot's file: plays the first legal action


def user(name: str, **extra) -> User:
    return User.objects.create_user(name, password="pw-" + name + "-123", **extra)


def bot(owner: User | None, name: str, game: str = "tussie-mussie", kind: str = Bot.UPLOAD) -> Bot:
    made = Bot.objects.create(owner=owner, name=name, game=game, kind=kind)
    BotVersion.objects.create(bot=made, number=1, spec="random", state=BotVersion.ACTIVE)
    return made


_keys = count()


def match(bots: list[Bot], status: str = Match.FINISHED, replay: Path | None = None, game: str = "tussie-mussie",
          variant: str = "standard", ranks: list[int] | None = None, scores: list[float] | None = None, **extra) -> Match:
    finished = status == Match.FINISHED
    made = Match.objects.create(key=f"test/{next(_keys)}", game=game, variant=variant, seed=1, status=status,
                                replay_path=str(replay or ""), finished=timezone.now() if finished else None,
                                result={"scores": scores, "ranks": ranks} if finished and ranks else None, **extra)
    for seat, b in enumerate(bots):
        MatchSeat.objects.create(match=made, seat=seat, bot_version=b.versions.get(number=1),
                                 status="ok" if finished else "",
                                 rank=ranks[seat] if finished and ranks else None,
                                 score=scores[seat] if finished and scores else None)
    return made
