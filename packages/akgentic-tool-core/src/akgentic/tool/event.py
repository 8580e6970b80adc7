"""Compatibility module: where some event contracts lived before the package split.

The four command and state-event models still resolve here, with a ``DeprecationWarning``
raised when one is accessed (not when this module is imported), because persisted events
carry ``__model__`` tags naming this path. The observers that once lived here were
withdrawn: asking for them raises ``ImportError`` naming their current home.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # What type checkers see at the old path; at run time the module ``__getattr__`` below
    # resolves these names and warns.
    from akgentic.tool.core.event import CommandArg as CommandArg
    from akgentic.tool.core.event import CommandDescriptor as CommandDescriptor
    from akgentic.tool.core.event import CommandsAnnouncedEvent as CommandsAnnouncedEvent
    from akgentic.tool.core.event import ToolStateEvent as ToolStateEvent

__all__: list[str] = []

_SHIMMED = {
    "ToolStateEvent": "akgentic.tool.core.event",
    "CommandArg": "akgentic.tool.core.event",
    "CommandDescriptor": "akgentic.tool.core.event",
    "CommandsAnnouncedEvent": "akgentic.tool.core.event",
}

_WITHDRAWN = {
    "ToolObserver": "akgentic.tool (root) or akgentic.tool.core.observer",
    "ActorToolObserver": "akgentic.tool (root) or akgentic.tool.core.observer",
    "TeamManagementToolObserver": "akgentic.tool (root) or akgentic.tool.team.observer",
}


def __getattr__(name: str) -> Any:
    if name in _SHIMMED:
        home = _SHIMMED[name]
        warnings.warn(
            f"akgentic.tool.event.{name} is deprecated; import it from {home} "
            "(or from the akgentic.tool root)",
            DeprecationWarning,
            stacklevel=2,
        )
        import importlib

        return getattr(importlib.import_module(home), name)
    if name in _WITHDRAWN:
        raise ImportError(
            f"akgentic.tool.event.{name} was withdrawn; import it from {_WITHDRAWN[name]}",
            name=name,
        )
    raise AttributeError(f"module 'akgentic.tool.event' has no attribute {name!r}")
