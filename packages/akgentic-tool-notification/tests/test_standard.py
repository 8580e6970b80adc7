"""Core's standard tests, applied to the notification card and its stored forms."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import yaml
from akgentic_notification_testkit import REMINDER
from pydantic import BaseModel

from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.testing import CardStandardTests, StoredFormTests
from akgentic.tool.notification import NotificationTool, RegisterNotification

STORED: list[dict[str, Any]] = yaml.safe_load(
    (Path(__file__).parent / "fixtures" / "stored_config.yaml").read_text(encoding="utf-8")
)


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
    stored_models: ClassVar[Sequence[BaseModel]] = [
        NotificationTool.model_validate(entry["config"])
        for entry in STORED
        if entry.get("card") == "NotificationTool"
    ]
