"""What each tag selects, in one line: `scim-tui tags` prints it, docs/checks.md shows it.

The tags and how many checks each selects come from tag_index.py, generated from the registry
by `python scripts/tag_index.py`, so that listing them loads no check module (loading them all
took longer than loading Textual). No Textual here (the CLI imports it); tests/test_tag_guide.py
holds the index equal to the registry, every tag of the engine to a line, and docs/checks.md to the list.
"""

from __future__ import annotations

import json

from scim_tui.checker.tag_index import CHECKS_BY_TAG

DESCRIPTIONS = {
    "auth": "no credential or a wrong one gets 401, never the resources (RFC 7644 §2)",
    "bodies": "what bodies carry: null, attribute names in any case, a read-only id, a password never returned (RFC 7643 §2, §7)",
    "bodies:names": '"UserName" is userName',
    "bodies:never-returned": 'an attribute returned "never" (password) is in no answer',
    "bodies:null": 'null is unassigned in POST, PUT and PATCH replace; "" replaces',
    "bodies:read-only": "a PUT whose body carries another id keeps the resource's",
    "bulk": "POST /Bulk: operations with bulkId, failOnErrors, maxOperations (RFC 7644 §3.7)",
    "bulk:fail-on-errors": "a bulk request stops after failOnErrors errors",
    "bulk:max-operations": "more operations than maxOperations get 413",
    "bulk:operations": "POST, PUT and DELETE in one bulk request, bulkId references resolved (in paths and in data)",
    "crud": "create, read, list, search, replace, update and delete each resource type (RFC 7644 §3.3–3.6)",
    "crud:create": "POST a new resource: 201 with the resource",
    "crud:delete": "DELETE a resource: 204, then 404, and no query lists it",
    "crud:read": "GET a resource, a list and a search",
    "crud:read:attributes": "attributes= on GET, list and .search",
    "crud:update": "PUT, and PATCH add, remove and replace per attribute",
    "discovery": "/ServiceProviderConfig, /ResourceTypes, /Schemas: served, refuse writes, valid (RFC 7644 §4)",
    "discovery:strict": "every attribute the discovery documents must carry, with its type (RFC 7643 §5–7)",
    "errors": "SCIM Error bodies with the right status and scimType (RFC 7644 §3.12)",
    "errors:create": "400 invalidSyntax / invalidValue, 409 uniqueness on POST; a repeated name is never a 500",
    "errors:empty-body": "POST, PUT and PATCH with an empty body get 400 invalidSyntax or invalidValue",
    "errors:members": "a Group member naming no resource gets a 4xx",
    "errors:not-found": "PUT, PATCH and DELETE of an unknown id, DELETE of a deleted resource: 404",
    "errors:patch": "400 invalidPath / noTarget on PATCH",
    "etag": "ETags, If-None-Match → 304, a stale If-Match → 412; none when unclaimed (RFC 7644 §3.14)",
    "events": "RFC 9967: securityEvents in the ServiceProviderConfig, Prefer: respond-async",
    "events:async": "Prefer: respond-async gets the normal answer, or a 202 with Set-Txn and Location",
    "events:config": "securityEvents is well formed",
    "filter": "filter= on lists (RFC 7644 §3.4.2.2)",
    "filter:invalid": "a filter the server cannot read gets 400 invalidFilter",
    "filter:operators": "eq (case rules, names in capitals, URN-qualified), pr, co, sw, ew, ne, gt/ge/lt/le, not, and, or, (), value filters",
    "headers": "application/scim+json both ways; a 201's Location equals meta.location; a 405's Allow (RFC 7644 §3.1, §3.8)",
    "headers:allow": "a 405 carries an Allow header (RFC 9110 §15.5.6)",
    "idp": "identity providers' requests, step by step, and a readiness verdict per provider",
    "idp:entra": "Microsoft Entra ID's provisioning requests, and its readiness",
    "idp:entra:compliant": "Entra ID's compliant dialect (aadOptscim062020): boolean active, dotted keys, members[value eq]",
    "idp:entra:gallery": "Microsoft's 25-test validation for the Entra app gallery, replayed, and its pass rule",
    "idp:google": "Google Workspace's setup probe and deprovisioning (suspend, delete), and its readiness",
    "idp:jumpcloud": "JumpCloud's test connection (a user and a group created, then deleted), and its readiness",
    "idp:okta": "Okta's provisioning requests, and its readiness",
    "idp:okta:oin": "Okta's OIN test suites replayed: SPEC, CRUD (users and group push), the AIW PUT variants, Entitlements",
    "idp:onelogin": "OneLogin's emails as an object, its SCIM 1.1 schema name, group changes by PATCH, and its readiness",
    "idp:pingfederate": "PingFederate's updates by PUT, groups found by listing them all, and its readiness",
    "idp:rippling": "Rippling's test connection, its creation and its retried creation, and its readiness",
    "idp:sailpoint": "SailPoint's enable and disable by an add without a path, and its readiness",
    "me": "/Me answers 501 or a resource, never a 500 (RFC 7644 §3.11)",
    "meta": "meta of created resources; lastModified moves on PUT and PATCH (RFC 7643 §3.1)",
    "misc": "an unknown URL answers a SCIM 404 (RFC 7644 §3.12)",
    "pagination": "startIndex / count and the counts of a page (RFC 7644 §3.4.2.4)",
    "pagination:cursor": "cursor pagination, when announced (RFC 9865)",
    "patch": "PATCH as identity providers send it (RFC 7644 §3.5.2)",
    "patch:filter": 'value-filter paths: emails[type eq "work"].value',
    "patch:no-path": "operations without a path",
    "patch:order": "several operations applied in order",
    "profile:interop": "the SCIM interoperability profile (draft-zollner-scim-interop-profile-02); opt-in: named, or never run",
    "projection": "attributes / excludedAttributes on GET, .search, POST, PUT, PATCH (RFC 7644 §3.9)",
    "resource-types": "/ResourceTypes: the list, each by id, an unknown id (RFC 7644 §4)",
    "schemas": "/Schemas: the list, each by id, an unknown id (RFC 7644 §4)",
    "service-provider-config": "/ServiceProviderConfig: served, refuses writes (RFC 7644 §4)",
    "sort": "sortBy / sortOrder (RFC 7644 §3.4.2.3)",
}


