"""``python -m bots_sdk site …``: a Parlour site from the terminal, over its HTTP API (docs/api.md).

``submit`` uploads a version and follows its check match to the verdict, printing the report (exit
status 1 when the version is rejected); ``status``, ``ladder``, ``matches`` and ``replay download``
read. Each takes ``--json``. The site and the token: ``PARLOUR_SITE`` and ``PARLOUR_TOKEN``, or the
config file ``PARLOUR_SITE_CONFIG`` names (bots_sdk/site_settings.py)."""
from __future__ import annotations

import argparse
import ast
import json
import sys
import time
from pathlib import Path
from typing import Any

from .site_client import SiteClient, SiteError

POLL_SECONDS = 1.0
ACCEPTED_LOG_LINES = 5  # of an accepted version's log shown (a rejected one's: all of it)


def add_parser(commands) -> None:
    site = commands.add_parser("site", help="a Parlour site from the terminal: submit, status, ladder, matches, replays")
    actions = site.add_subparsers(dest="site_command", required=True)

    def command(name: str, run, help: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=help)
        parser.add_argument("--json", action="store_true", help="print the API's JSON instead of tables")
        parser.set_defaults(run=lambda args: run_site(run, args))
        return parser

    submit = command("submit", run_submit, "upload a new version of a bot and wait for its check's verdict")
    submit.add_argument("bot_file", metavar="FILE[:Class]", help="my_bot.py:MyBot (a .py file, or a .zip)")
    submit.add_argument("--bot", required=True, help="the bot's name on the site (a new name creates the bot)")
    submit.add_argument("--game", help="the game (needed for a new bot; else the bot's own)")
    submit.add_argument("--no-wait", action="store_true", help="return once the version is stored")
    submit.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the verdict")
    command("status", run_status, "your bots and their versions' states")
    ladder = command("ladder", run_ladder, "a game's ladder")
    ladder.add_argument("game")
    ladder.add_argument("--ladder", default="", help="a ladder key (default: the game's standard ladder)")
    ladder.add_argument("--limit", type=int, default=20)
    matches = command("matches", run_matches, "a bot's latest matches")
    matches.add_argument("--bot", required=True, help="your bot's name, or any bot's id")
    matches.add_argument("--game", help="which game's bot, when you have several of that name")
    matches.add_argument("--limit", type=int, default=20)
    challenge = command("challenge", run_challenge, "play your bot now against opponents (an unrated match)")
    challenge.add_argument("--bot", required=True, help="your bot's name")
    challenge.add_argument("--game", help="which game's bot, when you have several of that name")
    challenge.add_argument("--opponent", action="append", default=[],
                           help="house:random, house:greedy#2, version:ID (repeat; default one house:random)")
    challenge.add_argument("--variant", default="", help="the game's variant (default: its default)")
    compare = command("compare", run_compare, "is A stronger than B? a sequential test on duplicate deals")
    compare.add_argument("--bot", required=True, help="your bot's name")
    compare.add_argument("--game", help="which game's bot, when you have several of that name")
    compare.add_argument("a", help="v<N> (your bot's active version N) or a house bot (random, greedy, mcts)")
    compare.add_argument("b", help="the same")
    compare.add_argument("--max-games", type=int)
    compare.add_argument("--elo1", type=float, help="the Elo difference worth detecting")
    compare.add_argument("--no-wait", action="store_true", help="return once the comparison is queued")
    compare.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the verdict")
    replay = actions.add_parser("replay", help="a match's replay")
    replay_actions = replay.add_subparsers(dest="replay_command", required=True)
    download = replay_actions.add_parser("download", help="save a match's replay (gzipped JSON, as the site stores it)")
    download.add_argument("match", type=int)
    download.add_argument("-o", "--output", help="the file (default: match-ID.replay.json.gz)")
    download.add_argument("--json", action="store_true", help="print where it was saved as JSON")
    download.set_defaults(run=lambda args: run_site(run_download, args))


def run_site(run, args: argparse.Namespace) -> int:
    from .site_settings import site_and_token  # the settings library only for this command

    site, token = site_and_token()
    try:
        return run(SiteClient(site, token), args)
    except SiteError as exc:
        print(f"error: {exc}" + (f" (HTTP {exc.status})" if exc.status else ""), file=sys.stderr)
        return 2


def emit(args: argparse.Namespace, data: Any) -> bool:
    """Print ``data`` as JSON when ``--json`` was asked (and say so)."""
    if args.json:
        print(json.dumps(data, indent=1, default=str))
    return args.json


def table(title: str, columns: list[str], rows: list[list[Any]]) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    shown = Table(title=title)
    for column in columns:
        shown.add_column(column)
    for row in rows:
        shown.add_row(*(escape("—" if v is None else str(v)) for v in row))
    Console().print(shown)


