"""The defaults akgentic.tool.notification promises (its names are pinned in test_standard.py)."""

from __future__ import annotations

import akgentic.tool.notification as notification


def test_defaults() -> None:
    card = notification.NotificationTool()
    assert card.message_class == "akgentic.agent.messages.AgentMessage"
    assert card.max_delay_seconds == 300
    assert (card.register_notification, card.pending_notification, card.cancel_notification) == (
        True,
        True,
        True,
    )
    config = notification.NotificationConfig()
    assert (config.name, config.role, config.tick_seconds, config.owner_wait_seconds) == (
        "#NotificationTool",
        "ToolActor",
        1.0,
        300.0,
    )
    again = notification.NotificationTool.model_validate_json(
        notification.NotificationTool(
            register_notification=notification.RegisterNotification(instructions="x"),
            pending_notification=False,
        ).model_dump_json()
    )
    assert isinstance(again.register_notification, notification.RegisterNotification)
    assert again.register_notification.instructions == "x"
    assert again.pending_notification is False
