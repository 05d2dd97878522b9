"""Misty."""
from .engine import GAME

__all__ = ["GAME"]
