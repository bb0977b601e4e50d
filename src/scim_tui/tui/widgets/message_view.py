"""One side of an exchange, the request or the response, as a document to read: its first line,
headers and body, the JSON highlighted and foldable.

Only the lines on screen are drawn (Textual's Line API), so a body of a megabyte scrolls as
fast as a short one. ``space`` or ``enter`` folds the object or array the cursor is on (or
the one it is in), and unfolds it again.
"""

from __future__ import annotations

from rich.highlighter import JSONHighlighter
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from scim_tui.tui.widgets.exchange_document import Document

_HIGHLIGHTER = JSONHighlighter()


def matches_of(lines: list[str], term: str) -> list[tuple[int, int, int]]:
    """Where the term is in the lines, case ignored: (line, start, end) of each match."""
    if not term:
        return []
    wanted, size = term.lower(), len(term)
    found = []
    for number, line in enumerate(lines):
        lowered = line.lower()
        start = lowered.find(wanted)
        while start != -1:
            found.append((number, start, start + size))
            start = lowered.find(wanted, start + size)
    return found


class MessageView(ScrollView, can_focus=True):
    """A document of lines, a cursor line, folds, and the matches of a find."""

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="message.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="message.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="message.page-up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="message.page-down"),
        Binding("home", "cursor(-1_000_000_000)", "First line", show=False, id="message.home"),
        Binding("end", "cursor(1_000_000_000)", "Last line", show=False, id="message.end"),
        Binding("space,enter", "fold", "Fold", tooltip="Fold or unfold the JSON object or array at the cursor", id="message.fold"),
    ]
    COMPONENT_CLASSES = {"message-view--cursor", "message-view--match", "message-view--current-match", "message-view--marked", "message-view--folded"}
    DEFAULT_CSS = """
    MessageView {
        padding: 0 1;
    }
    MessageView > .message-view--cursor {
        background: $boost;
    }
    MessageView:focus > .message-view--cursor {
        background: $block-cursor-blurred-background;
    }
    MessageView > .message-view--match {
        background: $warning-muted;
    }
    MessageView > .message-view--current-match {
        background: $warning;
        color: $background;
        text-style: bold;
    }
    MessageView > .message-view--marked {
        background: $accent-muted;
        text-style: bold;
    }
    MessageView > .message-view--folded {
        color: $text-muted;
    }
    """

    def __init__(self, document: Document, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.show(document)

    def show(self, document: Document) -> None:
        """Show another document, unfolded, from its top."""
        self.document = document
        self.folded: set[int] = set()
        self.matches: list[tuple[int, int, int]] = []
        self._on_line: dict[int, list[int]] = {}
        """The matches on each line, by their index in ``matches``."""
        self.current: int | None = None
        self.cursor = 0
        """The row (of those shown, folds closed) the cursor is on."""
        self._relayout()
        if self.is_mounted:
            self.scroll_to(0, 0, animate=False)

    def _relayout(self) -> None:
        """The rows shown: every line but those inside a closed fold."""
        rows: list[int] = []
        number, total = 0, len(self.document)
        while number < total:
            rows.append(number)
            number = self.document.folds[number] + 1 if number in self.document.folds and number in self.folded else number + 1
        self.rows = rows
        width = max((len(line) for line in self.document.lines), default=0) + 2
        self.virtual_size = Size(width, len(rows))
        self.cursor = max(0, min(self.cursor, len(rows) - 1))
        self.refresh()

    # Find

    def find(self, term: str) -> int:
        """Mark the term's matches; how many there are."""
        self.matches = matches_of(self.document.lines, term)
        self._on_line = {}
        for index, (line, _start, _end) in enumerate(self.matches):
            self._on_line.setdefault(line, []).append(index)
        self.current = None
        self.refresh()
        return len(self.matches)

    def show_match(self, index: int | None) -> None:
        """Make a match the current one (None: none is), unfolded and in sight."""
        self.current = index
        if index is not None:
            self.reveal(self.matches[index][0])
        self.refresh()

    def reveal(self, number: int) -> None:
        """Open the folds hiding a line, put the cursor on it and bring it in sight."""
        hiding = {start for start in self.folded if start < number <= self.document.folds[start]}
        if hiding:
            self.folded -= hiding
            self._relayout()
        self.cursor = self.rows.index(number)
        self.call_after_refresh(self._follow, True)

    def line_at_cursor(self) -> int:
        return self.rows[self.cursor]

    # Keys

    def action_cursor(self, step: int) -> None:
        self.cursor = max(0, min(len(self.rows) - 1, self.cursor + step))
        self._follow()

    def action_page(self, step: int) -> None:
        self.action_cursor(step * max(1, self.scrollable_content_region.height - 1))

    def action_fold(self) -> None:
        """Fold the object or array the cursor is on, or the innermost one it is in; unfold a folded one."""
        if not self.rows:
            return
        number = self.line_at_cursor()
        folds = self.document.folds
        if number in self.folded:
            self.folded.discard(number)
        else:
            inside = [start for start, end in folds.items() if start <= number < end]
            if not inside:
                return
            self.folded.add(max(inside))
        self._relayout()
        self.cursor = self.rows.index(max((row for row in self.rows if row <= number), default=0))
        self._follow()

    def on_click(self, event: events.Click) -> None:
        row = event.y + round(self.scroll_y)
        if 0 <= row < len(self.rows):
            self.cursor = row
            self.refresh()

    def _follow(self, center: bool = False) -> None:
        """Scroll so that the cursor's row is in sight."""
        height = self.scrollable_content_region.height
        top = round(self.scroll_y)
        if center:
            top = max(0, self.cursor - height // 2)
        elif self.cursor < top:
            top = self.cursor
        elif self.cursor >= top + height:
            top = self.cursor - height + 1
        self.scroll_to(y=top, animate=False)
        self.refresh()

    # Drawing

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        row = scroll_y + y
        width = self.scrollable_content_region.width
        if row >= len(self.rows):
            return Strip.blank(width, self.rich_style)
        text = self.line_text(self.rows[row])
        if row == self.cursor:
            text.stylize(self._style("cursor"))
        strip = Strip(list(text.render(self.app.console)), text.cell_len)
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style).simplify()

    def line_text(self, number: int) -> Text:
        """One line as drawn: highlighted, with its marks, matches and fold."""
        document = self.document
        if number < len(document.head):
            text = document.head[number].copy()
        else:
            text = Text(document.body[number - len(document.head)])
            if document.json:
                _HIGHLIGHTER.highlight(text)
        if number in document.marked:
            text.stylize(self._style("marked"), len(text.plain) - len(text.plain.lstrip()))
        for index in self._on_line.get(number, ()):
            _line, start, end = self.matches[index]
            text.stylize(self._style("current-match" if index == self.current else "match"), start, end)
        if number in self.folded:
            closing = document.lines[document.folds[number]].strip()
            text.append(f" … {document.folds[number] - number - 1} lines … ", self._style("folded"))
            text.append(closing)
        return text

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"message-view--{name}", partial=True)
