"""The starter kit the site serves to a bot author without the repository: the project's wheel
(the engines, the SDK and the referee: what ``pip install`` of it brings), an example bot and a
README with the exact commands. Built once per version of the sources, from a copy of them (the
source tree may be read-only, and a build leaves ``build/`` behind), and kept under
``PARLOUR_HOME``. The first request builds it (a few seconds; one builder at a time, the others wait
for its result); ``make demo`` builds it as soon as its site is up."""
from __future__ import annotations

import fcntl
import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from django.conf import settings

from .games import games

KIT_NAME = "parlour-starter-kit.zip"
SOURCES = ("referee", "bots_sdk", "sandbox", "arena", "webui", "parlour_site", "parlour")  # what the wheel packs
FILES = ("pyproject.toml", "README.md")

EXAMPLE_BOT = '''"""A first bot, for any game: it looks at every legal action's label (what the action does, in
words) and plays one it likes, else any legal action. Make it smarter game by game: the site's page
of each game shows its rules and a decision as your bot receives it."""
from bots_sdk import Bot


class MyBot(Bot):
    def decide(self, decision):
        for action, label in zip(decision.legal_actions, decision.labels):
            if "take" in label or "play" in label:  # a first preference, to replace with your own
                self.log(f"choosing: {label}")
                return action
        return self.rng.choice(decision.legal_actions)  # self.rng is seeded from this bot's own seed
'''

KIT_README = '''# Parlour starter kit

Everything to write a bot for Parlour and try it on your own machine (Python 3.11 or newer).

1. Install the SDK (in a folder of its own, with a virtual environment):

       python3 -m venv .venv
       .venv/bin/pip install {wheel}

2. See the games, then play the example bot against the house bots, 20 games, then one with a
   replay you can read:

       .venv/bin/python -m bots_sdk games
       .venv/bin/python -m bots_sdk play {game} my_bot.py:MyBot random --games 20
       .venv/bin/python -m bots_sdk play {game} my_bot.py:MyBot greedy --seed 7 --replay first.replay.gz
       .venv/bin/python -m bots_sdk replay show first.replay.gz --seat 0

   Any game id that `games` lists works in place of `{game}`.

3. Change `my_bot.py` (or start a bot for another game), play it again, and when it beats `greedy`,
   upload the file on the site (Upload a bot). It is checked in a sandbox with one match, then
   plays on the game's ladder.

The site's "Writing a bot" page has each game's rules and one example decision as your bot receives it.
'''


def example_game() -> str:
    """The game the kit's commands name: the registry's first."""
    return games()[0].id


def _fingerprint(root: Path) -> str:
    """Changes when any packed source file does (its path, size and modification time)."""
    digest = hashlib.sha256()
    for top in SOURCES:
        for path in sorted((root / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                stat = path.stat()
                digest.update(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _build_wheel(root: Path, out: Path) -> Path:
    with tempfile.TemporaryDirectory(prefix="parlour-kit-") as tmp:
        copy = Path(tmp) / "src"
        copy.mkdir()
        for top in SOURCES:
            shutil.copytree(root / top, copy / top, ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
        for name in FILES:
            shutil.copy2(root / name, copy / name)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(out), str(copy)], check=True, capture_output=True, timeout=300)
    return next(out.glob("parlour-*.whl"))


def starter_kit() -> Path:
    """The kit's zip, built if the sources changed since it last was."""
    root = Path(settings.BASE_DIR)
    folder = settings.PARLOUR_HOME / "starter-kit" / _fingerprint(root)
    kit = folder / KIT_NAME
    if kit.is_file():
        return kit
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second request waits for the first one's build
        if not kit.is_file():
            _build_kit(root, folder, kit)
    return kit


def _build_kit(root: Path, folder: Path, kit: Path) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        wheel = _build_wheel(root, Path(tmp))
        made = Path(tmp) / KIT_NAME
        with zipfile.ZipFile(made, "w", zipfile.ZIP_DEFLATED) as z:
            z.write(wheel, f"parlour-starter-kit/{wheel.name}")
            z.writestr("parlour-starter-kit/my_bot.py", EXAMPLE_BOT)
            z.writestr("parlour-starter-kit/README.md", KIT_README.format(wheel=wheel.name, game=example_game()))
        made.replace(kit)  # whole or not at all
