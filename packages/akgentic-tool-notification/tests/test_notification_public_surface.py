"""The names akgentic.tool.notification promises; removing one must be deliberate."""

from __future__ import annotations

import akgentic.tool.notification as notification


def test_all_is_pinned() -> None:
    assert sorted(notification.__all__) == sorted(
        [
            "CONTENT_MAX_CHARS",
            "DEFAULT_MAX_DELAY_SECONDS",
            "DEFAULT_MESSAGE_CLASS",
            "DELIVERY_GRACE_S",
            "LISTING_MAX_LINES",
            "MAX_DELAY_CEILING_S",
            "NOTIFICATION_ACTOR_NAME",
            "NOTIFICATION_ACTOR_ROLE",
            "NOTIFICATION_ID_MAX_CHARS",
            "NOTIFICATION_TYPE",
            "PENDING_MAX_PER_AGENT",
            "PENDING_MAX_TOTAL",
            "PROBE_CONTENT",
            "REQUIRED_MESSAGE_FIELDS",
            "TICK_INTERVAL_S",
            "TICK_JOIN_TIMEOUT_S",
            "CancelNotification",
            "Clock",
            "NotificationActor",
            "NotificationConfig",
            "NotificationListing",
            "NotificationState",
            "NotificationTool",
            "PendingNotification",
            "PendingNotifications",
            "RegisterNotification",
            "SystemClock",
            "resolve_message_class",
        ]
    )
    for name in notification.__all__:
        assert getattr(notification, name) is not None


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
