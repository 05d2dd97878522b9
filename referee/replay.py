"""Replays: compact, safe to publish once a match is over, and checkable by re-simulation.

A replay (JSON, stored gzipped) holds:

- ``header``: format version, engine version, game, variant, resolved options, seats (bot name and
  version, seat attributes such as a colour), time control, the seed (a replay exists only once
  the match is over, so the seed is no longer secret) and ``bot_seeds``, each seat's own seed (on
  the platform an HMAC of the seed under a secret key, so it cannot be re-derived from the seed);
- ``log``: per applied action ``{"seat", "action", "think_ms", "source", ["decision"], ["fault"]}``,
  ``source`` being ``bot``, ``default`` (the fault policy played the default action; ``fault`` says
  why) or ``autopilot`` (the seat was forfeited); the order is the order the answers were applied:
  seat order within a simultaneous batch, or, where the game says arrival order matters (Bszzzz's
  ``priority=arrival``), the order the answers reached the referee, which re-simulation follows;
- ``public`` and ``views`` (one list per seat): the spectator's view and each seat's observation
  after every step (frame 0 is the start, frame i follows log entry i-1), each frame a keyframe
  ``{"k": view}`` every ``KEYFRAME_EVERY`` steps, else a delta ``{"d": delta}`` from the frame before;
- ``labels``: per log entry, the engine's human label of its action, as the acting seat was shown it
  ("offer the Rose face up and the Tulip face down"), for the acting seat's own perspective;
- ``public_labels``: per log entry, what the other seats and a spectator may read of that action
  (``GameState.public_label``: "offer the Rose face up and a tile face down"), for every other
  perspective; replays made before it was recorded have none (a viewer then shows no label there);
- ``bot_logs``: the bots' log lines, with the seat, decision and step they belong to: the step whose
  frame shows the action of their decision (a fault's traceback sits at the step of the fault);
- ``notes``: the bots' notes on their decisions (``{"seat", "decision", "step", "note"}``, the step as
  for ``bot_logs``; docs/protocol.md, "Decision notes"), each seat's its owner's to read; replays
  made before notes were recorded have none;
- ``result``: the game's result plus the seats' statuses and strikes.

Views are re-derived from the seed and the log by the engine, so ``check_replay`` can prove every
recorded view, action, label (public label) and the result.
"""
from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .faults import FaultPolicy
from .games import GameState, get_game
from .games.seeding import stream
from .match import Match, autopilot_choice

FORMAT = "parlour-replay"
FORMAT_VERSION = 1
# a viewer seeking a step patches at most this many deltas from a keyframe; more often makes long
# replays mostly keyframes (a 4-player Bszzzz! replay: 15 MB of JSON at 25, 7.7 MB at 100)
KEYFRAME_EVERY = 100


# ---------------------------------------------------------------------- deltas
def diff(old: Any, new: Any, shared: dict | None = None) -> dict | None:
    """A delta that turns ``old`` into ``new`` (None when equal): ``{"v": value}`` replaces,
    ``{"o": {key: delta}, "x": [deleted keys]}`` patches an object, ``{"l": {index: delta}}`` a
    list of the same length, ``{"a": [items]}`` appends to a list (logs of play only grow).

    ``shared``: the deltas of an object's top-level values already computed between the same two
    values (by identity), for views of one step that share parts (``GameState.views``)."""
    if old is new:
        return None
    if old == new and type(old) is type(new):
        return None
    if isinstance(old, dict) and isinstance(new, dict):
        changes = {}
        for key, value in new.items():
            if key not in old:
                changes[key] = {"v": value}
            elif old[key] is value:  # read-only views share what did not change (GameState.read_only_views)
                continue
            else:
                if shared is None:
                    sub = diff(old[key], value)
                else:
                    pair = (id(old[key]), id(value))
                    if pair not in shared:  # both values are kept too, so their ids stay theirs
                        shared[pair] = (diff(old[key], value), old[key], value)
                    sub = shared[pair][0]
                if sub is not None:
                    changes[key] = sub
        delta: dict[str, Any] = {"o": changes}
        removed = [key for key in old if key not in new]
        if removed:
            delta["x"] = removed
        return delta
    if isinstance(old, list) and isinstance(new, list) and len(new) > len(old) and new[: len(old)] == old:
        return {"a": new[len(old):]}
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        changes = {}
        for index, (a, b) in enumerate(zip(old, new)):
            sub = diff(a, b)
            if sub is not None:
                changes[str(index)] = sub
        return {"l": changes}
    return {"v": new}


