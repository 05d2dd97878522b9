"""Bszzzz!: a trick-taking game of pests, useful insects, webs and swatters, with reaction windows."""
from .engine import GAME, BszzzzState

__all__ = ["GAME", "BszzzzState"]
