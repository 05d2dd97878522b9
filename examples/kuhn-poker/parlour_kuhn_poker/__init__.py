"""Kuhn poker (Harold W. Kuhn, 1950): a Parlour game package installed from outside Parlour.

Parlour finds it by its entry point (``pyproject.toml``, group ``parlour.games``); everything the
game is lives in this folder: ``engine.py`` and ``data.py``, ``policy.py`` (the greedy policy),
``search.py`` (the search hooks), ``viewer/`` (its replay renderer and styles), ``rules.md``.
"""
from .engine import GAME

__all__ = ["GAME"]
