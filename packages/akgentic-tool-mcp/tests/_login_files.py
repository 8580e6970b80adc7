"""Shared by the login-store tests: a login for a server whose URL carries a secret, and
what may be said about it."""

from __future__ import annotations

import stat
from pathlib import Path

from mcp.shared.auth import OAuthToken

from akgentic.tool.mcp.oauth_store import LoginStoreError, StoredLogin

URL = "https://mcp.acme.example/mcp?api_key=URL-SECRET"
SHOWN_URL = "https://mcp.acme.example/mcp?api_key=***"


def login_for(url: str = URL) -> StoredLogin:
    return StoredLogin(
        server_url=url,
        tokens=OAuthToken(access_token="AT-SECRET", refresh_token="RT-SECRET", expires_in=60),
        expires_at=1_000.0,
    )


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def assert_names_the_server_only(error: LoginStoreError) -> None:
    message = str(error)
    assert SHOWN_URL in message
    assert "SECRET" not in message
