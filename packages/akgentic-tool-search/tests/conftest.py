"""Fixtures: the local Tavily stand-in (see tavily_standin.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# pytest runs with --import-mode=importlib, which does not put this folder on sys.path;
# the tests import the stand-in's types, so make its module importable by name (appended,
# so that nothing in this folder can shadow an installed module).
sys.path.append(str(Path(__file__).parent))

from tavily_standin import API_KEY, FakeTavily, serving


@pytest.fixture
def fake_tavily(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeTavily]:
    """A running stand-in server, with TAVILY_API_KEY/TAVILY_API_BASE_URL pointing at it."""
    with serving(FakeTavily()) as fake:
        monkeypatch.setenv("TAVILY_API_KEY", API_KEY)
        monkeypatch.setenv("TAVILY_API_BASE_URL", fake.url)
        yield fake
