"""Replays: every recorded view, action and the result are proven by re-simulation."""
from __future__ import annotations

import copy
import re

import pytest

from bots_sdk import RandomBot
from bots_sdk.greedy import greedy_bot_class
from bots_sdk.local import play_match
from referee.games import GAMES
from referee.replay import (
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
    players = min(c for c in GAMES[game].variant(None).player_counts if c >= 3) if game != "tussie-mussie" else 2
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
    del replay["labels"]  # a replay made before labels were recorded still checks
    assert check_replay(replay) == []


def test_seat_views_hide_what_the_seat_did_not_see() -> None:
    """A seat's recorded views never name a tile it could not know at that step (re-checked by
    resimulating and comparing with the engine's observation, which the hiding tests cover)."""
    replay = a_replay()
    public = decode_frames(replay["public"])
    assert all("seed" not in view for view in public)
    seat_views = decode_frames(replay["views"][1])
    assert all(view["seat"] == 1 for view in seat_views)


def test_engine_versions_are_semver_and_an_old_short_version_still_checks() -> None:
    """Every engine says "X.Y.Z"; Bszzzz's replays recorded when it said "1" still re-simulate, a
    replay of another engine version does not."""
    assert all(re.fullmatch(r"\d+\.\d+\.\d+", g.engine_version) for g in GAMES.values())
    replay = build_replay(play_match("bszzzz", [RandomBot() for _ in range(3)], seed=2,
                                     options={"round_cap": 1}).match)
    replay["header"]["engine_version"] = "1"
    assert check_replay(replay) == []
    replay["header"]["engine_version"] = "2.0.0"
    assert check_replay(replay) == ["re-simulation failed: replay made by bszzzz engine 2.0.0, this is 1.0.0"]
