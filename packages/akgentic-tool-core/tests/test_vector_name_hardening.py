"""Collection names are matched in full: a trailing newline is not a valid name."""

from __future__ import annotations

import pytest

from akgentic.tool.core.vector_store import validate_collection_name


@pytest.mark.parametrize("name", ["notes\n", "notes\r\n", "a\nb", "notes\n\n", "-x", "", "a" * 64])
def test_names_with_line_breaks_or_bad_shapes_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="invalid collection name"):
        validate_collection_name(name)


@pytest.mark.parametrize("name", ["notes", "a", "Plan.v2_x-1", "a" * 63])
def test_valid_names_pass_unchanged(name: str) -> None:
    assert validate_collection_name(name) == name
