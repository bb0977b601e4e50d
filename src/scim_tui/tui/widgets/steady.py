"""Showing new text in a widget without laying the whole screen out again when its size stays.

`Static.update` lays the screen out by default: every widget is arranged again, and each one
whose place moved is drawn again (20 to 50 ms on a loaded machine, with the event loop held). The
run's status lines and the preview change several times a second during a run, nearly always
keeping their height: they only need drawing again.
"""

from __future__ import annotations

from textual.visual import VisualType
from textual.widgets import Static


def update_steady(widget: Static, content: VisualType) -> None:
    """Show this content in the widget; lay the screen out only when the widget's place depends on
    the change: its height follows its content's and that changed, or the content outgrows (or no
    longer outgrows) a fixed height, where the scrollbar follows it."""
    if not widget.display:  # showing it lays the screen out
        widget.update(content, layout=False)
        return
    width = widget.content_region.width
    before = widget.get_content_height(widget.size, widget.size, width)
    widget.update(content, layout=False)
    after = widget.get_content_height(widget.size, widget.size, width)
    fixed = widget.styles.height is not None and not widget.styles.height.is_auto
    if not width or (after != before and (not fixed or max(before, after) > widget.scrollable_content_region.height)):
        widget.refresh(layout=True)
