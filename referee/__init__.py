"""Parlour referee: match hosting (pure, in :mod:`referee.match`) and, later, the gRPC service.

Importing this package never imports grpc: the SDK uses the match host for local play.
"""
