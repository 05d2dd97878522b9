"""The API's answers as OpenAPI schemas (what the document says each endpoint returns)."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Schema


class Message(Schema):
    message: str


class Variant(Schema):
    name: str
    player_counts: list[int]
    doc: str
    options: list[dict[str, Any]]


class Game(Schema):
    id: str
    name: str
    player_counts: list[int]
    solo: bool
    variants: list[Variant]


class VersionOut(Schema):
    number: int
    state: str
    created: datetime
    sha256: str
    check_match: int | None


class RatingOut(Schema):
    ladder: str
    version: int
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    fit_elo: float | None
    fit_low: float | None
    fit_high: float | None


class BotOut(Schema):
    id: int
    name: str
    game: str
    kind: str
    owner: str | None
    state: str
    created: datetime


class BotDetail(BotOut):
    versions: list[VersionOut]
    ratings: list[RatingOut]


class Submitted(Schema):
    bot: BotOut
    version: VersionOut


class LadderRow(Schema):
    rank: int
    bot: int
    name: str
    version: int
    owner: str | None
    conservative: float
    mu: float
    sigma: float
    fit_elo: float | None
    fit_low: float | None
    fit_high: float | None
    games: int
    win_rate: float


class Ladder(Schema):
    game: str
    ladder: str
    ladders: list[str]
    sort: str
    count: int
    offset: int
    rows: list[LadderRow]


class SeatOut(Schema):
    seat: int
    bot: int
    name: str
    version: int
    owner: str | None
    status: str
    score: float | None
    rank: int | None


class MatchOut(Schema):
    id: int
    game: str
    variant: str
    options: dict[str, Any]
    status: str
    rated: bool
    tournament: int | None
    round: int | None
    ladder: str
    check_of: int | None
    created: datetime
    finished: datetime | None
    seats: list[SeatOut]


class MatchDetail(MatchOut):
    seed: int | None
    result: dict[str, Any] | None


class StandingRow(Schema):
    rank: int
    label: str
    bot: int | None
    version: int | None
    points: float
    buchholz: float
    sonneborn_berger: float
    tables: int
    byes: int


class RoundOut(Schema):
    number: int
    status: str
    matches: int
    done: int


class TournamentOut(Schema):
    id: int
    name: str
    game: str
    variant: str
    options: dict[str, Any]
    format: str
    rounds: int
    table_size: int
    status: str
    created: datetime


class TournamentDetail(TournamentOut):
    standings: list[StandingRow]
    round_list: list[RoundOut]