def patch(old: Any, delta: dict) -> Any:
    """Apply a delta made by :func:`diff` (``old`` is not modified)."""
    if "v" in delta:
        return delta["v"]
    if "o" in delta:
        new = {key: value for key, value in old.items() if key not in delta.get("x", ())}
        for key, sub in delta["o"].items():
            new[key] = patch(old.get(key), sub)
        return new
    if "a" in delta:
        return list(old) + list(delta["a"])
    if "l" in delta:
        new = list(old)
        for index, sub in delta["l"].items():
            new[int(index)] = patch(old[int(index)], sub)
        return new
    raise ValueError(f"not a replay delta: {delta!r}")


class FrameEncoder:
    """Encodes a view per step as it comes: a keyframe every KEYFRAME_EVERY steps, else a delta."""

    def __init__(self) -> None:
        self.frames: list[dict] = []
        self.previous: Any = None

    def add(self, view: Any, shared: dict | None = None) -> None:
        """``shared``: see :func:`diff` (one dict for the views of one step)."""
        if len(self.frames) % KEYFRAME_EVERY == 0:
            self.frames.append({"k": view})
        else:
            self.frames.append({"d": diff(self.previous, view, shared) or {"o": {}}})
        self.previous = view


class JsonFrameEncoder(FrameEncoder):
    """Frames kept as their JSON from the moment they are encoded: what a host streams as play goes
    and then hands to the process that builds the replay, where bytes cross as one copy each (the
    frames as objects were pickled dict by dict: ~4 % of a Bszzzz! referee's CPU)."""

    def add(self, view: Any, shared: dict | None = None) -> None:
        super().add(view, shared)
        self.frames[-1] = replay_json(self.frames[-1])


def encode_frames(views: list[Any]) -> list[dict]:
    encoder = FrameEncoder()
    for view in views:
        encoder.add(view)
    return encoder.frames


def iter_frames(frames: list[dict]) -> Iterator[Any]:
    """The views of a list of frames, one at a time."""
    view: Any = None
    for frame in frames:
        view = frame["k"] if "k" in frame else patch(view, frame["d"])
        yield view


def decode_frames(frames: list[dict]) -> list[Any]:
    return list(iter_frames(frames))


# ---------------------------------------------------------------------- re-simulation
class ReplayError(Exception):
    pass


@dataclass
class Step:
    """One log entry, applied: ``state`` is the state after it (the same object throughout)."""

    index: int
    entry: dict[str, Any]
    label: str  # the action's label, as the seat saw it ("" unless asked for)
    public_label: str  # what the others may read of it ("" unless asked for)
    state: GameState


def same_version(recorded: Any, current: str) -> bool:
    """Versions compare as semver triples: Bszzzz's replays made before the engines agreed on
    "1.0.0"-style versions say "1", and "1" is "1.0.0"."""
    def triple(version: Any) -> tuple[str, ...]:
        parts = str(version).split(".")
        return tuple(parts + ["0"] * (3 - len(parts)))
    return recorded is not None and triple(recorded) == triple(current)


