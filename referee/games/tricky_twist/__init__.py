"""Tricky Twist (Taylor Reiner; published as Short Zoot Suit)."""
from .engine import GAME

__all__ = ["GAME"]
