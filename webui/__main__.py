"""``python -m webui serve [--host H] [--port P]`` runs the site; ``python -m webui migrate`` sets up
the database; ``python -m webui check VERSION_ID`` schedules an upload's check match again.

``serve`` migrates, collects the static files (gzipped too) into ``PARLOUR_HOME/static``, then
becomes gunicorn serving ``parlour_site.wsgi`` (threaded workers: a live match's viewers
wait in long polls, webui/views/matches.py); WhiteNoise serves the static files from there.
"""
from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour_site.settings")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webui", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the website")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, help="gunicorn worker processes (default: PARLOUR_WEB_WORKERS)")
    serve.add_argument("--threads", type=int, help="threads per worker: a viewer's long poll of a live match "
                                                   "holds one (default: PARLOUR_WEB_THREADS)")
    commands.add_parser("migrate", help="create or update the database tables")
    check = commands.add_parser("check", help="schedule a version's check match again (a worker plays it)")
    check.add_argument("version_id", type=int)
    args = parser.parse_args(argv)

    import django
    from django.core.management import call_command

    django.setup()
    if args.command == "migrate":
        call_command("migrate")
        return 0
    if args.command == "check":
        from arena.bots.uploads import start_check
        from arena.models import BotVersion

        version = BotVersion.objects.select_related("bot").get(pk=args.version_id)
        BotVersion.objects.filter(pk=version.pk).update(state=BotVersion.PENDING)
        match = start_check(version)
        print(f"{version}: check match {match.pk} scheduled")
        return 0
    call_command("migrate", verbosity=0)
    from arena.bots.uploads import sandbox_support

    print(sandbox_support()[1], file=sys.stderr, flush=True)  # whether uploads are open, and why
    call_command("collectstatic", interactive=False, verbosity=0)
    from django.conf import settings

    workers = settings.PARLOUR_WEB_WORKERS if args.workers is None else args.workers
    threads = settings.PARLOUR_WEB_THREADS if args.threads is None else args.threads
    os.execvp(sys.executable, [sys.executable, "-m", "gunicorn", "parlour_site.wsgi:application",
                               "--bind", f"{args.host}:{args.port}", "--workers", str(workers),
                               "--worker-class", "gthread", "--threads", str(threads),
                               "--timeout", "120"])
    return 0  # not reached: gunicorn took the process over


if __name__ == "__main__":
    sys.exit(main())
