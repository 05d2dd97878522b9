"""The arena's records: bots and their versions, matches with their seats, tournaments, ratings."""
from __future__ import annotations

import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from .games import game_choices


class Bot(models.Model):
    # a PERSON seat is a signed-in person playing in the browser (arena.people): one such "bot" per
    # person and game, so a person's seat is recorded, replayed and listed like any other
    HOUSE, UPLOAD, REMOTE, PERSON = "house", "upload", "remote", "person"
    KINDS = [(HOUSE, "house bot"), (UPLOAD, "uploaded file"), (REMOTE, "remote (API token)"),
             (PERSON, "a person, in the browser")]

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="bots")  # null: a house bot
    name = models.CharField(max_length=64)
    game = models.CharField(max_length=32, choices=game_choices)
    kind = models.CharField(max_length=8, choices=KINDS)
    active = models.BooleanField(default=True)  # the owner's switch: an inactive bot plays nothing
    created = models.DateTimeField(default=timezone.now)
    # deleted by its owner: its matches stay (its name shown greyed), it plays nothing, its name is free
    deleted = models.DateTimeField(null=True, blank=True)
    # the owner's switch: the notes the bot attaches to its decisions are shown to everyone in its
    # replays (off: to its owner only; arena.road.replay_visibility)
    notes_public = models.BooleanField(default=False)
    # the owner's switch: signed-in people may play against it in the browser (arena.people.tables);
    # house bots always may be played, and an owner always may play their own bot
    people_may_play = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "game", "name"], condition=models.Q(deleted=None),
                                               name="bot_name_per_owner_game")]

    def __str__(self) -> str:
        return self.name

    def state(self) -> str:
        """What the bot does now: ``active`` only when switched on *and* holding an active version;
        else ``deleted``, ``inactive`` (switched off), ``pending`` (its check is being played) or
        ``no active version`` (every version rejected or retired)."""
        if self.deleted is not None:
            return "deleted"
        if not self.active:
            return "inactive"
        states = set(self.versions.values_list("state", flat=True))
        if BotVersion.ACTIVE in states:
            return "active"
        return "pending" if BotVersion.PENDING in states else "no active version"

    def latest_version(self) -> BotVersion | None:
        return self.versions.order_by("-number").first()


class BotVersion(models.Model):
    """What actually plays: a house bot spec, an uploaded file, or a remote bot's identity."""

    PENDING, ACTIVE, REJECTED, RETIRED = "pending", "active", "rejected", "retired"
    STATES = [(s, s) for s in (PENDING, ACTIVE, REJECTED, RETIRED)]

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    spec = models.CharField(max_length=300)  # "random", "greedy", or "path/to/file.py:ClassName"
    sha256 = models.CharField(max_length=64, blank=True)
    state = models.CharField(max_length=10, choices=STATES, default=ACTIVE)
    smoke_report = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["bot", "number"], name="version_number_per_bot")]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def owner_id(self) -> int | None:
        return self.bot.owner_id


def digest_token(token: str) -> str:
    """How every token is stored: its SHA-256 (a token holds 256 random bits, so no salt or slow
    hash is needed; the database never holds a usable token)."""
    return hashlib.sha256(token.encode()).hexdigest()


