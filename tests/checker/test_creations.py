"""The run's own creations adapt to a server's policy (creations.py): a User refused without an
email, though /Schemas says emails is optional, is created as an identity provider sends it, the
refusal is one finding of object_creation, and no other check is SKIPPED for it. Members a
Group's creation dropped are one finding too, added by PATCH where a check needs them (kept.py)."""

from __future__ import annotations

import json
import re

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import Status
from scim_tui.checker import iter_checks
from scim_tui.demo import make_app
from tests.support.filters import by_rule
from tests.support.filters import run
from tests.support.servers import SCIM_JSON
from tests.support.servers import Response
from tests.support.servers import make_client
from tests.support.servers import scim_error
from tests.support.servers import stored
from tests.support.unlike import EmailsRequired
from tests.support.unlike import Middleware
from tests.support.unlike import NameRequired
from tests.support.unlike import _json_body
from tests.support.unlike import _unsupported
from tests.support.unlike import members_ignored_on_create


def checks(url: str, jobs: int = 1, **conf) -> list:
    with make_client(url) as scim:
        return [r for r in iter_checks(scim, CheckConfig(jobs=jobs, **conf)) if not r.deselected]


def test_a_refused_least_creation_is_one_deviation_of_object_creation(serve):
    server = serve(EmailsRequired(make_app()))
    full, least = [r for r in checks(server.url, include_tags={"crud:create"}) if r.resource_type == "User" and r.title == "object_creation"]
    assert full.status is Status.SUCCESS, full.reason
    assert least.status is Status.DEVIATION
    assert least.reason.startswith(
        'POST /v2/Users answered 400 ("emails: a User needs an email address") to a User[EnterpriseUser] with '
        "only the attributes its /Schemas requires (userName), which declares "
    )
    assert 'emails optional (RFC 7643 §2.2 "required"); with ' in least.reason
    assert least.reason.endswith("as an identity provider sends them it was created, and the run creates its User[EnterpriseUser] resources so.")
    refused, created = least.exchanges
    assert (refused.method, refused.status_code, created.method, created.status_code) == ("POST", 400, "POST", 201)
    assert "emails" not in json.loads(refused.request_body) and json.loads(created.request_body)["emails"][0]["type"] == "work"
    assert stored(server.url) == []


def test_every_user_check_runs_on_a_server_needing_an_email(serve):
    server = serve(EmailsRequired(make_app()))
    results = checks(server.url, jobs=4, exclude_tags={"idp", "projection"})
    assert not [r.reason for r in results if "could not be created" in (r.reason or "")]
    deviations = [(r.resource_type, r.title) for r in results if r.status is Status.DEVIATION]
    assert ("User", "object_creation") in deviations
    assert [(r.resource_type, r.title, r.reason) for r in results if r.status.failed and r.title != "service_provider_config_document"] == []
    assert all(r.leftovers == [] for r in results)
    assert stored(server.url) == []


class Counting(EmailsRequired):
    """EmailsRequired, counting its refusals."""

    refusals = 0

    def intercept(self, environ):
        answer = super().intercept(environ)
        self.refusals += answer is not None
        return answer


def test_the_run_creates_its_users_as_learnt_from_then_on(serve):
    app = Counting(make_app())
    server = serve(app)
    later = {CheckId(name, "User") for name in ("check_add_attribute", "patch_without_path", "resource_versions", "sort_order")}
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId("object_creation", "User"), *later}))
    assert not [r for r in results if r.status.failed or "could not be created" in (r.reason or "")]
    # object_creation's full User points at a least one (refused once, then made as a provider does),
    # and tries a least one itself, as it is: the later checks' creations were never refused.
    assert app.refusals == 2
    assert stored(server.url) == []


def test_what_a_run_learnt_is_its_own(serve):
    """No module-level state: a second run on the same server learns again, and says so again."""
    server = serve(EmailsRequired(make_app()))
    for _ in range(2):
        with make_client(server.url) as scim:
            _full, least = iter_checks(scim, CheckConfig(jobs=1), only={CheckId("object_creation", "User")})
        assert least.status is Status.DEVIATION and [e.status_code for e in least.exchanges] == [400, 201]
    assert stored(server.url) == []


class MembersRequired(Middleware):
    """Refuses a Group without members (400), which no identity provider sends in a creation either."""

    def intercept(self, environ):
        if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO") == "/v2/Groups" and not (_json_body(environ) or {}).get("members"):
            return 400, SCIM_JSON, scim_error(400, "a group needs a member")
        return None


def test_a_least_creation_refused_whatever_is_sent_is_one_deviation_and_the_checks_needing_one_say_so(serve):
    server = serve(MembersRequired(make_app()))
    results = checks(server.url, resource_types=["Group"], include_tags={"crud"}, exclude_tags={"crud:read:attributes"})
    full, least = [r for r in results if r.title == "object_creation"]
    assert full.status is Status.SUCCESS  # every attribute filled: members too
    assert least.status is Status.DEVIATION
    assert least.reason.startswith(
        'POST /v2/Groups answered 400 ("a group needs a member") to a Group with only the attributes its /Schemas '
        "requires (displayName), and the run cannot create one"
    )
    needing = [r for r in results if r.title in ("check_add_attribute", "object_query")]
    assert [r.status for r in needing] == [Status.SUCCESS, Status.SKIPPED]  # object_query fills every attribute
    assert "the Group it needs could not be created: POST /v2/Groups answered 400" in needing[1].reason
    assert not [r for r in results if r.status.failed]
    assert stored(server.url) == []


