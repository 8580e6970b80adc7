"""The Tavily side of the search tool: clients, and provider failures turned into advice.

Nothing in this module is public. It keeps the tavily-python specifics (its exception
classes, its requests-based transport) out of the card, so `search.py` reads as the tool's
behaviour and this file as the provider's quirks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

import requests
from tavily import TavilyClient
from tavily import errors as tavily_errors

from akgentic.tool.errors import RetriableError

T = TypeVar("T")

DEFAULT_BASE_URL = "https://api.tavily.com"


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
            client = TavilyClient(api_key=self.api_key, api_base_url=self.base_url)
            self._local.client = client
        return client


def call_tavily(action: str, timeout: float, request: Callable[[], T]) -> T:
    """Run one Tavily request; every way it can fail becomes a RetriableError with advice.

    ``action`` names what was attempted ("web_search", ...) so the message can say which
    tool failed; ``timeout`` is quoted back in the timeout advice.
    """
    try:
        return request()
    except tavily_errors.InvalidAPIKeyError as exc:
        raise RetriableError(
            f"{action} failed: Tavily rejected the configured API key (HTTP 401){_detail(exc)}. "
            "Retrying will not help: continue without web results and tell the user that "
            "TAVILY_API_KEY must be fixed."
        ) from exc
    except tavily_errors.UsageLimitExceededError as exc:
        raise RetriableError(
            f"{action} failed: Tavily's rate or usage limit was reached (HTTP 429)"
            f"{_detail(exc)}. Wait about a minute before the next web call, and make fewer, "
            "more targeted calls; meanwhile continue with the information you already have."
        ) from exc
    except tavily_errors.ForbiddenError as exc:
        raise RetriableError(
            f"{action} failed: Tavily refused the request (plan or credit limit){_detail(exc)}. "
            "Do not retry: continue without web results and tell the user."
        ) from exc
    except tavily_errors.BadRequestError as exc:
        raise RetriableError(
            f"{action} failed: Tavily rejected the request as invalid{_detail(exc)}. "
            "Change the arguments (a shorter query, a plain http(s) URL) and try again."
        ) from exc
    except tavily_errors.TimeoutError as exc:
        raise RetriableError(
            f"{action} failed: Tavily did not answer within {timeout:g} s. Retry once with a "
            "narrower request (fewer results, a smaller crawl); if it times out again, "
            "continue without it."
        ) from exc
    except requests.HTTPError as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status is not None and status >= 500:
            raise RetriableError(
                f"{action} failed: Tavily had a server error (HTTP {status}). Retry in a few "
                "seconds; if it keeps failing, continue without web results."
            ) from exc
        raise RetriableError(
            f"{action} failed: Tavily answered HTTP {status}. Check the arguments; if they "
            "look right, continue without web results."
        ) from exc
    except requests.Timeout as exc:
        raise RetriableError(
            f"{action} failed: Tavily did not answer within {timeout:g} s. Retry once with a "
            "narrower request; if it times out again, continue without it."
        ) from exc
    except requests.ConnectionError as exc:
        raise RetriableError(
            f"{action} failed: Tavily could not be reached. Retry later; meanwhile continue "
            "with the information you already have."
        ) from exc
    except TypeError as exc:
        # tavily-python answers a non-200 status that is not an HTTP error (a 202, a 3xx
        # that was not followed) with `raise response.raise_for_status()`, i.e. `raise None`.
        raise RetriableError(
            f"{action} failed: Tavily gave an unexpected answer. Retry once; if it fails "
            "again, continue without web results."
        ) from exc
    except (requests.RequestException, ValueError) as exc:
        # ValueError covers an answer that is not JSON (requests' JSONDecodeError).
        raise RetriableError(
            f"{action} failed: Tavily's answer could not be read ({type(exc).__name__}). "
            "Retry once; if it fails again, continue without web results."
        ) from exc


def _detail(exc: Exception) -> str:
    text = str(exc).strip()
    return f": {text}" if text else ""
