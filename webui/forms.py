"""Forms: sign-up, bot upload (a .py file or a .zip), remote bots, challenges."""
from __future__ import annotations

import ast
import io
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import PurePosixPath

from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm

from arena.bots.house_entrants import HOUSE_SPECS
from arena.competitions.challenges import latest_active, opponents, variants
from arena.games import game_choices, game_variants
from arena.models import AccessToken, Bot, Tournament

ZIP_TOTAL_LIMIT = 2 * 1024 * 1024
ZIP_MEMBER_LIMIT = 200
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,63}$")
RESERVED = {"random", "greedy", "mcts"}  # house bots are entered by these names
SDK_BASES = {"Bot", "RandomBot"}
MAX_ELO1 = 1000.0  # a difference beyond is a rout: a few games show it
MAX_COMPARISON_GAMES = 20_000  # ~ a day of one worker's games: more is a mistake, not a question


class SignUpForm(UserCreationForm):
    pass


def clean_bot_name(name: str) -> str:
    name = name.strip()
    if not NAME_RE.match(name):
        raise forms.ValidationError("1 to 64 characters: letters, digits, space, _ . - (starting with a letter or digit)")
    if name.lower() in RESERVED or re.fullmatch(r"bot-\d+", name):
        raise forms.ValidationError("that name is reserved")
    return name


class AccessTokenForm(forms.Form):
    name = forms.CharField(max_length=64, help_text="what it is for: \"CI\", \"laptop\"")
    scopes = forms.MultipleChoiceField(choices=AccessToken.SCOPES, widget=forms.CheckboxSelectMultiple,
                                       initial=[AccessToken.READ])


class RemoteBotForm(forms.Form):
    name = forms.CharField(max_length=64)
    game = forms.ChoiceField(choices=game_choices)

    def clean_name(self) -> str:
        return clean_bot_name(self.cleaned_data["name"])


@dataclass
class BotPackage:
    """A validated upload: the files to store (relative path -> bytes) and where the bot is."""

    files: dict[str, bytes]
    module: str  # relative path of the .py holding the Bot subclass
    class_name: str


def bot_classes(source: bytes, filename: str) -> list[str]:
    """The Bot subclasses a module defines, found with ``ast`` (never imported): classes whose base
    is ``Bot``/``RandomBot`` (bare or dotted) or another such class of the file; when a class is
    itself a base of another, only the most derived ones count."""
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError) as exc:
        raise forms.ValidationError(f"{filename} is not valid Python: {exc}") from None
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef)]

    def base_name(base: ast.expr) -> str:
        if isinstance(base, ast.Name):
            return base.id
        if isinstance(base, ast.Attribute):
            return base.attr
        return ""

    found: list[str] = []
    changed = True
    while changed:
        changed = False
        for node in classes:
            if node.name not in found and any(base_name(b) in SDK_BASES or base_name(b) in found for b in node.bases):
                found.append(node.name)
                changed = True
    used_as_base = {base_name(b) for node in classes if node.name in found for b in node.bases}
    return [name for name in found if name not in used_as_base]


def safe_member(name: str) -> str:
    """The member's relative path, or an error for absolute paths, ``..`` and drive letters."""
    if name.startswith(("/", "\\")) or "\\" in name or re.match(r"^[A-Za-z]:", name):
        raise forms.ValidationError(f"unsafe path in the zip: {name!r}")
    parts = PurePosixPath(name).parts
    if any(part in ("..", "") for part in parts):
        raise forms.ValidationError(f"unsafe path in the zip: {name!r}")
    return str(PurePosixPath(*parts))


def read_zip(data: bytes) -> dict[str, bytes]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise forms.ValidationError("not a valid zip file") from None
    members = archive.infolist()
    if len(members) > ZIP_MEMBER_LIMIT:
        raise forms.ValidationError(f"at most {ZIP_MEMBER_LIMIT} files in a zip")
    files: dict[str, bytes] = {}
    total = 0
    for info in members:
        relative = safe_member(info.filename.rstrip("/") if info.is_dir() else info.filename)
        if info.is_dir() or relative.startswith("__MACOSX"):
            continue
        if stat.S_ISLNK(info.external_attr >> 16):
            raise forms.ValidationError(f"symbolic links are not allowed: {info.filename!r}")
        total += info.file_size
        if total > ZIP_TOTAL_LIMIT:
            raise forms.ValidationError("the zip holds more than 2 MiB uncompressed")
        try:
            with archive.open(info) as member:  # read at most what the header claims (zip bombs lie)
                content = member.read(info.file_size + 1)
        except (zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError, EOFError) as exc:
            raise forms.ValidationError(f"{info.filename!r} cannot be read: {exc}") from None
        if len(content) != info.file_size:
            raise forms.ValidationError(f"{info.filename!r}: size does not match its header")
        files[relative] = content
    return files


