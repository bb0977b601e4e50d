"""Fixtures shared by the whole suite: real scim2-servers on loopback and an isolated config."""

from __future__ import annotations

import inspect
import os
import sys
from collections.abc import Callable
from collections.abc import Iterator
from typing import Any

import pytest
import scim2_models.provider
import textual._wait

from scim_tui.checker import CheckResult
from scim_tui.checker import iter_checks
from scim_tui.demo import DemoServer
from tests.support.servers import make_client

APP_FIXTURES = frozenset({"anyio_backend", "snap_compare"})
"""The fixtures of the tests that drive the app: an async Pilot test, a snapshot."""
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "all_proxy", "no_proxy")


def pytest_configure(config: pytest.Config) -> None:
    _remember_code_without_a_module_file()
    _build_each_discovered_model_once()
    _pilot_looks_for_idle_in_short_slices()


def _remember_code_without_a_module_file() -> None:
    """Tell inspect.getmodule at once what it finds the long way for the code at the bottom
    of this process's stack (compiled from a string by pytest-xdist's execnet, or frozen, as
    runpy): no module. pydantic asks it for every frame of the stack each time it builds a
    model class (scim2_models asks for attribute docstrings), and the long way walks every
    loaded module: a tenth of the suite's time, for the same answer."""
    frame = sys._getframe()
    while frame is not None:
        name = frame.f_code.co_filename
        if not os.path.exists(name):
            inspect.modulesbyfile[name] = inspect.modulesbyfile[os.path.normcase(os.path.abspath(name))] = name
        frame = frame.f_back


def _build_each_discovered_model_once() -> None:
    """Build the model of a schema a server publishes once per test process, not once per run.

    scim2-models turns each published schema into pydantic classes (from_discovery), a pure
    function of the schema that costs most of a short run's time: two thirds of the CPU of a
    run of a few checks. The suite makes hundreds of runs on the same few schemas, so the
    classes are kept by the schema's full JSON (and whether it is an extension): a schema that
    differs in any way, as a broken server's or a custom one, is built anew, and a schema that
    cannot be built raises each time. The engine itself keeps nothing between runs (DESIGN.md)."""
    build = scim2_models.provider._discovered_model
    built: dict[tuple[str, bool], Any] = {}

    def once(schema: Any, extended: set[str]) -> Any:
        key = (schema.model_dump_json(), scim2_models.provider._schema_key(schema.id) in extended)
        if key not in built:
            built[key] = build(schema, extended)
        return built[key]

    scim2_models.provider._discovered_model = once


def _pilot_looks_for_idle_in_short_slices() -> None:
    """After each key it presses, Textual's Pilot waits until the process looks idle: slices of
    20 ms until one used under 1 ms of CPU, for up to a second. A test's process also runs its
    servers and the app's run in threads, so a key often waited the whole second, and an app
    test spent a third of its time there. The slices are 5 ms here. No test relies on that
    wait: each waits for what it needs (a message processed, which Pilot waits for besides,
    or tests/tui/conftest.py's `wait_until` and `settle`)."""
    textual._wait.SLEEP_GRANULARITY = 1 / 200
    textual._wait.SLEEP_IDLE = 1 / 1000


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that drives the app is slow (a second or more): marked so here, as the tests
    that run every check, start a new process or wait out a timeout are where they are."""
    for item in items:
        if APP_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    """Never read or write the developer's real profiles, history or settings, and never go
    through the developer's proxy (tests/test_proxy.py sets its own)."""
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("SCIM_TUI_CONFIG_DIR", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="session")
def scim_server() -> Iterator[DemoServer]:
    """A default scim2-server on a free loopback port, shared by the tests of a session."""
    with DemoServer() as server:
        yield server


@pytest.fixture(scope="session")
def full_run(scim_server) -> list[CheckResult]:
    """The results of every check, run once a session on the shared server with the default
    options, for the tests that only read them."""
    with make_client(scim_server.url) as scim:
        return list(iter_checks(scim))


@pytest.fixture
def client(scim_server):
    """A fresh httpx2 scim2-client on the shared server (nothing discovered yet)."""
    with make_client(scim_server.url) as scim:
        yield scim


@pytest.fixture
def serve() -> Iterator[Callable[[Any], DemoServer]]:
    """Start a server for a WSGI application (usually a broken-server middleware)."""
    servers: list[DemoServer] = []

    def start(app: Any) -> DemoServer:
        server = DemoServer(app)
        server.start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
