"""Checks every engine must pass, shared by the per-game test modules.

Each game's tests call these with its own configurations; the checks speak only through the
interface of ``referee.games.interface``.
"""
from __future__ import annotations

import json
import random
from collections.abc import Callable

from referee.games import GameDescription, GameState, IllegalActionError, MatchConfig

Policy = Callable[[GameState, int, random.Random], dict]


def random_policy(state: GameState, seat: int, rng: random.Random) -> dict:
    return rng.choice(state.legal_actions(seat))


def first_policy(state: GameState, seat: int, rng: random.Random) -> dict:
    return state.legal_actions(seat)[0]


def default_policy(state: GameState, seat: int, rng: random.Random) -> dict:
    return state.default_action(seat)


def step(state: GameState, rng: random.Random, policy: Policy = random_policy) -> None:
    """Every seat to move decides once (simultaneous choices in a random arrival order)."""
    seats = state.to_move()
    assert seats, "a non-terminal state must ask someone"
    seats = list(seats)
    rng.shuffle(seats)
    for seat in seats:
        if seat in state.to_move():
            state.apply(seat, policy(state, seat, rng))


def play_out(
    state: GameState, rng: random.Random, policy: Policy = random_policy, max_steps: int = 100_000
) -> GameState:
    for _ in range(max_steps):
        if state.is_terminal():
            return state
        step(state, rng, policy)
    raise AssertionError(f"no end after {max_steps} steps")


def check_result(state: GameState) -> dict:
    """The result has the shape every game shares (docs/engines.md), ranks agreeing with the order of
    the scores."""
    result = state.result()
    n = state.config.players
    assert len(result["scores"]) == n and len(result["ranks"]) == n
    if n == 1:  # a solo seat wins (rank 1) or loses (rank 2) against an automaton
        assert result["ranks"][0] in (1, 2)
        json.dumps(result)
        return result
    assert all(1 <= r <= n for r in result["ranks"])
    assert min(result["ranks"]) == 1
    for a in range(n):
        for b in range(n):
            if result["scores"][a] > result["scores"][b]:
                assert result["ranks"][a] <= result["ranks"][b], result
    # tied ranks follow the 1, 1, 3 convention
    for r in set(result["ranks"]):
        better = sum(1 for x in result["ranks"] if x < r)
        assert r == better + 1, result
    json.dumps(result)
    return result


def check_random_games(
    game: GameDescription, config: MatchConfig, games: int, policy: Policy = random_policy, seed: int = 0
) -> list[dict]:
    """``games`` complete games end with valid results; actions are legal and JSON all the way."""
    results = []
    for i in range(games):
        rng = random.Random(f"{seed}-{i}")
        state = game.new_state(config, seed * 100_003 + i)
        play_out(state, rng, policy)
        results.append(check_result(state))
    return results


def seat_view(state: GameState, seat: int) -> str:
    """Everything a seat receives, as one canonical string: whether it is asked, its
    observation, its legal actions and their labels."""
    asked = seat in state.to_move()
    actions = state.legal_actions(seat) if asked else []
    labels = [state.action_label(seat, a) for a in actions]
    return json.dumps(
        {"asked": asked, "obs": state.observation(seat), "actions": actions, "labels": labels},
        sort_keys=True,
    )


def check_hiding_at(state: GameState, rng: random.Random, samples: int = 3) -> int:
    """For every seat, resampled states give it the same view; returns how many resamples
    changed the full position (so a caller can prove the check is not vacuous)."""
    changed = 0

    def cards(s: GameState) -> str:  # the position less its seed (always redrawn)
        return json.dumps({**s.to_position(), "seed": None}, sort_keys=True)

    position = json.dumps(state.to_position(), sort_keys=True)
    hidden = cards(state)
    for seat in range(state.config.players):
        view = seat_view(state, seat)
        for _ in range(samples):
            other = state.resample_hidden(seat, rng)
            assert seat_view(other, seat) == view, f"seat {seat} can tell a resampled state apart"
            if cards(other) != hidden:
                changed += 1
        assert json.dumps(state.to_position(), sort_keys=True) == position, "resample mutated"
    return changed


def check_public_hidden(state: GameState, rng: random.Random, samples: int = 2) -> None:
    """The spectator knows less than any seat: resampling what any one seat cannot know never
    changes the public view."""
    public = json.dumps(state.public_view(), sort_keys=True)
    for seat in range(state.config.players):
        for _ in range(samples):
            other = state.resample_hidden(seat, rng)
            assert json.dumps(other.public_view(), sort_keys=True) == public, (
                f"the public view shows something seat {seat} cannot know")


Label = Callable[[GameState, int, dict], str]


def public_label(state: GameState, seat: int, action: dict) -> str:
    return state.public_label(seat, action)


def canonical(data: object) -> str:
    return json.dumps(data, sort_keys=True)


Outcome = tuple[dict, str, GameState, str]  # action, public view after it (JSON), state after, label


