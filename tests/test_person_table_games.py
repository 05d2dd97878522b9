"""The person's table draws every game's seat view with the game's own renderer, at a phone's width:
a decision each game really asks (Bszzzz!'s reaction window, Misty's sealed pick among them), as the
seat's relay publishes it, shown on the real site in chromium: the seat's own cards face up, every
legal action a button with its label, the clock, nothing wider than the phone, no script error."""
from __future__ import annotations

import json
import os
import time

import pytest
from browser_site import CHROMIUM, chromium, running_site

from arena.people.bridge import news_channel
from bots_sdk import Bot
from bots_sdk.local import play_match

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium is installed by make test")

WIDTH = 390  # a phone's


def simultaneous(decision) -> bool:
    """Several seats asked at once: a reaction window, a sealed pick."""
    return len(decision.observation.get("to_move", [])) > 1 and bool(decision.observation.get("trick", True))


# each game: its players and which of seat 0's decisions to show
GAMES = {
    "bszzzz": (3, lambda d, n: simultaneous(d) and n >= 3),
    "kuhn-poker": (2, lambda d, n: n >= 2),
    "misty": (2, lambda d, n: simultaneous(d)),
    "tricky-twist": (3, lambda d, n: n >= 4),
    "tussie-mussie": (2, lambda d, n: n >= 3),
}


class Capture(Bot):
    """Plays the first legal action and keeps the first decision ``wanted`` picks, as the relay
    would publish it."""

    def __init__(self, wanted) -> None:
        super().__init__()
        self.wanted, self.count, self.kept = wanted, 0, None

    def decide(self, decision):
        self.count += 1
        if self.kept is None and self.wanted(decision, self.count):
            self.kept = {"decision_id": 1, "game": decision.game, "variant": decision.variant, "seat": decision.seat,
                         "players": decision.players, "observation": decision.observation,
                         "legal_actions": decision.legal_actions, "labels": decision.labels}
        return decision.legal_actions[0]


def a_decision(game: str) -> dict:
    players, wanted = GAMES[game]
    capture = Capture(wanted)
    others = [Capture(lambda d, n: False) for _ in range(players - 1)]
    play_match(game, [capture, *others], seed=3)
    assert capture.kept, f"{game}: no such decision in the match"
    return capture.kept


def test_every_games_seat_is_drawn_by_its_renderer_on_a_phone(tmp_path) -> None:
    decisions = {game: a_decision(game) for game in GAMES}
    with running_site(tmp_path) as site, chromium() as browser:
        tables = json.loads(site.django(f"""
            import json
            from django.contrib.auth.models import User
            from arena.people.tables import start_table, table_choices
            ann = User.objects.create_user("ann", password="pw-ann-1")
            players = {json.dumps({g: p for g, (p, _) in GAMES.items()})}
            tables = {{}}
            for game, count in players.items():
                variant = next(v for v, counts in table_choices(game)["variants"] if count in counts)
                tables[game] = start_table(ann, game, variant, ["random"] * (count - 1)).pk
            print(json.dumps(tables))"""))
        redis = site.redis()
        page = browser.new_page(viewport={"width": WIDTH, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(site.url + "/accounts/login/")
        page.fill("input[name=username]", "ann")
        page.fill("input[name=password]", "pw-ann-1")
        page.click("form [type=submit]")
        for game, match_id in tables.items():
            decision = decisions[game]
            now = time.time()
            clock = {"seconds": 60.0, "bank": 120.0, "started": now, "free_until": now + 60, "deadline": now + 180}
            redis.set(f"parlour:person:{match_id}:0:decision", json.dumps({**decision, "clock": clock, "moves": []}))
            page.goto(site.url + f"/table/{match_id}/")
            page.locator("button.choice").nth(len(decision["labels"]) - 1).wait_for()
            assert page.locator("button.choice").all_inner_texts() == decision["labels"], game
            assert json.loads(page.text_content("#table-view")) == decision["observation"]
            assert page.locator("#table-board .viewer-error").count() == 0, game  # the renderer drew it
            assert page.locator("#table-board .seat-panel.is-me").count() == 1, game
            assert page.locator("#table-board .card[data-card-id]").count() > 0, game
            assert "59 s left for this decision" in page.inner_text("#table-clock") \
                or "60 s left for this decision" in page.inner_text("#table-clock")
            assert "your bank: 120 s" in page.inner_text("#table-clock")
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= WIDTH, f"{game}: the page is {wide} px wide"
            for box in (page.locator("button.choice").nth(i).bounding_box() for i in range(len(decision["labels"]))):
                assert box["x"] >= 0 and box["x"] + box["width"] <= WIDTH, game
            page.screenshot(path=str(tmp_path / f"{game}.png"), full_page=True)

        # the next decision, its own seconds spent: the bank counts down; the person's moves so far
        now = time.time()
        clock = {"seconds": 60.0, "bank": 30.0, "started": now - 61, "free_until": now - 1, "deadline": now + 29}
        moves = [{"decision_id": 1, "label": decision["labels"][0]}, {"decision_id": 2, "label": None}]
        redis.set(f"parlour:person:{match_id}:0:decision",
                  json.dumps({**decision, "decision_id": 3, "clock": clock, "moves": moves}))
        redis.publish(news_channel(match_id, 0), "{}")  # as the relay does: the page's long poll wakes
        page.locator("#table-clock.is-bank").wait_for()
        assert "Decision time over: bank 29 s left" in page.inner_text("#table-clock") \
            or "Decision time over: bank 28 s left" in page.inner_text("#table-clock")
        assert page.locator("#table-log li").all_inner_texts() == [
            "No answer in time: the default action was played for you.", decision["labels"][0]]
        assert not errors
