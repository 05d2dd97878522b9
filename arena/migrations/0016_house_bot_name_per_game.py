"""One house bot per game and name: NULL owners never clash in the older constraint, so two first
uses at once could each create the house bot (and every later lookup failed). A database that has
such twins keeps the oldest; the others are marked deleted (their matches keep pointing at them)."""
from django.db import migrations, models
from django.utils import timezone


def retire_twins(apps, schema_editor):
    Bot = apps.get_model("arena", "Bot")
    seen = set()
    for bot in Bot.objects.filter(owner=None, deleted=None).order_by("pk"):
        if (bot.game, bot.name) in seen:
            Bot.objects.filter(pk=bot.pk).update(deleted=timezone.now())
        seen.add((bot.game, bot.name))


class Migration(migrations.Migration):

    dependencies = [
        ("arena", "0015_bot_people_may_play"),
    ]

    operations = [
        migrations.RunPython(retire_twins, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="bot",
            constraint=models.UniqueConstraint(condition=models.Q(("deleted", None), ("owner", None)),
                                               fields=("game", "name"), name="house_bot_name_per_game"),
        ),
    ]
