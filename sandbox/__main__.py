"""``python -m sandbox serve --socket PATH``: the sandbox service (``sandbox/service.py``)."""
from __future__ import annotations

import argparse

from .service import serve


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sandbox")
    commands = parser.add_subparsers(dest="command", required=True)
    serving = commands.add_parser("serve", help="launch and reap sandboxed bots for workers over a Unix socket")
    serving.add_argument("--socket", required=True, help="the Unix socket's path")
    args = parser.parse_args(argv)
    serve(args.socket)


if __name__ == "__main__":
    main()
