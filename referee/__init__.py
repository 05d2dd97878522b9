"""Parlour referee: match hosting (pure, in :mod:`referee.match`) and the gRPC service that hosts
matches for bots in other processes (:mod:`referee.server`).

Importing this package never imports grpc: the SDK uses the match host for local play.
"""

REFEREE_VERSION = "0.1.0"  # sent to every seat in its MatchStart
