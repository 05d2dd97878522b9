"""``python -m bots_sdk``: play local matches, check and show replays, run the demo tournament.

Bad input (unknown game, variant, option or value, player count, bot file or class) prints one
line naming the problem and the allowed values, and exits with status 2.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from referee.faults import BOT_FAILURES, Fault
from referee.games import GAMES, ConfigError, get_game
from referee.match import StrictFaultError
from referee.replay import ReplayError, Resimulation, build_replay, check_replay, read_replay, write_replay
from referee.timecontrol import DEFAULT_BANK, DEFAULT_MOVE_LIMIT, TimeControl

from .loading import BotSpecError, is_file_bot, parse_bot_spec, split_file_spec
from . import site_cli
from .local import play_match


class UsageError(Exception):
    """Bad input from the command line: one line, exit status 2."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (UsageError, ConfigError, BotSpecError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except StrictFaultError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bots_sdk", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="play local matches in this process")
    play.add_argument("game", help=f"game id ({', '.join(sorted(GAMES))})")
    play.add_argument("bots", nargs="+", metavar="BOT",
                      help="random, greedy, mcts (house bots; parameters as mcts?budget=0.1), or path/to/file.py:ClassName — one per seat")
    play.add_argument("--variant", help="variant (default: standard)")
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="a rule option (repeatable)")
    play.add_argument("--seed", type=int, help="seed of the first match (match i uses seed+i)")
    play.add_argument("--games", type=int, default=1, help="number of matches (seats rotate)")
    play.add_argument("--replay", metavar="FILE",
                      help="write the replay (with --games K, FILE-<i> for each match)")
    play.add_argument("--json", action="store_true", help="print one JSON document")
    play.add_argument("--strict", action="store_true", help="stop at the first bot fault")
    play.add_argument("--time-limit", type=float, default=DEFAULT_MOVE_LIMIT,
                      help=f"seconds per decision (default {DEFAULT_MOVE_LIMIT})")
    play.add_argument("--time-bank", type=float, default=DEFAULT_BANK,
                      help=f"extra seconds per seat for the whole match (default {DEFAULT_BANK})")
    play.add_argument("--via-referee", action="store_true",
                      help="play through a referee process on a free port, each bot in its own process")
    play.add_argument("--sandboxed", action="store_true",
                      help="with --via-referee: run each file bot in the sandbox the platform runs uploaded "
                           "bots in (its limits: docs/security.md)")
    play.set_defaults(run=run_play)

    connect = commands.add_parser("connect", help="play one seat of a match on a referee")
    connect.add_argument("bot", help="random, greedy, mcts?budget=0.1, or path/to/file.py:ClassName")
    connect.add_argument("--referee", required=True, help="HOST:PORT or unix:PATH")
    connect.add_argument("--seat-token", default="",
                         help="this seat's token (none behind a sandbox's relay, which adds it)")
    connect.add_argument("--path", action="append", default=[], metavar="DIR",
                         help="a folder the bot imports from (after the standard library and the SDK)")
    connect.add_argument("--capture-output", type=int, metavar="BYTES",
                         help="send what the bot writes to stdout/stderr as log lines, at most BYTES")
    connect.set_defaults(run=run_connect)

    seats = commands.add_parser(
        "serve-seats", help="a warm bot process: play the seat of each token read from stdin, one per line, "
                            "a fresh bot for each match")
    seats.add_argument("bot", help="random, greedy, or path/to/file.py:ClassName")
    seats.add_argument("--referee", required=True, help="HOST:PORT or unix:PATH")
    seats.add_argument("--path", action="append", default=[], metavar="DIR",
                       help="a folder the bot imports from (after the standard library and the SDK)")
    seats.add_argument("--capture-output", type=int, metavar="BYTES",
                       help="send what the bot writes to stdout/stderr as log lines, at most BYTES per match")
    seats.add_argument("--many", action="store_true",
                       help="play every seat given at once, on one PlaySeats stream (docs/protocol.md), instead of "
                            "one after another: for bots that answer at once, as the house's random and greedy do")
    seats.set_defaults(run=run_serve_seats)

    remote = commands.add_parser("serve-remote", help="keep a bot available to a referee")
    remote.add_argument("bot", help="random, greedy, mcts?budget=0.1, or path/to/file.py:ClassName")
    remote.add_argument("--referee", required=True, help="HOST:PORT or unix:PATH")
    remote.add_argument("--api-token", required=True)
    remote.set_defaults(run=run_serve_remote)

    replay = commands.add_parser("replay", help="check or show a replay file")
    replay_commands = replay.add_subparsers(dest="replay_command", required=True)
    check = replay_commands.add_parser("check", help="re-simulate and compare everything recorded")
    check.add_argument("file")
    check.set_defaults(run=run_replay_check)
    show = replay_commands.add_parser("show", help="print a replay step by step")
    show.add_argument("file")
    show.add_argument("--seat", type=int, help="also print what this seat saw at each step (the other "
                      "seats' actions as it could read them)")
    show.set_defaults(run=run_replay_show)
    decide = replay_commands.add_parser(
        "decide", help="ask a bot the decision a seat received at one step, rebuilt from the replay")
    decide.add_argument("file")
    decide.add_argument("--step", type=int, required=True, help="the step, numbered as `replay show` numbers them")
    decide.add_argument("--seat", type=int, help="the seat (default: the seat that acted at that step)")
    decide.add_argument("bot", help="random, greedy, mcts?budget=0.1, or path/to/file.py:ClassName")
    decide.add_argument("--pdb", action="store_true", help="stop in the debugger as the bot's decide is called")
    decide.add_argument("--show", action="store_true", help="also print the observation and the legal actions")
    decide.set_defaults(run=run_replay_decide)

    games = commands.add_parser("games", help="list the games, variants and options")
    games.add_argument("--json", action="store_true", help="one JSON object per game instead of the table")
    games.set_defaults(run=run_games)

    site_cli.add_parser(commands)

    demo = commands.add_parser("demo", help="a small local tournament of the house bots")
    demo.add_argument("--matches", type=int, default=12, help="matches per game")
    demo.add_argument("--seed", type=int, default=2026)
    demo.set_defaults(run=run_demo)
    return parser


