"""Microsoft's validation for the Entra app gallery, replayed (tag ``idp:entra:gallery``).

Since August 2026 an app joins the Entra app gallery only with the result of Microsoft's own
validation: 25 tests that a Logic App runs in the vendor's Azure tenant. Sources: Microsoft's
test overview, SCIM-Validation-Test-Overview.md in the AzureAD/SCIMReferenceCode repository
(Microsoft.SCIM.LogicAppValidationTemplate/StandardLogicApp/), and Microsoft Learn's "App gallery
user provisioning requirements" and "Validate user provisioning for the app gallery"
(entra-docs: docs/identity/enterprise-apps/app-gallery-user-provisioning-requirements.md,
validate-user-provisioning-app-gallery.md). Each test that has a meaning on the wire is a check
(idp_gallery_users.py, idp_gallery_groups.py, idp_gallery_scim.py) sending what Entra's
provisioning engine or the Logic App sends; those that need a tenant are SKIPPED as not
replayable, never passed silently. The verdict applies Microsoft's pass rule, and
``scim-tui check --format entra-gallery`` writes its result shaped like Microsoft's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scim_tui.checker.checks.idp_readiness import blocking
from scim_tui.checker.checks.idp_readiness import causes_named
from scim_tui.checker.checks.idp_readiness import untold
from scim_tui.checker.checks.idp_wire import Provider
from scim_tui.checker.context import CheckContext
from scim_tui.checker.registry import checker
from scim_tui.checker.results import CheckResult
from scim_tui.checker.results import Status

GALLERY = Provider("the Entra app gallery", "idp:entra:gallery", "entra_gallery")
TAGS = ("idp", "idp:entra", "idp:entra:gallery")
OVERVIEW = "Microsoft's test overview (AzureAD/SCIMReferenceCode, Microsoft.SCIM.LogicAppValidationTemplate/StandardLogicApp/SCIM-Validation-Test-Overview.md)"
NOT_REPLAYABLE = "Not replayable"


@dataclass(frozen=True)
class GalleryTest:
    """One of Microsoft's 25 tests: its name, the check that replays it, and how it counts."""

    name: str
    check: str
    optional: bool = False
    """An optional test that fails is a WARNING, which does not fail the validation."""
    authentication: bool = False
    """At least one authentication test must pass."""


GALLERY_TESTS = (
    GalleryTest("Create_User_Test", "gallery_create_user"),
    GalleryTest("Update_User_Test", "gallery_update_user"),
    GalleryTest("Disable_User_Test", "gallery_disable_user"),
    GalleryTest("Delete_User_Test", "gallery_delete_user", optional=True),
    GalleryTest("User_Update_Manager_Test", "gallery_user_manager"),
    GalleryTest("Restore_User_Test", "gallery_restore_user"),
    GalleryTest("POD_User_Test", "gallery_provision_user_on_demand"),
    GalleryTest("Create_Group_Test", "gallery_create_group"),
    GalleryTest("Update_Group_Test", "gallery_update_group"),
    GalleryTest("Delete_Group_Test", "gallery_delete_group", optional=True),
    GalleryTest("Group_Update_Add_Member_Test", "gallery_add_member"),
    GalleryTest("Group_Update_Remove_Member_Test", "gallery_remove_member"),
    GalleryTest("POD_Group_Test", "gallery_provision_group_on_demand"),
    GalleryTest("Restore_Group_Test", "gallery_restore_group", optional=True),
    GalleryTest("Schema_Discoverability_Test", "gallery_schema_discoverability"),
    GalleryTest("SCIM_Null_Update_Test", "gallery_null_update"),
    GalleryTest("SCIM_User_Create_Test", "gallery_scim_user_create"),
    GalleryTest("SCIM_User_Update_Test", "gallery_scim_user_update"),
    GalleryTest("SCIM_Group_Create_Test", "gallery_scim_group_create"),
    GalleryTest("SCIM_Group_Update_Test", "gallery_scim_group_update"),
    GalleryTest("Validate_Credentials_Test", "gallery_validate_credentials", authentication=True),
    GalleryTest("Federated_Identity_Test", "gallery_federated_identity", authentication=True),
    GalleryTest("SCIM_User_Pagination_Test", "gallery_user_pagination"),
    GalleryTest("SCIM_Group_Pagination_Test", "gallery_group_pagination", optional=True),
    GalleryTest("SCIM_Update_Manager_Test", "gallery_update_manager"),
)
"""Microsoft's tests, in the order of its result file."""


def not_replayable(why: str) -> list[CheckResult]:
    """The result of a test that needs an Entra tenant: SKIPPED, blocking nothing, and said so."""
    return [CheckResult(Status.SKIPPED, reason=f"{NOT_REPLAYABLE}: {why}", blocks=False)]


