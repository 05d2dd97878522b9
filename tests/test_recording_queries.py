"""What a worker asks the database to record one finished match, counted: the recording is most of
a worker's own CPU per match (issue 13), so a change that brings back a query per seat or a
re-read of a row just written fails here. The counts are those of a 2-player match on SQLite,
from the claim to the tournament's check for its next round."""
from __future__ import annotations

import pytest

from arena.competitions import ladder_editions
from arena.road import lifecycle
from arena.models import Match, Rating, RatingHistory
from arena.road.lifecycle import PlayedMatch
from arena.competitions.tournaments import create_tournament, start_tournament
from referee.client import MatchOutcome, SeatOutcome

pytestmark = pytest.mark.django_db

# claim (1: UPDATE ... RETURNING), the seat plan (1), record with the ratings (9: the match's
# conditional UPDATE, its seats' two columns, no re-read of the row), the ladder edition (1), the
# tournament's "anything left to record?" (1), "has a bot of the match a webhook?" (1,
# arena.fleet.webhooks); it was 29 (a query per seat, re-reads, the tournament locked), then 17
TOURNAMENT_MATCH_QUERIES = 14
LADDER_MATCH_QUERIES = 13  # no tournament to move on; it was 24, then 16


def finished(ranks: list[int]) -> PlayedMatch:
    """What the referee's follow brings back for a finished 2-player match (no replay stored)."""
    seats = [SeatOutcome(score=10.0 - r, rank=r, status="ok", fault_counts={}) for r in ranks]
    result = {"scores": [s.score for s in seats], "ranks": ranks, "statuses": ["ok"] * len(ranks)}
    return PlayedMatch(MatchOutcome(match_id="m", status="finished", seats=seats, result=result, replay_gz=None))


@pytest.fixture
def played(monkeypatch):
    """The worker's road with the referee's part replaced by a result (the attempt reads the seat
    plan as it does on the platform, then play() returns the outcome given)."""
    monkeypatch.setattr("arena.competitions.tournaments.enqueue_matches", lambda ids: None)
    monkeypatch.setattr("arena.road.lifecycle.live_frames.recorded", lambda match_id, status: None)  # Redis: not the database's
    outcomes: list[PlayedMatch] = []

    def play(match: Match, plan: list) -> PlayedMatch:
        assert [p.seat for p in plan] == [0, 1]
        return outcomes.pop(0)

    monkeypatch.setattr(lifecycle, "play", play)
    return outcomes


def round_robin() -> list[Match]:
    """Four house bots' round robin (three rounds of two matches), scheduled."""
    tournament = create_tournament("tussie-mussie", "round-robin", ["random", "random", "random", "random"],
                                   table_size=2, seed=3)
    start_tournament(tournament)
    return list(tournament.matches.order_by("pk"))


def record_first_round(outcomes: list[PlayedMatch], matches: list[Match]) -> list[Match]:
    """Record the first round (every entrant rated once, its rating created); the matches left."""
    first_round = [m for m in matches if m.round.number == 1]
    outcomes += [finished([1, 2]) for _ in first_round]
    assert [lifecycle.play_once(m.pk, "w@host/1") for m in first_round] == ["recorded"] * len(first_round)
    assert Rating.objects.filter(games=1).count() == 4
    ladder_editions.current("tussie-mussie")  # the game's edition row, as the ladder pages' first read made it
    return [m for m in matches if m not in first_round]


def test_recording_a_tournament_match_takes_a_fixed_number_of_queries(played, django_assert_max_num_queries,
                                                                       django_capture_on_commit_callbacks) -> None:
    match = record_first_round(played, round_robin())[0]
    played.append(finished([2, 1]))
    with django_assert_max_num_queries(TOURNAMENT_MATCH_QUERIES):
        with django_capture_on_commit_callbacks(execute=True) as callbacks:  # the edition's renewal counted
            assert lifecycle.play_once(match.pk, "w@host/1") == "recorded"
    assert len(callbacks) == 1
    match.refresh_from_db()
    assert match.status == Match.FINISHED and [s.rank for s in match.seats.all()] == [2, 1]
    ratings = [s.bot_version.ratings.get() for s in match.seats.all()]
    assert [(r.games, r.wins) for r in ratings] == [(2, r.wins) for r in ratings]
    assert ratings[1].wins - ratings[0].wins in (1, 2)  # seat 1 won this one
    assert all(r.conservative == pytest.approx(r.mu - 3 * r.sigma) for r in ratings)
    assert {h.rating_id: h.mu for h in RatingHistory.objects.filter(match=match)} == {r.pk: r.mu for r in ratings}
    assert lifecycle.play_once(match.pk, "w@host/1") == "not scheduled"  # recorded once


def test_recording_a_ladder_match_takes_a_fixed_number_of_queries(played, django_assert_max_num_queries,
                                                                  django_capture_on_commit_callbacks) -> None:
    matches = round_robin()
    Match.objects.filter(pk__in=[m.pk for m in matches]).update(tournament=None, ladder="tussie-mussie/standard/")
    match = record_first_round(played, matches)[0]
    played.append(finished([1, 2]))
    with django_assert_max_num_queries(LADDER_MATCH_QUERIES):
        with django_capture_on_commit_callbacks(execute=True):
            assert lifecycle.play_once(match.pk, "w@host/1") == "recorded"
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1, 2, 2]


def test_the_claimed_row_is_the_attempt_that_holds_it() -> None:
    match = round_robin()[0]
    claimed = lifecycle.claim(match.pk, "w@host/1")
    assert (claimed.status, claimed.worker, claimed.attempts) == (Match.RUNNING, "w@host/1", 1)
    assert lifecycle.claim(match.pk, "w@host/2") is None