class Resimulation:
    """Re-plays a log from the header's seed, checking every entry against the fault policy
    (a default action needs a fault, an autopilot a forfeited seat, and so on)."""

    def __init__(self, header: dict[str, Any], log: list[dict[str, Any]]) -> None:
        game = get_game(header["game"])
        if not same_version(header.get("engine_version"), game.engine_version):
            raise ReplayError(
                f"replay made by {header['game']} engine {header.get('engine_version')}, "
                f"this is {game.engine_version}"
            )
        config = game.configure(header["players"], header["variant"], header["options"],
                                [s.get("attributes", {}) for s in header["seats"]])
        seed = int(header["seed"])
        self.log = log
        self.state = game.new_state(config, seed)
        self.policy = FaultPolicy(config.players)
        self.autopilots = [stream(seed, "autopilot", s) for s in range(config.players)]

    def steps(self, labels: bool = False) -> Iterator[Step]:
        state, policy = self.state, self.policy
        for index, entry in enumerate(self.log):
            seat, action, source = entry["seat"], entry["action"], entry.get("source")
            where = f"log entry {index} (seat {seat})"
            if seat not in state.to_move():
                raise ReplayError(f"{where}: seat {seat} was not to move")
            legal = state.legal_actions(seat)
            if source == "bot":
                if policy.forfeited[seat]:
                    raise ReplayError(f"{where}: a forfeited seat's bot cannot play")
                if action not in legal:
                    raise ReplayError(f"{where}: {action!r} is not legal")
            elif source == "default":
                if not entry.get("fault"):
                    raise ReplayError(f"{where}: a default action without a fault")
                if action != state.default_action(seat):
                    raise ReplayError(f"{where}: not the default action")
                policy.strike(seat, entry["fault"])
            elif source == "autopilot":
                if not policy.forfeited[seat]:
                    raise ReplayError(f"{where}: autopilot for a seat that was not forfeited")
                if action != autopilot_choice(self.autopilots[seat], legal):
                    raise ReplayError(f"{where}: not the autopilot's choice")
            else:
                raise ReplayError(f"{where}: unknown source {source!r}")
            label = state.action_label(seat, action) if labels else ""
            public_label = state.public_label(seat, action) if labels else ""
            state.apply(seat, action)
            yield Step(index, entry, label, public_label, state)

    def result(self) -> dict[str, Any]:
        """The match result with the seats' statuses, once every step has been played."""
        if not self.state.is_terminal():
            raise ReplayError("the log ends before the match does")
        result = dict(self.state.result())
        result["statuses"] = self.policy.statuses()
        result["strikes"] = list(self.policy.strikes)
        result["fault_counts"] = [dict(c) for c in self.policy.counts]
        return json.loads(json.dumps(result))


def iter_views(header: dict[str, Any], log: list[dict[str, Any]], labels: list[str] | None = None,
               public_labels: list[str] | None = None, spectator: bool = True
               ) -> Iterator[tuple[Any, list[Any]] | dict]:
    """By re-simulation: every step's public view (None without ``spectator``) and per-seat
    observations, then the result; with ``labels`` (and ``public_labels``), each step's action
    label (and public label) is appended to it on the way.

    Views are compared as the engines make them: engines speak plain JSON types only (docs/engines.md),
    so no JSON round trip is needed (it would cost more than the game itself). They are the engine's
    read-only views (shared with other steps': a caller only encodes, compares and serializes them).
    """
    sim = Resimulation(header, log)
    yield sim.state.read_only_views(spectator)
    for step in sim.steps(labels=labels is not None or public_labels is not None):
        if labels is not None:
            labels.append(step.label)
        if public_labels is not None:
            public_labels.append(step.public_label)
        yield step.state.read_only_views(spectator)
    yield sim.result()


def record_views(header: dict[str, Any], log: list[dict[str, Any]], public_frames: list[dict] | None = None
                 ) -> tuple[list, list[list], dict, list[str], list[str]]:
    """The encoded public and per-seat frames, the result, the actions' labels and public labels.
    ``public_frames``: the public frames a host encoded as the match went (one per step, from the
    same engine): they are not derived a second time."""
    spectator = public_frames is None or len(public_frames) != len(log) + 1
    public = FrameEncoder()
    seats = [FrameEncoder() for _ in range(header["players"])]
    result: dict = {}
    labels: list[str] = []
    public_labels: list[str] = []
    for item in iter_views(header, log, labels, public_labels, spectator):
        if isinstance(item, dict):
            result = item
            break
        view, observations = item
        if spectator:
            public.add(view)
        shared: dict = {}  # the seats' views share parts: each part's delta is computed once
        for encoder, observation in zip(seats, observations):
            encoder.add(observation, shared)
    return public.frames if spectator else public_frames, [s.frames for s in seats], result, labels, public_labels


