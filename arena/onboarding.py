"""What a new bot author reads on the site, from the repository's own texts (never written twice):
the README's quickstart, the guides in ``docs/``, each game's rules summary (its package's
``rules.md``), its typed observation and action (the game's ``.proto`` file, where it has one),
and its house bots' strength on the standard ladder."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings

from . import games
from .competitions.ladder import standard_ladder
from .models import Bot, Rating

GUIDES = {  # the docs a bot author may want, by the name in their address
    "protocol": "The referee's protocol (bots in any language)",
    "security": "The sandbox: limits and threat model",
    "compare": "Comparing two versions",
    "tournaments": "Tournaments and ladders",
    "viewer": "The replay viewer",
}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def _root() -> Path:
    return Path(settings.BASE_DIR)


def quickstart() -> str | None:
    """The README from its "Write your first bot" section to the tournaments section."""
    readme = _read(_root() / "README.md")
    if readme is None or "## Write your first bot" not in readme:
        return None
    part = "## Write your first bot" + readme.split("## Write your first bot", 1)[1]
    return part.split("\n## Tournaments", 1)[0]


def guide(name: str) -> str | None:
    return _read(_root() / "docs" / f"{name}.md") if name in GUIDES else None


def rules(game: str) -> str | None:
    return games.rules(game)


def proto_name(game: str) -> str | None:
    """The game's typed messages file (``protos/parlour/v1/<package>.proto``), None for a game in
    the generic encoding (docs/protocol.md)."""
    name = games.package_name(game)
    path = f"protos/parlour/v1/{name}.proto" if name else None
    return path if path and (_root() / path).is_file() else None


def proto(game: str) -> str | None:
    """The game's typed observation and action, as the .proto file declares them."""
    path = proto_name(game)
    return _read(_root() / path) if path else None


def house_strength(game: str) -> list[dict]:
    """The house bots' ratings on the game's standard ladder (strongest first)."""
    rows = (Rating.objects.filter(ladder=standard_ladder(game), bot_version__bot__kind=Bot.HOUSE)
            .select_related("bot_version__bot").order_by("-conservative"))
    return [{"name": r.bot_version.bot.name, "bot_id": r.bot_version.bot_id, "mu": r.mu, "sigma": r.sigma,
             "conservative": r.conservative, "games": r.games, "win_rate": r.wins / r.games if r.games else 0.0}
            for r in rows]
