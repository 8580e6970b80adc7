"""NotificationTool: agents schedule messages to themselves, delivered after a delay.

The pending entries live in the team singleton ``#NotificationTool``
(:class:`NotificationActor`), which scans for due entries about once a second and tells
each one to its owner as an instance of the card's ``message_class``.
"""

from akgentic.tool.notification.actor import Clock, NotificationActor, SystemClock
from akgentic.tool.notification.models import (
    CONTENT_MAX_CHARS,
    DEFAULT_MESSAGE_CLASS,
    NOTIFICATION_ACTOR_NAME,
    NOTIFICATION_ID_MAX_CHARS,
    NOTIFICATION_TYPE,
    PENDING_MAX_PER_AGENT,
    NotificationConfig,
    NotificationListing,
    NotificationState,
    PendingNotification,
    resolve_message_class,
)
from akgentic.tool.notification.tool import (
    CancelNotification,
    NotificationTool,
    PendingNotifications,
    RegisterNotification,
)

__all__ = [
    "CONTENT_MAX_CHARS",
    "DEFAULT_MESSAGE_CLASS",
    "NOTIFICATION_ACTOR_NAME",
    "NOTIFICATION_ID_MAX_CHARS",
    "NOTIFICATION_TYPE",
    "PENDING_MAX_PER_AGENT",
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
