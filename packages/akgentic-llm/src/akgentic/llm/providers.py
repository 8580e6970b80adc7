"""Building pydantic-ai models from a ``ModelConfig``, and the retrying HTTP client they share.

Every provider SDK (openai, anthropic, google-genai, mistralai) is imported inside the factory
of its provider, so ``import akgentic.llm`` never pays for an SDK the process does not use.

Credentials come from the environment and are checked here, before the SDK is touched, so a
missing variable is a ``ValueError`` that names it:

==============  ==============================================================================
provider        environment
==============  ==============================================================================
``openai``      ``OPENAI_API_KEY`` (or an ``OPENAI_BASE_URL`` pointing at a keyless server)
``azure``       ``AZURE_OPENAI_API_KEY`` and ``AZURE_OPENAI_ENDPOINT`` (``OPENAI_API_VERSION``
                optional)
``anthropic``   ``ANTHROPIC_API_KEY``
``nvidia``      ``NVIDIA_BASE_URL`` (default ``https://integrate.api.nvidia.com/v1``); the key is
                ``OPENAI_API_KEY`` and is *not* checked: pydantic-ai sends a placeholder and the
                endpoint answers 401 at request time
``google-gla``  ``GOOGLE_API_KEY``, else ``GEMINI_API_KEY``
``mistral``     ``MISTRAL_API_KEY``
==============  ==============================================================================
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import httpx

from akgentic.llm._deadline import send_before
from akgentic.llm.config import HttpClientConfig, ModelConfig, _supports_native_output

if TYPE_CHECKING:
    from pydantic_ai.models import Model
    from pydantic_ai.settings import ModelSettings

__all__ = [
    "NVIDIA_DEFAULT_BASE_URL",
    "create_http_client",
    "create_model",
    "create_model_settings",
    "get_output_type",
]

NVIDIA_DEFAULT_BASE_URL = "https://integrate.api.nvidia.com/v1"

# ------------------------------------------------------------------- settings


def _sampling_settings(model_cfg: ModelConfig) -> ModelSettings:
    """The settings a model is built with: only what the config actually sets."""
    from pydantic_ai.settings import ModelSettings

    settings = ModelSettings()
    if model_cfg.temperature is not None:
        settings["temperature"] = model_cfg.temperature
    if model_cfg.seed is not None:
        settings["seed"] = model_cfg.seed
    if model_cfg.max_tokens is not None:
        settings["max_tokens"] = model_cfg.max_tokens
    if model_cfg.reasoning_effort is not None:
        # pydantic-ai's unified thinking level, translated per provider by the model class.
        settings["thinking"] = model_cfg.reasoning_effort
    return settings


def _model_config(
    config: ModelConfig | None, model_cfg: ModelConfig | None, func: str
) -> ModelConfig:
    """The model configuration given positionally / as ``config=`` or as ``model_cfg=``.

    The predecessor named the parameter ``config``; this package's earlier releases and its
    manual's examples say ``model_cfg``. Both keywords are accepted, one at a time.
    """
    if config is not None and model_cfg is not None:
        raise TypeError(f"{func}() got both config and model_cfg; pass one of them")
    chosen = config if config is not None else model_cfg
    if chosen is None:
        raise TypeError(f"{func}() missing the model configuration (config=ModelConfig(...))")
    return chosen


def create_model_settings(
    config: ModelConfig | None = None, *, model_cfg: ModelConfig | None = None
) -> ModelSettings:
    """Model settings derived from the model configuration, for callers that build their own
    model.

    ``create_model`` already bakes the sampling settings into every model it builds; this helper
    additionally and unconditionally sets ``parallel_tool_calls=True`` (no configuration field
    reaches it, as the reference manual specifies), which ``ReactAgent`` never sends. Delete the
    key from the result if your model must not receive it.
    """
    settings = _sampling_settings(_model_config(config, model_cfg, "create_model_settings"))
    settings["parallel_tool_calls"] = True
    return settings


# -------------------------------------------------------------------- models


def _require_env(provider: str, *names: str) -> str:
    """Value of the first set variable among ``names``; ``ValueError`` naming them all if none."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    wanted = " or ".join(names)
    raise ValueError(f"provider {provider!r} needs the environment variable {wanted} to be set")


