"""The tag tree: hierarchy from the ``:`` segments, tri-state parents, and the selection it makes."""

from __future__ import annotations

import re

import pytest
from textual.app import App
from textual.app import ComposeResult

from scim_tui.checker import CheckConfig
from scim_tui.checker import get_all_available_tags
from scim_tui.checker.registry import filtered_out
from scim_tui.tui.widgets.check_tree import CheckTree
from scim_tui.tui.widgets.check_tree import checked_of
from scim_tui.tui.widgets.check_tree import selection_of
from tests.tui.conftest import boxes
from tests.tui.conftest import move_to

TAGS = ["crud", "crud:create", "crud:read", "crud:read:attributes", "discovery", "misc"]


class TreeApp(App[None]):
    def __init__(self, checked: set[str] | None = None) -> None:
        super().__init__()
        self.checked = checked
        self.changes: list[set[str]] = []

    def on_check_tree_changed(self, message: CheckTree.Changed) -> None:
        self.changes.append(set(message.tree.checked))

    def compose(self) -> ComposeResult:
        yield CheckTree(TAGS, self.checked)


@pytest.mark.anyio
async def test_nodes_nest_by_segments_and_parents_show_all_some_or_none():
    app = TreeApp()
    async with app.run_test() as pilot:
        tree = app.query_one(CheckTree)
        tree.focus()
        read = next(n for n in tree.root.children[0].children if n.data == "crud:read")
        assert [child.data for child in read.children] == ["crud:read:attributes"]
        assert set(boxes(tree).values()) == {"[x]"}

        move_to(tree, "crud:read:attributes")
        await pilot.press("space")
        drawn = boxes(tree)
        assert drawn["crud:read:attributes"] == "[ ]"
        assert drawn["crud:read"] == "[-]"
        assert drawn["crud"] == "[-]"
        assert drawn[""] == "[-]"
        assert drawn["crud:create"] == "[x]"
        assert drawn["discovery"] == "[x]"

        move_to(tree, "crud")
        await pilot.press("space")  # a partial parent ticks everything below it
        assert tree.checked == set(TAGS)
        await pilot.press("space")  # then unticks it all
        assert tree.checked == {"discovery", "misc"}
        assert boxes(tree)["crud:read:attributes"] == "[ ]"
        assert boxes(tree)[""] == "[-]"

        move_to(tree, "")
        await pilot.press("space")
        assert tree.checked == set(TAGS)
        await pilot.press("space")
        assert tree.checked == set()
        assert set(boxes(tree).values()) == {"[ ]"}


@pytest.mark.anyio
async def test_toggling_posts_changed():
    app = TreeApp()
    async with app.run_test() as pilot:
        tree = app.query_one(CheckTree)
        tree.focus()
        move_to(tree, "misc")
        await pilot.press("space")
        await pilot.pause()
    assert app.changes == [set(TAGS) - {"misc"}]


def runs(tags: set[str], checked: set[str]) -> set[str]:
    """Which single-tag checks the engine would run with the tree's selection."""
    include, exclude = selection_of(TAGS, checked)
    conf = CheckConfig(include_tags=set(include) or None, exclude_tags=set(exclude) or None)
    return {tag for tag in tags if filtered_out([tag], conf) is None}


@pytest.mark.parametrize(
    "checked",
    [
        set(TAGS),
        {"discovery"},
        set(TAGS) - {"crud:read:attributes"},
        {"crud:read", "crud:read:attributes", "misc"},
        {"crud", "crud:create"},
        set(TAGS) - {"crud"},
    ],
)
def test_the_selection_runs_exactly_the_checked_tags(checked):
    assert runs(set(TAGS), checked) == checked
    include, exclude = selection_of(TAGS, checked)
    assert checked_of(TAGS, include, exclude) == checked


def test_everything_checked_means_no_filter():
    assert selection_of(TAGS, set(TAGS)) == ([], [])
    assert selection_of(TAGS, set(TAGS) - {"crud:read", "crud:read:attributes"}) == (["crud", "discovery", "misc"], ["crud:read"])


def test_a_choice_tags_cannot_express_runs_more_never_less():
    """Prefix filters cannot run crud and crud:read:attributes without crud:read: it runs too."""
    checked = set(TAGS) - {"crud:read"}
    assert runs(set(TAGS), checked) == set(TAGS)


def test_the_tree_shows_every_tag_of_the_engine():
    tags = get_all_available_tags()
    tree = CheckTree(tags)
    assert tree.tags_under("") == sorted(tags)


def drawn_boxes(tree: CheckTree) -> list[str]:
    """The box of each line as the tree draws it on screen (through its line cache)."""
    return [re.search(r"\[.\]", tree.render_line(y).text).group() for y in range(tree.last_line + 1)]


@pytest.mark.anyio
async def test_the_screen_shows_the_boxes_at_once_after_space():
    """Once, the tree kept drawing the old boxes until the cursor moved."""
    app = TreeApp()
    async with app.run_test() as pilot:
        tree = app.query_one(CheckTree)
        tree.focus()
        await pilot.pause()
        assert set(drawn_boxes(tree)) == {"[x]"}
        await pilot.press("space")  # the cursor is on "All checks"
        await pilot.pause()
        assert set(drawn_boxes(tree)) == {"[ ]"}
        move_to(tree, "misc")
        await pilot.pause()
        await pilot.press("space")
        await pilot.pause()
        assert drawn_boxes(tree)[0] == "[-]", "the root's box follows a change below it"
        assert drawn_boxes(tree)[-1] == "[x]"


def test_an_opt_in_tag_is_unticked_at_first_and_runs_only_when_ticked():
    tags = [*TAGS, "profile:interop"]
    assert CheckTree(tags).checked == set(TAGS)
    assert checked_of(tags, [], []) == set(TAGS)
    assert selection_of(tags, set(TAGS)) == ([], [])
    include, exclude = selection_of(tags, set(tags))
    assert "profile:interop" in include and exclude == []
    conf = CheckConfig(include_tags=set(include))
    assert filtered_out(["profile:interop"], conf) is None and filtered_out(["crud:read"], conf) is None
    assert checked_of(tags, include, exclude) == set(tags)
