"""A server may keep a value written another way than it was sent, where the RFC asks it to:
phone numbers canonical (RFC 7643 §4.1.2, "Service providers SHOULD canonicalize the value
according to [RFC3966]"). The checks that read a value back take it as the one sent; a server
answering another number is still told."""

from __future__ import annotations

import json
import re

import pytest

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.bystanders import run_leftovers
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.unlike import canonical_phone_numbers

READING_PHONE_NUMBERS_BACK = ("object_replacement", "check_add_attribute", "check_replace_attribute")


def _another_number(body: object) -> object:
    """Every phone number a request writes, its last digit changed (a server keeping another number)."""
    return json.loads(re.sub(r'("tel:\+[0-9-]*)([0-9])"', lambda m: f'{m[1]}{(int(m[2]) + 1) % 10}"', json.dumps(body)))


def _phone_results(url: str) -> list:
    with make_client(url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId(name, "User") for name in READING_PHONE_NUMBERS_BACK}))
    return [r for r in results if "phoneNumbers" in (r.reason or "") or r.title == "object_replacement"]


def test_phone_numbers_kept_canonical_are_the_numbers_sent(serve):
    server = serve(canonical_phone_numbers(make_app()))
    results = _phone_results(server.url)
    assert {r.title for r in results} == set(READING_PHONE_NUMBERS_BACK)
    assert all(r.status is Status.SUCCESS for r in results), [(r.title, r.reason) for r in results if r.status is not Status.SUCCESS]
    assert run_leftovers(server.url) == []


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_a_phone_number_kept_as_another_number_is_still_an_error(serve, method):
    server = serve(Broken(make_app()).rewrite_request_json(method, r"/v2/Users/.*", _another_number))
    results = _phone_results(server.url)
    failed = [r for r in results if r.status is Status.ERROR and "phoneNumbers" in (r.reason or "")]
    assert {r.title for r in failed} >= ({"object_replacement"} if method == "PUT" else {"check_add_attribute", "check_replace_attribute"}), [
        (r.title, r.status, r.reason) for r in results
    ]
    assert run_leftovers(server.url) == []