def bot_package(filename: str, data: bytes) -> BotPackage:
    if filename.lower().endswith(".py"):
        base = PurePosixPath(filename.replace("\\", "/")).name
        name = base if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*\.py", base) else "bot.py"
        files = {name: data}
    elif filename.lower().endswith(".zip"):
        files = read_zip(data)
    else:
        raise forms.ValidationError("upload a .py file or a .zip")
    candidates = []
    for relative, content in files.items():
        if relative.endswith(".py"):
            candidates += [(relative, cls) for cls in bot_classes(content, relative)]
    if not candidates:
        raise forms.ValidationError("no Bot subclass found (class MyBot(Bot): ...)")
    if len(candidates) > 1:
        listed = ", ".join(f"{path}:{cls}" for path, cls in candidates)
        raise forms.ValidationError(f"several Bot subclasses found ({listed}): keep exactly one")
    module, class_name = candidates[0]
    return BotPackage(files, module, class_name)


class UploadForm(forms.Form):
    name = forms.CharField(max_length=64, help_text="a new name creates a bot; an existing one adds a version")
    game = forms.ChoiceField(choices=game_choices)
    file = forms.FileField(help_text="a .py file, or a .zip holding one Bot subclass")

    def clean_name(self) -> str:
        return clean_bot_name(self.cleaned_data["name"])

    def clean_file(self):
        upload = self.cleaned_data["file"]
        limit = settings.PARLOUR_UPLOAD_LIMIT
        if upload.size > limit:
            raise forms.ValidationError(f"the file is larger than {limit // 1024} KiB")
        data = upload.read(limit + 1)
        if len(data) > limit:
            raise forms.ValidationError(f"the file is larger than {limit // 1024} KiB")
        self.package = bot_package(upload.name, data)
        self.raw = data
        return upload


