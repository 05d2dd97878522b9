"""The docs promise nothing a test does not check: every test docs/security.md names exists, and every
status code docs/protocol.md's table names is one a real referee returns for that call."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import grpc
import pytest
from test_self_contained import OUTSIDE

from referee.games import GAMES

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = re.compile(r"`((?:tests|webui/tests)/[\w/]+\.py)((?:::\w+)+)`")


def defined_names(path: Path) -> set[tuple[str, ...]]:
    """Every test function and class as its pytest path: ("test_x",), ("SomeTest", "test_y")."""
    tree = ast.parse(path.read_text())
    found: set[tuple[str, ...]] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add((node.name,))
        elif isinstance(node, ast.ClassDef):
            found.add((node.name,))
            found.update((node.name, item.name) for item in node.body if isinstance(item, ast.FunctionDef))
    return found


def test_every_test_named_in_the_threat_model_exists() -> None:
    text = (ROOT / "docs" / "security.md").read_text()
    references = REFERENCE.findall(text)
    assert len(references) >= 30
    missing = []
    for file, names in references:
        path = ROOT / file
        if not path.is_file() or tuple(names.strip(":").split("::")) not in defined_names(path):
            missing.append(f"{file}{names}")
    assert missing == []
    # and every hostile-bot test is in the threat model
    hostile = {name for (name, *_) in defined_names(ROOT / "tests" / "test_sandbox.py") if name.startswith("test_")}
    named = {names.strip(":") for file, names in references if file == "tests/test_sandbox.py"}
    assert hostile - named == set()


# ---------------------------------------------------------------------- docs/protocol.md's status codes
STATUS_ROW = re.compile(r"^\| `(\w+)` \| `([A-Z_]+)` \|", re.MULTILINE)


def status_table() -> set[tuple[str, str]]:
    text = (ROOT / "docs" / "protocol.md").read_text()
    section = text.split("\n## Status codes\n", 1)[1].split("\n## ", 1)[0]
    return set(STATUS_ROW.findall(section))


@pytest.fixture(scope="module")
def referee(tmp_path_factory):
    from referee_process import RefereeProcess

    process = RefereeProcess(tmp_path_factory.mktemp("referee"), grace=1.0)
    yield process
    process.close()


def rpc_error(call) -> grpc.StatusCode:
    """The status code a unary call, or the first read of a stream, ends with."""
    try:
        result = call()
        if hasattr(result, "__next__"):
            next(result)
    except grpc.RpcError as exc:
        return exc.code()
    raise AssertionError("the call succeeded")


def play_raw(referee, messages: list[bytes]) -> grpc.StatusCode:
    call = referee.channel.stream_stream("/parlour.v1.Referee/Play", request_serializer=lambda b: b,
                                         response_deserializer=lambda b: b)
    return rpc_error(lambda: call(iter(messages)))


def bot_message(**kind) -> bytes:
    from parlour.v1 import referee_pb2

    return referee_pb2.BotMessage(**kind).SerializeToString()


def provoke_create_match_permission_denied(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    request = referee_pb2.CreateMatchRequest(protocol_version=1, game="misty", seats=[referee_pb2.SeatSetup()] * 2)
    return rpc_error(lambda: referee.stub.CreateMatch(request, metadata=[("authorization", "Bearer wrong")]))


def provoke_create_match_invalid_argument(referee) -> grpc.StatusCode:
    return rpc_error(lambda: referee.create("misty", 2, options={"round_cap": 99}))


def provoke_play_invalid_argument(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    answer = bot_message(answer=referee_pb2.Answer(protocol_version=1, decision_id=1, index=0))
    assert play_raw(referee, [b"\xff\x00 not a protobuf"]) == grpc.StatusCode.INVALID_ARGUMENT
    return play_raw(referee, [answer])


def provoke_play_unauthenticated(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    return play_raw(referee, [bot_message(hello=referee_pb2.Hello(protocol_version=1, seat_token="not-a-token"))])


def provoke_play_failed_precondition(referee) -> grpc.StatusCode:
    """A seat token of a match another referee of the fleet holds (its id after the last dot)."""
    from parlour.v1 import referee_pb2

    created = referee.create("tussie-mussie", 2, seed=4)
    elsewhere = created.seat_tokens[0].rpartition(".")[0] + ".referee-elsewhere"
    return play_raw(referee, [bot_message(hello=referee_pb2.Hello(protocol_version=1, seat_token=elsewhere))])


def provoke_play_aborted(referee) -> grpc.StatusCode:
    """A second Hello takes the seat over: the first stream is closed with a reason, no MatchEnd."""
    from referee_process import RawSeat

    created = referee.create("tussie-mussie", 2, seed=3)
    first = RawSeat(referee.address, created.seat_tokens[0])
    assert first.next().WhichOneof("message") == "start"
    second = RawSeat(referee.address, created.seat_tokens[0])
    assert second.next().start.resumed is True
    assert first.next() is None and len(first.received) == 1
    code = grpc.StatusCode.OK if first.error is None else first.error.code()
    first.close()
    second.close()
    return code


def play_seats_raw(referee, messages: list[bytes]) -> grpc.StatusCode:
    call = referee.channel.stream_stream("/parlour.v1.Referee/PlaySeats", request_serializer=lambda b: b,
                                         response_deserializer=lambda b: b)
    return rpc_error(lambda: call(iter(messages)))


def provoke_play_seats_invalid_argument(referee) -> grpc.StatusCode:
    return play_seats_raw(referee, [b"\xff\x00 not a protobuf"])


def provoke_play_seats_failed_precondition(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    return play_seats_raw(referee, [referee_pb2.BotBatch(protocol_version=2).SerializeToString()])


def provoke_connect_unauthenticated(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    return rpc_error(lambda: referee.stub.Connect(referee_pb2.ConnectRequest(protocol_version=1, api_token="wrong")))


def provoke_list_connected_permission_denied(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    return rpc_error(lambda: referee.stub.ListConnected(referee_pb2.ListConnectedRequest(protocol_version=1)))


def provoke_watch_match_not_found(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    return rpc_error(lambda: referee.stub.WatchMatch(referee_pb2.WatchMatchRequest(protocol_version=1,
                                                                                   match_id="no-such-match")))


def provoke_get_replay_not_found(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    return rpc_error(lambda: referee.stub.GetReplay(referee_pb2.GetReplayRequest(protocol_version=1,
                                                                                 match_id="no-such-match")))


def provoke_follow_match_permission_denied(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    created = referee.create("tussie-mussie", 2, seed=5)
    request = referee_pb2.FollowMatchRequest(protocol_version=1, match_id=created.match_id)
    return rpc_error(lambda: list(referee.stub.FollowMatch(request, timeout=10)))


def provoke_follow_match_not_found(referee) -> grpc.StatusCode:
    from parlour.v1 import referee_pb2

    request = referee_pb2.FollowMatchRequest(protocol_version=1, match_id="no-such-match")
    return rpc_error(lambda: list(referee.stub.FollowMatch(request, metadata=referee.auth, timeout=10)))


PROVOKE = {
    ("CreateMatch", "PERMISSION_DENIED"): provoke_create_match_permission_denied,
    ("CreateMatch", "INVALID_ARGUMENT"): provoke_create_match_invalid_argument,
    ("Play", "INVALID_ARGUMENT"): provoke_play_invalid_argument,
    ("Play", "UNAUTHENTICATED"): provoke_play_unauthenticated,
    ("Play", "ABORTED"): provoke_play_aborted,
    ("Play", "FAILED_PRECONDITION"): provoke_play_failed_precondition,
    ("PlaySeats", "INVALID_ARGUMENT"): provoke_play_seats_invalid_argument,
    ("PlaySeats", "FAILED_PRECONDITION"): provoke_play_seats_failed_precondition,
    ("Connect", "UNAUTHENTICATED"): provoke_connect_unauthenticated,
    ("ListConnected", "PERMISSION_DENIED"): provoke_list_connected_permission_denied,
    ("WatchMatch", "NOT_FOUND"): provoke_watch_match_not_found,
    ("GetReplay", "NOT_FOUND"): provoke_get_replay_not_found,
    ("FollowMatch", "PERMISSION_DENIED"): provoke_follow_match_permission_denied,
    ("FollowMatch", "NOT_FOUND"): provoke_follow_match_not_found,
}


def test_the_status_table_rows_are_the_provoked_ones() -> None:
    """A row added to the table needs a way to provoke it here; a code provoked here is in the table."""
    assert status_table() == set(PROVOKE)


@pytest.mark.parametrize("call, code", sorted(PROVOKE))
def test_the_referee_returns_the_documented_code(referee, call, code) -> None:
    assert PROVOKE[call, code](referee) == getattr(grpc.StatusCode, code)


# ---------------------------------------------------------------------- each game's rules.md
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_each_game_has_its_rules_page_with_the_engine_version_variants_and_options(game_id) -> None:
    from referee.games.registry import package

    game = GAMES[game_id]
    text = package(game_id).rules.read_text()
    assert text.startswith(f"# {game.name} (`{game_id}`, engine {game.engine_version})")
    for variant in game.variants.values():
        assert variant.name == "standard" or f"variant={variant.name}" in text
        for option in variant.options:
            default = str(option.default).lower() if isinstance(option.default, bool) else str(option.default)
            assert f"`{option.name}` = `{default}` (default)" in text, option.name
    assert "Default action" in text and not OUTSIDE.search(text)  # the page stands alone


def test_the_card_texts_the_viewer_shows_are_the_rules_words() -> None:
    """The tooltips' texts (GameDescription.card_texts) say what each game's rules.md says: Tussie Mussie's
    effect column, Tricky Twist's Bonus effects; every card of every game has a name."""
    from referee.games.registry import package

    rules = package("tussie-mussie").rules.read_text()
    table = dict(re.findall(r"^\| `([a-z_]+)` \| [^|]+ \| \d \| \w+ \| [^|]+ \| (.+) \|$", rules, re.M))
    texts = GAMES["tussie-mussie"].card_texts
    assert set(texts) == set(table) and len(table) == 18
    for tile, effect in table.items():
        plain = effect.replace("*", "").replace("`", "")
        assert plain == "none" or plain in texts[tile]["text"], tile
    assert texts["red_rose"] == {"name": "Red Rose", "text": "0 hearts, red; scoring: +1 for each heart on all your tiles"}
    twist = GAMES["tricky-twist"].card_texts
    assert "return one of your false tricks to your hand" in twist["take_back"]["text"]
    assert "Bonus icon" in twist["sun-7"]["text"] and twist["sun-6"] == {"name": "6 sun", "text": ""}
    assert GAMES["misty"].card_texts["rocket-1"]["text"].startswith("arrow: when activated moves one cell up")
    assert GAMES["bszzzz"].card_texts["bee-red"] == {
        "name": "red bee", "text": "useful insect: capture -3, hand penalty 1; any seat may play it"}
    for game in GAMES.values():
        assert game.card_texts and all(card["name"] for card in game.card_texts.values()), game.id


