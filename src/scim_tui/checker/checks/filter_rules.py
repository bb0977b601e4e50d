"""The rules filter_operators judges: one filter expression each, and the resources of the check
it must select (RFC 7644 §3.4.2.2).

The check lists three resources named with a prefix of the run's own (alpha-one, gamma-two,
Beta-two: filtering.listed, shared with the pagination and sort checks), the first with an
externalId and a typed value (emails[type eq "work"] ...). A rule that must not see the other
checks' resources combines its test with the check's scope (a filter that lists exactly its
resources, narrowing.py); without one, it is SKIPPED saying why.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from datetime import timedelta
from typing import Any

from scim2_models import Resource

from scim_tui.checker.checks.narrowing import Named
from scim_tui.checker.checks.narrowing import quoted
from scim_tui.checker.filling import PREFIX
from scim_tui.checker.filling import Attribute
from scim_tui.checker.filling import attribute_named
from scim_tui.checker.filling import case_exact
from scim_tui.checker.filling import sub_attributes
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

NAMES_CASE = "attribute names and attribute operators used in filters are case insensitive"
QUALIFIED = 'an attribute path may start with its schema URN (attrPath = [URI ":"] ATTRNAME, RFC 7644 §3.4.2.2 and §3.10)'
LABELS = (
    "eq",
    "eq, other case",
    "pr",
    "co",
    "sw",
    "and",
    "or",
    "value filter",
    "eq, names in capitals",
    "eq, URN-qualified name",
    "eq, caseExact attribute",
    "ne",
    "ew",
    "gt",
    "ge",
    "lt",
    "le",
    "not",
    "parentheses",
    "pr in a value path",
)
"""Every rule, in the order of the results."""
A_DAY = timedelta(days=1)


@dataclass
class Rule:
    """One filter expression and the resources of the check it must select."""

    label: str
    expression: str
    expected: set[str]
    keyword: str = "only the resources matching the filter SHALL be returned"
    optional: bool = False
    """An operator a server may leave unsupported, refusing it with invalidFilter (every one but eq:
    a server on a key-value store may filter on one eq comparison and nothing else)."""


@dataclass
class Made:
    """What the check made, as the rules need it."""

    named: Named
    alpha: Resource[Any]
    """The resource the eq rules find, as its creation answered it."""
    typed: Attribute | None
    """The typed multi-valued attribute alpha holds a value of, if any."""
    alpha_values: dict[str, Any]
    """The values alpha was created with beyond its name."""
    dropped: str | None = None
    """Why alpha does not hold its typed value (its creation dropped it), or None."""

    def named_as(self, *suffixes: str) -> set[str]:
        return self.named.ids_named(*(self.named.full(suffix) for suffix in suffixes))

    def name(self, suffix: str) -> str:
        return self.named.full(suffix)


def eq_rule(named: Named) -> Rule:
    alpha = named.full("alpha-one")
    return Rule("eq", f"{named.attribute.name} eq {quoted(alpha)}", named.ids_named(alpha))


def rules(made: Made, scope: str | None, why_not: str) -> list[Rule | CheckResult]:
    """The rules after eq, in LABELS order; those combining their test with the check's scope
    are SKIPPED without one."""
    scoped = _scoped_rules(made, scope) if scope else {label: _skipped(label, why_not) for label in SCOPED}
    plain = _plain_rules(made)
    return [scoped[label] if label in scoped else plain[label] for label in LABELS[1:]]


SCOPED = ("pr", "and", "value filter", "ne", "gt", "ge", "lt", "le", "not", "pr in a value path")
"""The rules that need a filter listing exactly the check's resources."""


def _skipped(label: str, why: str) -> CheckResult:
    return CheckResult(Status.SKIPPED, reason=f"{label}: Skipped: {why}.")


def _plain_rules(made: Made) -> dict[str, Rule | CheckResult]:
    name = made.named.attribute.name
    alpha, gamma = made.name("alpha-one"), made.name("gamma-two")
    exact = case_exact(made.named.attribute)
    case_rule = Rule(
        "eq, other case",
        f"{name} eq {quoted(alpha.upper())}",
        set() if exact else made.named_as("alpha-one"),
        f"{name} has caseExact {str(exact).lower()}, and the case sensitivity of a string comparison SHALL follow caseExact",
    )
    schema = str(made.named.attribute.owner.__schema__)  # type: ignore[attr-defined]  # scim2-models sets __schema__ on each model class without declaring it
    first, second = made.name("alpha-one"), made.name("Beta-two")
    return {
        "eq, other case": case_rule,
        "co": Rule("co", f"{name} co {quoted(gamma.removeprefix(PREFIX))}", made.named_as("gamma-two"), optional=True),
        "sw": Rule("sw", made.named.starting_with, made.named_as("alpha-one", "Beta-two", "gamma-two"), optional=True),
        "or": Rule("or", f"{name} eq {quoted(alpha)} or {name} eq {quoted(gamma)}", made.named_as("alpha-one", "gamma-two"), optional=True),
        "eq, names in capitals": Rule("eq, names in capitals", f"{name.upper()} EQ {quoted(alpha)}", made.named_as("alpha-one"), NAMES_CASE),
        "eq, URN-qualified name": Rule("eq, URN-qualified name", f"{schema}:{name} eq {quoted(alpha)}", made.named_as("alpha-one"), QUALIFIED),
        "eq, caseExact attribute": _case_exact_rule(made),
        "ew": Rule("ew", f"{name} ew {quoted(gamma.removeprefix(PREFIX))}", made.named_as("gamma-two"), optional=True),
        # Without the parentheses, "and" binds first and the answer holds alpha too.
        "parentheses": Rule(
            "parentheses", f"({name} eq {quoted(first)} or {name} eq {quoted(second)}) and {name} eq {quoted(second)}", made.named_as("Beta-two"), optional=True
        ),
    }


