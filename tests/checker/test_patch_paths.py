"""PATCH as identity providers send it: value-filtered paths, no path, several operations in order."""

from __future__ import annotations

import json
import re
from typing import Annotated

import pytest
from scim2_models import URN
from scim2_models import Mutability
from scim2_models import Patch
from scim2_models import Required
from scim2_models import Resource
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckContext
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.checker.checks.patch_paths import patch_operations_in_order
from scim_tui.checker.checks.patch_paths import patch_without_path
from scim_tui.demo import make_app
from tests.support.servers import WHOLE_PATCH_ANSWER
from tests.support.servers import Broken
from tests.support.servers import make_client
from tests.support.servers import stored

RESOURCES = r"/v2/(Users|Groups)/[^/]+"
APPLICABLE = [
    ("patch_filtered_replace", "User"),
    ("patch_filtered_remove", "Group"),
    ("patch_without_path", "User"),
    ("patch_without_path", "Group"),
    ("patch_operations_in_order", "User"),
    ("patch_operations_in_order", "Group"),
]


def run(url: str, checker: str, resource_type: str):
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(), only={CheckId(checker, resource_type)}))


def operations(result) -> list[list[dict]]:
    return [json.loads(e.request_body)["Operations"] for e in result.exchanges if e.method == "PATCH"]


def reasons(results) -> list[str]:
    return [r.reason for r in results]


@pytest.mark.parametrize(("checker", "resource_type"), APPLICABLE)
def test_the_default_server_applies_each_shape(serve, checker, resource_type):
    server = serve(make_app())
    results = run(server.url, checker, resource_type)
    assert results and all(r.status is Status.SUCCESS for r in results), reasons(results)
    assert all("a GET after the 204 answer" in r.reason for r in results), "scim2-server answers 204; each shape is read back"
    assert all(r.leftovers == [] for r in results)
    assert stored(server.url) == []


def test_the_shapes_sent_are_those_of_identity_providers(serve):
    server = serve(make_app())
    [replace] = run(server.url, "patch_filtered_replace", "User")
    [[operation]] = operations(replace)
    assert (operation["op"], operation["path"]) == ("replace", 'emails[type eq "work"].value')
    assert replace.reason.startswith('emails[type eq "work"].value: replace changed the work value only')

    [remove] = run(server.url, "patch_filtered_remove", "Group")
    [[operation]] = operations(remove)
    assert operation["op"] == "remove" and re.fullmatch(r'members\[value eq "[0-9a-f]+"\]', operation["path"])
    assert "remove took out that value only" in remove.reason

    added, replaced = run(server.url, "patch_without_path", "User")
    assert [[op["op"] for op in ops] for ops in operations(added) + operations(replaced)] == [["add"], ["replace"]]
    assert all("path" not in op and set(op["value"]) == {"externalId", "displayName"} for op in operations(added)[0] + operations(replaced)[0])
    assert added.reason.startswith("add without a path, value {externalId, displayName}: a GET after the 204 answer holds every value sent")

    then_replace, then_remove = run(server.url, "patch_operations_in_order", "User")
    assert [op["op"] for op in operations(then_replace)[0]] == ["add", "replace"]
    assert [op["op"] for op in operations(then_remove)[0]] == ["add", "remove"]
    assert then_remove.reason == "add then remove externalId in one request: a GET after the 204 answer holds the outcome of the last operation."
    assert stored(server.url) == []


def test_a_200_answer_is_read_from_its_body(serve):
    """A server that answers a PATCH with 200 and the resource: each shape is verified from the answer, no GET."""
    server = serve(Broken(make_app()).reroute("PATCH", RESOURCES, **WHOLE_PATCH_ANSWER))
    for checker, resource_type in APPLICABLE:
        results = run(server.url, checker, resource_type)
        assert all(r.status is Status.SUCCESS and "the PATCH answer" in r.reason for r in results), reasons(results)
        assert all([(e.method, e.status_code) for e in r.exchanges][-1:] == [("PATCH", 200)] for r in results)
    assert stored(server.url) == []


def _without_filters(body: dict) -> dict:
    """A server that reads `emails[type eq "work"].value` as `emails.value`, `members[...]` as `members`."""
    return {**body, "Operations": [{**op, "path": re.sub(r"\[[^\]]*\]", "", op["path"])} for op in body["Operations"]]}


def test_a_server_ignoring_value_filters_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, _without_filters))
    [replace] = run(server.url, "patch_filtered_replace", "User")
    assert replace.status is Status.ERROR
    assert replace.reason.startswith('emails[type eq "work"].value: replace also changed the home value to [')
    assert replace.reason.endswith("which the filter does not select.")
    [remove] = run(server.url, "patch_filtered_remove", "Group")
    assert remove.status is Status.ERROR
    assert re.fullmatch(r'members\[value eq "\w+"\]: remove also took \w+ out of members, which the filter does not select\.', remove.reason)
    assert stored(server.url) == []


