"""One match as its followers see it: the public frames, kept once for the three ways to follow it.

Each step's public view is encoded once, as play goes, into its frame of the public replay (JSON:
a keyframe every ``KEYFRAME_EVERY`` steps, else a delta from the frame before: referee/replay.py).
That one list is what every follower reads:

- ``FollowMatch`` (the creator's, for a match created with ``record_frames``): the frames as they
  are, in batches; at the end they are the replay's ``public`` list, not derived a second time;
- ``GetReplay`` during the match: the public replay, the frames so far under a header;
- ``WatchMatch``: an event per published step (the view after each batch of applied actions: only
  that one is observable live, docs/protocol.md), its view decoded from the frames and the event
  serialized once for every watcher, when the first one reads it (a match nobody watches builds none).
"""
from __future__ import annotations

import asyncio
from typing import Any

import orjson

from parlour.v1 import referee_pb2

from . import wire
from .replay import KEYFRAME_EVERY, JsonFrameEncoder, packed, patch, replay_json

PV = wire.PROTOCOL_VERSION


class Feed:
    """The frames of a match from its step ``first`` on, the steps published to watchers, and the
    watchers' events built from them so far. A follower keeps the feed it started on: once the
    match is over its broadcast holds only the last step, and whoever still follows reads on."""

    def __init__(self, game: str, frames: list[bytes], first: int = 0) -> None:
        self.game = game
        self.frames = frames  # JSON, frames[i] is step first + i (grows in place while the match runs)
        self.first = first
        self.marks: list[int] = []  # the published steps, in order
        self.events: list[bytes] = []  # WatchMatch's event of marks[i], serialized, for every i so far
        self.end: bytes | None = None  # the last event: the match is over
        self.decoded: tuple[int, Any] = (-1, None)  # the last frame decoded (its index) and its view

    @property
    def last_step(self) -> int:
        return self.first + len(self.frames) - 1

    def event(self, index: int) -> bytes:
        """The event of the ``index``-th published step, serialized (events are read in order)."""
        while len(self.events) <= index:
            step = self.marks[len(self.events)]
            view = wire.observation_message(self.game, self.view_at(step))
            self.events.append(referee_pb2.MatchEvent(protocol_version=PV, step=step,
                                                      public_view=view).SerializeToString())
        return self.events[index]

    def view_at(self, step: int) -> Any:
        """The public view of ``step``, decoded from the last frame decoded, or from the keyframe
        before it when that is nearer (events are read in order: the decoding goes on from one
        to the next)."""
        target = step - self.first
        keyframe = target - target % KEYFRAME_EVERY
        at, view = self.decoded
        if not keyframe <= at <= target:
            at, view = keyframe - 1, None
        while at < target:
            at += 1
            frame = orjson.loads(self.frames[at])
            view = frame["k"] if "k" in frame else patch(view, frame["d"])
        self.decoded = (at, view)
        return view


class Broadcast:
    """What one match shows its followers (see the module's doc); ``changed`` fires on every
    published step and at the end (an event replaced each time it fires: a follower waits on the
    one it saw before looking)."""

    def __init__(self, game: str, start: Any, for_creator: bool) -> None:
        self.changed = asyncio.Event()
        self.encoder = JsonFrameEncoder()
        self.feed = Feed(game, self.encoder.frames)
        self.add(start)
        self.publish()
        # FollowMatch streams the frames only to a creator who asked (CreateMatch's record_frames)
        self.creator_feed: Feed | None = self.feed if for_creator else None  # until handed over
        self.live_replay: tuple[tuple[int, bool], bytes] | None = None  # (frames, finished) -> gzipped public replay
        self.replay_lock = asyncio.Lock()

    def add(self, view: Any) -> None:
        """The public view after one more step (``Match.on_step``)."""
        self.encoder.add(view)

    def publish(self) -> None:
        """A batch of actions was applied: its last step is what watchers see next."""
        if not self.feed.marks or self.feed.marks[-1] < self.feed.last_step:
            self.feed.marks.append(self.feed.last_step)
            self.notify()

    def notify(self) -> None:
        changed, self.changed = self.changed, asyncio.Event()
        changed.set()

    def frames_for_creator(self) -> list[bytes]:
        """What a FollowMatch streams: every frame from step 0 for a match created with
        ``record_frames``, until a FollowMatch has handed them over; else none."""
        return self.creator_feed.frames if self.creator_feed is not None else []

    def handed_over(self) -> None:
        """A FollowMatch delivered the frames: the replay holds them from now on."""
        self.creator_feed = None

    def finish(self, end: referee_pb2.MatchEnd) -> None:
        """The match is over: watchers get the end event; the broadcast keeps only the last
        published step from now on (a finished match is kept for a while: ``room.py``)."""
        old = self.feed
        step = old.marks[-1]
        if step == old.last_step:  # as always but after a failure mid-batch: the last view is at hand
            old.decoded = (step - old.first, self.encoder.previous)
        last = old.event(len(old.marks) - 1)
        old.end = referee_pb2.MatchEvent(protocol_version=PV, step=step, finished=True, end=end).SerializeToString()
        self.feed = Feed(old.game, [replay_json({"k": old.view_at(step)})], step)
        self.feed.marks, self.feed.events, self.feed.end = [step], [last], old.end
        self.encoder = JsonFrameEncoder()  # the last view let go
        self.live_replay = None
        self.notify()

    async def public_replay(self, header: dict[str, Any], status: str, finished: bool) -> bytes:
        """The public replay so far (header, frames, status), gzipped off the event loop, built at
        most once per step however many clients ask."""
        async with self.replay_lock:
            frames = self.feed.frames
            key = (len(frames), finished)
            if self.live_replay is None or self.live_replay[0] != key:
                so_far = frames[:key[0]]

                def build() -> bytes:  # the frames' JSON goes in as it is
                    public = orjson.Fragment(b"[" + b",".join(so_far) + b"]")
                    return packed({"header": header, "public": public, "status": status})

                self.live_replay = (key, await asyncio.to_thread(build))
            return self.live_replay[1]