# ---------------------------------------------------------------------- build, store, check
def seat_entries(names: list[str], config_seats: tuple[dict, ...], versions: list[str] | None = None) -> list[dict]:
    return [
        {"bot": name, "version": (versions or [""] * len(names))[i], "attributes": dict(config_seats[i])}
        for i, name in enumerate(names)
    ]


def replay_parts(match: Match, versions: list[str] | None = None
                 ) -> tuple[dict, list[dict], list[dict], dict, list[dict]]:
    """What a finished match's replay is made from, as plain data (picklable: a host may build the
    replay in another process): the header, the log, the bots' log lines, the expected result and
    the bots' notes.
    The log is the match's own entries (a host pickles them as they are: copying a Bszzzz! log of
    ~2,800 entries cost its referee more than sending it); ``build_replay`` copies them."""
    if not match.finished:
        raise ReplayError("a replay is published only once the match is over")
    header = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "engine_version": match.game.engine_version,
        "game": match.config.game,
        "variant": match.config.variant,
        "players": match.config.players,
        "options": dict(match.config.options),
        "seats": seat_entries(match.bot_names, match.config.seats, versions),
        "time_control": match.time_control.to_json(),
        "seed": match.seed,
        "bot_seeds": list(match.bot_seeds),  # each seat's own seed (keyed on the platform)
    }
    frame_of = {(e["seat"], e["decision"]): i + 1 for i, e in enumerate(match.log) if "decision" in e}
    return (header, match.log, at_decision_steps(match.bot_logs, frame_of), json.loads(json.dumps(match.result())),
            at_decision_steps(match.notes, frame_of))


def bot_log_steps(match: Match) -> list[dict]:
    """The bots' log lines, each at the frame that follows its decision's action."""
    frame_of = {(e["seat"], e["decision"]): i + 1 for i, e in enumerate(match.log) if "decision" in e}
    return at_decision_steps(match.bot_logs, frame_of)


def at_decision_steps(entries: list[dict], frame_of: dict[tuple[int, int], int]) -> list[dict]:
    """Log lines or notes, each at the frame that follows its decision's action (frame i follows
    log entry i-1): a line may reach the referee before or after the answer is applied, so the
    step it was received at is not the step it belongs to."""
    return [dict(entry, step=frame_of.get((entry["seat"], entry["decision"]), entry["step"])) for entry in entries]


def assemble_replay(header: dict, log: list[dict], bot_logs: list[dict], expected: dict,
                    public_frames: list[dict] | None = None, notes: list[dict] | None = None) -> dict[str, Any]:
    """The replay, every view re-derived by the engine from the seed and the log (the public ones
    taken from ``public_frames`` where the host kept them); its result must be the match's."""
    public, seats, result, labels, public_labels = record_views(header, log, public_frames)
    if result != expected:
        raise ReplayError("re-simulating the match did not give its result")
    return {
        "header": header,
        "log": log,
        "public": public,
        "views": seats,
        "labels": labels,
        "public_labels": public_labels,
        "bot_logs": bot_logs,
        "notes": notes or [],
        "result": result,
    }


def packed_replay(header: dict, log: list[dict], bot_logs: list[dict], expected: dict,
                  public_frames: list[dict] | list[bytes] | None = None, notes: list[dict] | None = None) -> bytes:
    """The replay, gzipped: what a referee stores and hands over (run in a process of its own).
    ``public_frames`` may be the frames' JSON (``JsonFrameEncoder``): written into the replay's as is."""
    replay = assemble_replay(header, log, bot_logs, expected, public_frames, notes)
    public = replay["public"]
    if public is public_frames and public and isinstance(public[0], bytes):
        replay["public"] = orjson.Fragment(b"[" + b",".join(public) + b"]")
    return packed(replay)


