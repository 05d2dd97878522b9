"""``python -m webui serve [--host H] [--port P]`` runs the site; ``python -m webui migrate`` sets up
the database; ``python -m webui check VERSION_ID`` schedules an upload's check match again.

``serve`` migrates, collects the static files (gzipped too) into ``PARLOUR_HOME/static``, then
becomes gunicorn running ``--workers`` uvicorn workers serving ``parlour_site.asgi``: each worker an
event loop where a live match's viewers wait in long polls without holding a thread
(webui/views/live.py), while each page, a synchronous view, runs in a thread of its own (Django's
ASGI handler). Gunicorn restarts a worker that dies or hangs. WhiteNoise serves the static files from
``PARLOUR_HOME/static`` (webui/static_files.py).
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
    # the threaded server's option, still taken by scripts written for it: an ASGI worker needs no
    # thread count (each page gets a thread of its own, a waiting viewer none)
    serve.add_argument("--threads", type=int, help=argparse.SUPPRESS)
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
    os.execvp(sys.executable, [sys.executable, "-m", "gunicorn", "parlour_site.asgi:application",
                               "--bind", f"{args.host}:{args.port}", "--workers", str(workers),
                               "--worker-class", "uvicorn_worker.UvicornWorker", "--timeout", "120"])
    return 0  # not reached: gunicorn took the process over


if __name__ == "__main__":
    sys.exit(main())
