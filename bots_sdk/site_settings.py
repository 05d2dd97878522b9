"""The site client's settings (``python -m bots_sdk site …``, docs/api.md): which Parlour site and
which personal access token. Read only by that command (imported inside it: a bot's process reads
no setting); a value missing from the environment is taken from the config file."""
from __future__ import annotations

import tomllib
from pathlib import Path

import environ

DEFAULT_SITE = "http://127.0.0.1:8000"


@environ.config(prefix="PARLOUR")
class SiteClientEnvironment:
    """The SDK's site client (`python -m bots_sdk site`): environment first, then the config file's
    `site` and `token` keys."""

    site: str = environ.var("", help=f"the Parlour site's address (unset: the config file's, else {DEFAULT_SITE})")
    token: str = environ.var("", help="a personal access token (the site's Access tokens page; unset: the config file's)")
    site_config: str = environ.var("~/.config/parlour/site.toml",
                                   help="a TOML file with `site = \"…\"` and `token = \"…\"` for the site client")


def site_and_token() -> tuple[str, str]:
    """The site's address (no trailing slash) and the token ("" when none is configured)."""
    env = SiteClientEnvironment.from_environ()
    path = Path(env.site_config).expanduser()
    config = tomllib.loads(path.read_text()) if path.is_file() else {}
    site = env.site or str(config.get("site") or DEFAULT_SITE)
    return site.rstrip("/"), env.token or str(config.get("token") or "")
