"""Tricky Twist (Taylor Reiner; published as Short Zoot Suit)."""
