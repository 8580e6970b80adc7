"""The entry-point registry behind ``from akgentic.tool import WorkspaceTool``.

Each domain distribution declares the names it contributes to the ``akgentic.tool`` root
under the entry-point group ``akgentic.tool.exports``. Core reads that group lazily, the
first time a name is asked for, and never imports a domain package itself. The same table
lets anyone list the installed tools or resolve a card class by name.
"""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import entry_points
from typing import Any

from akgentic.tool.core.card import ToolCard

__all__ = [
    "ENTRY_POINT_GROUP",
    "KNOWN_EXPORTS",
    "exported_names",
    "installed_cards",
    "load_export",
    "refresh",
]

ENTRY_POINT_GROUP = "akgentic.tool.exports"

# Names our own domain distributions contribute to the root, with the distribution and the
# bundle extra that provide each. Only strings: this lets a missing name say what to install
# without core importing anything from a domain.
KNOWN_EXPORTS: dict[str, tuple[str, str]] = {
    "WorkspaceTool": ("akgentic-tool-workspace", "workspace"),
    "PlanningTool": ("akgentic-tool-planning", "planning"),
    "KnowledgeGraphTool": ("akgentic-tool-knowledge-graph", "knowledge-graph"),
    "KnowledgeGraphStateEvent": ("akgentic-tool-knowledge-graph", "knowledge-graph"),
    "VectorStoreTool": ("akgentic-tool-vector-store", "vector-store"),
    "VectorEntry": ("akgentic-tool-vector-store", "vector-store"),
    "EmbeddingService": ("akgentic-tool-vector-store", "vector-store"),
    "VectorIndex": ("akgentic-tool-vector-store", "vector-store"),
    "SearchTool": ("akgentic-tool-search", "search"),
    "TeamTool": ("akgentic-tool-team", "team"),
    "TeamManagementToolObserver": ("akgentic-tool-team", "team"),
    "NotificationTool": ("akgentic-tool-notification", "notification"),
    "MCPTool": ("akgentic-tool-mcp", "mcp"),
    "ExecTool": ("akgentic-tool-sandbox", "sandbox"),
    "BwrapSandboxActor": ("akgentic-tool-sandbox", "sandbox"),
    "SeatbeltSandboxActor": ("akgentic-tool-sandbox", "sandbox"),
}


@functools.cache
def exported_names() -> dict[str, str]:
    """Every installed export: root name -> ``"module:attribute"``."""
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def refresh() -> None:
    """Forget the cached entry points (after installing a distribution in-process)."""
    exported_names.cache_clear()


def load_export(name: str) -> Any:
    """Import and return the object exported as ``name``.

    Raises ``ImportError`` naming the distribution to install when no installed
    distribution provides ``name``, and ``AttributeError`` for a name nobody provides.
    """
    target = exported_names().get(name)
    if target is None:
        if name in KNOWN_EXPORTS:
            dist, extra = KNOWN_EXPORTS[name]
            raise ImportError(
                f"akgentic.tool.{name} is provided by the {dist} distribution, which is not "
                f'installed: pip install {dist}  (or pip install "akgentic-framework[{extra}]")',
                name=name,
            )
        raise AttributeError(f"module 'akgentic.tool' has no attribute {name!r}")
    module_name, _, attribute = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else []:
        value = getattr(value, part)
    return value


def installed_cards() -> dict[str, type[ToolCard]]:
    """The installed tool card classes by name (imports each exporting module)."""
    cards: dict[str, type[ToolCard]] = {}
    for name in exported_names():
        value = load_export(name)
        if isinstance(value, type) and issubclass(value, ToolCard):
            cards[name] = value
    return cards