def my_bot(client: SiteClient, name: str, game: str | None) -> dict | None:
    """The caller's bot of that name (and game), or None; several: a message saying --game."""
    found = [b for b in client.get("/me")["bots"] if b["name"] == name and (game is None or b["game"] == game)]
    if len(found) > 1:
        raise SiteError(f"you have bots named {name!r} in {', '.join(b['game'] for b in found)}: add --game")
    return found[0] if found else None


# ---------------------------------------------------------------------- submit
def run_submit(client: SiteClient, args: argparse.Namespace) -> int:
    path_text, _, class_name = args.bot_file.partition(":")
    path = Path(path_text)
    if not path.is_file():
        raise SiteError(f"no file {path}")
    if class_name and path.suffix == ".py" and class_name not in class_names(path):
        raise SiteError(f"{path} defines no class {class_name}")
    game = args.game
    if game is None:
        known = my_bot(client, args.bot, None)
        if known is None:
            raise SiteError(f"you have no bot named {args.bot!r} yet: add --game GAME to create it")
        game = known["game"]
    made = client.upload("/versions", {"name": args.bot, "game": game}, path)
    bot, version = made["bot"], made["version"]
    if args.no_wait:
        return 0 if emit(args, made) or print(f"{bot['name']} version {version['number']} is pending") is None else 0
    version = wait_for_verdict(client, bot, version, args)
    report = client.get(f"/bots/{bot['id']}/versions/{version['number']}/report")
    if not emit(args, {"bot": bot, "version": version, "report": report["report"]}):
        print_report(client.site, bot, version, report["report"] or {})
    return 0 if version["state"] == "active" else 1


def class_names(path: Path) -> set[str]:
    try:
        return {n.name for n in ast.parse(path.read_bytes()).body if isinstance(n, ast.ClassDef)}
    except (SyntaxError, ValueError):
        return set()  # the site says what is wrong with it


def wait_for_verdict(client: SiteClient, bot: dict, version: dict, args: argparse.Namespace) -> dict:
    """Poll the version until its check match gives it a verdict, with a progress display on a terminal."""
    from rich.console import Console

    console = Console(stderr=True)
    deadline = time.monotonic() + args.timeout
    path = f"/bots/{bot['id']}/versions/{version['number']}"
    with console.status(f"{bot['name']} v{version['number']}: stored, its check match is scheduled",
                        spinner="dots") as status:
        while version["state"] == "pending":
            if time.monotonic() > deadline:
                raise SiteError(f"no verdict after {args.timeout:.0f} s: `python -m bots_sdk site status` tells later")
            time.sleep(POLL_SECONDS)
            version = client.get(path)
            if version["check_match"] is not None:
                match = client.get(f"/matches/{version['check_match']}")
                status.update(f"{bot['name']} v{version['number']}: check match {match['id']} {match['status']} "
                              f"({client.site}/matches/{match['id']}/)")
    return version


def print_report(site: str, bot: dict, version: dict, report: dict) -> None:
    verdict = "ACCEPTED: active on the ladder" if version["state"] == "active" else f"{version['state'].upper()}"
    print(f"{bot['name']} v{version['number']} ({bot['game']}): {verdict}")
    if report.get("match"):
        print(f"check match: {site}/matches/{report['match']}/")
    if report.get("result"):
        result = report["result"]
        print(f"result: scores {result['scores']}, ranks {result['ranks']}, statuses {result['statuses']}")
    if report.get("error"):
        print(f"error: {report['error']}")
    lines = report.get("log") or []
    if lines and version["state"] == "active":  # the whole log matters when something went wrong
        print(f"your bot's log: {len(lines)} line(s), the last {min(len(lines), ACCEPTED_LOG_LINES)}:")
        lines = lines[-ACCEPTED_LOG_LINES:]
    elif lines:
        print("your bot's log (its traceback, if it crashed):")
    for line in lines:
        print(f"  {line}")
    if report.get("sandbox"):
        print(report["sandbox"])


# ---------------------------------------------------------------------- reading
def run_status(client: SiteClient, args: argparse.Namespace) -> int:
    me = client.get("/me")
    bots = [client.get(f"/bots/{b['id']}") for b in me["bots"]]
    if emit(args, {**me, "bots": bots}):
        return 0
    if me["user"] is None:
        raise SiteError("no token: set PARLOUR_TOKEN (the site's Access tokens page) or the config file's token")
    print(f"{client.site}: {me['user']} (token {me['token']!r}, scopes: {', '.join(me['scopes'])})")
    rows = []
    for bot in bots:
        latest = bot["versions"][0] if bot["versions"] else None
        best = max(bot["ratings"], key=lambda r: r["games"], default=None)
        rows.append([bot["id"], bot["name"], bot["game"], bot["kind"], bot["state"],
                     f"v{latest['number']} {latest['state']}" if latest else None,
                     f"{best['mu']:.2f} ± {best['sigma']:.2f} ({best['games']} games)" if best else None])
    table("your bots", ["id", "bot", "game", "kind", "state", "latest version", "rating μ ± σ"], rows)
    return 0


