"""`Resource`: the files a card places in the workspace, checked when the card is built."""

from __future__ import annotations

import base64

import pytest
from pydantic import ValidationError

from akgentic.tool.workspace import Resource, ResourceType


def test_an_image_resource_with_a_character_outside_base64_is_refused() -> None:
    good = base64.b64encode(b"\x89PNG fake").decode()
    image = Resource(file_name="logo.png", content=good, file_type=ResourceType.IMAGE)
    assert image.to_bytes() == b"\x89PNG fake"
    with pytest.raises(ValidationError, match="an image's content must be base64"):
        Resource(file_name="logo.png", content=good[:4] + "$" + good[4:], file_type="image")
