"""Is A stronger than B? A sequential comparison on duplicate deals (docs/compare.md).

A and B play pairs of games: the two games of a pair share a seed, so every seat is dealt the same
cards in both, and A and B swap seats between them, so neither gets the better hand twice. A's
score in a game is its head-to-head result against B (1 if it ranks above B, 1/2 level, 0 below; a
forfeited seat ranks last). With 3+ seats the other seats hold the fixed field, ``FIELD`` (the
house greedy bot), in the same seats in both games of a pair; the seats A and B take go round all
pairs of seats as the comparison goes on.

Games are played in batches through an injected player, ``play_batch(specs) -> results`` (see
``PlayBatch``), and after each batch the pentanomial of pair scores goes through the two-sided
GSPRT of ``arena.competitions.stats``; the comparison stops at its verdict or at ``max_games``.

``LocalPlayer`` plays a batch in this process with the SDK's local match host; it serves the CLI
(``python -m arena compare``) and the tests. The arena's player plays each spec as a match on the
one road.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Callable, Mapping, Sequence
import dataclasses
from dataclasses import dataclass
from typing import Any

from referee.games import get_game

from .stats import DuplicateSprt, PairedEstimate, Verdict, head_to_head, paired_estimate

FIELD = "greedy"  # who fills the seats beyond A and B in a game of 3+ seats
DEFAULT_MAX_GAMES = 2000
DEFAULT_BATCH_PAIRS = 8  # pairs (two games each) per batch: the SPRT looks after every batch
DEFAULT_ELO0, DEFAULT_ELO1 = 0.0, 30.0
DEFAULT_ALPHA = DEFAULT_BETA = 0.05


@dataclass(frozen=True)
class GameSpec:
    """One game to play: ``bots[i]`` (a bot spec as given to ``run``: A's, B's, or the field's)
    sits in seat i. A sits at ``a_seat`` and B at ``b_seat``; ``seed`` is the match seed, shared by
    the two games of a pair (a player that derives its own seeds must map equal seeds to equal
    seeds, or the deals are no longer duplicated)."""

    game: str
    variant: str
    options: Mapping[str, Any]
    seed: int
    bots: tuple[str, ...]
    a_seat: int
    b_seat: int


# The injected player: plays every spec of a batch (in any order, in parallel if it likes) and
# returns one result per spec, in the specs' order. A result is the engine's result mapping: it must
# hold "ranks" (per seat, 1-based, ties shared) and may hold "statuses" (per seat; "forfeited"
# ranks the seat last). Raising stops the comparison with the error.
PlayBatch = Callable[[Sequence[GameSpec]], Sequence[Mapping[str, Any]]]


@dataclass
class Comparison:
    """A comparison's settings and its figures so far (``verdict`` None while it runs)."""

    a: str
    b: str
    game: str
    variant: str
    options: dict[str, Any]
    players: int
    seed: int
    max_games: int
    elo0: float = DEFAULT_ELO0
    elo1: float = DEFAULT_ELO1
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    field: str = FIELD
    pentanomial: list[int] = dataclasses.field(default_factory=lambda: [0] * 5)  # pairs scoring 0, ¼, ½, ¾, 1 for A
    wins: int = 0
    draws: int = 0
    losses: int = 0
    verdict: Verdict | None = None
    stopped: str | None = None  # "sprt" (a bound was crossed) or "cap" (max_games reached)

    def __post_init__(self) -> None:
        self.sprt = DuplicateSprt(self.elo0, self.elo1, self.alpha, self.beta)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    def estimate(self) -> PairedEstimate:
        return paired_estimate(self.pentanomial)

    def deal(self, pair: int) -> tuple[GameSpec, GameSpec]:
        """The two games of pair ``pair``: the same seed, A and B in swapped seats, the field
        unmoved. The seats A and B share go round every pair of seats."""
        i, j = list(itertools.combinations(range(self.players), 2))[pair % math.comb(self.players, 2)]
        games = []
        for a_seat, b_seat in ((i, j), (j, i)):
            bots = [self.field] * self.players
            bots[a_seat], bots[b_seat] = self.a, self.b
            games.append(GameSpec(self.game, self.variant, self.options, self.seed + pair, tuple(bots),
                                  a_seat, b_seat))
        return games[0], games[1]

    def add_pair(self, first: Mapping[str, Any], second: Mapping[str, Any], specs: tuple[GameSpec, GameSpec]) -> None:
        pair_score = 0.0
        for result, spec in zip((first, second), specs):
            score = head_to_head(result["ranks"], result.get("statuses"), spec.a_seat, spec.b_seat)
            self.wins += score == 1.0
            self.draws += score == 0.5
            self.losses += score == 0.0
            pair_score += score
        self.pentanomial[round(pair_score * 2)] += 1

    def to_json(self) -> dict[str, Any]:
        estimate = self.estimate()
        return {
            "a": self.a, "b": self.b, "game": self.game, "variant": self.variant, "options": self.options,
            "players": self.players, "field": self.field if self.players > 2 else None, "seed": self.seed,
            "games": self.games, "pairs": self.pairs, "wins": self.wins, "draws": self.draws,
            "losses": self.losses, "pentanomial": list(self.pentanomial),
            "score": {"value": _finite(estimate.score), "low": _finite(estimate.score_low),
                      "high": _finite(estimate.score_high)},
            "elo": {"value": _finite(estimate.elo), "low": _finite(estimate.elo_low),
                    "high": _finite(estimate.elo_high)},
            "llr": {"A": round(self.sprt.llrs["A"], 4), "B": round(self.sprt.llrs["B"], 4)},
            "bounds": {"lower": round(self.sprt.lower, 4), "upper": round(self.sprt.upper, 4)},
            "elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta,
            "max_games": self.max_games, "verdict": self.verdict, "stopped": self.stopped,
        }


def _finite(value: float) -> float | None:
    """JSON has no infinity: an Elo of ±inf (A won or lost every game) is written as null."""
    return round(value, 4) + 0.0 if math.isfinite(value) else None  # + 0.0: no "-0.0"


def run(a: str, b: str, game: str, play_batch: PlayBatch, *, variant: str | None = None,
        options: Mapping[str, Any] | None = None, players: int | None = None, field: str = FIELD,
        max_games: int = DEFAULT_MAX_GAMES, elo0: float = DEFAULT_ELO0, elo1: float = DEFAULT_ELO1,
        alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA, seed: int | None = None,
        batch_pairs: int = DEFAULT_BATCH_PAIRS,
        on_progress: Callable[[Comparison], None] | None = None) -> Comparison:
    """Compare A with B until the SPRT's verdict or ``max_games`` (rounded down to whole pairs).

    Raises ``ValueError`` (``ConfigError`` among them) on bad settings before any game is played.
    """
    comparison = prepare(a, b, game, variant=variant, options=options, players=players, field=field,
                         max_games=max_games, elo0=elo0, elo1=elo1, alpha=alpha, beta=beta, seed=seed)
    return play(comparison, play_batch, batch_pairs=batch_pairs, on_progress=on_progress)


def prepare(a: str, b: str, game: str, *, variant: str | None = None, options: Mapping[str, Any] | None = None,
            players: int | None = None, field: str = FIELD, max_games: int = DEFAULT_MAX_GAMES,
            elo0: float = DEFAULT_ELO0, elo1: float = DEFAULT_ELO1, alpha: float = DEFAULT_ALPHA,
            beta: float = DEFAULT_BETA, seed: int | None = None) -> Comparison:
    """A comparison checked and resolved (variant, options, player count, seed), not yet played."""
    if a == b:
        raise ValueError(f"A and B are the same entrant {a!r}: name a second one {a}#2")
    if max_games < 2:
        raise ValueError("max_games must be at least 2 (one pair of games)")
    description = get_game(game)
    players = players or min(description.variant(variant).player_counts)
    config = description.configure(players, variant, dict(options or {}))
    if seed is None:
        from referee.games.seeding import draw_seed

        seed = draw_seed() % 1_000_000_000
    return Comparison(a=a, b=b, game=config.game, variant=config.variant, options=dict(config.options),
                      players=players, seed=seed, max_games=max_games, elo0=elo0, elo1=elo1, alpha=alpha,
                      beta=beta, field=field)


def play(comparison: Comparison, play_batch: PlayBatch, *, batch_pairs: int = DEFAULT_BATCH_PAIRS,
         on_progress: Callable[[Comparison], None] | None = None) -> Comparison:
    """Play batches of pairs through ``play_batch`` until the verdict or the cap."""
    if batch_pairs < 1:
        raise ValueError("batch_pairs must be at least 1")
    cap = comparison.max_games // 2
    while comparison.verdict is None:
        count = min(batch_pairs, cap - comparison.pairs)
        if count <= 0:
            comparison.verdict, comparison.stopped = "no difference shown", "cap"
            break
        pairs = [comparison.deal(p) for p in range(comparison.pairs, comparison.pairs + count)]
        specs = [spec for pair in pairs for spec in pair]
        results = list(play_batch(specs))
        if len(results) != len(specs):
            raise RuntimeError(f"the player returned {len(results)} results for {len(specs)} games")
        for k, pair in enumerate(pairs):
            comparison.add_pair(results[2 * k], results[2 * k + 1], pair)
        comparison.verdict = comparison.sprt.update(comparison.pentanomial)
        if comparison.verdict is not None:
            comparison.stopped = "sprt"
        if on_progress:
            on_progress(comparison)
    return comparison


# ---------------------------------------------------------------------- local play
class LocalPlayer:
    """A ``PlayBatch`` that plays each game in this process with the SDK's local match host. Bot
    specs are the SDK's (``random``, ``greedy``, ``path/to/bot.py:ClassName``); ``NAME#N`` is
    another entrant of the house bot NAME."""

    def __init__(self) -> None:
        self._specs: dict[tuple[str, str], Any] = {}

    def bot_spec(self, name: str, game: str):
        """The SDK's spec of a bot name (raises ``BotSpecError`` for an unknown one)."""
        from bots_sdk.loading import is_file_bot, parse_bot_spec

        key = (name, game)
        if key not in self._specs:
            self._specs[key] = parse_bot_spec(name if is_file_bot(name) else name.split("#", 1)[0], game)
        return self._specs[key]

    def __call__(self, specs: Sequence[GameSpec]) -> list[Mapping[str, Any]]:
        from bots_sdk.local import play_match

        results = []
        for spec in specs:
            bots = [self.bot_spec(name, spec.game).make() for name in spec.bots]
            outcome = play_match(spec.game, bots, variant=spec.variant, options=dict(spec.options), seed=spec.seed,
                                 bot_names=list(spec.bots))
            results.append(outcome.result)
        return results


# ---------------------------------------------------------------------- command line
def add_parser(commands: argparse._SubParsersAction) -> None:
    """``python -m arena compare A B --game G ...``"""
    compare = commands.add_parser("compare", help="is A stronger than B? (a sequential test on duplicate deals)")
    compare.add_argument("a", metavar="A", help="random, greedy, NAME#2, or path/to/bot.py:ClassName")
    compare.add_argument("b", metavar="B", help="the same kinds as A")
    compare.add_argument("--game", required=True)
    compare.add_argument("--variant")
    compare.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    compare.add_argument("--players", type=int, help="seats per game (default: the fewest the variant allows); "
                                                     f"seats beyond A and B hold {FIELD}")
    compare.add_argument("--max-games", type=int, default=DEFAULT_MAX_GAMES)
    compare.add_argument("--elo0", type=float, default=DEFAULT_ELO0, help="H0: the difference is at most this")
    compare.add_argument("--elo1", type=float, default=DEFAULT_ELO1, help="H1: the difference is at least this")
    compare.add_argument("--alpha", type=float, default=DEFAULT_ALPHA,
                         help="the chance of naming a stronger bot when they are equal")
    compare.add_argument("--beta", type=float, default=DEFAULT_BETA,
                         help="the chance of missing a difference of elo1")
    compare.add_argument("--seed", type=int, help="the first pair's seed (pair i uses seed+i)")
    compare.add_argument("--json", action="store_true", help="print the figures as one JSON document")


def cmd_compare(args: argparse.Namespace) -> int:
    """Run the comparison in this process (``LocalPlayer``) and print its figures."""
    from bots_sdk.loading import BotSpecError

    player = LocalPlayer()
    try:
        options = dict(_option(pair) for pair in args.option)
        comparison = prepare(args.a, args.b, args.game, variant=args.variant, options=options,
                             players=args.players, max_games=args.max_games, elo0=args.elo0, elo1=args.elo1,
                             alpha=args.alpha, beta=args.beta, seed=args.seed)
        for name in {comparison.a, comparison.b, comparison.field if comparison.players > 2 else comparison.a}:
            player.bot_spec(name, comparison.game)
    except (ValueError, BotSpecError) as exc:  # ConfigError is a ValueError
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with progress_bar(comparison) as update:
        play(comparison, player, on_progress=update)
    if args.json:
        print(json.dumps(comparison.to_json()))
    else:
        print(report(comparison))
    return 0


def _option(pair: str) -> tuple[str, str]:
    key, sep, value = pair.partition("=")
    if not sep or not key:
        raise ValueError(f"--option takes KEY=VALUE, not {pair!r}")
    return key, value


class progress_bar:
    """A rich progress bar on a terminal (games against the cap, and both LLRs); nothing elsewhere."""

    def __init__(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.enabled = sys.stderr.isatty()

    def __enter__(self) -> Callable[[Comparison], None]:
        if not self.enabled:
            return lambda comparison: None
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("games"), transient=True)
        self.bar.start()
        task = self.bar.add_task("LLR A +0.00 B +0.00", total=self.comparison.max_games)

        def update(comparison: Comparison) -> None:
            llrs = comparison.sprt.llrs
            self.bar.update(task, completed=comparison.games,
                            description=f"LLR A {llrs['A']:+.2f} B {llrs['B']:+.2f} "
                                        f"(bounds {comparison.sprt.lower:+.2f}, {comparison.sprt.upper:+.2f})")
        return update

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.bar.stop()


def report(comparison: Comparison) -> str:
    """The figures as a person reads them."""
    c, e = comparison, comparison.estimate()
    seats = f"{c.players} seats" + (f", the other seats {c.field}" if c.players > 2 else "")
    verdict = {"A": f"A ({c.a} is stronger)", "B": f"B ({c.b} is stronger)"}.get(c.verdict, c.verdict)
    how = "the test reached a bound" if c.stopped == "sprt" else f"the cap of {c.max_games} games was reached"
    return "\n".join([
        f"{c.a} (A) vs {c.b} (B): {c.game} ({c.variant}), {seats}; duplicate deals from seed {c.seed}",
        f"games {c.games} ({c.pairs} pairs): A won {c.wins}, drew {c.draws}, lost {c.losses}",
        f"pairs scoring 0, ¼, ½, ¾, 1 for A: {' '.join(str(n) for n in c.pentanomial)}",
        f"score of A {e.score:.3f}, 95 % interval [{e.score_low:.3f}, {e.score_high:.3f}]",
        f"Elo A − B {_elo(e.elo)}, 95 % interval [{_elo(e.elo_low)}, {_elo(e.elo_high)}]",
        f"LLR A {c.sprt.llrs['A']:+.3f}, B {c.sprt.llrs['B']:+.3f}; bounds [{c.sprt.lower:.3f}, {c.sprt.upper:.3f}] "
        f"(elo0 {c.elo0:g}, elo1 {c.elo1:g}, alpha {c.alpha:g}, beta {c.beta:g})",
        f"verdict: {verdict} — {how}",
    ])


def _elo(value: float) -> str:
    return f"{value + 0.0:+.1f}" if math.isfinite(value) else ("+∞" if value > 0 else "−∞")