class ChallengeForm(forms.Form):
    """A challenge from a bot's page: a variant of its game and the opponents (arena.competitions.challenges)."""

    variant = forms.ChoiceField(label="Variant")
    # not required: a solo variant is played with none (the count is checked against the variant)
    opponents = forms.MultipleChoiceField(label="Opponents", required=False,
                                          widget=forms.SelectMultiple(attrs={"size": 6}))

    def __init__(self, user, bot, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["variant"].choices = [(name, f"{name} ({', '.join(map(str, counts))} players)")
                                          for name, counts in variants(bot.game)]
        self.fields["opponents"].choices = [(o.key, o.label) for o in opponents(user, bot)]


class ComparisonForm(forms.Form):
    """A comparison from a bot's page: A and B among ``choices`` (its accepted versions, earlier ones
    included, and the house bots), and the test's two settings an owner sets, bounded so that the
    errors are ones a person can act on (arena.competitions.comparison_requests)."""

    a = forms.TypedChoiceField(label="A", coerce=int)
    b = forms.TypedChoiceField(label="B", coerce=int)
    elo1 = forms.FloatField(label="Elo difference to detect", min_value=1, max_value=MAX_ELO1, initial=30, required=False,
                            help_text=f"between 1 and {MAX_ELO1:g}: a smaller difference needs more games")
    max_games = forms.IntegerField(label="At most (games)", min_value=2, max_value=MAX_COMPARISON_GAMES,
                                   initial=2000, required=False, help_text=f"between 2 and {MAX_COMPARISON_GAMES}")

    def __init__(self, choices: list[tuple[int, str]], *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for side in ("a", "b"):
            self.fields[side].choices = choices
        if len(choices) > 1:
            self.fields["b"].initial = choices[1][0]

    def clean(self) -> dict:
        data = super().clean()
        for name in ("elo1", "max_games"):  # left empty: the usual setting
            if data.get(name) is None and name not in self.errors:
                data[name] = self.fields[name].initial
        if data.get("a") is not None and data.get("a") == data.get("b"):
            raise forms.ValidationError("A and B are the same: choose two different versions")
        return data

    def problems(self) -> str:
        """The errors as one line, each after its field's label."""
        return "; ".join(f"{self.fields[field].label}: {' '.join(errors)}" if field in self.fields else " ".join(errors)
                         for field, errors in self.errors.items())


MAX_ENTRANTS = 12  # a round robin's matches grow as the square: a dozen is an evening's worth
MAX_HOUSE_COPIES = 8
MAX_ROUNDS = 10


def table_variants() -> list[tuple[str, str]]:
    """Every game's variants played at a table (not alone), as "game/variant" choices."""
    return [(f"{game}/{name}", f"{title} — {name} ({', '.join(map(str, counts))} players)")
            for game, title in game_choices() for name, counts in variants(game) if tuple(counts) != (1,)]


MAX_START_MINUTES = 24 * 60  # an open tournament starts within a day


class TournamentForm(forms.Form):
    """A tournament made on the site (arena.competitions.tournaments): a game's variant, a format,
    rounds for a Swiss, and its entrants: the person's own active bots of that game and house bots."""

    name = forms.CharField(max_length=100, required=False, help_text="left empty: named after the game and format")
    game_variant = forms.ChoiceField(label="Game and variant")
    format = forms.ChoiceField(choices=Tournament.FORMATS, initial=Tournament.SWISS)
    rounds = forms.IntegerField(min_value=1, max_value=MAX_ROUNDS, required=False,
                                help_text="Swiss only; left empty: enough to tell the entrants apart")
    options = forms.CharField(label="Rule options", required=False, max_length=300,
                              help_text="NAME=VALUE, separated by commas (e.g. round_cap=2); left empty: the "
                                        "variant's defaults. Each game's options are listed below.")
    bots = forms.MultipleChoiceField(label="Your bots", required=False, widget=forms.CheckboxSelectMultiple)
    open_entry = forms.BooleanField(required=False, label="Open entry",
                                    help_text="anyone may enter an active bot of the game until the start")
    starts_in = forms.IntegerField(label="Starts in (minutes)", min_value=1, max_value=MAX_START_MINUTES,
                                   required=False, initial=10, help_text="open entry only: entries close then")

    def __init__(self, user, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game_variant"].choices = table_variants()
        names = dict(game_choices())
        mine = latest_active(Bot.objects.filter(owner=user, active=True, deleted=None))
        self.bot_games = {f"bot-{v.bot_id}": v.bot.game for v in mine}
        self.fields["bots"].choices = [(f"bot-{v.bot_id}", f"{v.bot.name} v{v.number} ({names.get(v.bot.game, v.bot.game)})")
                                       for v in mine]
        for spec in HOUSE_SPECS:  # how many of each house bot: each copy a separate entrant
            self.fields[f"house_{spec}"] = forms.IntegerField(
                label=f"House {spec} bots", min_value=0, max_value=MAX_HOUSE_COPIES, initial=0, required=False)

    def clean(self) -> dict:
        data = super().clean()
        if "game_variant" not in data:
            return data
        data["game"], data["variant"] = data["game_variant"].split("/", 1)
        data["rule_options"] = self.rule_options(data["game"], data["variant"], data.get("options") or "")
        wrong = [label for label in data.get("bots", []) if self.bot_games.get(label) != data["game"]]
        if wrong:
            names = dict(self.fields["bots"].choices)
            raise forms.ValidationError(f"{', '.join(names[w] for w in wrong)}: not a bot of the game chosen")
        entrants = list(data.get("bots", []))
        for spec in HOUSE_SPECS:
            entrants += [spec] * (data.get(f"house_{spec}") or 0)
        if data.get("open_entry"):
            if not data.get("starts_in"):
                raise forms.ValidationError("say when an open tournament starts (in minutes, 1 to "
                                            f"{MAX_START_MINUTES})")
        elif len(entrants) < 2:
            raise forms.ValidationError("enter at least two: your bots, house bots or both "
                                        "(or open the entry to others until a start time)")
        if len(entrants) > MAX_ENTRANTS:
            raise forms.ValidationError(f"at most {MAX_ENTRANTS} entrants ({len(entrants)} chosen)")
        data["entrants"] = entrants
        return data

    @staticmethod
    def rule_options(game: str, variant: str, text: str) -> dict[str, str]:
        """``NAME=VALUE, ...`` as a dict, each name one of the variant's options (the values are
        checked when the tournament is made: the game's own rules say what is allowed)."""
        known = next((v["options"] for v in game_variants(game) if v["name"] == variant), [])
        names = [o["name"] for o in known]
        options: dict[str, str] = {}
        for pair in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = (part.strip() for part in pair.partition("="))
            if not sep or not name or not value:
                raise forms.ValidationError(f"rule options are NAME=VALUE, not {pair!r}")
            if name not in names:
                raise forms.ValidationError(f"{variant} has no rule option {name!r}"
                                            + (f" (its options: {', '.join(names)})" if names else " (it has none)"))
            options[name] = value
        return options

    @staticmethod
    def options_by_game() -> list[dict]:
        """What the form lists under the field: each game's variants' options, in words."""
        return [{"game": title, "variants": [v for v in game_variants(game) if v["options"]]}
                for game, title in game_choices() if any(v["options"] for v in game_variants(game))]
