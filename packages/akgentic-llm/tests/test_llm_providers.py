"""create_model / get_output_type / create_model_settings, credentials and lazy SDK imports."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import httpx
import pytest
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.fallback import FallbackModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.models.mistral import MistralModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.output import NativeOutput, PromptedOutput, ToolOutput

from akgentic.llm import (
    HttpClientConfig,
    ModelConfig,
    ReactAgent,
    ReactAgentConfig,
    RuntimeConfig,
    create_http_client,
    create_model,
    create_model_settings,
    get_output_type,
)
from akgentic.llm.providers import NVIDIA_DEFAULT_BASE_URL


@pytest.fixture
def client() -> httpx.AsyncClient:
    return create_http_client()


@pytest.mark.parametrize(
    ("provider", "model", "cls", "base_url"),
    [
        ("openai", "gpt-4o", OpenAIChatModel, "https://api.openai.com/v1/"),
        ("azure", "gpt-4o", OpenAIChatModel, "https://example-resource.openai.azure.com/openai/"),
        ("anthropic", "claude-sonnet-4-5", AnthropicModel, "https://api.anthropic.com"),
        ("nvidia", "openai/gpt-oss-120b", OpenAIChatModel, NVIDIA_DEFAULT_BASE_URL + "/"),
        (
            "google-gla",
            "gemini-2.0-flash",
            GoogleModel,
            "https://generativelanguage.googleapis.com/",
        ),
        ("mistral", "mistral-large-latest", MistralModel, "https://api.mistral.ai"),
    ],
)
def test_each_provider_builds_its_model(
    fake_keys: Any, client: httpx.AsyncClient, provider: str, model: str, cls: type, base_url: str
) -> None:
    built = create_model(
        ModelConfig(provider=provider, model=model, temperature=0.2, max_tokens=100),  # type: ignore[arg-type]
        client,
    )
    assert type(built) is cls
    assert built.model_name == model
    assert str(built.base_url) == base_url
    assert built.settings == {"temperature": 0.2, "max_tokens": 100}


@pytest.mark.parametrize("provider", ["openai", "azure", "anthropic", "nvidia"])
def test_sdk_clients_share_our_pool_and_do_not_retry_themselves(
    fake_keys: Any, client: httpx.AsyncClient, provider: str
) -> None:
    built = create_model(ModelConfig(provider=provider, model="m"), client)  # type: ignore[arg-type]
    sdk = built.client  # type: ignore[attr-defined]
    assert sdk._client is client
    assert sdk.max_retries == 0


@pytest.mark.parametrize(
    ("provider", "variables"),
    [
        ("openai", "OPENAI_API_KEY"),
        ("azure", "AZURE_OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("google-gla", "GOOGLE_API_KEY or GEMINI_API_KEY"),
        ("mistral", "MISTRAL_API_KEY"),
    ],
)
def test_missing_credentials_name_the_provider_and_the_variable(
    clean_provider_env: Any, provider: str, variables: str
) -> None:
    # In a fallback chain several providers are built at once: the message says which one.
    with pytest.raises(ValueError, match=f"provider '{provider}' needs .*{variables}"):
        create_model(ModelConfig(provider=provider, model="m"))  # type: ignore[arg-type]


def test_azure_needs_its_endpoint(clean_provider_env: pytest.MonkeyPatch) -> None:
    clean_provider_env.setenv("AZURE_OPENAI_API_KEY", "k")
    with pytest.raises(ValueError, match="provider 'azure' needs .*AZURE_OPENAI_ENDPOINT"):
        create_model(ModelConfig(provider="azure", model="gpt-4o"))


@pytest.mark.parametrize(
    ("provider", "model", "host", "credential"),
    [
        ("openai", "gpt-4o", "api.openai.com", ("authorization", "Bearer sk-test-openai")),
        ("azure", "gpt-4o", "example-resource.openai.azure.com", ("api-key", "test-azure")),
        ("anthropic", "claude-sonnet-4-5", "api.anthropic.com", ("x-api-key", "sk-ant-test")),
        (
            "google-gla",
            "gemini-2.0-flash",
            "generativelanguage.googleapis.com",
            ("x-goog-api-key", "test-google"),
        ),
        (
            "mistral",
            "mistral-large-latest",
            "api.mistral.ai",
            ("authorization", "Bearer test-mistral"),
        ),
    ],
)
async def test_each_provider_sends_through_the_given_client_with_its_credential(
    fake_keys: Any, provider: str, model: str, host: str, credential: tuple[str, str]
) -> None:
    # The network transport under our client records the request and refuses it, so nothing
    # leaves the process: a provider that built its own client would never reach it.
    sent: list[httpx.Request] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(400, json={"error": {"message": "refused by the test"}})

    transport = httpx.MockTransport(refuse)
    async with create_http_client(HttpClientConfig(max_retries=0), transport=transport) as client:
        built = create_model(ModelConfig(provider=provider, model=model), client)  # type: ignore[arg-type]
        with pytest.raises(ModelHTTPError):
            await Agent(built).run("hi")
    assert len(sent) == 1
    assert sent[0].url.host == host
    name, value = credential
    assert sent[0].headers[name] == value
    if provider == "azure":
        assert sent[0].url.params["api-version"] == "2024-10-21"  # from OPENAI_API_VERSION


def test_google_falls_back_to_gemini_api_key(clean_provider_env: pytest.MonkeyPatch) -> None:
    clean_provider_env.setenv("GEMINI_API_KEY", "gemini-only")
    assert type(create_model(ModelConfig(provider="google-gla", model="gemini-2.0-flash"))) is (
        GoogleModel
    )


def test_nvidia_reads_base_url_and_fails_late_without_key(
    clean_provider_env: pytest.MonkeyPatch,
) -> None:
    clean_provider_env.setenv("NVIDIA_BASE_URL", "http://127.0.0.1:9/v1")
    built = create_model(ModelConfig(provider="nvidia", model="meta/llama-3.1-8b-instruct"))
    assert str(built.base_url) == "http://127.0.0.1:9/v1/"
    # no key anywhere: pydantic-ai's placeholder, so the failure would be a 401 at request time
    assert built.client.api_key == "api-key-not-set"  # type: ignore[attr-defined]


def test_openai_compatible_server_without_key(clean_provider_env: pytest.MonkeyPatch) -> None:
    clean_provider_env.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert type(create_model(ModelConfig(provider="openai", model="local"))) is OpenAIChatModel


def test_fallback_chain_is_built_eagerly_in_order(
    fake_keys: Any, client: httpx.AsyncClient
) -> None:
    built = create_model(
        ModelConfig(
            provider="openai",
            model="gpt-5.2",
            fallback_models=[
                ModelConfig(provider="anthropic", model="claude-sonnet-4-5"),
                ModelConfig(provider="azure", model="gpt-4o-mini"),
            ],
        ),
        client,
    )
    assert isinstance(built, FallbackModel)
    assert [(m.system, m.model_name) for m in built.models] == [
        ("openai", "gpt-5.2"),
        ("anthropic", "claude-sonnet-4-5"),
        ("azure", "gpt-4o-mini"),
    ]


def test_fallback_entry_without_credentials_fails_at_construction(
    clean_provider_env: pytest.MonkeyPatch,
) -> None:
    clean_provider_env.setenv("OPENAI_API_KEY", "k")
    clean_provider_env.setenv("ANTHROPIC_API_KEY", "k")
    config = ModelConfig(
        provider="openai",
        model="gpt-5.2",
        fallback_models=[ModelConfig(provider="azure", model="gpt-4o-mini")],
    )
    with pytest.raises(ValueError, match="AZURE_OPENAI_API_KEY"):
        create_model(config)


def test_a_fallback_model_talks_through_the_agents_client_and_its_retries(
    clean_provider_env: pytest.MonkeyPatch,
    serve: Any,
    chat_completion: Any,
    closing: Any,
) -> None:
    """The primary model is refused (400, not retried, so the chain moves on); the fallback
    meets one 503. Only our retrying client gets it past that: the SDK's own retries are off,
    so a fallback built with a client of its own would fail the run on the 503."""
    server = serve(
        (400, '{"error": {"message": "model gone"}}'),
        (503, '{"error": {"message": "busy"}}'),
        (200, {"Content-Type": "application/json"}, chat_completion("from the fallback")),
    )
    clean_provider_env.setenv("OPENAI_API_KEY", "sk-local")
    clean_provider_env.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    config = ReactAgentConfig(
        model_cfg=ModelConfig(
            provider="openai",
            model="gpt-gone",
            fallback_models=[ModelConfig(provider="openai", model="gpt-4o-mini")],
        ),
        runtime_cfg=RuntimeConfig(
            http_client_config=HttpClientConfig(backoff_multiplier=0.01, backoff_max=0.02)
        ),
    )
    agent: ReactAgent = closing(ReactAgent(config=config))
    assert agent.run_sync("hello") == "from the fallback"
    assert server.attempts == 3


class Answer(BaseModel):
    text: str


@pytest.mark.parametrize(
    ("provider", "model", "wrapper"),
    [
        ("openai", "gpt-4o", NativeOutput),
        ("azure", "gpt-4o", NativeOutput),
        ("anthropic", "claude-sonnet-4-5", NativeOutput),
        ("nvidia", "openai/gpt-oss-120b", NativeOutput),
        ("nvidia", "meta/llama-3.1-8b-instruct", PromptedOutput),
        ("google-gla", "gemini-2.0-flash", PromptedOutput),
        ("mistral", "mistral-large-latest", PromptedOutput),
    ],
)
def test_get_output_type_per_provider(provider: str, model: str, wrapper: type) -> None:
    wrapped = get_output_type(ModelConfig(provider=provider, model=model), Answer)  # type: ignore[arg-type]
    assert isinstance(wrapped, wrapper)
    assert wrapped.outputs is Answer


def test_get_output_type_leaves_text_and_explicit_wrappers_alone() -> None:
    cfg = ModelConfig()
    assert get_output_type(cfg, str) is str
    explicit = ToolOutput(Answer)
    assert get_output_type(cfg, explicit) is explicit


def test_create_model_settings() -> None:
    settings = create_model_settings(
        ModelConfig(temperature=0.0, seed=42, max_tokens=2000, reasoning_effort="high")
    )
    assert settings == {
        "temperature": 0.0,
        "seed": 42,
        "max_tokens": 2000,
        "thinking": "high",
        "parallel_tool_calls": True,
    }
    assert create_model_settings(ModelConfig()) == {"parallel_tool_calls": True}


def test_create_model_settings_takes_the_config_as_model_cfg_too() -> None:
    config = ModelConfig(temperature=0.3)
    assert create_model_settings(model_cfg=config) == {
        "temperature": 0.3,
        "parallel_tool_calls": True,
    }
    with pytest.raises(TypeError, match=r"create_model_settings\(\) got both config and model_cfg"):
        create_model_settings(config, model_cfg=config)
    with pytest.raises(
        TypeError, match=r"create_model_settings\(\) missing the model configuration"
    ):
        create_model_settings()


def test_create_model_and_get_output_type_name_themselves_in_a_config_mix_up() -> None:
    config = ModelConfig(model="gpt-4o")
    assert type(get_output_type(model_cfg=config, output_type=dict)).__name__ == "NativeOutput"
    for helper in (create_model, get_output_type):
        name = helper.__name__
        with pytest.raises(TypeError) as both:
            helper(config, model_cfg=config)
        assert str(both.value) == f"{name}() got both config and model_cfg; pass one of them"
        with pytest.raises(TypeError) as neither:
            helper()
        assert str(neither.value) == (
            f"{name}() missing the model configuration (config=ModelConfig(...))"
        )


def test_import_is_light_and_sdks_load_per_provider() -> None:
    """A fresh interpreter: importing akgentic.llm loads no provider SDK; building a model
    loads exactly its own SDK."""
    script = textwrap.dedent(
        """
        import json, os, sys
        os.environ.update(ANTHROPIC_API_KEY="k", MISTRAL_API_KEY="k")
        sdks = ("openai", "anthropic", "google.genai", "mistralai")
        import akgentic.llm
        from akgentic.llm import ModelConfig, create_model
        after_import = [m for m in sdks if m in sys.modules]
        create_model(ModelConfig(provider="anthropic", model="claude-sonnet-4-5"))
        after_anthropic = [m for m in sdks if m in sys.modules]
        create_model(ModelConfig(provider="mistral", model="mistral-large-latest"))
        after_mistral = [m for m in sdks if m in sys.modules]
        print(json.dumps([after_import, after_anthropic, after_mistral]))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=240
    ).stdout
    after_import, after_anthropic, after_mistral = json.loads(out.strip().splitlines()[-1])
    assert after_import == []
    assert after_anthropic == ["anthropic"]
    assert sorted(after_mistral) == ["anthropic", "mistralai"]