class ApiToken(models.Model):
    """A remote bot's API token, stored hashed; shown once at creation."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="tokens")
    token_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(default=timezone.now)
    revoked = models.DateTimeField(null=True, blank=True)

    hash = staticmethod(digest_token)

    @classmethod
    def issue(cls, bot: Bot) -> tuple[ApiToken, str]:
        token = secrets.token_urlsafe(32)
        return cls.objects.create(bot=bot, token_hash=cls.hash(token)), token


class AccessToken(models.Model):
    """A person's access token to the HTTP API (``/api/v1/``), with scopes; stored hashed like a
    remote bot's ``ApiToken`` and shown once. A remote bot's token names a seat; this one names its
    owner, and acts as them within its scopes."""

    READ, SUBMIT, PLAY = "read", "submit", "play"
    SCOPES = [(READ, "read: your bots' versions, reports and log lines"),
              (SUBMIT, "submit: upload new versions of your bots"),
              (PLAY, "play: start challenges and comparisons of your bots")]
    PREFIX = "plt_"  # recognisable in a leaked log or a secret scanner

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="access_tokens")
    name = models.CharField(max_length=64)  # the owner's note: "CI", "laptop"
    token_hash = models.CharField(max_length=64, unique=True)
    hint = models.CharField(max_length=12)  # the token's first characters, to recognise it in the list
    scopes = models.JSONField(default=list)
    created = models.DateTimeField(default=timezone.now)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @classmethod
    def issue(cls, owner, name: str, scopes: list[str]) -> tuple[AccessToken, str]:
        token = cls.PREFIX + secrets.token_urlsafe(32)
        made = cls.objects.create(owner=owner, name=name, token_hash=digest_token(token), hint=token[:10],
                                  scopes=[s for s, _ in cls.SCOPES if s in scopes])
        return made, token

    @classmethod
    def holder(cls, token: str) -> AccessToken | None:
        """The live token ``token`` is, or None (unknown or revoked). Looked up by its hash (the
        hash of a secret, so the lookup's timing tells nothing of it), then compared in constant time."""
        digest = digest_token(token)
        found = cls.objects.select_related("owner").filter(token_hash=digest, revoked=None).first()
        if found is None or not hmac.compare_digest(found.token_hash, digest) or not found.owner.is_active:
            return None
        return found


class Tournament(models.Model):
    SWISS, ROUND_ROBIN = "swiss", "round-robin"
    FORMATS = [(SWISS, "Swiss"), (ROUND_ROBIN, "round robin")]
    # halted: a match of it was aborted unplayed (a platform cap, an operator); ``tournament run ID``
    # plays those again. Never finished while a match is unplayed.
    CREATED, RUNNING, HALTED, FINISHED = "created", "running", "halted", "finished"
    CANCELLED = "cancelled"  # open entry closed with fewer than two entrants: never played

    name = models.CharField(max_length=100)
    game = models.CharField(max_length=32, choices=game_choices)
    variant = models.CharField(max_length=32, default="standard")
    options = models.JSONField(default=dict)
    format = models.CharField(max_length=12, choices=FORMATS)
    rounds = models.PositiveIntegerField()
    table_size = models.PositiveIntegerField()
    table_sizes = models.JSONField(default=list)  # allowed sizes when tables may differ
    duplicate = models.BooleanField(default=False)
    seed = models.BigIntegerField()
    status = models.CharField(max_length=10, default=CREATED)
    created = models.DateTimeField(default=timezone.now)
    # who made it on the site (its hourly limit); none for the command line's and the demo's
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    # open entry: anyone enters an active bot of the game until then; the beat starts it at that time
    # (arena.competitions.tournaments.start_due_tournaments). None: its entrants were given at creation.
    starts_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name

    def open_for_entries(self) -> bool:
        return self.status == self.CREATED and self.starts_at is not None and self.starts_at > timezone.now()


class Entry(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")
    label = models.CharField(max_length=80)  # "random#2": a repeated house bot is a separate entrant

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "label"], name="entry_label_per_tournament")]


class Round(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_set")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, default="playing")
    byes = models.JSONField(default=list)  # entry ids
    repeat_rate = models.FloatField(default=0.0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="round_number")]


class Match(models.Model):
    SCHEDULED, RUNNING, FINISHED, ABORTED = "scheduled", "running", "finished", "aborted"
    STATES = (SCHEDULED, RUNNING, FINISHED, ABORTED)
    UNRECORDED = (SCHEDULED, RUNNING)  # still to be recorded (a filter on it is cheaper than "not recorded")

    key = models.CharField(max_length=120, unique=True)  # one record per scheduled match, ever
    game = models.CharField(max_length=32, choices=game_choices)
    variant = models.CharField(max_length=32, default="standard")
    options = models.JSONField(default=dict)
    seed = models.BigIntegerField()
    status = models.CharField(max_length=10, default=SCHEDULED)
    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.CASCADE, related_name="matches")
    round = models.ForeignKey(Round, null=True, blank=True, on_delete=models.CASCADE, related_name="matches")
    ladder = models.CharField(max_length=200, blank=True)  # the ladder key, for ladder matches
    rated = models.BooleanField(default=True)  # checks and challenges leave the ratings alone
    time_control = models.JSONField(default=dict)  # {"move_limit", "bank"} seconds; {}: the defaults
    check_of = models.ForeignKey("BotVersion", null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="checks")  # the uploaded version this match checks
    replay_path = models.CharField(max_length=300, blank=True)
    result = models.JSONField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)
    # the match's lifecycle on the platform (arena.road.lifecycle): each start is a numbered attempt (a
    # fencing token: only the attempt that holds the match may hand it back), the worker process
    # playing it, the platform's failures so far and the last one, and when its task is due
    attempts = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    started = models.DateTimeField(null=True, blank=True)
    failures = models.PositiveIntegerField(default=0)
    last_failure = models.TextField(blank=True)
    due = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["status"]), models.Index(fields=["-finished"])]

    @property
    def unplayed(self) -> bool:
        """Aborted by the platform or an operator (not by the referee's verdict on the play)."""
        return self.status == self.ABORTED and bool((self.result or {}).get("unplayed"))


