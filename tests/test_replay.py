"""Replays: every recorded view, action and the result are proven by re-simulation."""
from __future__ import annotations

import copy
import re

import pytest

from bots_sdk import RandomBot
from bots_sdk.greedy import greedy_bot_class
from bots_sdk.local import play_match
from referee.games import GAMES
from referee.games.tussie_mussie.data import TILES
from referee.replay import (
    Resimulation,
    build_replay,
    check_replay,
    decode_frames,
    diff,
    patch,
    read_replay,
    write_replay,
)


def a_replay(game: str = "tussie-mussie", players: int = 3, seed: int = 21) -> dict:
    bots = [greedy_bot_class(game)()] + [RandomBot() for _ in range(players - 1)]
    return build_replay(play_match(game, bots, seed=seed).match)


def test_deltas_round_trip() -> None:
    values = [{"a": [1, 2, {"b": None}], "c": "x"}, {"a": [1, 3, {"b": 2}], "d": [True]},
              {"a": [1], "c": {"e": []}}, {}, {"a": None}]
    for old in values:
        for new in values:
            assert patch(old, diff(old, new) or {"o": {}}) == new


@pytest.mark.parametrize("game", sorted(GAMES))
def test_recorded_replay_checks(game: str, tmp_path) -> None:
    counts = GAMES[game].variant(None).player_counts
    players = min((c for c in counts if c >= 3), default=max(counts)) if game != "tussie-mussie" else 2
    replay = build_replay(play_match(game, [RandomBot() for _ in range(players)], seed=5).match)
    write_replay(tmp_path / "r.gz", replay)
    loaded = read_replay(tmp_path / "r.gz")
    assert check_replay(loaded) == []
    assert loaded["header"]["seed"] == 5 and loaded["header"]["game"] == game
    assert len(decode_frames(loaded["public"])) == len(loaded["log"]) + 1


def test_any_edit_is_caught() -> None:
    replay = a_replay()
    assert check_replay(replay) == []
    # an action changed to another legal one
    edited = copy.deepcopy(replay)
    entry = next(e for e in edited["log"] if e["action"]["type"] == "take")
    entry["action"]["side"] = "face_down" if entry["action"]["side"] == "face_up" else "face_up"
    assert check_replay(edited)
    # a seat's recorded view changed
    edited = copy.deepcopy(replay)
    edited["views"][1][0]["k"]["stack_size"] += 1
    assert any("seat 1's views differ from step 0" in p for p in check_replay(edited))
    # the public view of a later step changed
    edited = copy.deepcopy(replay)
    edited["public"][3] = {"d": {"o": {"phase": {"v": "over"}}}}
    assert any("public views differ" in p for p in check_replay(edited))
    # the source of an action changed
    edited = copy.deepcopy(replay)
    edited["log"][0]["source"] = "autopilot"
    assert check_replay(edited)
    # the seed changed
    edited = copy.deepcopy(replay)
    edited["header"]["seed"] += 1
    assert check_replay(edited)
    # a label changed
    edited = copy.deepcopy(replay)
    edited["labels"][4] = "Take the Rose face up"
    assert "the action labels differ from log entry 4" in check_replay(edited)
    # a public label changed (to the private one: a leak)
    edited = copy.deepcopy(replay)
    edited["public_labels"][0] = edited["labels"][0]
    assert edited["public_labels"] != replay["public_labels"]
    assert "the public action labels differ from log entry 0" in check_replay(edited)


def test_labels_say_each_action_as_its_seat_was_shown_it() -> None:
    """One label per log entry, the very label the acting seat's bot saw for that action."""
    game = "tussie-mussie"
    shown: list[tuple[int, str]] = []

    class Recorder(RandomBot):
        def decide(self, decision):
            action = super().decide(decision)
            shown.append((self.seat, decision.labels[decision.legal_actions.index(action)]))
            return action

    replay = build_replay(play_match(game, [Recorder(), Recorder()], seed=9).match)
    assert len(replay["labels"]) == len(replay["log"])
    assert [(e["seat"], label) for e, label in zip(replay["log"], replay["labels"])] == shown
    assert check_replay(replay) == []
    assert len(replay["public_labels"]) == len(replay["log"])
    del replay["public_labels"]  # a replay made before public labels were recorded still checks
    assert check_replay(replay) == []
    del replay["labels"]  # a replay made before labels were recorded still checks
    assert check_replay(replay) == []


def test_public_labels_never_name_the_face_down_tile_of_an_offer() -> None:
    """Tussie Mussie: the offerer lays one tile face up and one face down; the other seats and a
    spectator may read which tile is face up, never which one lies face down (the rules)."""
    replay = build_replay(play_match("tussie-mussie", [RandomBot() for _ in range(3)], seed=4).match)
    sim = Resimulation(replay["header"], replay["log"])
    offers = 0
    state, steps = sim.state, sim.steps()
    for entry, label, public in zip(replay["log"], replay["labels"], replay["public_labels"]):
        action = entry["action"]
        if action["type"] == "offer":
            up = TILES[action["face_up"]].name
            down = TILES[next(t for t in state.offer["tiles"] if t != action["face_up"])].name
            assert label == f"offer the {up} face up and the {down} face down"  # the offerer's own
            assert public == f"offer the {up} face up and a tile face down"
            offers += 1
        else:
            assert public == label  # taking and Pre-Presentation are played in the open
        next(steps)
    assert offers == 3 * 6  # two offers per seat in each of three rounds


def test_public_labels_name_no_reserve_pick_or_sealed_draft_card() -> None:
    """Tricky Twist's reserve picks, Misty's draft and every Bszzzz submission are sealed: their
    public labels are one text whatever the card, while the seat's own label names it."""
    sealed = {"tricky-twist": ("reserve",), "misty": ("take", "place"), "bszzzz": ("play", "pass")}
    for game, kinds in sealed.items():
        replay = build_replay(play_match(game, [RandomBot() for _ in range(3)], seed=3,
                                         options={"round_cap": 1} if game == "bszzzz" else None).match)
        publics = {public for entry, public in zip(replay["log"], replay["public_labels"])
                   if entry["action"]["type"] in kinds}
        privates = {label for entry, label in zip(replay["log"], replay["labels"])
                    if entry["action"]["type"] in kinds}
        assert len(publics) == (2 if game == "misty" else 1), (game, publics)
        assert len(privates) > 5, game  # the private labels do name the cards


def test_seat_views_hide_what_the_seat_did_not_see() -> None:
    """A seat's recorded views never name a tile it could not know at that step (re-checked by
    resimulating and comparing with the engine's observation, which the hiding tests cover)."""
    replay = a_replay()
    public = decode_frames(replay["public"])
    assert all("seed" not in view for view in public)
    seat_views = decode_frames(replay["views"][1])
    assert all(view["seat"] == 1 for view in seat_views)


def test_engine_versions_are_semver_and_an_old_short_version_still_checks() -> None:
    """Every engine says "X.Y.Z"; a short version is its semver triple (Bszzzz's early replays said
    "1", that is "1.0.0"), a replay of another engine version does not re-simulate."""
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", g.engine_version) for g in GAMES.values())
    replay = build_replay(play_match("bszzzz", [RandomBot() for _ in range(3)], seed=2,
                                     options={"round_cap": 1}).match)
    replay["header"]["engine_version"] = "1.1"
    assert check_replay(replay) == []
    for other in ("1", "2.0.0"):  # "1": a 1.0.0 replay, dealt otherwise
        replay["header"]["engine_version"] = other
        assert check_replay(replay) == [f"re-simulation failed: replay made by bszzzz engine {other}, this is 1.1.0"]
