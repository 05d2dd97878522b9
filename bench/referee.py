"""The referee's costs, each beside a baseline measured in the same run.

    python bench/referee.py [--json] [--matches N] [--concurrent N,M]

- concurrent matches: N Tussie Mussie 2-player matches (default 1,000, then 1,700) open at once,
  every seat an instant bot (it answers index 0 at once; seats multiplexed over a few asyncio client
  processes), counting the seats that finished ``ok``, the timeouts charged and the decision round
  trip's p99 under the load; target: 1,000 matches, 0 seats failed, 0 timeouts; beyond the
  referee's ``PARLOUR_MAX_MATCHES`` (1,500) the rest are refused, and no seat fails;
- decision round trip: a random bot process <-> the referee (the think time the referee charges:
  from handing a decision to the transport to reading its answer, minus its own loop lag; over
  Tussie Mussie matches, where one seat is asked at a time), beside a bare gRPC bidirectional echo
  of a message of the same size between two processes; target: ratio <= 1.3;
- whole matches per second through the referee (every bot its own process, started once per
  match) and in-process, per game;
- the referee's resident memory with 100 concurrent matches open.
"""
from __future__ import annotations

import argparse

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # run as a script: the checkout, then the imports below

import grpc  # noqa: E402

from bots_sdk import RandomBot  # noqa: E402
from bots_sdk.local import play_match  # noqa: E402
from referee import wire  # noqa: E402
from referee.games import GAMES  # noqa: E402
from referee_process import RefereeProcess, bot_process  # noqa: E402

from benchmarks_doc import add_record_flag, record, verdict  # noqa: E402

ECHO_SERVER = r'''
import asyncio, sys, grpc
async def echo(requests, context):
    async for data in requests:
        yield data
async def main():
    server = grpc.aio.server()
    handler = grpc.stream_stream_rpc_method_handler(echo, None, None)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("bench.Echo", {"Echo": handler}),))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    print(port, flush=True)
    await server.wait_for_termination()
asyncio.run(main())
'''


def echo_round_trip(size: int, count: int) -> float:
    """Seconds per round trip of a ``size``-byte message on one bidirectional stream."""
    server = subprocess.Popen([sys.executable, "-c", ECHO_SERVER], stdout=subprocess.PIPE, text=True)
    port = int(server.stdout.readline())
    payload = b"x" * size
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.stream_stream("/bench.Echo/Echo", request_serializer=None, response_deserializer=None)
            import queue

            outgoing: queue.Queue = queue.Queue()

            def requests():
                while (item := outgoing.get()) is not None:
                    yield item

            responses = call(requests())
            for _ in range(20):  # warm up
                outgoing.put(payload)
                next(responses)
            start = time.perf_counter()
            for _ in range(count):
                outgoing.put(payload)
                next(responses)
            elapsed = time.perf_counter() - start
            outgoing.put(None)
            return elapsed / count
    finally:
        server.kill()


