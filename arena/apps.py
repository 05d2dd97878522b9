from django.apps import AppConfig


class ArenaConfig(AppConfig):
    name = "arena"
    verbose_name = "Parlour arena: tournaments, ladders, ratings"

    def ready(self) -> None:
        from .competitions import ladder_editions

        ladder_editions.connect()  # cached ladder pages follow every change they show