def test_members_a_creation_dropped_are_one_deviation_and_added_by_patch_where_needed(serve):
    server = serve(members_ignored_on_create(make_app()))
    results = checks(server.url, resource_types=["Group"], include_tags={"crud:create", "patch:filter", "filter:operators"})
    full, least = [r for r in results if r.title == "object_creation"]
    assert full.status is Status.DEVIATION
    assert re.fullmatch(
        r"POST /v2/Groups answered 201 with the created Group \w+, without the members it carried: only readOnly attributes of a creation "
        r"SHALL be ignored \(RFC 7644 §3\.3\), and members is readWrite \(RFC 7643 §2\.2\)\.",
        full.reason,
    )
    assert least.status is Status.SUCCESS
    [removal] = [r for r in results if r.title == "patch_filtered_remove"]
    assert removal.status is Status.SUCCESS, removal.reason
    assert [e.method for e in removal.exchanges if e.method == "PATCH"] == ["PATCH"]  # the removal; the members were added before
    value_filter = by_rule([r for r in results if r.title == "filter_operators"])["value filter"]
    assert value_filter.status is Status.SUCCESS, value_filter.reason
    assert not [r for r in results if r.status.failed]
    assert stored(server.url) == []


def test_members_a_creation_dropped_skip_the_steps_needing_them_without_patch(serve):
    server = serve(members_ignored_on_create(_unsupported("patch")(make_app())))
    [value_filter] = [r for r in run(server.url, "filter_operators", "Group") if r.reason.startswith("value filter")]
    assert value_filter.status is Status.SKIPPED
    assert value_filter.reason == (
        "value filter: Skipped: POST /v2/Groups created the Group without the members it carried (object_creation reports it), "
        "and the ServiceProviderConfig does not claim PATCH to add them."
    )
    assert stored(server.url) == []


def test_a_check_judging_its_own_creation_is_skipped_when_every_least_creation_is_refused(serve):
    """A refusal every creation meets is no finding of the media type, of null or of a projection:
    the run's least creation is refused too, and object_creation reports it."""
    server = serve(MembersRequired(make_app()))
    own = {CheckId(check, "Group") for check in ("http_headers", "null_values", "attribute_projection")}
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only=own))
    assert [r.status for r in results] == [Status.SKIPPED] * len(results), [(r.title, r.reason) for r in results]
    assert {r.title for r in results} == {check.checker for check in own}
    assert all("the Group it needs could not be created: POST /v2/Groups answered 400: a group needs a member" in r.reason for r in results)
    assert stored(server.url) == []


class ShortUserNames(Middleware):
    """Refuses a userName longer than 20 characters, as applications keyed on a directory's short
    names do (an Active Directory sAMAccountName): every userName the run makes up is longer."""

    def intercept(self, environ: dict) -> Response | None:
        body = _json_body(environ) if environ["REQUEST_METHOD"] == "POST" and environ.get("PATH_INFO") == "/v2/Users" else None
        if isinstance(body, dict) and len(str(body.get("userName", ""))) > 20:
            return 400, SCIM_JSON, scim_error(400, "userName: at most 20 characters")
        return None


def test_a_group_whose_member_cannot_be_created_is_the_users_finding(serve):
    """Every User refused: object_creation of User reports it; a Group's, which needs a member, is SKIPPED naming it."""
    server = serve(ShortUserNames(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("object_creation", "User"), CheckId("object_creation", "Group")}))
    users = [r for r in results if r.resource_type == "User"]
    groups = [r for r in results if r.resource_type == "Group"]
    assert users and all(r.status is Status.ERROR and "userName: at most 20 characters" in r.reason for r in users), [r.reason for r in users]
    assert groups[0].status is Status.SKIPPED and "it needs could not be created: POST /v2/Users answered 400" in groups[0].reason, groups[0].reason
    assert stored(server.url) == []


class NickNameKept(NameRequired):
    """NameRequired, refusing too to remove nickName, which it does not require (a fault of its own)."""

    REMOVED = re.compile(r"name|name\.givenname|name\.familyname|nickname", re.IGNORECASE)


def test_a_removal_of_what_the_server_requires_is_the_deviation_its_creations_met(serve):
    """name refused at creation (object_creation's DEVIATION) and at removal: the removals are that
    same policy (DEVIATION), a required attribute being one a server does not remove (RFC 7644
    §3.5.2.2); another removal refused stays an ERROR."""
    server = serve(NickNameKept(make_app()))
    with make_client(server.url) as scim:
        results = list(iter_checks(scim, CheckConfig(), only={CheckId("check_remove_attribute", "User")}))
    by_path = {r.reason.split(":", 1)[0]: r for r in results}
    for path in ("name", "name.givenName", "name.familyName"):
        assert by_path[path].status is Status.DEVIATION, by_path[path].reason
        assert "the server requires name beside what its /Schemas declares required (without it, POST /v2/Users answered 400" in by_path[path].reason
    assert by_path["nickName"].status is Status.ERROR and "nickName cannot be removed" in by_path["nickName"].reason
    assert {r.status for path, r in by_path.items() if path not in ("name", "name.givenName", "name.familyName", "nickName")} == {Status.SUCCESS}
    assert stored(server.url) == []
