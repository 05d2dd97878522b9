"""The demo: a small local tournament of the house bots of every game, as a standings table."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from referee.games import GAMES
from referee.games.registry import package

from .bot import RandomBot
from .greedy import greedy_bot_class
from .local import play_match


def table_size(game_id: str) -> int:
    counts = GAMES[game_id].variant(None).player_counts
    return 4 if 4 in counts else max(counts)


def run_local_tournament(matches: int, seed: int) -> None:
    """Per game: the greedy bot (where the game has one) and random bots at one table, seats
    rotating; points per match are (k - rank) / (k - 1) at a table of k."""
    console = Console()
    for game_id, game in sorted(GAMES.items()):
        k = table_size(game_id)
        lead = "greedy" if "greedy" in package(game_id).house_bots else "random 0"
        entries = [lead] + [f"random {i}" for i in range(1, k)]
        stats = {name: {"points": 0.0, "wins": 0, "score": 0} for name in entries}
        for i in range(matches):
            order = [entries[(s + i) % k] for s in range(k)]
            bots = [greedy_bot_class(game_id)() if name == "greedy" else RandomBot() for name in order]
            outcome = play_match(game_id, bots, seed=seed + i, bot_names=order)
            for seat, name in enumerate(order):
                rank = outcome.result["ranks"][seat]
                stats[name]["points"] += (k - rank) / (k - 1)
                stats[name]["wins"] += rank == 1
                stats[name]["score"] += outcome.result["scores"][seat]
        table = Table(title=f"{game.name}: {matches} matches at tables of {k}")
        for column in ("rank", "bot", "points", "wins", "mean score"):
            table.add_column(column, justify="left" if column == "bot" else "right")
        ordered = sorted(entries, key=lambda n: -stats[n]["points"])
        for place, name in enumerate(ordered, 1):
            s = stats[name]
            table.add_row(str(place), name, f"{s['points']:.1f}", str(s["wins"]), f"{s['score'] / matches:.1f}")
        console.print(table)
