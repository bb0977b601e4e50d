"""Running one filter, sort or pagination checker, and the servers those tests share."""

from __future__ import annotations

from scim2_models import CaseExact
from scim2_server.utils import load_default_schemas
from scim2_server.utils import load_default_service_provider_config

from scim_tui.checker import CheckConfig
from scim_tui.checker import CheckId
from scim_tui.checker import iter_checks
from scim_tui.checker.checks.filter_rules import LABELS
from scim_tui.demo import make_app
from tests.support.servers import make_client

USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"


RULES = list(LABELS)


def run(url: str, checker: str, resource_type: str = "User") -> list:
    with make_client(url) as scim:
        return list(iter_checks(scim, CheckConfig(jobs=1), only={CheckId(checker, resource_type)}))


def by_rule(results: list) -> dict:
    return {r.reason.split(": ", 1)[0]: r for r in results}


def without_filter_support():
    config = load_default_service_provider_config()
    return make_app(config=config.model_copy(update={"filter": config.filter.model_copy(update={"supported": False})}))


def case_exact_user_names():
    """scim2-server whose User schema declares userName caseExact."""
    schemas = load_default_schemas()
    user = schemas[USER_SCHEMA]
    attributes = [a.model_copy(update={"case_exact": CaseExact.true}) if a.name == "userName" else a for a in user.attributes]
    return make_app(schemas=[*(s for key, s in schemas.items() if key != USER_SCHEMA), user.model_copy(update={"attributes": attributes})])
