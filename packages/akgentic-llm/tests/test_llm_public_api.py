"""The public surface of akgentic.llm is pinned: a name cannot vanish unnoticed."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

import akgentic.llm
import akgentic.llm.capabilities
import akgentic.llm.testing

# A pin is data, kept once (one name a line) rather than restated as code beside __all__.
FIXTURES = Path(__file__).parent / "fixtures"
PINNED = [(akgentic.llm, "public_names.txt"), (akgentic.llm.testing, "testing_public_names.txt")]


@pytest.mark.parametrize(("module", "pin"), PINNED, ids=lambda item: getattr(item, "__name__", ""))
def test_all_is_pinned_and_resolvable(module: ModuleType, pin: str) -> None:
    expected = (FIXTURES / pin).read_text("utf-8").split()
    assert len(set(expected)) == len(expected), f"{pin} lists a name twice"
    assert sorted(module.__all__) == sorted(expected)
    for name in module.__all__:
        assert getattr(module, name) is not None, name


def test_default_conclusion_reason_is_not_exported_at_the_root() -> None:
    assert "DEFAULT_CONCLUSION_REASON" not in akgentic.llm.__all__
    assert isinstance(akgentic.llm.capabilities.DEFAULT_CONCLUSION_REASON, str)


def test_errors_keep_their_old_home_in_agent() -> None:
    from akgentic.llm import agent, capabilities

    for name in (
        "UsageLimitError",
        "RunUsageLimitError",
        "AgentUsageLimitError",
        "RUN_LIMIT_HEALING_MESSAGE",
    ):
        assert getattr(agent, name) is getattr(capabilities, name)
