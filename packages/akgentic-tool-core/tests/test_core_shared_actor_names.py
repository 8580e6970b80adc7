"""The shared-actor module under its former name: the same functions and caches."""

from __future__ import annotations

from akgentic.tool.core import shared_actor, team_actor


def test_the_former_module_serves_the_same_objects() -> None:
    assert team_actor.bind_team_actor is shared_actor.bind_shared_actor
    assert team_actor.ask_team_actor is shared_actor.ask_shared_actor
    assert shared_actor.bind_team_actor is shared_actor.bind_shared_actor
    # Tuning a cache through the old path tunes the one the functions use.
    assert team_actor._PROXIES is shared_actor._PROXIES
    assert team_actor._TEAM_ACTORS is shared_actor._TEAM_ACTORS