def _single_retry_layer(sdk_client: Any) -> None:
    """Switch off the SDK's own retries (openai and anthropic retry twice by default).

    The transport of ``create_http_client`` already retries 429/5xx with the configured
    budget; a second layer on top would multiply attempts ((1 + sdk) x (1 + ours)) and make
    ``HttpClientConfig.max_retries`` meaningless.
    """
    sdk_client.max_retries = 0


def _create_openai_model(model_cfg: ModelConfig, http_client: httpx.AsyncClient | None) -> Model:
    if not os.environ.get("OPENAI_BASE_URL"):
        _require_env("openai", "OPENAI_API_KEY")
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(http_client=http_client)
    _single_retry_layer(provider.client)
    return OpenAIChatModel(
        model_cfg.model, provider=provider, settings=_sampling_settings(model_cfg)
    )


def _create_azure_model(model_cfg: ModelConfig, http_client: httpx.AsyncClient | None) -> Model:
    api_key = _require_env("azure", "AZURE_OPENAI_API_KEY")
    endpoint = _require_env("azure", "AZURE_OPENAI_ENDPOINT")
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.azure import AzureProvider

    provider = AzureProvider(
        azure_endpoint=endpoint,
        api_key=api_key,
        api_version=os.environ.get("OPENAI_API_VERSION"),
        http_client=http_client,
    )
    _single_retry_layer(provider.client)
    return OpenAIChatModel(
        model_cfg.model, provider=provider, settings=_sampling_settings(model_cfg)
    )


def _create_nvidia_model(model_cfg: ModelConfig, http_client: httpx.AsyncClient | None) -> Model:
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    base_url = os.environ.get("NVIDIA_BASE_URL") or NVIDIA_DEFAULT_BASE_URL
    # No api_key on purpose: OpenAIProvider reads OPENAI_API_KEY, and with a base_url given it
    # substitutes a placeholder when the variable is missing (the endpoint then answers 401).
    provider = OpenAIProvider(base_url=base_url, http_client=http_client)
    _single_retry_layer(provider.client)
    return OpenAIChatModel(
        model_cfg.model, provider=provider, settings=_sampling_settings(model_cfg)
    )


def _create_anthropic_model(model_cfg: ModelConfig, http_client: httpx.AsyncClient | None) -> Model:
    api_key = _require_env("anthropic", "ANTHROPIC_API_KEY")
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    provider = AnthropicProvider(api_key=api_key, http_client=http_client)
    _single_retry_layer(provider.client)
    return AnthropicModel(
        model_cfg.model, provider=provider, settings=_sampling_settings(model_cfg)
    )


def _create_google_model(model_cfg: ModelConfig, http_client: httpx.AsyncClient | None) -> Model:
    # API key only: Application Default Credentials are never consulted.
    api_key = _require_env("google-gla", "GOOGLE_API_KEY", "GEMINI_API_KEY")
    from pydantic_ai.models.google import GoogleModel
    from pydantic_ai.providers.google import GoogleProvider

    return GoogleModel(
        model_cfg.model,
        provider=GoogleProvider(api_key=api_key, http_client=http_client),
        settings=_sampling_settings(model_cfg),
    )


def _create_mistral_model(model_cfg: ModelConfig, http_client: httpx.AsyncClient | None) -> Model:
    api_key = _require_env("mistral", "MISTRAL_API_KEY")
    from pydantic_ai.models.mistral import MistralModel
    from pydantic_ai.providers.mistral import MistralProvider

    return MistralModel(
        model_cfg.model,
        provider=MistralProvider(api_key=api_key, http_client=http_client),
        settings=_sampling_settings(model_cfg),
    )


_FACTORIES: dict[str, Callable[[ModelConfig, httpx.AsyncClient | None], Model]] = {
    "openai": _create_openai_model,
    "azure": _create_azure_model,
    "anthropic": _create_anthropic_model,
    "nvidia": _create_nvidia_model,
    "google-gla": _create_google_model,
    "mistral": _create_mistral_model,
}


