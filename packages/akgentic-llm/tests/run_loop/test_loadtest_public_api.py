"""The public surface of the loadtest extra is pinned."""

from __future__ import annotations

from pathlib import Path

import akgentic.llm.loadtest as loadtest

# The pin is data, kept once (one name a line) rather than restated as code beside __all__.
PIN = Path(__file__).parents[1] / "fixtures" / "loadtest_public_names.txt"


def test_loadtest_all_is_pinned() -> None:
    expected = PIN.read_text("utf-8").split()
    assert len(set(expected)) == len(expected), "the pin lists a name twice"
    assert sorted(loadtest.__all__) == sorted(expected)
    for name in loadtest.__all__:
        assert getattr(loadtest, name) is not None
    assert loadtest.EXAMPLE_SCENARIO.is_file()
