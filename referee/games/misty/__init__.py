"""Misty."""
