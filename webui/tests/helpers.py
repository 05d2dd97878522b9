"""Test data made through the models, and replay files made by the SDK's command line."""
from __future__ import annotations

import atexit
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from django.contrib.auth.models import User
from django.test import TestCase, override_settings
from django.utils import timezone

from arena.models import Bot, BotVersion, Match, MatchSeat

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "<script>alert(1)</script>"

LOG_BOT = '''
from bots_sdk import Bot


class Chatty(Bot):
    def decide(self, decision):
        self.log(f"seat {self.seat} says hello at decision {decision.decision_id}")
        return self.rng.choice(decision.legal_actions)
'''

_replay_dir = None


def replay_file() -> Path:
    """A finished two-seat Tussie Mussie replay whose two bots both log (made once per test run)."""
    global _replay_dir
    if _replay_dir is None:
        _replay_dir = Path(tempfile.mkdtemp(prefix="parlour-webui-test-"))
        atexit.register(shutil.rmtree, _replay_dir, True)
        bot = _replay_dir / "chatty.py"
        bot.write_text(LOG_BOT)
        subprocess.run([sys.executable, "-m", "bots_sdk", "play", "tussie-mussie", f"{bot}:Chatty",
                        f"{bot}:Chatty", "--seed", "1", "--replay", str(_replay_dir / "m.replay.json.gz")],
                       cwd=ROOT, check=True, capture_output=True)
    return _replay_dir / "m.replay.json.gz"


def user(name: str, **extra) -> User:
    return User.objects.create_user(name, password="pw-" + name + "-123", **extra)


def bot(owner: User | None, name: str, game: str = "tussie-mussie", kind: str = Bot.UPLOAD) -> Bot:
    made = Bot.objects.create(owner=owner, name=name, game=game, kind=kind)
    BotVersion.objects.create(bot=made, number=1, spec="random", state=BotVersion.ACTIVE)
    return made


_keys = iter(range(10**6))


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


@override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])  # fast users
class WebTestCase(TestCase):
    pass
