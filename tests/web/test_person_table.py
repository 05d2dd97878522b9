"""People at the table (arena.people): the seat relay's Redis bridge on a real Redis, with the real
match host playing the seat, and the person answering through the site's own endpoints."""
from __future__ import annotations

import threading
import time

import pytest

from arena.models import Bot, Match
from arena.people.bridge import AnswerRefused, PersonAway, SeatBridge, submit, waiting
from arena.people.relay import PersonRelay
from bots_sdk.loading import parse_bot_spec
from bots_sdk.local import play_match
from referee.timecontrol import TimeControl

GAME = "kuhn-poker"  # two seats, a private card each: what a seat may see is plain


def greedy():
    return parse_bot_spec("greedy", GAME).make()


def test_a_silent_person_gets_the_fault_policy_default_action(redis_client):
    """Nobody answers: each decision fails after the person's clock and the referee's fault policy
    plays the default action; at three strikes the autopilot plays the seat, and the match ends."""
    relay = PersonRelay(SeatBridge(redis_client, 7, 0, seconds=1.0))
    started = time.monotonic()
    outcome = play_match(GAME, [relay, greedy()], seed=5, time_control=TimeControl(30.0, 0.0))
    assert time.monotonic() - started < 10
    faults = [f for f in outcome.faults if f.seat == 0]
    assert len(faults) == 3 and faults[-1].forfeited
    assert all("did not answer within 1 s" in f.reason for f in faults)
    assert outcome.result["scores"] and waiting(redis_client, 7, 0) is None


def test_a_person_who_walks_away_spends_the_bank_once_then_the_fault_policy_ends_the_match(redis_client):
    """With a bank, a silent person's first decision waits for its seconds and the whole bank, the
    next ones for their seconds only; three strikes, the autopilot plays the seat to the end."""
    bridge = SeatBridge(redis_client, 11, 0, seconds=1.0, bank=1.5)
    started = time.monotonic()
    outcome = play_match(GAME, [PersonRelay(bridge), greedy()], seed=5, time_control=TimeControl(30.0, 0.0))
    faults = [f for f in outcome.faults if f.seat == 0]
    assert len(faults) == 3 and faults[-1].forfeited and bridge.bank == 0.0
    assert "within 2 s" in faults[0].reason and all("within 1 s" in f.reason for f in faults[1:])
    assert 4.5 < time.monotonic() - started < 12 and outcome.result["scores"]
    assert [move["label"] for move in bridge.moves] == [None, None, None]


def ask_in_thread(bridge: SeatBridge, decision_id: int, room: float | None = None) -> tuple[threading.Thread, dict]:
    """The relay asking one decision of two actions, in a thread: its outcome lands in the dict."""
    out: dict = {}

    def run() -> None:
        started = time.monotonic()
        try:
            out["action"] = bridge.ask({"decision_id": decision_id, "legal_actions": [{"a": 0}, {"a": 1}],
                                        "labels": ["zero", "one"], "observation": {}}, room)
        except PersonAway as away:
            out["away"] = str(away)
        out["took"] = time.monotonic() - started

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def published(redis_client, match_id: int, seat: int, decision_id: int) -> dict:
    deadline = time.monotonic() + 5
    while (decision := waiting(redis_client, match_id, seat)) is None or decision["decision_id"] != decision_id:
        assert time.monotonic() < deadline, "the decision was never published"
        time.sleep(0.01)
    return decision


def test_time_beyond_a_decisions_seconds_is_drawn_from_the_bank_for_the_match(redis_client):
    """One second a decision and a two-second bank: an answer after 1.6 s leaves about 1.4 s in the
    bank, which the next decision's published clock shows; a decision left unanswered waits for its
    second plus the whole bank, then fails (the fault policy's turn) and the bank is drawn; the next
    one then waits its one second only."""
    bridge = SeatBridge(redis_client, 9, 0, seconds=1.0, bank=2.0)
    thread, out = ask_in_thread(bridge, 1)
    clock = published(redis_client, 9, 0, 1)["clock"]
    assert clock["seconds"] == 1.0 and clock["bank"] == 2.0
    assert clock["free_until"] - clock["started"] == pytest.approx(1.0)
    assert clock["deadline"] - clock["started"] == pytest.approx(3.0)
    time.sleep(1.6)
    assert submit(redis_client, 9, 0, 1, 1) == {"a": 1}
    thread.join(5)
    assert out["action"] == {"a": 1} and 1.3 < bridge.bank < 1.45

    thread, out = ask_in_thread(bridge, 2)
    clock = published(redis_client, 9, 0, 2)["clock"]
    assert clock["bank"] == bridge.bank and clock["deadline"] - clock["started"] == pytest.approx(1.0 + bridge.bank)
    thread.join(10)
    assert "did not answer" in out["away"] and 2.2 < out["took"] < 3.6 and bridge.bank == 0.0

    thread, out = ask_in_thread(bridge, 3)
    thread.join(10)
    assert "did not answer within 1 s" in out["away"] and out["took"] < 2.2


def test_the_persons_clock_never_outlasts_the_referees_room(redis_client):
    """A decision the referee allows less time than the person's seconds and bank: the clock
    published (and kept) ends with the referee's room, so the relay fails first."""
    bridge = SeatBridge(redis_client, 10, 0, seconds=60.0, bank=120.0)
    thread, out = ask_in_thread(bridge, 1, room=1.0)
    clock = published(redis_client, 10, 0, 1)["clock"]
    assert clock["deadline"] - clock["started"] == pytest.approx(1.0)
    assert clock["free_until"] == clock["deadline"]
    thread.join(5)
    assert "did not answer within 1 s" in out["away"] and out["took"] < 2.2