def create_model(
    config: ModelConfig | None = None,
    http_client: httpx.AsyncClient | None = None,
    *,
    model_cfg: ModelConfig | None = None,
) -> Model:
    """Build the pydantic-ai model the configuration describes (``config`` or ``model_cfg=``).

    With ``fallback_models`` set, every entry is built now (so a bad entry fails at
    construction, not at the first outage) and the chain is wrapped in pydantic-ai's
    ``FallbackModel``, tried in declaration order. All entries share ``http_client``.
    """
    model_cfg = _model_config(config, model_cfg, "create_model")
    primary = _FACTORIES[model_cfg.provider](model_cfg, http_client)
    if not model_cfg.fallback_models:
        return primary
    from pydantic_ai.models.fallback import FallbackModel

    fallbacks = [_FACTORIES[f.provider](f, http_client) for f in model_cfg.fallback_models]
    return FallbackModel(primary, *fallbacks)


def get_output_type(
    config: ModelConfig | None = None,
    output_type: Any = None,
    *,
    model_cfg: ModelConfig | None = None,
) -> Any:
    """Wrap ``output_type`` for the provider: ``NativeOutput`` where the provider enforces a
    JSON schema natively, ``PromptedOutput`` (schema in the prompt) otherwise.

    The model configuration is ``config`` (positional) or ``model_cfg=``. ``str`` and types
    the caller already wrapped (``NativeOutput``, ``PromptedOutput``,
    ``ToolOutput``, ``TextOutput``, or a list of outputs) pass through unchanged.
    """
    from pydantic_ai.output import NativeOutput, PromptedOutput, TextOutput, ToolOutput

    model_cfg = _model_config(config, model_cfg, "get_output_type")
    if output_type is str or output_type is None:
        return output_type
    if isinstance(output_type, NativeOutput | PromptedOutput | TextOutput | ToolOutput | list):
        return output_type
    if _supports_native_output(model_cfg):
        return NativeOutput(output_type)
    return PromptedOutput(output_type)


# ---------------------------------------------------------------------- HTTP

Sleep = Callable[[float], Awaitable[None]]


def _is_retryable_status(status_code: int) -> bool:
    return status_code == 429 or status_code >= 500


# Request headers that carry a credential across the six providers' SDKs.
_SECRET_HEADERS = ("authorization", "proxy-authorization", "api-key", "x-api-key", "x-goog-api-key")
REDACTED = "[REDACTED]"
"""What replaces a credential echoed back in an error answer."""


def _request_secrets(request: httpx.Request) -> list[bytes]:
    """The credentials ``request`` carries, longest first (``Bearer sk-..`` before ``sk-..``)."""
    found: set[str] = set()
    for name in _SECRET_HEADERS:
        value = request.headers.get(name)
        if not value:
            continue
        found.add(value)
        _, _, token = value.partition(" ")
        if token:
            found.add(token.strip())
    key = request.url.params.get("key")  # Google's API also accepts ?key=
    if key:
        found.add(key)
    # Very short values (a placeholder) would redact ordinary words of the error text.
    return sorted((v.encode() for v in found if len(v) >= 6), key=len, reverse=True)


async def _redact_error_answer(request: httpx.Request, response: httpx.Response) -> httpx.Response:
    """``response`` with every credential of ``request`` masked in its body.

    Some servers (and proxies) echo the request's headers in a 4xx/5xx body; the SDKs put that
    body in their exception text, where it reaches logs and the model's error advice. Only
    error answers are read here, so a success pays nothing.
    """
    secrets = _request_secrets(request)
    if not secrets:
        return response
    body = await response.aread()
    masked = body
    for secret in secrets:
        masked = masked.replace(secret, REDACTED.encode())
    if masked == body:
        return response
    headers = [
        (name, value)
        for name, value in response.headers.multi_items()
        if name.lower() not in ("content-length", "content-encoding", "transfer-encoding")
    ]
    return httpx.Response(
        response.status_code,
        headers=headers,
        content=masked,
        request=request,
        extensions=response.extensions,
    )


class _RetryableStatus(httpx.HTTPStatusError):
    """A 429/5xx answer that still has retries left (HTTPStatusError so Retry-After is read)."""


