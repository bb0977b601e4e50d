"""The tag tree: one checkbox per tag, nested by the ``:`` segments of the tags.

The checked tags live in one place, ``CheckTree.checked``; a node's box (all, some or
none of its tags) is derived from it when the node is drawn.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from scim_tui.checker.registry import opt_in
from scim_tui.checker.registry import tag_matches
from scim_tui.tui.widgets.motion import motion_bindings

BOXES = {"all": "[x] ", "some": "[-] ", "none": "[ ] "}


def prefixes(tag: str) -> list[str]:
    """``crud:read:attributes`` → ``crud``, ``crud:read``, ``crud:read:attributes``."""
    parts = tag.split(":")
    return [":".join(parts[: i + 1]) for i in range(len(parts))]


def is_below(tag: str, ancestor: str) -> bool:
    return tag != ancestor and tag_matches(ancestor, tag)


def selection_of(tags: Iterable[str], checked: set[str]) -> tuple[list[str], list[str]]:
    """The include and exclude tags that run the checked tags (both empty when all are checked
    but the opt-in ones, which a run leaves out unless named).

    A checked tag is included unless a checked ancestor already includes it; an
    unchecked tag below a checked ancestor is excluded, unless a tag below it is checked.
    """
    tags = sorted(set(tags))
    if set(default_checked(tags)) <= checked and not any(opt_in(tag) for tag in checked):
        return [], []
    include = [t for t in tags if t in checked and not _checked_ancestor(t, tags, checked)]
    exclude = [t for t in tags if t not in checked and _checked_ancestor(t, tags, checked) and not any(is_below(u, t) for u in checked)]
    return include, exclude


def _checked_ancestor(tag: str, tags: list[str], checked: set[str]) -> bool:
    ancestors = [t for t in tags if is_below(tag, t)]
    return bool(ancestors) and max(ancestors, key=len) in checked


def checked_of(tags: Iterable[str], include: Iterable[str], exclude: Iterable[str]) -> set[str]:
    """The tags a selection runs: those its include tags select and its exclude tags leave."""
    include, exclude = list(include), list(exclude)
    return {
        tag for tag in tags if (any(tag_matches(i, tag) for i in include) if include else not opt_in(tag)) and not any(tag_matches(e, tag) for e in exclude)
    }


def default_checked(tags: Iterable[str]) -> list[str]:
    """The tags a run without filters runs: all but the opt-in ones."""
    return [tag for tag in tags if not opt_in(tag)]


class CheckTree(Tree[str]):
    """A tree of tag checkboxes; space toggles the tag under the cursor and every tag below it."""

    BINDINGS = [
        Binding("space", "toggle_check", "Toggle tag", show=False, id="tags.toggle"),  # the pane's title says it
        *motion_bindings(first="scroll_home", last="scroll_end"),
    ]

    class Changed(Message):
        """The checked tags changed."""

        def __init__(self, tree: CheckTree) -> None:
            super().__init__()
            self.tree = tree

        @property
        def control(self) -> CheckTree:
            return self.tree

    def __init__(self, tags: Iterable[str], checked: Iterable[str] | None = None, **kwargs: Any) -> None:
        super().__init__("All checks", data="", **kwargs)
        self.tags = sorted(set(tags))
        self.checked: set[str] = set(default_checked(self.tags)) if checked is None else set(checked) & set(self.tags)
        self._add_tag_nodes()

    def _add_tag_nodes(self) -> None:
        nodes: dict[str, TreeNode[str]] = {"": self.root}
        for tag in self.tags:
            for prefix in prefixes(tag):
                if prefix not in nodes:
                    parent = nodes[prefix.rpartition(":")[0]]
                    nodes[prefix] = parent.add(prefix.rpartition(":")[2], data=prefix, expand=True)
        for prefix, node in nodes.items():
            if not any(is_below(other, prefix) for other in nodes if prefix):
                node.allow_expand = False
        self.root.expand()

    def tags_under(self, prefix: str) -> list[str]:
        """The tags a node stands for: its own (if it is a tag) and every tag below it."""
        return [tag for tag in self.tags if not prefix or tag_matches(prefix, tag)]

    def state_of(self, prefix: str) -> str:
        tags = self.tags_under(prefix)
        ticked = sum(tag in self.checked for tag in tags)
        return "all" if ticked == len(tags) else "none" if ticked == 0 else "some"

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        label = super().render_label(node, base_style, style)
        state = self.state_of(node.data or "")
        box = Text(BOXES[state], style=base_style + Style(bold=state != "none"))
        return Text.assemble(box, label)

    def set_checked(self, checked: Iterable[str]) -> None:
        self.checked = set(checked) & set(self.tags)
        # Every box may change (a parent's follows its children): the root is on the path of
        # every line, so refreshing it invalidates each cached line, and the tree redraws whole.
        self.root.refresh()
        self.refresh()
        self.post_message(self.Changed(self))

    def action_toggle_check(self) -> None:
        node = self.cursor_node
        if node is None:
            return
        tags = set(self.tags_under(node.data or ""))
        self.set_checked(self.checked - tags if tags <= self.checked else self.checked | tags)

    def selection(self) -> tuple[list[str], list[str]]:
        """The include and exclude tags of the checked tags."""
        return selection_of(self.tags, self.checked)