# ---------------------------------------------------------------------- the README, the docs, the benchmarks page
def test_the_readme_is_a_guide_that_names_every_doc() -> None:
    """The README guides (what Parlour is, the two commands, the first bot, where to go next) in at
    most 150 lines; the details live in docs/, and every page there is named in it."""
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150, "README.md: details belong in docs/"
    unnamed = [page.name for page in sorted((ROOT / "docs").glob("*.md")) if f"docs/{page.name}" not in readme]
    assert unnamed == []


def test_nothing_in_the_repository_cites_a_design_file_outside_it() -> None:
    """The architecture is docs/architecture.md, in the project's own words: no file names another
    design document (the repository reads nothing outside itself: tests/test_self_contained.py)."""
    from test_self_contained import repository_files

    design = "DESIGN" + ".md"  # spelled in two parts so this file does not name it
    citing = [name for name in repository_files()
              if (ROOT / name).suffix not in {".png", ".gz", ".ico", ".woff2"}
              and design.lower() in (ROOT / name).read_text(errors="replace").lower()]
    assert citing == []
    assert "tests/test_architecture.py" in (ROOT / "docs" / "architecture.md").read_text()


BENCH = ROOT / "bench"


@pytest.fixture(scope="module")
def benchmarks_doc():
    import importlib
    import sys

    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("benchmarks_doc")
    finally:
        sys.path.remove(str(BENCH))


