"""Core's standard tests, applied to the notification card, its stored forms and the
package's public names."""

from __future__ import annotations

from pathlib import Path

import yaml
from akgentic_notification_testkit import REMINDER

import akgentic.tool.notification as notification
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import CardStandardTests, PublicSurfaceTests, StoredFormTests
from akgentic.tool.notification import NotificationConfig, NotificationTool, RegisterNotification

FIXTURES = Path(__file__).parent / "fixtures"
STORED = StoredFormTests.stored_entries(__file__, yaml.safe_load)


class TestNotificationCard(CardStandardTests):
    def make_card(self) -> ToolCard:
        # The default message class ships with akgentic-agent, which the package's own
        # environment does not hold: the card is bound with the tests' message class.
        return NotificationTool(
            message_class=REMINDER,
            max_delay_seconds=42,
            register_notification=RegisterNotification(instructions="Say when."),
        )


class TestNotificationStoredForms(StoredFormTests):
    # The fixture names a card under `card` and an actor configuration under `config_model`;
    # its persisted state holds actor addresses and is checked in the stored-config tests.
    stored_models = [
        *StoredFormTests.models_of(STORED, [NotificationTool]),
        *StoredFormTests.models_of(STORED, [NotificationConfig], "config_model"),
    ]


class TestNotificationSurface(PublicSurfaceTests):
    module = notification
    public_names = PublicSurfaceTests.names_listed_in(FIXTURES / "public_names.txt")
