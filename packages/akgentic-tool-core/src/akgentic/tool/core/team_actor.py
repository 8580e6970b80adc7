"""The former name of :mod:`akgentic.tool.core.shared_actor`, kept for code importing it.

The module holds a handle on the actor a whole team shares (one per name), which its old
name made easy to mistake for the team tool; everything is defined there.
"""

from __future__ import annotations

from akgentic.tool.core.shared_actor import _PROXIES as _PROXIES  # the caches, for code
from akgentic.tool.core.shared_actor import _TEAM_ACTORS as _TEAM_ACTORS  # tuning them here
from akgentic.tool.core.shared_actor import (
    ask_shared_actor,
    ask_team_actor,
    bind_shared_actor,
    bind_team_actor,
)

__all__ = ["ask_shared_actor", "ask_team_actor", "bind_shared_actor", "bind_team_actor"]