def create_http_client(
    config: HttpClientConfig | None = None,
    *,
    sleep: Sleep | None = None,
    transport: httpx.AsyncBaseTransport | None = None,
    timeout_s: float | None = None,
    max_attempts: int | None = None,
    exp_multiplier: float | None = None,
    exp_max_s: float | None = None,
    retry_after_cap_s: float | None = None,
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` whose requests are retried by a tenacity-driven transport.

    * 429 and 5xx answers and connection-level errors (``httpx.TransportError``) are retried,
      up to ``config.max_retries`` times after the first attempt;
    * other 4xx answers are returned at once (the SDK turns them into errors, no retry);
    * each attempt, from sending to the last byte of the answer, must end within
      ``config.attempt_deadline`` seconds (600 by default, ``None`` for no deadline), else it
      fails with ``httpx.ReadTimeout`` and is retried like any transport error;
    * the wait honours ``Retry-After`` (seconds or an HTTP date), capped at ``backoff_max``;
      otherwise it is exponential (``backoff_multiplier * 2**(n-1)``) plus up to
      ``backoff_multiplier`` of random jitter, capped at ``backoff_max``;
    * when retries run out on a 429/5xx, that last answer is returned so the SDK raises its
      usual error (and a ``FallbackModel`` can move on);
    * in any 4xx/5xx answer handed back, a credential the request carried (``Authorization``,
      ``api-key``, ``x-api-key``, ``x-goog-api-key``, ``?key=``) that the server echoed in the
      body is replaced by ``[REDACTED]``, so it cannot reach an exception text.

    ``sleep`` replaces ``asyncio.sleep`` between attempts (tests pass a recorder);
    ``transport`` replaces the underlying network transport.

    The predecessor's keywords are honoured and win over ``config``: ``timeout_s``
    (``timeout``), ``max_attempts`` (attempts in all, so ``max_retries = max_attempts - 1``),
    ``exp_multiplier`` (``backoff_multiplier``), ``exp_max_s`` (``backoff_max``) and
    ``retry_after_cap_s``, a separate cap on a ``Retry-After`` wait (by default the same
    ``backoff_max`` caps both waits).
    """
    from pydantic_ai.retries import AsyncTenacityTransport, RetryConfig, wait_retry_after
    from tenacity import retry_if_exception_type, stop_after_attempt, wait_exponential_jitter

    cfg = config if config is not None else HttpClientConfig()
    legacy: dict[str, Any] = {}
    if timeout_s is not None:
        legacy["timeout"] = timeout_s
    if max_attempts is not None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1, got {max_attempts}")
        legacy["max_retries"] = max_attempts - 1
    if exp_multiplier is not None:
        legacy["backoff_multiplier"] = exp_multiplier
    if exp_max_s is not None:
        legacy["backoff_max"] = exp_max_s
    if legacy:
        cfg = HttpClientConfig.model_validate({**cfg.model_dump(), **legacy})
    if retry_after_cap_s is not None and retry_after_cap_s <= 0:
        raise ValueError(f"retry_after_cap_s must be positive, got {retry_after_cap_s}")
    retry_after_cap = retry_after_cap_s if retry_after_cap_s is not None else cfg.backoff_max
    retry_config = RetryConfig(
        retry=retry_if_exception_type((_RetryableStatus, httpx.TransportError)),
        wait=wait_retry_after(
            fallback_strategy=wait_exponential_jitter(
                initial=cfg.backoff_multiplier,
                max=cfg.backoff_max,
                exp_base=2,
                jitter=cfg.backoff_multiplier,
            ),
            max_wait=retry_after_cap,
        ),
        stop=stop_after_attempt(cfg.max_retries + 1),
        reraise=True,
    )
    if sleep is not None:
        retry_config["sleep"] = sleep

    class _StatusAwareTransport(AsyncTenacityTransport):
        """Retries statuses only while attempts remain, then hands the answer back as-is."""

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            from tenacity import AsyncRetrying

            retrying = AsyncRetrying(**self.config)
            response: httpx.Response | None = None
            async for attempt in retrying:
                with attempt:
                    response = await send_before(self.wrapped, request, cfg.attempt_deadline)
                    number = attempt.retry_state.attempt_number
                    if _is_retryable_status(response.status_code) and number <= cfg.max_retries:
                        response.request = request
                        await response.aclose()
                        raise _RetryableStatus(
                            f"HTTP {response.status_code} (attempt {number})",
                            request=request,
                            response=response,
                        )
            assert response is not None  # the loop only ends after a returned attempt
            if response.status_code >= 400:
                return await _redact_error_answer(request, response)
            return response

    wrapped = transport if transport is not None else httpx.AsyncHTTPTransport()
    return httpx.AsyncClient(
        transport=_StatusAwareTransport(retry_config, wrapped=wrapped),
        timeout=httpx.Timeout(cfg.timeout),
    )
