"""The gRPC referee: hosts matches, enforces deadlines and hiding, records replays.

``RefereeService`` answers the calls of ``protos/parlour/v1/referee.proto`` and hands each to the
module that does it:

- ``room.py``: the rooms (one hosted match each), by match id and by seat token;
- ``match_loop.py``: one asyncio task per room drives its transport-free ``Match`` (the same host
  as local play); ``replay_pool.py`` builds and stores its replay when it is over;
- ``admission.py`` (``Play``) and ``play_seats.py`` (``PlaySeats``): bots joining their seats with
  their seat tokens; the referee runs no bot code;
- ``remote_bots.py``: remote bots' ``Connect`` streams, their offers and presence;
- ``spectators.py``: ``WatchMatch``, ``GetReplay`` and ``FollowMatch``, over each room's one
  broadcast (``broadcast.py``);
- ``catalog.py``: ``ListGames``.

Health checking and server reflection (v1 and v1alpha) are served beside it.
"""
from __future__ import annotations

import asyncio
import functools
import os

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from parlour.v1 import referee_pb2, referee_pb2_grpc

from . import REFEREE_VERSION, wire
from .admission import Admission
from .auth import check_version, require_operator
from .catalog import games_message
from .clock import LoopLag
from .games import ConfigError
from .identity import Identity, resolve
from .inbox import Deadlines
from .limits import server_options
from .match_loop import MatchLoop
from .play_seats import play_seats
from .presence import NoPresence, keep_presence
from .remote_bots import RemoteBots
from .room import Rooms, create_room
from .settings import Settings, environment
from .spectators import Spectators
from .tokens import load_verifier

PV = wire.PROTOCOL_VERSION
SERVICE = "parlour.v1.Referee"
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


class RefereeService(referee_pb2_grpc.RefereeServicer):
    """The referee's calls, each handed to the part that does it (see the module's doc)."""

    def __init__(self, settings: Settings, identity: Identity | None = None) -> None:
        self.settings = settings
        self.identity = identity or Identity(settings.referee_id or "referee", settings.advertise)
        verifier = settings.verifier or load_verifier(None, environment().api_tokens)
        presence = settings.presence or NoPresence()
        self.lag = LoopLag()  # the event loop's own lag, never charged to a bot (started by serve)
        self.deadlines = Deadlines()  # one timer for every seat's wait for an answer (referee/inbox.py)
        self.rooms = Rooms()
        self.match_loop = MatchLoop(settings, self.rooms, self.lag)
        self.admission = Admission(self.rooms, self.identity, presence, self.lag)
        self.remote_bots = RemoteBots(self.rooms, verifier, presence, self.identity)
        self.spectators = Spectators(self.rooms, settings.operator_token, verifier)
        # the streaming calls: the parts' own async generators, handed to gRPC as they are (no hop
        # per message between them and the stream)
        self.Play = self.admission.play
        self.PlaySeats = functools.partial(play_seats, self.admission)
        self.Connect = self.remote_bots.connect
        self.WatchMatch = self.spectators.watch
        self.GetReplay = self.spectators.replay
        self.FollowMatch = self.spectators.follow

    async def ListGames(self, request, context):
        await check_version(request.protocol_version, context)
        return games_message()

    async def CreateMatch(self, request, context):
        await require_operator(context, self.settings.operator_token, "CreateMatch")
        await check_version(request.protocol_version, context)
        under_way = self.rooms.under_way()
        if under_way >= self.settings.max_matches:  # back-pressure: refuse a match rather than starve seats
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"referee full: {under_way} matches under way (PARLOUR_MAX_MATCHES="
                                f"{self.settings.max_matches}); try again shortly or on another referee")
        try:
            room = create_room(request, self.identity, self.deadlines, self.settings.seed_key)
        except (ConfigError, ValueError) as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        self.rooms.add(room)
        self.remote_bots.offer_seats(room)
        room.task = asyncio.get_running_loop().create_task(self.match_loop.run(room))
        return referee_pb2.CreateMatchResponse(protocol_version=PV, match_id=room.id, seat_tokens=room.tokens,
                                               referee_id=self.identity.id, referee_address=self.identity.address)

    async def ListConnected(self, request, context):
        await require_operator(context, self.settings.operator_token, "ListConnected")
        await check_version(request.protocol_version, context)
        return referee_pb2.ListConnectedResponse(protocol_version=PV, bot_ids=sorted(self.remote_bots.connected()))


