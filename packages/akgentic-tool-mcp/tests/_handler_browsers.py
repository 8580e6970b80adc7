"""The user's browser for the `test_handler_*` modules: it approves at once.

The authorization server (a stand-in, or the demo MCP server in its OAuth mode) approves
every request and redirects to the flow's listener; these browsers follow that redirect.
"""

from __future__ import annotations

import threading
from urllib.parse import parse_qs, urlsplit

import httpx


async def approve(url: str) -> bool:
    """A browser for the asynchronous flow: approve, land on the listener."""
    async with httpx.AsyncClient(follow_redirects=True) as client:
        await client.get(url)
    return True


def redirect_uri(authorization_url: str) -> str:
    """The listener an authorization URL sends the user back to."""
    (uri,) = parse_qs(urlsplit(authorization_url).query)["redirect_uri"]
    return uri


class ConsentingBrowser:
    """A browser for the blocking helpers, which run the listener in their own event loop:
    each visit (approve, then land on the listener) runs in a thread of its own."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.landed: list[int] = []  # the listener's answers, by status
        self._visits: list[threading.Thread] = []

    def __call__(self, url: str) -> bool:
        self.sent.append(url)

        def visit() -> None:
            consent = httpx.get(url, timeout=10)
            self.landed.append(httpx.get(consent.headers["location"], timeout=10).status_code)

        self._visits.append(threading.Thread(target=visit, daemon=True))
        self._visits[-1].start()
        return True

    def finish(self) -> None:
        """Wait until each visit has read the listener's answer."""
        for visit in self._visits:
            visit.join(timeout=10)