def tag_lines() -> list[str]:
    """One line per tag: the tag, its number of checks, what it selects."""
    tags = sorted(CHECKS_BY_TAG)
    width = max(len(tag) for tag in tags)
    counts = CHECKS_BY_TAG
    return [f"{tag:<{width}}  {counts[tag]:>3} {'check' if counts[tag] == 1 else 'checks':<6}  {DESCRIPTIONS.get(tag, '')}".rstrip() for tag in tags]


def checks_by_tag() -> dict[str, int]:
    """Each tag of the registry, sorted, and how many checks it selects (a resource type's check
    counted once, whatever the types): what tag_index.py holds. Loads every check module."""
    from scim_tui.checker.registry import all_checkers
    from scim_tui.checker.registry import get_all_available_tags
    from scim_tui.checker.registry import tag_matches

    checkers = all_checkers()
    return {tag: sum(any(tag_matches(tag, own) for own in checker.tags) for checker in checkers) for tag in get_all_available_tags()}


def index_source() -> str:
    """The text of tag_index.py, made from the registry."""
    lines = "".join(f"    {json.dumps(tag)}: {count},\n" for tag, count in checks_by_tag().items())
    return f'''"""Each tag, and how many checks it selects: generated from the registry by
`python scripts/tag_index.py` (never by hand); tests/test_tag_guide.py holds it equal to the registry.
"""

CHECKS_BY_TAG = {{
{lines}}}
'''