SEATS_CLIENT = r'''
import asyncio, collections, json, sys
import grpc
from parlour.v1 import referee_pb2 as pb

SEATS_PER_CONNECTION = 500  # the referee allows 1,000 concurrent streams on one connection

started, retries = [], []


async def seat(channel, token, ends):
    """One seat; a stream that fails is resumed with the same token, as any bot should."""
    for attempt in range(5):
        try:
            return await play_seat(channel, token, ends)
        except grpc.aio.AioRpcError as exc:
            retries.append(exc.code().name)
            if attempt == 4:
                raise
            await asyncio.sleep(0.2)


async def play_seat(channel, token, ends):
    play = channel.stream_stream("/parlour.v1.Referee/Play", request_serializer=pb.BotMessage.SerializeToString,
                                 response_deserializer=pb.RefereeMessage.FromString)
    call = play()
    await call.write(pb.BotMessage(hello=pb.Hello(protocol_version=1, seat_token=token)))
    index = None
    while True:
        message = await call.read()
        if message is grpc.aio.EOF:
            ends.append(("closed", {}))
            return
        kind = message.WhichOneof("message")
        if kind == "start":
            index = message.start.seat
            started.append(1)
        elif kind == "decision":
            await call.write(pb.BotMessage(answer=pb.Answer(protocol_version=1,
                                                            decision_id=message.decision.decision_id, index=0)))
        elif kind == "end":
            mine = message.end.seats[index]
            ends.append((mine.status, dict(mine.fault_counts)))
            await call.done_writing()
            return

async def main():
    address, tokens = sys.argv[1], json.load(sys.stdin)
    channels = [grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(0, len(tokens), SEATS_PER_CONNECTION)]
    ends = []

    async def progress():
        while True:
            await asyncio.sleep(10)
            print(f"{len(started)} seats started, {len(ends)} of {len(tokens)} ended", file=sys.stderr, flush=True)

    reporter = asyncio.get_running_loop().create_task(progress())
    tasks = [asyncio.ensure_future(seat(channels[i // SEATS_PER_CONNECTION], t, ends)) for i, t in enumerate(tokens)]
    done, stuck = await asyncio.wait(tasks, timeout=float(sys.argv[2]))
    reporter.cancel()
    for task in stuck:
        task.cancel()
    failed = [repr(t.exception())[:200] for t in done if t.exception() is not None]
    statuses = collections.Counter(status for status, _ in ends)
    timeouts = sum(counts.get("timeout", 0) for _, counts in ends)
    print(json.dumps({"seats": len(tokens), "statuses": statuses, "timeouts": timeouts, "failed": failed[:3],
                      "failures": len(failed), "resumed": collections.Counter(retries), "stuck": len(stuck)}))
    sys.stdout.flush()
    import os
    os._exit(0)

asyncio.run(main())
'''