def test_a_server_applying_nothing_is_an_error_for_each_shape(serve):
    """A PATCH read as a GET: the 200 answer shows the resource as it was."""
    server = serve(Broken(make_app()).reroute("PATCH", RESOURCES, REQUEST_METHOD="GET"))
    [replace] = run(server.url, "patch_filtered_replace", "User")
    assert replace.status is Status.ERROR and 'after replace, the PATCH answer holds ["scim-tui-' in replace.reason
    assert 'as the work value instead of "scim-tui-' in replace.reason
    [remove] = run(server.url, "patch_filtered_remove", "Group")
    assert remove.status is Status.ERROR and "after remove, the PATCH answer still holds" in remove.reason
    added, replaced = run(server.url, "patch_without_path", "User")
    assert added.status is replaced.status is Status.ERROR
    assert re.search(r'the PATCH answer holds externalId = "scim-tui-externalId-\w+" instead of "scim-tui-externalId-', added.reason), added.reason
    then_replace, then_remove = run(server.url, "patch_operations_in_order", "Group")
    assert then_replace.status is then_remove.status is Status.ERROR
    assert then_remove.reason.startswith('add then remove externalId in one request: the PATCH answer still holds externalId = "scim-tui-')
    assert stored(server.url) == []


def test_a_server_applying_operations_in_reverse_is_an_error(serve):
    reverse = Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, lambda body: {**body, "Operations": body["Operations"][::-1]})
    server = serve(reverse)
    then_replace, then_remove = run(server.url, "patch_operations_in_order", "User")
    [replace_op] = [op for op in operations(then_replace)[0] if op["op"] == "replace"]
    [add_op] = [op for op in operations(then_replace)[0] if op["op"] == "add"]
    assert then_replace.status is Status.ERROR
    assert then_replace.reason == (
        f"add then replace externalId in one request: a GET after the 204 answer holds externalId = {json.dumps(add_op['value'])} "
        f"instead of {json.dumps(replace_op['value'])}."
    )
    assert then_remove.status is Status.ERROR and "which the last operation removed" in then_remove.reason
    # One operation a request: nothing to reorder, nothing wrong.
    assert all(r.status is Status.SUCCESS for r in run(server.url, "patch_without_path", "User"))
    assert stored(server.url) == []


def _first_attribute_only(body: dict) -> dict:
    """A server that applies only the first attribute of a PATCH without a path."""
    return {**body, "Operations": [op if "path" in op else {**op, "value": dict(list(op["value"].items())[:1])} for op in body["Operations"]]}


def test_a_server_dropping_attributes_sent_without_a_path_is_an_error(serve):
    server = serve(Broken(make_app()).rewrite_request_json("PATCH", RESOURCES, _first_attribute_only))
    added, replaced = run(server.url, "patch_without_path", "User")
    assert added.status is replaced.status is Status.ERROR
    for op, result in (("add", added), ("replace", replaced)):
        assert re.match(
            rf"{op} without a path, value {{externalId, displayName}}: a GET after the 204 answer holds displayName "
            r'= "scim-tui-displayName-\w+" instead of "scim-tui-displayName-',
            result.reason,
        )
    assert stored(server.url) == []


def test_a_refused_patch_is_an_error_naming_the_shape(serve):
    server = serve(
        Broken(make_app()).answer(
            "PATCH", RESOURCES, 400, {"schemas": ["urn:ietf:params:scim:api:messages:2.0:Error"], "status": "400", "scimType": "invalidPath"}
        )
    )
    [replace] = run(server.url, "patch_filtered_replace", "User")
    assert replace.status is Status.ERROR
    assert re.match(r'emails\[type eq "work"\]\.value: PATCH /v2/Users/\w+ answered 400: The path attribute was invalid', replace.reason)
    assert stored(server.url) == []


@pytest.mark.parametrize(("checker", "resource_type"), APPLICABLE)
def test_patch_unsupported_in_the_service_provider_config_is_skipped(serve, checker, resource_type):
    config = load_default_service_provider_config()
    server = serve(make_app(config=config.model_copy(update={"patch": Patch(supported=False)})))
    [result] = run(server.url, checker, resource_type)
    assert result.status is Status.SKIPPED
    assert "ServiceProviderConfig does not claim patch support" in result.reason
    assert not any(e.method in ("POST", "PATCH") for e in result.exchanges)


@pytest.mark.parametrize(
    ("checker", "resource_type", "missing"),
    [
        ("patch_filtered_replace", "Group", "Group has no modifiable multi-valued attribute with a type and a value (such as emails)"),
        ("patch_filtered_remove", "User", "has no modifiable multi-valued attribute whose values reference other resources (such as members)"),
    ],
)
def test_a_model_without_the_attribute_is_skipped(serve, checker, resource_type, missing):
    [result] = run(serve(make_app()).url, checker, resource_type)
    assert result.status is Status.SKIPPED and missing in result.reason
    assert not any(e.method in ("POST", "PATCH") for e in result.exchanges)


class Sealed(Resource):
    """A resource with no optional attribute a PATCH could give a value to."""

    __schema__ = URN("urn:scim-tui:params:scim:schemas:test:2.0:Sealed")
    external_id: Annotated[str | None, Mutability.read_only] = None
    label: Annotated[str | None, Required.true] = None


@pytest.mark.parametrize("check", [patch_without_path, patch_operations_in_order])
def test_a_model_without_simple_optional_attributes_is_skipped(client, check):
    [result] = check(CheckContext(client), Sealed)
    assert result.status is Status.SKIPPED
    assert result.reason.startswith("Sealed has no optional, modifiable, single-valued attribute of a simple type")
