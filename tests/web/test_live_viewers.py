"""Many viewers following a live match through the real served site (`python -m webui serve
--workers 1 --threads 2`): their long polls wait in the worker's event loop, holding no thread,
while the pages answer; a frame written to Redis reaches every waiting viewer of each match, through the page's
road (live.json) and the API's alike."""
from __future__ import annotations

import asyncio
import json

import psutil
import pytest

from arena.road.live_frames import LiveMatch
from browser_site import Site, make_match

VIEWERS = 40


async def get(port: int, path: str) -> tuple[int, bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    answer = await reader.read()  # until the server closes: the whole answer
    writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def workers(site: Site) -> list[psutil.Process]:
    return psutil.Process(site.processes[-1].pid).children(recursive=True)


def accepted(site: Site) -> int:
    """The connections to the site its worker holds."""
    return sum(1 for worker in workers(site) for c in worker.net_connections("tcp")
               if c.laddr.port == site.port and c.status == psutil.CONN_ESTABLISHED)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    served = Site(tmp_path_factory.mktemp("live-viewers"), serve_args=("--workers", "1", "--threads", "2"))
    served.env["PARLOUR_LIVE_WAIT"] = "30"  # a poll returns with news only, within this test
    try:
        yield served.start()
    finally:
        served.stop()


def test_forty_waiting_viewers_hold_no_thread_the_pages_answer_and_a_frame_reaches_them_all(site) -> None:
    # two matches, whose subscriptions the worker's viewers share, made at once
    matches = [make_match(site, f"live/viewers/{i}", "tussie-mussie", 2, "running") for i in range(2)]
    paths = [f"/matches/{matches[i % 2]}/live.json?from=0" for i in range(VIEWERS - 10)] + \
        [f"/api/v1/matches/{matches[i % 2]}/live?from=0" for i in range(10)]

    async def watch() -> None:
        viewers = [asyncio.create_task(get(site.port, path)) for path in paths]
        deadline = asyncio.get_running_loop().time() + 10
        while (held := accepted(site)) < VIEWERS:  # the worker holds them all
            assert not any(v.done() for v in viewers), [v.result() for v in viewers if v.done()][:1]
            assert asyncio.get_running_loop().time() < deadline, f"{held} of {VIEWERS} viewers accepted"
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # and reads their requests (a frame written before a poll waits reaches it too)
        status, page = await asyncio.wait_for(get(site.port, "/"), 10)  # (a threaded server: never, all busy)
        assert status == 200 and b"Parlour" in page
        assert not any(v.done() for v in viewers), "the page answered while every viewer still waited"
        worker_threads = sum(p.num_threads() for p in workers(site))
        assert worker_threads < VIEWERS // 4, f"{worker_threads} threads in the worker for {VIEWERS} waiting viewers"

        for match_id in matches:
            LiveMatch(match_id, site.redis()).add(0, [json.dumps({"k": {"step": 0}})])
        answers = await asyncio.wait_for(asyncio.gather(*viewers), timeout=10)
        assert [status for status, _ in answers] == [200] * VIEWERS
        assert {body for _, body in answers} == {b'{"status":"running","first":0,"frames":[{"k": {"step": 0}}]}'}

    asyncio.run(watch())
