"""The Parlour website (and the Django project's settings, shared with the arena app)."""
