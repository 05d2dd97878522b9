"""A match's one broadcast (referee/broadcast.py): the frames every follower reads are the
finished replay's public frames, and a watcher's events carry the engine's own public view of
their steps, however the steps were batched and whenever the watcher came."""
from __future__ import annotations

import asyncio
import gzip
import json

from bots_sdk import RandomBot
from bots_sdk.local import play_match
from parlour.v1 import referee_pb2
from referee import wire
from referee.broadcast import Broadcast
from referee.games import GAMES
from referee.replay import KEYFRAME_EVERY, Resimulation


def public_views(game: str, players: int, seed: int) -> tuple[dict, list]:
    """A random match's replay and the engine's public view after every step of it."""
    replay = play_match(GAMES[game], [RandomBot() for _ in range(players)], seed=seed).replay()
    sim = Resimulation(replay["header"], replay["log"])
    views = [sim.state.public_view()]
    for _ in sim.steps():
        views.append(sim.state.public_view())
    return replay, views


def event_view(data: bytes) -> tuple[int, dict | None, bool]:
    event = referee_pb2.MatchEvent.FromString(data)
    return event.step, wire.observation_json(event.public_view) if event.HasField("public_view") else None, \
        event.finished


def test_every_follower_reads_the_replays_own_frames_and_the_views_of_their_steps() -> None:
    replay, views = public_views("bszzzz", 4, seed=3)
    assert len(views) > 2 * KEYFRAME_EVERY  # deltas and keyframes both decoded below

    async def play() -> None:
        broadcast = Broadcast("bszzzz", views[0], for_creator=True)
        early = broadcast.feed  # a watcher from the start
        batches, step = [], 1
        while step < len(views):  # batches of 1 to 4 steps, as windows and autopilot moves make them
            size = min(1 + step % 4, len(views) - step)
            batches.append(step + size - 1)
            for view in views[step:step + size]:
                broadcast.add(view)
            broadcast.publish()
            step += size
            if step > len(views) // 2 and early.events == []:  # the watcher reads half way through
                for i in range(len(early.marks)):
                    early.event(i)
        assert [json.loads(f) for f in broadcast.frames_for_creator()] == replay["public"]
        live = json.loads(gzip.decompress(await broadcast.public_replay({"live": True}, "playing", False)))
        assert live["public"] == replay["public"] and live["status"] == "playing"

        assert early.marks == [0, *batches]
        for i, step in enumerate(early.marks):
            assert event_view(early.event(i)) == (step, json.loads(json.dumps(views[step])), False)

        end = referee_pb2.MatchEnd(protocol_version=1, status="finished")
        broadcast.finish(end)
        assert event_view(early.end) == (batches[-1], None, True)  # the early watcher reads on to the end
        late = broadcast.feed  # a watcher after the end: the last step, then the end
        assert [event_view(late.event(i))[0] for i in range(len(late.marks))] == [batches[-1]]
        assert event_view(late.event(0))[1] == json.loads(json.dumps(views[-1]))
        assert late.end == early.end
        after = json.loads(gzip.decompress(await broadcast.public_replay({}, "finished", True)))
        assert after["public"] == [{"k": json.loads(json.dumps(views[-1]))}]  # a finished match keeps its last view
        # the creator's frames are kept until a FollowMatch hands them over, then never sent twice
        assert len(broadcast.frames_for_creator()) == len(views)
        broadcast.handed_over()
        assert broadcast.frames_for_creator() == []

    asyncio.run(play())


def test_frames_are_for_the_creator_only_when_asked() -> None:
    async def play() -> None:
        broadcast = Broadcast("tussie-mussie", public_views("tussie-mussie", 2, seed=1)[1][0], for_creator=False)
        assert broadcast.frames_for_creator() == [] and len(broadcast.feed.frames) == 1

    asyncio.run(play())
