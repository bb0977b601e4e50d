"""The command palette: every key of the active screen (whoever wrote it), plus run commands,
then Textual's own (theme, keys, screenshot, quit), always in that order: one provider lists
them all, where two would list them as each answered first."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from textual.command import DiscoveryHit
from textual.command import Hit
from textual.command import Hits
from textual.command import Provider
from textual.dom import DOMNode


@dataclass(frozen=True)
class PaletteCommand:
    name: str
    help: str
    run: Callable[[], object]
    discovered: bool = True
    """Listed before anything is typed (else only found by a search)."""


class ScreenCommands(Provider):
    """Builds commands from the bindings the footer shows on the screen the palette was opened from.

    A screen may add commands with ``palette_commands() -> list[PaletteCommand]`` and leave
    out bindings (by id) with ``PALETTE_HIDDEN``, for keys whose footer label is a summary.
    """

    def commands(self) -> list[PaletteCommand]:
        found: dict[str, PaletteCommand] = {}
        hidden: frozenset[str] = getattr(self.screen, "PALETTE_HIDDEN", frozenset())
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.description or not binding.show or not active.enabled or binding.system or binding.id in hidden:
                continue
            name = binding.description
            shown = self.app.get_key_display(binding)
            found.setdefault(name, PaletteCommand(name, f"key: {shown}", partial(self._run, active.node, binding.action)))
        extra: Callable[[], list[PaletteCommand]] | None = getattr(self.screen, "palette_commands", None)
        for command in extra() if extra else []:
            found.setdefault(command.name, command)
        for system in self.app.get_system_commands(self.screen):
            found.setdefault(system.title, PaletteCommand(system.title, system.help, system.callback, system.discover))
        return list(found.values())

    async def _run(self, node: DOMNode, action: str) -> None:
        await self.app.run_action(action, node)

    async def discover(self) -> Hits:
        for command in self.commands():
            if command.discovered:
                yield DiscoveryHit(command.name, command.run, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            score = matcher.match(command.name)
            if score > 0:
                yield Hit(score, matcher.highlight(command.name), command.run, help=command.help)