def test_the_benchmarks_page_has_a_dated_section_for_every_bench(benchmarks_doc) -> None:
    """Every bench `make bench` runs has its section (the arena's one per part), each saying when and
    on what machine it was measured, with one table; every script of bench/ is run by `make bench`."""
    makefile = (ROOT / "Makefile").read_text()
    run = re.findall(r"^\t\$\(PY\) bench/(\w+)\.py --record$", makefile.split("\nbench:", 1)[1].split("\n\n", 1)[0],
                     re.M)
    scripts = sorted(p.stem for p in BENCH.glob("*.py") if p.name not in ("benchmarks_doc.py", "settings.py", "people_load.py"))  # the benches' helpers
    assert sorted(run) == scripts
    page = benchmarks_doc.DOC.read_text()
    sections = {m.group("name"): m.group(0) for m in benchmarks_doc.SECTION.finditer(page)}
    assert set(sections) == set(benchmarks_doc.ORDER)
    assert {name.split("/")[0] for name in sections} == set(scripts)
    for name, text in sections.items():
        assert re.search(r"^(Measured|Figures measured) on \d{1,2} [A-Z][a-z]{2} \d{4} on .+, \d+ cores, Python 3\.\d+",
                         text, re.M), name
        assert len(re.findall(r"^\| --- \|", text, re.M)) == 1, f"{name}: one table"


def test_a_bench_replaces_its_own_section_and_nothing_else(benchmarks_doc, tmp_path) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n\nHand-written introduction.\n")
    benchmarks_doc.record("web", "Web", "A note.", ["page", "ms"], [["ladder", "1.5"]], path=page)
    benchmarks_doc.record("engines", "Engines", "Engines' note.", ["game", "ratio"], [["misty", "2.1"]], path=page)
    before = page.read_text()
    assert before.startswith("# Benchmarks\n\nHand-written introduction.\n")
    assert before.index("bench:engines") < before.index("bench:web")  # make bench's order, whatever the run's
    benchmarks_doc.record("web", "Web", "Another run.", ["page", "ms"], [["ladder", "1.25"], ["match", "3.0"]],
                          path=page)
    after = page.read_text()
    engines = before[before.index("<!-- bench:engines -->"):before.index("<!-- /bench:engines -->")]
    assert engines in after and after.startswith(before[:before.index("<!-- bench:engines -->")])
    assert "| ladder | 1.25 |\n| match | 3.0 |" in after and "1.5" not in after and "A note." not in after
    measured = re.search(r"^Measured on .*$", after.split("bench:web -->", 1)[1], re.M).group(0)
    assert f"on {benchmarks_doc.machine().split(', load')[0]}" in measured and "`python " in measured
