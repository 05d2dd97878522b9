from django.apps import AppConfig


class WebuiConfig(AppConfig):
    name = "webui"
    verbose_name = "Parlour website"
