"""Tussie Mussie (Elizabeth Hargrave; solo variant by Mike Mullins)."""
