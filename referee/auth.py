"""Who may make a call: the operator's credential, and the protocol version a client speaks."""
from __future__ import annotations

import hmac

import grpc

from . import wire
from .limits import version_error


def same_secret(given: str | bytes, secret: str) -> bool:
    """``given == secret`` in a time that does not depend on where they differ (a caller timing
    refusals learns nothing of the secret); never true for an empty secret."""
    if not secret:
        return False
    given = given.encode() if isinstance(given, str) else given
    return hmac.compare_digest(given, secret.encode())


def is_operator(context: grpc.aio.ServicerContext, operator_token: str) -> bool:
    """The call carries ``authorization: Bearer <operator token>`` (never, without a token)."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and same_secret(value, f"Bearer {operator_token}" if operator_token else ""):
            return True
    return False


def bearer_token(context: grpc.aio.ServicerContext) -> str:
    """The token of the call's ``authorization: Bearer <token>`` metadata ("" without one)."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization" and value.startswith("Bearer "):
            return value[len("Bearer "):]
    return ""


async def require_operator(context: grpc.aio.ServicerContext, operator_token: str, call: str) -> None:
    if not is_operator(context, operator_token):
        await context.abort(grpc.StatusCode.PERMISSION_DENIED, f"{call} needs the operator credential")


async def check_version(version: int, context: grpc.aio.ServicerContext) -> None:
    why = version_error(version, wire.PROTOCOL_VERSION)
    if why:
        await context.abort(grpc.StatusCode.FAILED_PRECONDITION, why)