def method_handlers(service: RefereeService) -> dict[str, grpc.RpcMethodHandler]:
    """The service's handlers. Play and PlaySeats take raw bytes, so a message that does not parse is answered
    with a reason instead of breaking the stream (the generated registration would parse first)."""
    pb = referee_pb2
    return {
        "ListGames": grpc.unary_unary_rpc_method_handler(
            service.ListGames, pb.ListGamesRequest.FromString, pb.ListGamesResponse.SerializeToString),
        "CreateMatch": grpc.unary_unary_rpc_method_handler(
            service.CreateMatch, pb.CreateMatchRequest.FromString, pb.CreateMatchResponse.SerializeToString),
        "Play": grpc.stream_stream_rpc_method_handler(service.Play, None, None),
        "PlaySeats": grpc.stream_stream_rpc_method_handler(service.PlaySeats, None, None),
        "Connect": grpc.unary_stream_rpc_method_handler(
            service.Connect, pb.ConnectRequest.FromString, pb.MatchOffer.SerializeToString),
        "ListConnected": grpc.unary_unary_rpc_method_handler(
            service.ListConnected, pb.ListConnectedRequest.FromString, pb.ListConnectedResponse.SerializeToString),
        "WatchMatch": grpc.unary_stream_rpc_method_handler(service.WatchMatch, pb.WatchMatchRequest.FromString, None),
        "GetReplay": grpc.unary_stream_rpc_method_handler(
            service.GetReplay, pb.GetReplayRequest.FromString, pb.ReplayChunk.SerializeToString),
        "FollowMatch": grpc.unary_stream_rpc_method_handler(
            service.FollowMatch, pb.FollowMatchRequest.FromString, pb.MatchProgress.SerializeToString),
    }


async def serve(host: str, port: int, unix: str | None, settings: Settings,
                ready: asyncio.Future | None = None) -> None:
    server = grpc.aio.server(options=server_options(settings.idle_connection_seconds))
    addresses = []
    bound = None
    if port is not None and port >= 0:
        bound = server.add_insecure_port(f"{host}:{port}")
        addresses.append(f"{host}:{bound}")
    service = RefereeService(settings, resolve(settings.referee_id, settings.advertise, host, bound, settings.host_name))
    service.lag.start()
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, method_handlers(service)),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    enable_reflection(server)
    if unix:
        server.add_insecure_port(f"unix:{unix}")
        addresses.append(f"unix:{unix}")
    await server.start()
    if unix:  # sandboxed bots run as another uid: connecting needs write permission on the socket
        os.chmod(unix, 0o666)
    for name in ("", SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    print(f"parlour referee {REFEREE_VERSION} listening on {' '.join(addresses)} "
          f"as {service.identity.id} ({service.identity.address or 'no advertised address'})", flush=True)
    service.presence_task = asyncio.get_running_loop().create_task(  # held: runs as long as the server
        keep_presence(service.remote_bots.presence, service.identity, service.remote_bots.connected,
                      service.remote_bots.taken_elsewhere, environment().presence_ttl / 3))
    if environment().exit_with_parent:
        asyncio.get_running_loop().create_task(exit_with_parent(server))
    if ready is not None:
        ready.set_result(addresses)
    await server.wait_for_termination()


def enable_reflection(server: grpc.aio.Server) -> None:
    """Server reflection as ``grpc.reflection.v1`` and ``v1alpha``: the two are the same messages
    under two names, so one servicer answers both (grpcio-reflection registers only v1alpha)."""
    names = (SERVICE, health.SERVICE_NAME, REFLECTION_V1, reflection.SERVICE_NAME)
    servicer = reflection.aio.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo, reflection_pb2.ServerReflectionRequest.FromString,
        reflection_pb2.ServerReflectionResponse.SerializeToString)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(REFLECTION_V1,
                                                                           {"ServerReflectionInfo": v1}),))


async def exit_with_parent(server: grpc.aio.Server) -> None:
    """A private referee (started by a worker or the CLI) stops when the process that started it is
    gone, even if that process was killed with no chance to clean up."""
    parent = os.getppid()
    while os.getppid() == parent:
        await asyncio.sleep(1.0)
    await server.stop(grace=1.0)