def label_outcomes(state: GameState, seat: int, label: Label) -> list[Outcome]:
    """For each of ``seat``'s legal actions: the action, the spectator's view after it (canonical
    JSON), the state after it and the action's label."""
    outcomes = []
    for action in state.legal_actions(seat):
        after = state.clone()
        after.apply(seat, action)
        outcomes.append((action, canonical(after.public_view()), after, label(state, seat, action)))
    return outcomes


def every_observation(state: GameState) -> str:
    return canonical([state.observation(s) for s in range(state.config.players)])


def check_labels_within(outcomes: list[Outcome], seat: int) -> None:
    """Two actions the spectator cannot tell apart afterwards, but some seat can (the acting one,
    say: its sealed pick), carry the same public label: it may not tell what only they know. (When
    no view at all tells them apart — a round ended on the same step — nothing is hidden.)"""
    groups: dict[str, list[tuple[GameState, str]]] = {}
    for _, public, after, text in outcomes:
        for after_before, text_before in groups.setdefault(public, []):
            assert text == text_before or every_observation(after) == every_observation(after_before), (
                f"seat {seat}: {text!r} and {text_before!r} label actions a spectator cannot tell apart")
        groups[public].append((after, text))


def check_labels_across(mine: list[Outcome], theirs: list[Outcome], seat: int) -> int:
    """The same action in two states the spectator cannot tell apart, leaving it the same view,
    carries the same label (an offer's face-down tile differs, say). Returns the pairs compared."""
    theirs_by_action = {canonical(a): (public, text) for a, public, _, text in theirs}
    compared = 0
    for action, public, _, text in mine:
        other = theirs_by_action.get(canonical(action))
        if other is not None and other[0] == public:
            assert other[1] == text, (
                f"seat {seat}'s public label {text!r} becomes {other[1]!r} when only what the spectator "
                f"cannot know changes")
            compared += 1
    return compared


def check_same_public_labels(state: GameState, other: GameState, seat: int, label: Label = public_label) -> int:
    """``state`` and ``other`` are states a spectator cannot tell apart (a hand-built pair):
    ``seat``'s actions carry public labels that cannot tell them apart either."""
    assert canonical(state.public_view()) == canonical(other.public_view())
    mine, theirs = label_outcomes(state, seat, label), label_outcomes(other, seat, label)
    check_labels_within(mine, seat)
    check_labels_within(theirs, seat)
    return check_labels_across(mine, theirs, seat)


def check_public_labels_at(state: GameState, rng: random.Random, samples: int = 2,
                           label: Label = public_label) -> int:
    """A public label names nothing the action did not show everyone: the acting seat's actions
    that the spectator cannot tell apart afterwards share their label (``check_labels_within``),
    and an action's label is the same in states the spectator cannot tell apart
    (``check_labels_across``) — resampled for each seat other than the acting one, then half the
    time once more for any seat (the spectator knows less than every seat). Returns how many
    actions of resampled states were compared (to prove the check not vacuous)."""
    compared = 0
    players = state.config.players
    for seat in list(state.to_move()):
        mine = label_outcomes(state, seat, label)
        check_labels_within(mine, seat)
        for other_seat in range(players):
            if other_seat == seat:
                continue
            for _ in range(samples):
                other = state.resample_hidden(other_seat, rng)
                if rng.random() < 0.5:
                    other = other.resample_hidden(rng.randrange(players), rng)
                if seat in other.to_move():
                    compared += check_labels_across(mine, label_outcomes(other, seat, label), seat)
    return compared


def check_pending_hidden(state: GameState, rng: random.Random) -> None:
    """Where several seats decide at once, one seat's submission changes nothing the others see."""
    seats = state.to_move()
    if len(seats) < 2:
        return
    first, others = seats[0], seats[1:]
    before = {s: seat_view(state, s) for s in others}
    state.apply(first, rng.choice(state.legal_actions(first)))
    for s in others:
        assert seat_view(state, s) == before[s], f"seat {s} sees seat {first}'s sealed choice"


def check_replayable(game: GameDescription, config: MatchConfig, seed: int) -> None:
    """Same seed and same actions give the same states; positions round-trip through JSON."""
    rng = random.Random(seed)
    a = game.new_state(config, seed)
    b = game.new_state(config, seed)
    while not a.is_terminal():
        assert a.to_move() == b.to_move()
        for seat in list(a.to_move()):
            if seat not in a.to_move():
                continue
            action = rng.choice(a.legal_actions(seat))
            a.apply(seat, json.loads(json.dumps(action)))
            b.apply(seat, action)
        pos = a.to_position()
        loaded = game.from_position(json.loads(json.dumps(pos)))
        assert loaded.to_position() == pos
        for s in range(config.players):
            assert seat_view(loaded, s) == seat_view(a, s)
    assert a.result() == b.result()


def check_illegal_refused(state: GameState) -> None:
    seat = state.to_move()[0]
    try:
        state.apply(seat, {"type": "no-such-action"})
    except IllegalActionError:
        return
    raise AssertionError("an illegal action was accepted")
