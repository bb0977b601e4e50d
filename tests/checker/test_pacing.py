"""Polite to the server (RFC 6585 §4, RFC 9110 §15.6.4): a 429 or 503 is waited out and the request sent again, visibly;
a run against a server that is busy now and then gives the same results as without; requests keep
to a maximum rate; a cancel cuts a wait short."""

from __future__ import annotations

import threading
import time
from datetime import UTC
from datetime import datetime

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker import pacing
from scim_tui.checker.limits import MAX_RUN_WAIT
from scim_tui.checker.pacing import Pacing
from scim_tui.checker.pacing import retry_after
from scim_tui.demo import DemoServer
from scim_tui.demo import make_app
from tests.support.servers import Busy
from tests.support.servers import make_client

FAST = Pacing(backoff=0.01)
"""Back-off without Retry-After, shortened so that the tests do not sleep for seconds."""


def outcomes(url: str, conf: CheckConfig) -> tuple[list, list]:
    with make_client(url) as scim:
        results = list(iter_checks(scim, conf))
    return [(r.title, r.resource_type, r.status) for r in results], results


@pytest.fixture(scope="module")
def plain() -> list:
    with DemoServer(make_app()) as server:
        return outcomes(server.url, CheckConfig())[0]


class Clock:
    """The pacing's clock, set by the test: a sleep adds to the time at once, and is counted."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept = 0.0

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        self.slept += seconds


@pytest.mark.slow
@pytest.mark.parametrize(("status", "retry"), [(429, "0"), (429, "1"), (503, None)], ids=["429-retry-after-0", "429-retry-after-1", "503-backoff"])
def test_a_server_busy_every_fifth_request_gives_the_same_results_as_without(serve, plain, monkeypatch, status, retry):
    clock = Clock()
    monkeypatch.setattr(pacing, "time", clock)
    busy = Busy(make_app(), status, every=5, retry_after=retry)
    server = serve(busy)
    # one job: a request sent again is the next one the server sees, never a fifth again (with
    # checks running at once, one request could be answered busy more times than it is resent)
    seen, results = outcomes(server.url, CheckConfig(pacing=FAST, jobs=1))
    assert busy.answered > 0
    assert seen == plain
    notes = [e.note for r in results for e in r.exchanges if e.note and not e.note.startswith("sent by scim-tui")]  # not the run's own reads
    assert notes and all("sent again" in note and str(status) in note for note in notes), notes[:3]
    assert all(e.status_code == status for r in results for e in r.exchanges if e.resent), "only a busy answer is sent again"
    waited = {"0": 0.0, "1": 1.0, None: FAST.backoff}[retry]
    assert clock.slept == pytest.approx(busy.answered * waited), "each busy answer was waited out as it asked"


def test_a_post_answered_429_is_sent_again_and_each_attempt_is_an_exchange_telling_the_wait(serve):
    busy = Busy(make_app(), 429, every=2, retry_after="0")
    busy.requests = 1  # one check at a time: each request is answered 429 first, then goes through
    server = serve(busy)
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"crud:create"}, resource_types=["User"], jobs=1, pacing=FAST)))
    posts = [e for r in results for e in r.exchanges if e.method == "POST"]
    assert posts and [e.status_code for e in posts] == [429, 201] * (len(posts) // 2), [(e.status_code, e.note) for e in posts]
    first, again = posts[:2]
    assert first.resent and first.note == "answered 429 (Retry-After: 0 s): the server was too busy, so the request was sent again after 0 s"
    assert not again.resent and again.note == "sent again after the 0 s wait the 429 answer before it asked for (RFC 6585 §4, RFC 7231 §7.1.3)"
    assert first.started < again.started and first.request_body == again.request_body


def test_a_wait_longer_than_a_minute_is_not_made_the_answer_stands(serve):
    server = serve(Busy(make_app(), 503, every=1, retry_after="3600"))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(include_tags={"discovery"}, jobs=1)))
    answers = [e for r in results for e in r.exchanges]
    assert answers and all(e.status_code == 503 and e.note is None for e in answers)


def test_a_cancel_cuts_a_wait_short_and_the_wait_is_told_while_it_lasts(serve):
    busy = Busy(make_app(), 429, every=3, retry_after="55", methods=("GET",))  # the clean-up's DELETEs are not kept waiting
    server = serve(busy)
    waits: list[str | None] = []
    waiting = threading.Event()
    cancel = threading.Event()
    done: list = []

    def heard(line: str | None) -> None:
        waits.append(line)
        if line:
            waiting.set()

    def run() -> None:
        with make_client(server.url) as scim:
            done.extend(iter_checks(scim, CheckConfig(jobs=1), cancelled=cancel.is_set, on_wait=heard))

    runner = threading.Thread(target=run)
    runner.start()
    assert waiting.wait(30), "a request waits for the busy server"
    cancel.set()
    runner.join(30)  # far less than the 55 s asked: the wait was cut short
    assert not runner.is_alive()
    assert waits[0] is not None and waits[0].startswith("waiting 55 s: the server answered ") and "429 (Retry-After: 55 s)" in waits[0]
    assert waits[-1] is None, "the end of the wait is told"


def test_requests_keep_to_the_maximum_rate(serve):
    arrivals: list[float] = []
    app = make_app()

    def timed(environ, start_response):
        arrivals.append(time.monotonic())
        return app(environ, start_response)

    server = serve(timed)
    with make_client(server.url) as scim:
        list(iter_checks(scim, CheckConfig(include_tags={"discovery"}, jobs=4, pacing=Pacing(max_rate=20))))
    assert len(arrivals) > 5
    assert arrivals[-1] - arrivals[0] >= (len(arrivals) - 1) / 20 - 0.01


def test_retry_after_is_read_as_seconds_or_as_a_date():
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after("7") == 7
    assert retry_after("Thu, 01 Jan 2026 12:00:30 GMT", now) == 30
    assert retry_after("Thu, 01 Jan 2026 11:00:00 GMT", now) == 0
    assert retry_after("soon") is None and retry_after("") is None and retry_after("-3") is None


def test_a_server_busy_for_good_ends_the_run_once_it_waited_all_a_run_waits(serve, monkeypatch):
    """Every request answered 429 with Retry-After: 5: each request alone would wait 20 s (its
    four tries), and the run (on the test's clock) would wait minutes; it waits MAX_RUN_WAIT
    in all, then ends, the checks left SKIPPED saying why."""
    clock = Clock()
    monkeypatch.setattr(pacing, "time", clock)
    busy = Busy(make_app(), 429, every=1, retry_after="5")
    server = serve(busy)
    seen, results = outcomes(server.url, CheckConfig(include_tags={"discovery", "misc"}, exclude_tags={"discovery:strict"}, jobs=1))
    assert clock.slept <= MAX_RUN_WAIT
    why = (
        f"the server kept answering 429 (too busy): the run's requests waited {MAX_RUN_WAIT:g} s in all for "
        f"it, and a run waits {MAX_RUN_WAIT:g} s at most, so it ended early"
    )
    ended = [r for r in results if r.reason == f"Skipped: {why}."]
    assert ended and all(r.status is Status.SKIPPED for r in ended)
    # Each request is answered 5 times (sent, then again 4 times, 5 s apart): the run's wait covers
    # MAX_RUN_WAIT / 20 of them, then the one that finds the run must end; nothing goes out after.
    assert busy.answered <= 5 * (MAX_RUN_WAIT / 20 + 1)
