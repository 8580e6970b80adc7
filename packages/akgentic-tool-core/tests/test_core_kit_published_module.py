"""The kit's publish_module: classes a test defines, reachable by dotted path."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from akgentic.core.utils.deserializer import import_class
from akgentic.tool.core.testing.published_module import publish_module

NAME = "akgentic_kit_published_module_test"


@pytest.fixture(autouse=True)
def _forget_module() -> Iterator[None]:
    yield
    sys.modules.pop(NAME, None)


def _classes() -> tuple[type[BaseModel], type[BaseModel]]:
    class Named(BaseModel):
        value: int = 1

    class Helper(BaseModel):
        pass

    return Named, Helper


def test_members_are_reachable_by_dotted_path_and_rehomed_classes_say_so() -> None:
    named, helper = _classes()
    members = {"Named": named, "Helper": helper, "answer": 42, "__doc__": "skipped"}
    module = publish_module(NAME, members, rehome=[named])
    assert importlib.import_module(NAME) is module
    assert import_class(f"{NAME}.Named") is named
    assert named.__module__ == NAME
    assert helper.__module__ == __name__  # not rehomed: still names where it was defined
    assert module.answer == 42
    assert module.__doc__ is None  # a dunder of members is not copied


def test_a_rehomed_class_missing_from_members_is_refused_and_nothing_moves() -> None:
    named, helper = _classes()
    with pytest.raises(ValueError, match=r"rehome names Helper.*akgentic_kit_published_module"):
        publish_module(NAME, {"Named": named, "Other": helper}, rehome=[named, helper])
    assert named.__module__ == __name__
    assert NAME not in sys.modules


def test_publishing_again_replaces_the_module() -> None:
    named, helper = _classes()
    publish_module(NAME, {"Named": named})
    again = publish_module(NAME, {"Helper": helper})
    assert sys.modules[NAME] is again
    assert not hasattr(again, "Named")
