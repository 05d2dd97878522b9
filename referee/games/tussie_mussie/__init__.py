"""Tussie Mussie (Elizabeth Hargrave; solo variant by Mike Mullins)."""
from .engine import GAME

__all__ = ["GAME"]
