"""The benches' settings (``make bench``): each environment variable declared once with its type,
default and one line of doc (docs/settings.md is generated from it)."""
from __future__ import annotations

import environ


@environ.config(prefix="PARLOUR_BENCH")
class BenchEnvironment:
    """The benches (`make bench`); bench/arena.py also reads the arena's REDIS_URL (unset: the
    Redis on 127.0.0.1:6379)."""

    postgres: str = environ.var("postgres://postgres@127.0.0.1:5432",
                                help="the PostgreSQL server bench/arena.py makes its databases on")
    redis_db: int = environ.var(14, converter=int, help="the Redis database bench/arena.py uses (flushed)")


def environment() -> BenchEnvironment:
    """The benches' settings from the environment as it is now."""
    return BenchEnvironment.from_environ()
