"""Pure pairing library of the arena: points and tie-breaks, round robin, Swiss, duplicate.

No Django, no I/O, no Celery: the standard library and networkx only. See docs/tournaments.md.
"""
from .common import History, PairingError, build_history, table_sizes
from .duplicate import DuplicateTable, deal_seeds, duplicate_bye_points, duplicate_round, rotate
from .points import BYE_POINTS, Bye, PlayedTable, StandingRow, standings, table_points
from .round_robin import Round, RoundRobin, equitable_seats, round_robin
from .swiss import SwissRound, swiss_round

__all__ = [
    "BYE_POINTS", "Bye", "DuplicateTable", "History", "PairingError", "PlayedTable", "Round", "RoundRobin",
    "StandingRow", "SwissRound", "build_history", "deal_seeds", "duplicate_bye_points", "duplicate_round",
    "equitable_seats", "rotate", "round_robin", "standings", "swiss_round", "table_points", "table_sizes",
]