def test_the_bridge_publishes_the_seats_view_only_and_refuses_bad_answers(redis_client):
    """The decision published is what the seat was sent (its own card, the other hidden); an
    illegal index, an old decision and a second answer are refused and change nothing."""
    relay = PersonRelay(SeatBridge(redis_client, 8, 1, seconds=20.0))
    seen, chosen = [], []

    def person() -> None:
        while len(seen) < 200:
            decision = waiting(redis_client, 8, 1)
            if decision is None or (seen and seen[-1]["decision_id"] == decision["decision_id"]):
                if done.is_set():
                    return
                time.sleep(0.01)
                continue
            seen.append(decision)
            legal = decision["legal_actions"]
            with pytest.raises(AnswerRefused, match="not a legal action"):
                submit(redis_client, 8, 1, decision["decision_id"], len(legal))
            with pytest.raises(AnswerRefused, match="the table has moved on"):
                submit(redis_client, 8, 1, decision["decision_id"] + 1000, 0)
            index = len(seen) % len(legal)
            chosen.append(submit(redis_client, 8, 1, decision["decision_id"], index))
            with pytest.raises(AnswerRefused, match="answered already"):
                submit(redis_client, 8, 1, decision["decision_id"], 0)

    done = threading.Event()
    thread = threading.Thread(target=person)
    thread.start()
    try:
        outcome = play_match(GAME, [greedy(), relay], seed=11, time_control=TimeControl(30.0, 0.0))
    finally:
        done.set()
        thread.join(10)
    assert seen and not outcome.faults
    for decision in seen:
        cards = decision["observation"]["cards"]
        assert not cards[1].get("hidden") and cards[0] == {"hidden": True}
        assert decision["seat"] == 1 and len(decision["labels"]) == len(decision["legal_actions"])
    played = [entry for entry in outcome.log if entry["seat"] == 1]
    assert [entry["action"] for entry in played] == chosen


@pytest.mark.django_db
def test_a_person_plays_through_the_site(client, django_user_model, redis_client, settings):
    """"Play against" from the game's page queues an unrated match with a person's seat; the table's
    endpoints show the seat's decision and take its answers; another person's answer is refused."""
    alice = django_user_model.objects.create_user("alice", password="pw")
    bob = django_user_model.objects.create_user("bob", password="pw")
    client.force_login(alice)
    page = client.get(f"/learn/{GAME}/")
    assert b"Play against them" in page.content
    response = client.post(f"/learn/{GAME}/play/", {"variant": "standard", "opponent": ["greedy", ""], "seat": "2"})
    match = Match.objects.get()
    assert response.status_code == 302 and response.url == f"/table/{match.pk}/"
    longest = settings.PARLOUR_PERSON_DECISION_SECONDS + settings.PARLOUR_PERSON_BANK_SECONDS
    assert not match.rated and match.time_control["move_limit"] > longest  # the person's clock runs out first
    seats = list(match.seats.order_by("seat").values_list("bot_version__bot__kind", "bot_version__bot__owner"))
    assert seats == [(Bot.HOUSE, None), (Bot.PERSON, alice.pk)]
    assert b"you play seat 2" in client.get(f"/table/{match.pk}/").content
    assert "@alice" not in client.get("/bots/").content.decode()  # a table, not a bot of hers
    assert f'href="/table/{match.pk}/"' in client.get("/tables/").content.decode()
    assert client_for(bob).get(f"/table/{match.pk}/").status_code == 404

    settings.PARLOUR_LIVE_WAIT = 8.0  # a long poll's longest wait (the last one, after the match, waits it out)
    relay = PersonRelay(SeatBridge(redis_client, match.pk, 1, seconds=20.0))
    result = {}
    player = threading.Thread(target=lambda: result.update(outcome=play_match(
        GAME, [greedy(), relay], seed=match.seed, time_control=TimeControl(30.0, 0.0))))
    player.start()
    answered, shown, waited = 0, "", []
    other = client_for(bob)
    deadline = time.monotonic() + 30
    while player.is_alive() and time.monotonic() < deadline:
        # the page's long poll: answered once the decision waiting differs from the one shown
        asked = time.monotonic()
        decision = client.get(f"/table/{match.pk}/state.json?after={shown}&status={match.status}").json()["decision"]
        shown = str(decision["decision_id"]) if decision else ""
        if decision is None:
            continue
        waited.append(time.monotonic() - asked)
        refused = other.post(f"/table/{match.pk}/answer/", {"decision_id": decision["decision_id"], "index": 0},
                             content_type="application/json")
        assert refused.status_code == 403 and "no seat" in refused.json()["error"]
        bad = client.post(f"/table/{match.pk}/answer/", {"decision_id": decision["decision_id"], "index": 99},
                          content_type="application/json")
        assert bad.status_code == 400 and "not a legal action" in bad.json()["error"]
        good = client.post(f"/table/{match.pk}/answer/", {"decision_id": decision["decision_id"], "index": 0},
                           content_type="application/json")
        assert good.status_code == 200 and good.json()["played"] == decision["legal_actions"][0]
        answered += 1
    player.join(10)
    assert answered and not result["outcome"].faults
    # every poll that brought a decision was woken by the relay's news: none waited out its time
    assert max(waited) < settings.PARLOUR_LIVE_WAIT / 2, waited


def client_for(user):
    from django.test import Client

    other = Client()
    other.force_login(user)
    return other
