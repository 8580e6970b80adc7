"""Fixtures shared by the akgentic-llm tests.

Models are pydantic-ai ``TestModel`` / ``FunctionModel`` swapped in with
``ReactAgent.pydantic_agent.override(model=...)``; provider credentials are fake values set in
the environment only so that ``create_model`` can build its (never contacted) provider client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic_ai.profiles import ModelProfile

from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig

_PROVIDER_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "OPENAI_API_VERSION",
    "ANTHROPIC_API_KEY",
    "NVIDIA_BASE_URL",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
)


@dataclass
class EventRecorder:
    """A context observer keeping every event, in order."""

    events: list[object] = field(default_factory=list)

    def notify_event(self, event: object) -> None:
        self.events.append(event)

    def of_type(self, kind: type) -> list[Any]:
        return [event for event in self.events if isinstance(event, kind)]

    def names(self) -> list[str]:
        return [type(event).__name__ for event in self.events]


@pytest.fixture
def event_recorder() -> EventRecorder:
    return EventRecorder()


@pytest.fixture
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No provider variable set, whatever the developer's shell exports."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.fixture
def fake_keys(clean_provider_env: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Fake credentials for every provider (nothing is ever sent with them)."""
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-test-openai")
    clean_provider_env.setenv("AZURE_OPENAI_API_KEY", "test-azure")
    clean_provider_env.setenv("AZURE_OPENAI_ENDPOINT", "https://example-resource.openai.azure.com")
    clean_provider_env.setenv("OPENAI_API_VERSION", "2024-10-21")
    clean_provider_env.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    clean_provider_env.setenv("GOOGLE_API_KEY", "test-google")
    clean_provider_env.setenv("MISTRAL_API_KEY", "test-mistral")
    return clean_provider_env


@pytest.fixture
def make_agent(fake_keys: pytest.MonkeyPatch) -> Iterator[Callable[..., ReactAgent]]:
    """Build ReactAgents (default: openai gpt-4o config) and close them all afterwards."""
    built: list[ReactAgent] = []

    def factory(config: ReactAgentConfig | None = None, **kwargs: Any) -> ReactAgent:
        cfg = config or ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))
        agent = ReactAgent(config=cfg, **kwargs)
        built.append(agent)
        return agent

    yield factory
    for agent in built:
        agent.close()


@pytest.fixture
def native_profile() -> ModelProfile:
    """Lets TestModel/FunctionModel accept the NativeOutput that openai-class configs request."""
    return ModelProfile(supports_json_schema_output=True)