class MatchSeat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveIntegerField()
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="seats")
    entry = models.ForeignKey(Entry, null=True, blank=True, on_delete=models.CASCADE, related_name="seats")
    attributes = models.JSONField(default=dict)
    status = models.CharField(max_length=12, blank=True)
    score = models.FloatField(null=True)
    rank = models.PositiveIntegerField(null=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["match", "seat"], name="seat_per_match")]
        ordering = ["seat"]


class Rating(models.Model):
    """One bot version's OpenSkill rating on one ladder (game, variant and rule options)."""

    ladder = models.CharField(max_length=200)
    bot_version = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="ratings")
    mu = models.FloatField()
    sigma = models.FloatField()
    # mu - 3 sigma, stored (and indexed) so a ladder page reads its rows in order without sorting all
    conservative = models.FloatField(default=0.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)  # first place, a forfeited seat never (it ranks last)
    updated = models.DateTimeField(default=timezone.now)
    # the batch Plackett–Luce fit over all of the ladder's matches (arena.competitions.stats.batch), in
    # Elo centred on the ladder's mean, with its 95 % interval; refreshed by
    # arena.competitions.ladder.refit_ladder
    fit_elo = models.FloatField(null=True, blank=True)
    fit_low = models.FloatField(null=True, blank=True)
    fit_high = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["ladder", "bot_version"], name="rating_per_ladder")]
        indexes = [models.Index(fields=["ladder", "-mu"]), models.Index(fields=["ladder", "-conservative"])]

    def save(self, *args, **kwargs) -> None:
        self.conservative = self.mu - 3 * self.sigma
        super().save(*args, **kwargs)


class LadderEdition(models.Model):
    """Which edition of a game's ladder pages is current: a fresh token whenever anything they show
    changes (arena.competitions.ladder_editions), so a page cached under the token is never stale."""

    game = models.CharField(max_length=32, primary_key=True)
    token = models.CharField(max_length=32)


class RatingHistory(models.Model):
    rating = models.ForeignKey(Rating, on_delete=models.CASCADE, related_name="history")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    mu = models.FloatField()
    sigma = models.FloatField()
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["rating", "match"], name="one_change_per_match")]


class Comparison(models.Model):
    """An owner's question "is A stronger than B?", answered by a sequential test on duplicate deals
    (arena.competitions.sequential_comparison); ``figures`` holds the driver's figures, updated after
    every batch."""

    SCHEDULED, RUNNING, FINISHED, FAILED, CANCELLED = "scheduled", "running", "finished", "failed", "cancelled"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="comparisons")
    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="comparisons")  # asked from its page
    a = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    b = models.ForeignKey(BotVersion, on_delete=models.CASCADE, related_name="+")
    game = models.CharField(max_length=32, choices=game_choices)
    variant = models.CharField(max_length=32, default="standard")
    options = models.JSONField(default=dict)
    players = models.PositiveIntegerField()
    max_games = models.PositiveIntegerField()
    elo0 = models.FloatField()
    elo1 = models.FloatField()
    alpha = models.FloatField()
    beta = models.FloatField()
    seed = models.BigIntegerField()
    status = models.CharField(max_length=10, default=SCHEDULED)
    verdict = models.CharField(max_length=24, blank=True)
    figures = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)


class Webhook(models.Model):
    """An owner's URL told what happens to one of their bots (arena.fleet.webhooks): each delivery
    is a JSON POST signed with HMAC-SHA256 under ``secret`` (kept to sign, shown to the owner only)."""

    CHECKED, FINISHED, FAULTED, RATING, COMPARISON = ("version.checked", "match.finished", "bot.faulted",
                                                      "rating.changed", "comparison.decided")
    EVENTS = [(CHECKED, "a version's check: accepted or rejected"), (FINISHED, "a match of the bot finished"),
              (FAULTED, "the bot faulted in a match"), (RATING, "its rating moved by more than σ"),
              (COMPARISON, "a comparison of it decided")]

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=500)
    secret = models.CharField(max_length=64)
    events = models.JSONField(default=list)
    created = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.url


class WebhookDelivery(models.Model):
    """One event for one webhook, and how its delivery went (the owner's delivery log)."""

    PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32)
    payload = models.JSONField()
    state = models.CharField(max_length=10, default=PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_code = models.PositiveIntegerField(null=True, blank=True)  # the receiver's HTTP status
    last_error = models.CharField(max_length=300, blank=True)
    created = models.DateTimeField(default=timezone.now)
    finished = models.DateTimeField(null=True, blank=True)