def _scoped_rules(made: Made, scope: str) -> dict[str, Rule | CheckResult]:
    name = made.named.attribute.name
    alpha = made.name("alpha-one")
    within = _grouped(scope)
    others = made.named_as("Beta-two", "gamma-two")
    return {
        "pr": _presence_rule(made, within),
        # eq, not co: a server may leave co unsupported, and this rule is about "and" alone.
        "and": Rule("and", f"{within} and {name} eq {quoted(made.name('gamma-two'))}", made.named_as("gamma-two"), optional=True),
        "value filter": _value_filter_rule(made, within, "value filter", ""),
        "ne": Rule("ne", f"{name} ne {quoted(alpha)} and {within}", others, optional=True),
        **_moment_rules(made, within),
        "not": Rule("not", f"not ({name} eq {quoted(alpha)}) and {within}", others, optional=True),
        "pr in a value path": _value_filter_rule(made, within, "pr in a value path", " and value pr"),
    }


def _grouped(scope: str) -> str:
    """The scope as one operand of "and": in parentheses when it is an "or" (which binds less tightly)."""
    return f"({scope})" if " or " in scope else scope


def _presence_rule(made: Made, within: str) -> Rule | CheckResult:
    if not made.alpha.external_id:
        return _skipped("pr", "the server did not keep the externalId sent, so no attribute is known to be present on one resource only")
    return Rule("pr", f"externalId pr and {within}", made.named_as("alpha-one"), optional=True)


def _case_exact_rule(made: Made) -> Rule | CheckResult:
    """externalId (caseExact true in RFC 7643 §3.1) in upper case: nothing when the server's schema
    says caseExact true, alpha when it says false."""
    label = "eq, caseExact attribute"
    attribute = attribute_named(made.named.attribute.owner, "externalId")
    if attribute is None or not made.alpha.external_id:
        return _skipped(label, "the server did not keep the externalId sent, so no value is known to compare in another case")
    exact = case_exact(attribute)
    keyword = f"externalId has caseExact {str(exact).lower()}, and the case sensitivity of a string comparison SHALL follow caseExact"
    expected = set() if exact else made.named_as("alpha-one")
    return Rule(label, f"externalId eq {quoted(made.alpha.external_id.upper())}", expected, keyword)


def _value_filter_rule(made: Made, within: str, label: str, also: str) -> Rule | CheckResult:
    """The typed attribute filtered on its type (and `also`, inside the brackets): alpha alone. A
    server may refuse it as it may refuse the other combinations of attribute and comparison
    (RFC 7644 §3.12, Table 9: invalidFilter; it is combined with `and` too)."""
    if made.typed is None:
        return _skipped(label, 'the schema has no multi-valued complex attribute with a "type" sub-attribute to filter on')
    if made.dropped:
        return _skipped(label, made.dropped)
    if also and "value" not in sub_attributes(made.typed):
        return _skipped(label, f'{made.typed.name} has no "value" sub-attribute to test for presence')
    kind = made.alpha_values[made.typed.name][0]["type"]
    return Rule(label, f"{made.typed.name}[type eq {quoted(kind)}{also}] and {within}", made.named_as("alpha-one"), optional=True)


def _moment_rules(made: Made, within: str) -> dict[str, Rule | CheckResult]:
    """gt, ge, lt and le on meta.lastModified, around the moment alpha was created (the first of
    the three, and the others were made or changed after it)."""
    moment = made.alpha.meta.last_modified if made.alpha.meta else None
    if not isinstance(moment, datetime):
        why = "the creation answered no meta.lastModified to compare with"
        return {label: _skipped(label, why) for label in ("gt", "ge", "lt", "le")}
    every = made.named_as("alpha-one", "Beta-two", "gamma-two")

    def rule(operator: str, at: datetime, expected: set[str]) -> Rule:
        return Rule(operator, f"meta.lastModified {operator} {quoted(_instant(at))} and {within}", expected, optional=True)

    return {"gt": rule("gt", moment - A_DAY, every), "ge": rule("ge", moment, every), "lt": rule("lt", moment, set()), "le": rule("le", moment + A_DAY, every)}


def _instant(moment: datetime) -> str:
    """A dateTime as SCIM writes it (RFC 7643 §2.3.5, xsd:dateTime), in UTC."""
    text = moment.isoformat()
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text