def replay_json(replay: Any) -> bytes:
    """A replay (or a part of one: a frame) as compact JSON (UTF-8). orjson: a 4-player Bszzzz!
    replay's 8 MB in a third of the standard library's time (the largest part of its packing after
    the re-simulation)."""
    return orjson.dumps(replay, option=orjson.OPT_NON_STR_KEYS)


def packed(replay: dict[str, Any]) -> bytes:
    """A replay as the platform stores and sends it: its JSON, gzipped."""
    return gzipped(replay_json(replay))


# zlib's default level: a 4-player Bszzzz! replay (8.6 MB of JSON) compresses in half the time of
# level 9 for 8 % more bytes (331 -> 357 KB), and the level-9 time was a tenth of its replay's cost
GZIP_LEVEL = 6


def gzipped(data: bytes) -> bytes:
    """A replay's bytes as the platform stores and sends them (no timestamp: the same replay, the
    same bytes)."""
    return gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)


def build_replay(match: Match, versions: list[str] | None = None) -> dict[str, Any]:
    """The replay of a finished match (its own copy of the log: a caller may change it)."""
    header, log, bot_logs, expected, notes = replay_parts(match, versions)
    log = [{**entry, "action": dict(entry["action"])} for entry in log]  # actions are flat JSON
    return assemble_replay(header, log, bot_logs, expected, notes=notes)


def write_replay(path: str | Path, replay: dict[str, Any]) -> None:
    Path(path).write_bytes(packed(replay))


def read_replay(path: str | Path) -> dict[str, Any]:
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    replay = json.loads(raw)
    if replay.get("header", {}).get("format") != FORMAT:
        raise ReplayError(f"{path} is not a {FORMAT} file")
    return replay


def check_replay(replay: dict[str, Any]) -> list[str]:
    """Problems found by re-simulating from the seed and the log (an empty list: the replay holds)."""
    header, log = replay["header"], replay["log"]
    players = header["players"]
    if len(replay["views"]) != players:
        return [f"{len(replay['views'])} seats' views for {players} players"]
    recorded_public = iter_frames(replay["public"])
    recorded_seats = [iter_frames(frames) for frames in replay["views"]]
    problems: list[str] = []
    differs: dict[str, int] = {}
    labels: list[str] = []
    public_labels: list[str] = []
    step = 0
    try:
        for item in iter_views(header, log, labels, public_labels):
            if isinstance(item, dict):
                if replay["result"] != item:
                    problems.append(f"the result differs: recorded {replay['result']}, re-simulated {item}")
                break
            public, observations = item
            if "public" not in differs and next(recorded_public, None) != public:
                differs["public"] = step
            for seat, observation in enumerate(observations):
                if seat not in differs and next(recorded_seats[seat], None) != observation:
                    differs[seat] = step
            step += 1
    except Exception as exc:  # noqa: BLE001 - an edited log can break the re-simulation anywhere
        return [f"re-simulation failed: {exc}"]
    if next(recorded_public, None) is not None:
        differs.setdefault("public", step)
    if "public" in differs:
        problems.insert(0, f"public views differ from step {differs['public']}")
    for seat in range(players):
        if seat in differs or next(recorded_seats[seat], None) is not None:
            problems.append(f"seat {seat}'s views differ from step {differs.get(seat, step)}")
    # replays made before labels (or public labels) were recorded have none
    for key, what, derived in (("labels", "action labels", labels),
                               ("public_labels", "public action labels", public_labels)):
        recorded = replay.get(key)
        if recorded is not None and recorded != derived:
            first = next((i for i, (a, b) in enumerate(zip(recorded, derived)) if a != b),
                         min(len(recorded), len(derived)))
            problems.append(f"the {what} differ from log entry {first}")
    return problems