def not_applicable(why: str) -> list[CheckResult]:
    """The result of a test Microsoft's validation skips, which counts as passed (no manager mapped ...)."""
    return [CheckResult(Status.SKIPPED, reason=f"Skipped: {why}", blocks=False)]


def test_result(test: GalleryTest, results: list[CheckResult]) -> str:
    """A test's `testResult` as Microsoft's file spells it: "success", "SKIPPED - …", "FAILED - …"
    (a mandatory test) or "WARNING - …" (an optional one), from its check's results."""
    if not results:
        return "SKIPPED - the run did not replay it"
    failed = next((r for r in results if blocking(r) and not r.deselected), None)
    if failed is not None:
        return f"{'WARNING' if test.optional else 'FAILED'} - {_said(failed)}"
    if all(r.status is Status.SKIPPED for r in results):
        return f"SKIPPED - {_said(results[0])}"
    return "success"


def _said(result: CheckResult) -> str:
    if result.deselected:
        return "left out by the run's selection"
    return (result.reason or "").removeprefix("Skipped: ")


def gallery_outcome(results: list[CheckResult]) -> dict[str, Any]:
    """Microsoft's outcome of the replayed tests: each `testResult`, and the overall result by its
    pass rule (every mandatory test passed or skipped, and at least one authentication test passed)."""
    by_check: dict[str, list[CheckResult]] = {}
    for result in results:
        by_check.setdefault(str(result.title), []).append(result)
    tests = [
        {
            "testName": test.name,
            "testCategory": "optional" if test.optional else "mandatory",
            "testResult": test_result(test, by_check.get(test.check, [])),
            "check": test.check,
        }
        for test in GALLERY_TESTS
    ]
    failed = [t["testName"] for t in tests if t["testResult"].startswith("FAILED")]
    authenticated = any(t["testResult"] == "success" for t, test in zip(tests, GALLERY_TESTS, strict=True) if test.authentication)
    overall = "Succeeded" if not failed and authenticated else "Failed"
    return {"overallResultFromTests": overall, "testResults": tests}


@checker(*TAGS, section="3")
def entra_gallery_readiness(context: CheckContext, results: list[CheckResult]) -> list[CheckResult]:
    """Would Microsoft's gallery validation pass? Its 25 tests replayed, judged by its own pass rule.

    Per the test overview (AzureAD/SCIMReferenceCode, SCIM-Validation-Test-Overview.md): the
    validation succeeds when every mandatory test passed or was skipped and at least one of the two
    authentication tests passed; an optional test that fails is a WARNING. SUCCESS (READY) then;
    else NOT READY naming the failed tests, a DEVIATION (an ERROR with
    ``--require-ready entra_gallery``); SKIPPED when none of its tests ran. Tests that need an Entra
    tenant (provision on demand, workload identity federation) are named as not replayed. The
    outcome of each test is the result's data, which ``--format entra-gallery`` writes.
    """
    names = {test.check for test in GALLERY_TESTS}
    replayed = [r for r in results if r.title in names]
    if context.discovery.failure or not any(r.status is not Status.SKIPPED or r.blocks for r in replayed if not r.deselected):
        why = f": the server could not be described ({context.discovery.failure})" if context.discovery.failure else ""
        return untold(GALLERY, context, f"No test of Microsoft's gallery validation ran, so its outcome cannot be told{why}")
    outcome = gallery_outcome(replayed)
    tests = outcome["testResults"]
    unreplayed = [t["testName"] for t in tests if t["testResult"].startswith(f"SKIPPED - {NOT_REPLAYABLE}")]
    aside = f"; not replayed here (they need an Entra tenant): {', '.join(unreplayed)}" if unreplayed else ""
    warned = [t["testName"] for t in tests if t["testResult"].startswith("WARNING")]
    warnings = f"; WARNING: {', '.join(warned)}" if warned else ""
    if outcome["overallResultFromTests"] == "Succeeded":
        passed = sum(t["testResult"] == "success" for t in tests)
        return [
            CheckResult(
                Status.SUCCESS,
                reason=f"READY for {GALLERY.name}: Microsoft's validation would succeed ({passed} of {len(tests)} tests passed{warnings}){aside}.",
                data=outcome,
            )
        ]
    failed = [t["testName"] for t in tests if t["testResult"].startswith("FAILED")]
    blocking = [f"{len(failed)} mandatory {'test fails' if len(failed) == 1 else 'tests fail'}: {', '.join(failed)}"] if failed else []
    if not any(t["testResult"] == "success" for t, test in zip(tests, GALLERY_TESTS, strict=True) if test.authentication):
        blocking.append("no authentication test passed (Validate_Credentials_Test needs a profile with OAuth client credentials)")
    status = Status.ERROR if GALLERY.key in context.conf.require_ready else Status.DEVIATION
    return [CheckResult(status, reason=f"NOT READY for {GALLERY.name}: {'; '.join(blocking)}{warnings}{aside}.{causes_named(replayed)}", data=outcome)]
