"""Parlour's Python SDK: write a bot once, play it locally or through a referee."""
from .bot import Bot, RandomBot
from .decision import Decision

__all__ = ["Bot", "RandomBot", "Decision"]
