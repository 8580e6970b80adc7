"""resolve_message_class: the bind-time contract of the delivery class."""

from __future__ import annotations

import sys

import pytest
from akgentic_notification_testkit import (
    ReminderMessage,
    StrictReminder,
    TypeRequiredReminder,
    message_path,
)

from akgentic.tool.notification import DEFAULT_MESSAGE_CLASS, resolve_message_class


@pytest.mark.parametrize("cls", [ReminderMessage, StrictReminder, TypeRequiredReminder])
def test_accepts_classes_that_can_carry_a_notification(cls: type) -> None:
    assert resolve_message_class(message_path(cls)) is cls


def test_not_importable_module() -> None:
    with pytest.raises(ValueError, match=r"cannot be imported") as info:
        resolve_message_class("no_such_package.messages.Reminder")
    assert "no_such_package.messages.Reminder" in str(info.value)


def test_not_importable_attribute() -> None:
    with pytest.raises(ValueError, match=r"cannot be imported"):
        resolve_message_class(message_path("DoesNotExist"))


@pytest.mark.parametrize("path", ["Reminder", "acme.messages.", ".Reminder"])
def test_not_a_dotted_path(path: str) -> None:
    with pytest.raises(ValueError, match=r"not a dotted path"):
        resolve_message_class(path)


def test_default_class_absent_names_the_package_and_the_alternative(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Without akgentic-agent the default must fail loudly and say both ways out. A None
    # entry in sys.modules makes the import fail exactly as an absent package does.
    monkeypatch.setitem(sys.modules, "akgentic.agent", None)
    monkeypatch.delitem(sys.modules, "akgentic.agent.messages", raising=False)
    with pytest.raises(ValueError) as info:
        resolve_message_class(DEFAULT_MESSAGE_CLASS)
    text = str(info.value)
    assert "pip install akgentic-agent" in text
    assert "message_class=" in text


def test_not_a_message_subclass() -> None:
    with pytest.raises(ValueError, match=r"subclass of akgentic.core.messages.Message"):
        resolve_message_class(message_path("NotAMessage"))


def test_not_a_class_at_all() -> None:
    with pytest.raises(ValueError, match=r"subclass of akgentic.core.messages.Message"):
        resolve_message_class(message_path("message_path"))


@pytest.mark.parametrize(
    ("name", "missing"), [("NoTypeMessage", "type"), ("NoContentMessage", "content")]
)
def test_missing_content_or_type_field(name: str, missing: str) -> None:
    with pytest.raises(ValueError, match=rf"must declare the model field\(s\) {missing}"):
        resolve_message_class(message_path(name))


def test_type_literal_excluding_notification() -> None:
    with pytest.raises(ValueError, match=r"does not accept 'notification'"):
        resolve_message_class(message_path("ChatOnlyMessage"))


def test_required_field_a_notification_cannot_fill() -> None:
    with pytest.raises(ValueError, match=r"required field\(s\) topic") as info:
        resolve_message_class(message_path("NeedsTopicMessage"))
    assert "give them defaults" in str(info.value)  # what the deployment has to do


def test_every_field_to_fix_is_named() -> None:
    with pytest.raises(ValueError, match=r"required field\(s\) topic, priority "):
        resolve_message_class(message_path("NeedsTopicAndPriorityMessage"))
    # The bare base class declares neither field delivery writes.
    with pytest.raises(ValueError, match=r"must declare the model field\(s\) content, type:"):
        resolve_message_class("akgentic.core.messages.message.Message")


def test_core_result_message_lacks_type() -> None:
    # A real core class: it has `content` but no `type`.
    with pytest.raises(ValueError, match=r"field\(s\) type"):
        resolve_message_class("akgentic.core.messages.message.ResultMessage")


def test_a_class_whose_own_validation_refuses_a_notification() -> None:
    # Caught at bind time by the trial message, not when the first entry comes due.
    with pytest.raises(ValueError, match=r"cannot be built as a notification") as info:
        resolve_message_class(message_path("RefusesNotifications"))
    assert "this channel does not take notifications" in str(info.value)
