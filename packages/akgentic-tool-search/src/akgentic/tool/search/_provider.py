"""The Tavily side of the search tool: clients, and provider failures turned into advice.

Nothing in this module is public. It keeps the tavily-python specifics (its exception
classes, its requests-based transport) out of the card, so `search.py` reads as the tool's
behaviour and this file as the provider's quirks.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import requests
from tavily import TavilyClient
from tavily import errors as tavily_errors

from akgentic.tool.errors import RetriableError
from akgentic.tool.search._transport import (
    BoundedSession,
    MalformedAnswerError,
    Transfer,
    transfer_scope,
)

T = TypeVar("T")

DEFAULT_BASE_URL = "https://api.tavily.com"

# The longest provider explanation quoted to the model; an error body can be megabytes.
DETAIL_CHARS = 500

# Credentials a provider may echo back in an error (a 401 that quotes the request's
# Authorization header, a gateway that prints the key): each is replaced before the text
# reaches the model, along with the configured key itself wherever it appears.
_SECRET_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)[^\s\"',;]+"),
    re.compile(r"(?i)(api[_-]?key[\"']?\s*[:=]\s*[\"']?)[^\s\"',;}]+"),
    re.compile(r"()tvly-[A-Za-z0-9_-]+"),
)
_REDACTED = "[redacted]"


class TavilyClients:
    """One tavily-python client per thread.

    pydantic-ai runs synchronous tools in worker threads, possibly several at once; a
    `requests.Session` is not meant to be shared between threads, but reusing one per
    thread keeps the HTTP connection to Tavily alive between calls.
    """

    def __init__(self, api_key: str, base_url: str) -> None:
        self.api_key = api_key
        self.base_url = base_url
        self._local = threading.local()

    def get(self) -> Any:
        client = getattr(self._local, "client", None)
        if client is None:
            client = TavilyClient(
                api_key=self.api_key, api_base_url=self.base_url, session=BoundedSession()
            )
            self._local.client = client
        return client


def call_tavily(
    action: str, transfer: Transfer, clients: TavilyClients, request: Callable[[Any], T]
) -> T:
    """Run one Tavily request; every way it can fail becomes a RetriableError with advice.

    ``action`` names what was attempted ("web_search", ...) so the message can say which
    tool failed; ``transfer`` carries the request's total deadline and size limit (and
    afterwards says whether the answer was cut). Provider text quoted in a message is cut
    to ``DETAIL_CHARS`` and has credentials removed.
    """
    try:
        with transfer_scope(transfer):
            return request(clients.get())
    except RetriableError:
        raise
    except Exception as exc:
        raise _advice(action, transfer.timeout, exc, clients.api_key) from exc


def _advice(action: str, timeout: float, error: Exception, api_key: str) -> RetriableError:
    """What the model is told about ``error``, a failure of one Tavily request.

    Re-raised here so that ``except`` clauses, in order, pick the most specific advice.
    """
    try:
        raise error
    except tavily_errors.InvalidAPIKeyError as exc:
        return RetriableError(
            f"{action} failed: Tavily rejected the configured API key (HTTP 401)"
            f"{_detail(exc, api_key)}. "
            "Retrying will not help: continue without web results and tell the user that "
            "TAVILY_API_KEY must be fixed."
        )
    except tavily_errors.UsageLimitExceededError as exc:
        return RetriableError(
            f"{action} failed: Tavily's rate or usage limit was reached (HTTP 429)"
            f"{_detail(exc, api_key)}. Wait about a minute before the next web call, and make "
            "fewer, more targeted calls; meanwhile continue with the information you already "
            "have."
        )
    except tavily_errors.ForbiddenError as exc:
        return RetriableError(
            f"{action} failed: Tavily refused the request (plan or credit limit)"
            f"{_detail(exc, api_key)}. "
            "Do not retry: continue without web results and tell the user."
        )
    except tavily_errors.BadRequestError as exc:
        return RetriableError(
            f"{action} failed: Tavily rejected the request as invalid{_detail(exc, api_key)}. "
            "Change the arguments (a shorter query, a plain http(s) URL) and try again."
        )
    except tavily_errors.TimeoutError:
        return RetriableError(
            f"{action} failed: Tavily did not answer within {timeout:g} s. Retry once with a "
            "narrower request (fewer results, a smaller crawl); if it times out again, "
            "continue without it."
        )
    except requests.HTTPError as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status is not None and status >= 500:
            return RetriableError(
                f"{action} failed: Tavily had a server error (HTTP {status}). Retry in a few "
                "seconds; if it keeps failing, continue without web results."
            )
        # An HTTPError raised without its response has no status to quote.
        answered = f"HTTP {status}" if status is not None else "with an HTTP error"
        return RetriableError(
            f"{action} failed: Tavily answered {answered}. Check the arguments; if they "
            "look right, continue without web results."
        )
    except requests.Timeout:
        return RetriableError(
            f"{action} failed: Tavily did not answer within {timeout:g} s. Retry once with a "
            "narrower request; if it times out again, continue without it."
        )
    except requests.ConnectionError:
        return RetriableError(
            f"{action} failed: Tavily could not be reached. Retry later; meanwhile continue "
            "with the information you already have."
        )
    except TypeError:
        # tavily-python answers a non-200 status that is not an HTTP error (a 202, a 3xx
        # that was not followed) with `raise response.raise_for_status()`, i.e. `raise None`.
        return RetriableError(
            f"{action} failed: Tavily gave an unexpected answer. Retry once; if it fails "
            "again, continue without web results."
        )
    except MalformedAnswerError as exc:
        return RetriableError(
            f"{action} failed: Tavily's answer could not be read: {exc}. Retry once; if it "
            "fails again, continue without web results."
        )
    except (requests.RequestException, ValueError) as exc:
        # ValueError covers an answer that is not JSON (requests' JSONDecodeError).
        return RetriableError(
            f"{action} failed: Tavily's answer could not be read ({type(exc).__name__}). "
            "Retry once; if it fails again, continue without web results."
        )
    except Exception as exc:
        # Whatever else the client library trips over on a malformed answer (an
        # AttributeError on an unexpected type, a RecursionError): still advice, never a
        # crash of the tool.
        return RetriableError(
            f"{action} failed: Tavily's answer could not be read ({type(exc).__name__}). "
            "Retry once; if it fails again, continue without web results."
        )


def _detail(exc: Exception, api_key: str) -> str:
    text = clip_marked(redact(str(exc).strip(), api_key), DETAIL_CHARS)
    return f": {text}" if text else ""


def redact(text: str, api_key: str) -> str:
    """``text`` without the configured key or anything shaped like a credential."""
    if api_key:
        text = text.replace(api_key, _REDACTED)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + _REDACTED, text)
    return text


def clip_marked(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, followed by how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters cut]"
