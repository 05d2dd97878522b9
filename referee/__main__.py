"""``python -m referee serve``: run the gRPC referee."""
from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from .gc_pace import set_pace
from .timecontrol import DEFAULT_BANK, DEFAULT_MOVE_LIMIT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve matches over gRPC", description=(
        "Settings come from the environment: PARLOUR_OPERATOR_TOKEN, PARLOUR_API_TOKENS, PARLOUR_SEED_KEY "
        "and the others docs/settings.md lists for the referee. Default time control: "
        f"{DEFAULT_MOVE_LIMIT} s per move plus a {DEFAULT_BANK} s bank."))
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=50051, help="TCP port (0: a free one; -1: none)")
    serve.add_argument("--unix", metavar="PATH", help="also listen on this Unix socket")
    serve.add_argument("--token-verifier", metavar="MODULE:CALLABLE",
                       help="checks remote bots' API tokens (default: the PARLOUR_API_TOKENS file)")
    serve.add_argument("--replay-dir", metavar="DIR", help="also store each finished replay here")
    serve.add_argument("--id", dest="referee_id", metavar="ID",
                       help="this referee's name in a fleet (default: REFEREE_ID, else the host name)")
    serve.add_argument("--advertise", metavar="HOST:PORT",
                       help="the address seats of this referee's matches must connect to, when several referees "
                            "stand behind one name (default: REFEREE_ADVERTISE, else the host name and the bound "
                            "port); CreateMatch answers with it (docs/deploy.md)")
    serve.add_argument("--presence", metavar="MODULE:CALLABLE",
                       help="tells the platform which remote bots are connected here (e.g. "
                            "arena.fleet.presence_board:PresenceBoard; default: nobody)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    from .server import serve as run_server
    from .settings import settings_from_env

    try:
        if args.advertise and ":" not in args.advertise:
            raise ValueError(f"--advertise wants HOST:PORT, not {args.advertise!r}")
        settings = settings_from_env(args.token_verifier, args.replay_dir, args.referee_id, args.advertise,
                                     args.presence)
    except (ImportError, AttributeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        set_pace()
        asyncio.run(run_server(args.host, args.port, args.unix, settings))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
