"""Resources someone else put on a server before a run: the run must leave them as they were.

``Bystanders.seed`` creates users and groups (the groups hold some of the users) straight
through HTTP, as another client would; ``untouched`` compares them afterwards, byte for byte
but their ``meta`` (a server may refresh it on a read). ``run_leftovers`` lists what a run
left: the resources carrying a ``scim-tui-`` value.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import field

import httpx2

USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"


def _listed(http: httpx2.Client, endpoint: str) -> list[dict]:
    return http.get(endpoint, params={"count": 1000}).json().get("Resources", [])


def _without_meta(resource: dict) -> str:
    return json.dumps({key: value for key, value in resource.items() if key != "meta"}, sort_keys=True)


@dataclass
class Bystanders:
    url: str
    users: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    before: dict[str, str] = field(default_factory=dict)

    @classmethod
    def seed(cls, url: str, users: int = 5, groups: int = 2) -> Bystanders:
        seeded = cls(url)
        with httpx2.Client(base_url=url, follow_redirects=True) as http:
            for number in range(users):
                user = {"schemas": [USER_SCHEMA], "userName": f"someone-{number}", "displayName": f"Someone {number}", "externalId": f"theirs-{number}"}
                seeded.users.append(http.post("/Users", json=user).json()["id"])
            for number in range(groups):
                group = {"schemas": [GROUP_SCHEMA], "displayName": f"Their team {number}", "members": [{"value": seeded.users[number]}]}
                seeded.groups.append(http.post("/Groups", json=group).json()["id"])
        seeded.before = seeded.snapshot()
        return seeded

    def snapshot(self) -> dict[str, str]:
        """Each seeded resource as the server serves it now (without meta), by id; missing ones absent."""
        with httpx2.Client(base_url=self.url, follow_redirects=True) as http:
            found = [*_listed(http, "/Users"), *_listed(http, "/Groups")]
        ids = set(self.users) | set(self.groups)
        return {resource["id"]: _without_meta(resource) for resource in found if resource["id"] in ids}

    def untouched(self) -> bool:
        return self.snapshot() == self.before


def run_leftovers(url: str) -> list[dict]:
    """The users and groups a run left on the server: those holding a value it chose (scim-tui-…)."""
    with httpx2.Client(base_url=url, follow_redirects=True) as http:
        found = [*_listed(http, "/Users"), *_listed(http, "/Groups")]
    return [resource for resource in found if "scim-tui-" in json.dumps(resource)]


def remove_run_leftovers(url: str) -> None:
    """Delete what a test's broken server made the run leave behind (the test asserted it first)."""
    with httpx2.Client(base_url=url, follow_redirects=True) as http:
        for resource in run_leftovers(url):
            kind = "Users" if USER_SCHEMA in resource.get("schemas", []) else "Groups"
            http.delete(f"/{kind}/{resource['id']}")
