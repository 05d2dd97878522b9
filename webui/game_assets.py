"""The static files finder of the games' viewer assets: each game package's ``viewer/`` folder
(its ``renderer.js`` and ``renderer.css``) served as ``games/<game id>/``. The folders are asked
of the arena (``arena.games.asset_folders``): the web serves a game's files without importing its
code. ``collectstatic`` and WhiteNoise list them like any other static file."""
from __future__ import annotations

from django.contrib.staticfiles.finders import FileSystemFinder
from django.core.files.storage import FileSystemStorage

from arena.games import asset_folders


class GameAssetsFinder(FileSystemFinder):
    """``FileSystemFinder``'s lookups (a prefix per folder, paths kept inside it) over the games'
    asset folders instead of ``STATICFILES_DIRS``."""

    def __init__(self, app_names=None, *args, **kwargs) -> None:  # the finder API's arguments, unused here
        self.locations = [(f"games/{game_id}", str(folder)) for game_id, folder in asset_folders().items()]
        self.storages = {}
        for prefix, root in self.locations:
            storage = FileSystemStorage(location=root)
            storage.prefix = prefix
            self.storages[root] = storage

    def check(self, **kwargs) -> list:
        return []  # no setting to check: the folders come from the games' packages
