"""NotificationTool: agents schedule messages to themselves, delivered after a delay.

The pending entries live in the team singleton ``#NotificationTool``
(:class:`NotificationActor`), which scans for due entries about once a second and tells
each one to its owner as an instance of the card's ``message_class``.
"""

from akgentic.tool.notification.actor import (
    TICK_JOIN_TIMEOUT_S,
    Clock,
    NotificationActor,
    SystemClock,
)
from akgentic.tool.notification.models import (
    CONTENT_MAX_CHARS,
    DEFAULT_MESSAGE_CLASS,
    DELIVERY_GRACE_S,
    LISTING_MAX_LINES,
    MAX_DELAY_CEILING_S,
    NOTIFICATION_ACTOR_NAME,
    NOTIFICATION_ACTOR_ROLE,
    NOTIFICATION_ID_MAX_CHARS,
    NOTIFICATION_TYPE,
    PENDING_MAX_PER_AGENT,
    PENDING_MAX_TOTAL,
    PROBE_CONTENT,
    REQUIRED_MESSAGE_FIELDS,
    TICK_INTERVAL_S,
    NotificationConfig,
    NotificationListing,
    NotificationState,
    PendingNotification,
    resolve_message_class,
)
from akgentic.tool.notification.tool import (
    DEFAULT_MAX_DELAY_SECONDS,
    CancelNotification,
    NotificationTool,
    PendingNotifications,
    RegisterNotification,
)

__all__ = [
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