# ---------------------------------------------------------------------- play
def parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option takes KEY=VALUE, not {pair!r}")
        options[key] = value
    return options


def entry_names(specs: list[str]) -> list[str]:
    """One name per entry; repeated bots are numbered: random, random (2), ..."""
    names, seen = [], {}
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        names.append(spec if seen[spec] == 1 else f"{spec} ({seen[spec]})")
    return names


def replay_path(base: str, index: int, games: int) -> Path:
    path = Path(base)
    if games == 1:
        return path
    suffixes = "".join(path.suffixes)
    stem = path.name[: len(path.name) - len(suffixes)] if suffixes else path.name
    return path.with_name(f"{stem}-{index}{suffixes}")


def run_play(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    options = parse_options(args.option)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    try:
        time_control = TimeControl(args.time_limit, args.time_bank)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.sandboxed:  # a file bot's code is imported only inside its sandbox
        specs = [split_file_spec(text) if is_file_bot(text) else parse_bot_spec(text, game.id) for text in args.bots]
    else:
        specs = [parse_bot_spec(text, game.id) for text in args.bots]
    config = game.configure(len(specs), args.variant, options)  # fails early on bad input
    names = entry_names(args.bots)
    first_seed = args.seed if args.seed is not None else _fresh_seed()
    n = len(specs)
    matches: list[dict[str, Any]] = []

    def warn(fault: Fault, message: str) -> None:
        print(f"warning: {message}", file=sys.stderr)

    if args.via_referee and args.strict:
        raise UsageError("--strict applies to in-process play only")
    if args.sandboxed and not args.via_referee:
        raise UsageError("--sandboxed needs --via-referee (a sandboxed bot plays through a referee)")
    referee = None
    if args.sandboxed:
        from sandbox import support

        print(support().describe(), file=sys.stderr)
        if support().mode == "refused":
            raise UsageError("the sandbox cannot run here (see the line above)")
    if args.via_referee:
        from referee.client import LocalReferee

        referee = LocalReferee()
    try:
        with progress(args.games, quiet=args.json) as advance:
            for i in range(args.games):
                order = [(s + i) % n for s in range(n)]  # rotate seats so no entry keeps seat 0
                seat_names = [names[k] for k in order]
                if referee is not None:
                    from .via_referee import play_via_referee

                    replay = play_via_referee(referee, game.id, config.variant, config.options, first_seed + i,
                                              time_control, [args.bots[k] for k in order], seat_names,
                                              sandboxed=args.sandboxed)
                    for entry in replay["bot_logs"]:
                        if entry["decision"] is None:  # the sandbox's verdicts on the bot's process
                            print(f"{seat_names[entry['seat']]} (seat {entry['seat']}): {entry['line']}",
                                  file=sys.stderr)
                    for entry in replay["log"]:
                        if entry.get("fault"):
                            print(f"warning: bot {seat_names[entry['seat']]!r} (seat {entry['seat']}) faulted "
                                  f"on decision {entry.get('decision')}: {entry['fault']}", file=sys.stderr)
                    print_tracebacks(seat_names, replay["log"], replay["bot_logs"])
                    result = replay["result"]
                else:
                    outcome = play_match(
                        game, [specs[k].make() for k in order], variant=config.variant,
                        options=config.options, seed=first_seed + i, time_control=time_control,
                        strict=args.strict, bot_names=seat_names, on_fault=warn,
                    )
                    result = outcome.result
                    print_tracebacks(seat_names, outcome.match.log, outcome.match.bot_logs)
                    replay = build_replay(outcome.match) if args.replay else None
                if args.replay:
                    path = replay_path(args.replay, i, args.games)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_replay(path, replay)
                matches.append({
                    "seed": first_seed + i,
                    "seats": seat_names,
                    "scores": result["scores"],
                    "ranks": result["ranks"],
                    "statuses": result["statuses"],
                })
                if not args.json:
                    print_match(matches[-1])
                advance()
    finally:
        if referee is not None:
            referee.close()
    summary = summarise(names, matches)
    if args.json:
        print(json.dumps({"game": game.id, "variant": config.variant, "options": config.options,
                          "matches": matches, "summary": summary}))
    elif args.games > 1:
        print_summary(summary, args.games)
    return 0


def print_tracebacks(names: list[str], log: list[dict[str, Any]], bot_logs: list[dict[str, Any]]) -> None:
    """Each seat's first failure (a crash, an import that failed) with the lines its bot wrote
    during that decision: the traceback through the bot's own files."""
    seen = set()
    for entry in log:
        seat = entry.get("seat")
        if seat in seen or not entry.get("fault", "").startswith(BOT_FAILURES):
            continue
        seen.add(seat)
        lines = [e["line"] for e in bot_logs if e["seat"] == seat and e["decision"] == entry.get("decision")]
        if lines:
            print(f"{names[seat]} (seat {seat}), decision {entry.get('decision')}:", file=sys.stderr)
            print("\n".join("  " + line for line in lines), file=sys.stderr)


def _fresh_seed() -> int:
    from referee.games.seeding import draw_seed

    return draw_seed() % 1_000_000_000


class progress:
    """A rich progress bar on a terminal for several matches; nothing otherwise."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.enabled = total > 1 and sys.stderr.isatty()
        self.total = total

    def __enter__(self):
        if not self.enabled:
            return lambda: None
        from rich.progress import Progress

        self.bar = Progress(transient=True)
        self.bar.start()
        task = self.bar.add_task("matches", total=self.total)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.bar.stop()


def print_match(match: dict[str, Any]) -> None:
    print(f"match seed {match['seed']}")
    print(f"  {'seat':>4}  {'bot':<28} {'score':>6} {'rank':>4}")
    for seat, name in enumerate(match["seats"]):
        status = "" if match["statuses"][seat] == "ok" else f"  ({match['statuses'][seat]})"
        print(f"  {seat:>4}  {name:<28} {match['scores'][seat]:>6} {match['ranks'][seat]:>4}{status}")


def summarise(names: list[str], matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per entry: wins (rank 1, shared wins included), win rate, mean score and its 95% interval."""
    rows = []
    for name in names:
        scores, wins = [], 0
        for m in matches:
            seat = m["seats"].index(name)
            scores.append(m["scores"][seat])
            wins += m["ranks"][seat] == 1
        count = len(scores)
        mean = sum(scores) / count
        sd = math.sqrt(sum((x - mean) ** 2 for x in scores) / (count - 1)) if count > 1 else 0.0
        half = 1.96 * sd / math.sqrt(count) if count > 1 else 0.0
        rows.append({"bot": name, "matches": count, "wins": wins, "win_rate": round(wins / count, 4),
                     "mean_score": round(mean, 3), "ci95": [round(mean - half, 3), round(mean + half, 3)]})
    return rows


def print_summary(summary: list[dict[str, Any]], games: int) -> None:
    print(f"\nsummary over {games} matches")
    print(f"  {'bot':<28} {'wins':>5} {'win rate':>9} {'mean score':>11}  95% interval")
    for row in summary:
        low, high = row["ci95"]
        print(f"  {row['bot']:<28} {row['wins']:>5} {row['win_rate']:>9.1%} {row['mean_score']:>11.2f}"
              f"  [{low:.2f}, {high:.2f}]")


# ---------------------------------------------------------------------- replays
def load(path: str) -> dict[str, Any]:
    if not Path(path).is_file():
        raise UsageError(f"no such replay file: {path}")
    try:
        return read_replay(path)
    except (ReplayError, ValueError, OSError) as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None


def run_replay_check(args: argparse.Namespace) -> int:
    replay = load(args.file)
    try:
        problems = check_replay(replay)
    except (KeyError, TypeError) as exc:
        problems = [f"malformed replay: missing {exc}"]
    if problems:
        for problem in problems:
            print(f"FAIL {args.file}: {problem}")
        return 1
    header = replay["header"]
    print(f"OK {args.file}: {header['game']} ({header['variant']}), {len(replay['log'])} actions, "
          f"views and result match")
    return 0


def run_replay_show(args: argparse.Namespace) -> int:
    replay = load(args.file)
    header = replay["header"]
    names = [s["bot"] for s in header["seats"]]
    if args.seat is not None and not 0 <= args.seat < header["players"]:
        raise UsageError(f"--seat must be 0..{header['players'] - 1}")
    print(f"{header['game']} ({header['variant']}), options {json.dumps(header['options'])}, "
          f"seed {header['seed']}")
    for seat, entry in enumerate(header["seats"]):
        print(f"  seat {seat}: {entry['bot']} {json.dumps(entry['attributes']) if entry['attributes'] else ''}")
    previous = None

    def show_view(state) -> None:
        nonlocal previous
        if args.seat is not None:
            view = state.observation(args.seat)
            print("    " + json.dumps(view if previous is None else _changes(previous, view)))
            previous = json.loads(json.dumps(view))

    try:
        sim = Resimulation(header, replay["log"])
        show_view(sim.state)
        for step in sim.steps(labels=True):
            entry = step.entry
            source = "" if entry["source"] == "bot" else f" [{entry['source']}" + (
                f": {entry['fault']}]" if entry.get("fault") else "]")
            # with --seat, another seat's action as that seat could read it (no hidden card named)
            label = step.label if args.seat in (None, entry["seat"]) else step.public_label
            print(f"step {step.index + 1}: seat {entry['seat']} ({names[entry['seat']]}) {label}{source}")
            show_view(step.state)
    except ReplayError as exc:
        print(f"replay stops: {exc}")
        return 1
    print(f"result: {json.dumps(replay['result'])}")
    return 0


def run_replay_decide(args: argparse.Namespace) -> int:
    from .rebuild import RebuildError, rebuild_decision

    replay = load(args.file)
    header = replay["header"]
    try:
        rebuilt = rebuild_decision(replay, args.step, args.seat)
    except RebuildError as exc:
        raise UsageError(str(exc)) from None
    start = rebuilt.start
    bot = parse_bot_spec(args.bot, header["game"]).make()
    decision = rebuilt.sdk_decision()
    labels = decision.labels
    applied = "" if rebuilt.step == args.step else f" (answered at step {rebuilt.step})"
    print(f"{header['game']} ({header['variant']}), seed {header['seed']}: step {args.step}{applied}, seat {start.seat} "
          f"({header['seats'][start.seat]['bot']}), decision {decision.decision_id}, "
          f"{len(labels)} legal actions, {decision.time_left:.3f} s to answer")
    if args.show:
        print("observation: " + json.dumps(decision.observation))
        for index, label in enumerate(labels):
            print(f"  {index}: {label}  {json.dumps(decision.legal_actions[index])}")
    if rebuilt.played is not None:
        played = rebuilt.played
        shown = labels[decision.legal_actions.index(played["action"])] if played["action"] in decision.legal_actions \
            else json.dumps(played["action"])
        note = f" [{played['source']}: {played['fault']}]" if played.get("fault") else ""
        print(f"in the match: {shown}{note}")
    # a fresh bot, started as the seat's was (its own seed): earlier decisions are not replayed to it
    bot.start(start.game, start.seat, dict(decision.options), start.bot_seed)
    if args.pdb:
        import pdb

        print("stopping in the debugger: `step` enters your bot's decide", file=sys.stderr)
        choice = pdb.runcall(bot.decide, decision)
    else:
        choice = bot.decide(decision)
    for line in bot.take_log_lines():
        print(f"  log: {line}")
    legal = decision.legal_actions
    if isinstance(choice, int) and not isinstance(choice, bool) and 0 <= choice < len(legal):
        index = choice
    elif isinstance(choice, dict) and choice in legal:
        index = legal.index(choice)
    else:
        print(f"your bot: {choice!r}, not a legal action (an index 0..{len(legal) - 1} or one of the legal actions)")
        return 1
    print(f"your bot: {labels[index]}  (index {index}: {json.dumps(legal[index])})")
    return 0


def _changes(old: dict, new: dict) -> dict:
    new = json.loads(json.dumps(new))
    return {k: v for k, v in new.items() if old.get(k) != v}


def run_connect(args: argparse.Namespace) -> int:
    from .output_capture import OutputCapture
    from .remote import RefereeError, play_seat

    sys.path.extend(args.path)  # appended: a bot's module cannot shadow the standard library or the SDK
    capture = OutputCapture(args.capture_output) if args.capture_output else None
    try:
        result = play_seat(lambda game: parse_bot_spec(args.bot, game).make(), args.referee, args.seat_token,
                           capture)
    except RefereeError as exc:
        raise UsageError(str(exc)) from None
    print(json.dumps(result))
    return 0


def run_serve_seats(args: argparse.Namespace) -> int:
    from .output_capture import OutputCapture
    from .remote import RefereeError, serve_many_seats, serve_seats

    if args.many and args.capture_output:  # what a process prints belongs to no one seat of many
        raise UsageError("--capture-output plays one seat at a time: it cannot go with --many")
    sys.path.extend(args.path)  # appended: a bot's module cannot shadow the standard library or the SDK
    stdin = os.fdopen(os.dup(0), "r")  # tokens: read apart from sys.stdin, which the bot may touch
    capture = OutputCapture(args.capture_output) if args.capture_output else None
    # a line per seat: its token, or "-" behind a sandbox's relay (which writes the token in)
    tokens = ("" if line.strip() == "-" else line.strip() for line in stdin if line.strip())

    def make_bot(game: str):
        return parse_bot_spec(args.bot, game).make()

    if args.many:
        try:
            serve_many_seats(make_bot, args.referee, tokens)
        except RefereeError as exc:  # the stream broke: every seat on it is lost, the process ends
            raise UsageError(str(exc)) from None
    else:
        serve_seats(make_bot, args.referee, tokens, capture)
    return 0


def run_serve_remote(args: argparse.Namespace) -> int:
    from .remote import RefereeError, serve_remote

    try:
        serve_remote(lambda game: parse_bot_spec(args.bot, game).make(), args.referee, args.api_token,
                     on_offer=lambda o: print(f"playing seat {o.seat} of {o.game} match {o.match_id}", flush=True))
    except RefereeError as exc:
        raise UsageError(str(exc)) from None
    return 0


def run_games(args: argparse.Namespace) -> int:
    if args.json:
        for game in GAMES.values():
            print(json.dumps(game.to_json()))
        return 0
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    table = Table(title="Parlour games (options: name = default (allowed values))", show_lines=True)
    for column in ("game", "variant", "players", "options", "about"):
        table.add_column(column, overflow="fold")
    for game in GAMES.values():
        for index, variant in enumerate(game.variants.values()):
            name = f"{game.name}\n{game.id} {game.engine_version}" if index == 0 else ""
            default = " (default)" if variant.name == game.default_variant else ""
            options = "\n".join(f"{o.name} = {option_text(o.default)} ({o.allowed()})" for o in variant.options)
            table.add_row(escape(name), variant.name + default, ", ".join(map(str, variant.player_counts)),
                          escape(options) or "-", escape(variant.doc))
    Console().print(table)
    return 0


def option_text(value: Any) -> str:
    """An option value as the command line takes it (--option KEY=VALUE)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def run_demo(args: argparse.Namespace) -> int:
    from .demo import run_local_tournament

    run_local_tournament(args.matches, args.seed)
    return 0