def concurrent_matches(referee: RefereeProcess, matches: int, processes: int = 4, deadline: float = 180,
                       sampled: int = 100) -> dict:
    """``matches`` Tussie Mussie 2p matches at once, every seat an instant bot; a seat not done
    within ``deadline`` seconds counts as stuck. Matches the referee refuses (``PARLOUR_MAX_MATCHES``)
    are counted, not retried. The decision round trip under the load is the think time the referee
    charged, read from the replays of ``sampled`` of the matches."""
    tokens, match_ids, refused = [], [], 0
    for i in range(matches):
        try:
            created = referee.create("tussie-mussie", 2, seed=10_000 + i, move_limit=1.0, bank=10.0)
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            refused += 1
            continue
        tokens += list(created.seat_tokens)
        match_ids.append(created.match_id)
    share = -(-len(tokens) // processes)
    start = time.perf_counter()
    clients = [subprocess.Popen([sys.executable, "-c", SEATS_CLIENT, referee.address, str(deadline)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, cwd=ROOT)
               for _ in range(processes)]
    for k, client in enumerate(clients):
        client.stdin.write(json.dumps(tokens[k * share:(k + 1) * share]))
        client.stdin.close()
    reports = [json.loads(client.stdout.read()) for client in clients]
    for client in clients:
        client.wait()
    elapsed = time.perf_counter() - start
    statuses: dict[str, int] = {}
    for report in reports:
        for status, count in report["statuses"].items():
            statuses[status] = statuses.get(status, 0) + count
    think = [entry["think_ms"] for match_id in match_ids[:: max(1, len(match_ids) // sampled)]
             for entry in referee.replay(match_id)["log"] if entry["source"] == "bot"]
    seats_ok = statuses.get("ok", 0)
    timeouts = sum(r["timeouts"] for r in reports)
    return {"matches": matches, "created": len(match_ids), "refused": refused, "seats": len(tokens),
            "seconds": round(elapsed, 1), "statuses": statuses, "seats_ok": seats_ok,
            "seats_failed": len(tokens) - seats_ok, "timeouts": timeouts, "charged_timeouts": timeouts,
            "p99_ms": round(statistics.quantiles(think, n=100)[98], 1) if len(think) > 1 else None,
            "p50_ms": round(statistics.median(think), 2) if think else None,
            "client_failures": sum(r["failures"] for r in reports),
            "streams_resumed": sum(sum(r["resumed"].values()) for r in reports),
            "resumed_after": {code: sum(r["resumed"].get(code, 0) for r in reports)
                              for code in {c for r in reports for c in r["resumed"]}},
            "client_errors": [e for r in reports for e in r["failed"]][:3],
            "seats_stuck": sum(r["stuck"] for r in reports)}


def typical_decision_size(game_id: str) -> int:
    from parlour.v1 import referee_pb2

    game = GAMES[game_id]
    config = game.configure(min(game.variant(None).player_counts))
    state = game.new_state(config, 1)
    seat = state.to_move()[0]
    message = referee_pb2.Decision(
        protocol_version=1, decision_id=1, observation=wire.observation_message(game_id, state.observation(seat)),
        legal_actions=[referee_pb2.LegalAction(action=wire.action_message(game_id, a), label=state.action_label(seat, a))
                       for a in state.legal_actions(seat)])
    return len(message.SerializeToString())


def through_referee(referee: RefereeProcess, game_id: str, players: int, seed: int) -> tuple[float, list[dict]]:
    created = referee.create(game_id, players, seed=seed)
    start = time.perf_counter()
    bots = [bot_process(referee.address, token) for token in created.seat_tokens]
    for b in bots:
        b.wait(300)
    elapsed = time.perf_counter() - start
    return elapsed, referee.replay(created.match_id)["log"]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--matches", type=int, default=3, help="matches per game through the referee")
    parser.add_argument("--concurrent", default="1000,1700",
                        help="Tussie Mussie matches opened at once, one run per comma-separated count, each on a fresh "
                             "referee (the default's second run passes PARLOUR_MAX_MATCHES=1500: back-pressure)")
    parser.add_argument("--max-matches", type=int, default=1500, help="the crowd referee's PARLOUR_MAX_MATCHES")
    add_record_flag(parser)
    args = parser.parse_args()
    figures: dict = {"games": {}}
    with tempfile.TemporaryDirectory() as tmp:
        referee = RefereeProcess(Path(tmp), join_timeout=600)
        try:
            figures["concurrent"] = {}
            for count in [int(c) for c in args.concurrent.split(",") if c]:
                (Path(tmp) / f"crowd{count}").mkdir()
                crowd = RefereeProcess(Path(tmp) / f"crowd{count}", join_timeout=30,
                                       extra_env={"PARLOUR_MAX_MATCHES": str(args.max_matches),
                                                  "PARLOUR_KEEP_FINISHED": str(count)})  # every replay readable
                try:
                    figures["concurrent"][str(count)] = concurrent_matches(crowd, count)
                finally:
                    crowd.close()
            think = []
            for game_id in sorted(GAMES):
                players = min(GAMES[game_id].variant(None).player_counts)
                walls, decisions = [], 0
                for i in range(args.matches):
                    wall, log = through_referee(referee, game_id, players, seed=100 + i)
                    walls.append(wall)
                    bot_entries = [e["think_ms"] for e in log if e["source"] == "bot"]
                    if game_id == "tussie-mussie":  # one seat asked at a time: a clean round trip
                        think += bot_entries
                    decisions += len(bot_entries)
                start = time.perf_counter()
                local_matches = 0
                while time.perf_counter() - start < 1.0:
                    play_match(game_id, [RandomBot() for _ in range(players)], seed=local_matches)
                    local_matches += 1
                local_rate = local_matches / (time.perf_counter() - start)
                figures["games"][game_id] = {
                    "players": players,
                    "referee_matches_per_second": round(len(walls) / sum(walls), 3),
                    "in_process_matches_per_second": round(local_rate, 2),
                    "ratio": round(local_rate / (len(walls) / sum(walls)), 1),
                    "decisions_per_match": decisions // len(walls),
                }
            size = typical_decision_size("tussie-mussie")
            echo = echo_round_trip(size, 500) * 1000
            decision = statistics.median(think)
            figures["decision_round_trip_ms"] = round(decision, 3)
            figures["echo_round_trip_ms"] = round(echo, 3)
            figures["decision_message_bytes"] = size
            figures["round_trip_ratio"] = round(decision / echo, 2)
            before = rss_kib(referee.process.pid)
            for i in range(100):
                referee.create("tussie-mussie", 4, seed=i)
            after = rss_kib(referee.process.pid)
            figures["referee_rss_mib_idle"] = round(before / 1024, 1)
            figures["referee_rss_mib_100_open_matches"] = round(after / 1024, 1)
        finally:
            referee.close()
    if args.record:
        record_results(figures)
    if args.json:
        print(json.dumps(figures))
        return
    print(f"decision round trip (median, referee <-> bot process): {figures['decision_round_trip_ms']:.3f} ms")
    print(f"bare gRPC bidi echo of {size} bytes:                  {figures['echo_round_trip_ms']:.3f} ms")
    print(f"ratio: {figures['round_trip_ratio']:.2f}x (target <= 1.3x)")
    for c in figures["concurrent"].values():
        print(f"{c['matches']} concurrent Tussie Mussie matches asked for, {c['created']} created, {c['refused']} refused "
              f"(referee full), {c['seats']} instant seats, in {c['seconds']} s: {c['seats_ok']} seats ok, "
              f"{c['seats_failed']} failed, {c['timeouts']} timeouts charged, decision round trip p99 {c['p99_ms']} ms; "
              f"statuses {c['statuses']}, {c['client_failures']} client failures, {c['streams_resumed']} streams "
              f"resumed after a client-side error, {c['seats_stuck']} seats never done")
    print(f"{'game':<14} {'via referee /s':>15} {'in-process /s':>14} {'ratio':>7}   (bot processes start per match)")
    for game_id, row in figures["games"].items():
        print(f"{game_id:<14} {row['referee_matches_per_second']:>15.3f} {row['in_process_matches_per_second']:>14.2f} "
              f"{row['ratio']:>6.1f}x")
    print(f"referee memory: {figures['referee_rss_mib_idle']} MiB idle, "
          f"{figures['referee_rss_mib_100_open_matches']} MiB with 100 open matches")


def record_results(f: dict) -> None:
    """This run's figures as the referee's section of docs/benchmarks.md."""
    rows = [["a decision's round trip, referee ↔ bot process (median)", f"{f['decision_round_trip_ms']:.3f} ms",
             f"{f['round_trip_ratio']:.2f}× a bare gRPC echo of {f['decision_message_bytes']} bytes "
             f"({f['echo_round_trip_ms']:.3f} ms)", f"≤ 1.3×: {verdict(f['round_trip_ratio'] <= 1.3)}"]]
    for c in f["concurrent"].values():
        target = (f"1,000 matches, 0 seats failed, 0 timeouts: "
                  f"{verdict(c['seats_failed'] == 0 and not c['timeouts'] and c['created'] >= 1000)}")
        if c["refused"]:
            target = f"beyond the ceiling, refused, not forfeited: {verdict(c['seats_failed'] == 0)}"
        rows.append([f"{c['matches']:,} Tussie Mussie matches asked for at once, instant seats",
                     f"{c['created']:,} created, {c['refused']:,} refused; {c['seats_ok']:,} of {c['seats']:,} seats ok, "
                     f"{c['timeouts']} timeouts, {c['seats_stuck']} stuck",
                     f"in {c['seconds']} s; decision round trip p50 {c['p50_ms']} ms, p99 {c['p99_ms']} ms", target])
    rows += [[f"whole {game} matches ({row['players']} players, a fresh process per bot)",
              f"{row['referee_matches_per_second']:.3f} a second", f"1/{row['ratio']} of in-process "
              f"({row['in_process_matches_per_second']:.2f} a second)", ""] for game, row in f["games"].items()]
    rows.append(["the referee's memory", f"{f['referee_rss_mib_100_open_matches']} MiB with 100 open matches",
                 f"{f['referee_rss_mib_idle']} MiB idle", ""])
    record("referee", "Referee: round trips, concurrent matches, memory",
           "Each figure beside a baseline measured in the same run (`python bench/referee.py` describes them).",
           ["measure", "figure", "beside it", "target"], rows)


if __name__ == "__main__":
    main()