def run_ladder(client: SiteClient, args: argparse.Namespace) -> int:
    ladder = client.get(f"/ladders/{args.game}", ladder=args.ladder or None, limit=args.limit)
    if emit(args, ladder):
        return 0

    def fit(r: dict) -> str | None:
        return None if r["fit_elo"] is None else f"{r['fit_elo']:+.0f} [{r['fit_low']:+.0f}, {r['fit_high']:+.0f}]"

    table(f"{ladder['ladder']} ({ladder['count']} versions)",
          ["rank", "bot", "owner", "μ − 3σ", "μ ± σ", "batch fit (Elo)", "games", "win rate"],
          [[r["rank"], f"{r['name']} v{r['version']}", r["owner"], f"{r['conservative']:.2f}",
            f"{r['mu']:.2f} ± {r['sigma']:.2f}", fit(r), r["games"], f"{r['win_rate']:.0%}"] for r in ladder["rows"]])
    return 0


def run_matches(client: SiteClient, args: argparse.Namespace) -> int:
    if args.bot.isdigit():
        bot_id = int(args.bot)
    else:
        found = my_bot(client, args.bot, args.game)
        if found is None:
            raise SiteError(f"you have no bot named {args.bot!r}")
        bot_id = found["id"]
    matches = client.get("/matches", bot=bot_id, limit=args.limit)
    if emit(args, matches):
        return 0
    table(f"matches of bot {args.bot}", ["match", "game", "status", "finished", "seats (rank)"],
          [[m["id"], m["game"], m["status"] + (" (check)" if m["check_of"] else ""), m["finished"],
            ", ".join(f"{s['name']} ({s['rank'] if s['rank'] is not None else '-'})" for s in m["seats"])]
           for m in matches])
    return 0


def named_bot(client: SiteClient, args: argparse.Namespace) -> dict:
    found = my_bot(client, args.bot, args.game)
    if found is None:
        raise SiteError(f"you have no bot named {args.bot!r}")
    return found


def run_challenge(client: SiteClient, args: argparse.Namespace) -> int:
    bot = named_bot(client, args)
    body = {"opponents": args.opponent or ["house:random"], "variant": args.variant}
    match = client.post_json(f"/bots/{bot['id']}/challenges", body)
    if not emit(args, match):
        print(f"challenge match {match['id']} started: {client.site}/matches/{match['id']}/ "
              f"({', '.join(s['name'] for s in match['seats'])})")
    return 0


def run_compare(client: SiteClient, args: argparse.Namespace) -> int:
    bot = named_bot(client, args)
    body = {"a": args.a, "b": args.b, "max_games": args.max_games, "elo1": args.elo1}
    comparison = client.post_json(f"/bots/{bot['id']}/comparisons", {k: v for k, v in body.items() if v is not None})
    if not args.no_wait:
        from rich.console import Console

        deadline = time.monotonic() + args.timeout
        with Console(stderr=True).status(f"comparison {comparison['id']}: queued", spinner="dots") as status:
            while comparison["status"] in ("scheduled", "running"):
                if time.monotonic() > deadline:
                    raise SiteError(f"no verdict after {args.timeout:.0f} s")
                time.sleep(POLL_SECONDS)
                comparison = client.get(f"/comparisons/{comparison['id']}")
                games = (comparison["figures"] or {}).get("games", 0)
                status.update(f"comparison {comparison['id']}: {comparison['status']}, {games} games played")
    if not emit(args, comparison):
        verdict = comparison["verdict"] or comparison["error"] or comparison["status"]
        print(f"comparison {comparison['id']}: {comparison['a']} vs {comparison['b']}: {verdict}")
    return 0 if comparison["status"] != "failed" else 1


def run_download(client: SiteClient, args: argparse.Namespace) -> int:
    data = client.download(f"/matches/{args.match}/replay")
    output = Path(args.output or f"match-{args.match}.replay.json.gz")
    output.write_bytes(data)
    if not emit(args, {"match": args.match, "file": str(output), "bytes": len(data)}):
        print(f"saved {output} ({len(data)} bytes): python -m bots_sdk replay check {output}")
    return 0
