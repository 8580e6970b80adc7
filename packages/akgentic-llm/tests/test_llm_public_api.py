"""The public surface of akgentic.llm is pinned: a name cannot vanish unnoticed."""

from __future__ import annotations

from pathlib import Path

import akgentic.llm
import akgentic.llm.capabilities

# The pin is data, kept once (one name a line) rather than restated as code beside __all__.
EXPECTED = (Path(__file__).parent / "fixtures" / "public_names.txt").read_text("utf-8").split()


def test_all_is_pinned_and_resolvable() -> None:
    assert len(set(EXPECTED)) == len(EXPECTED), "the pin lists a name twice"
    assert sorted(akgentic.llm.__all__) == sorted(EXPECTED)
    for name in akgentic.llm.__all__:
        assert getattr(akgentic.llm, name) is not None, name


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
