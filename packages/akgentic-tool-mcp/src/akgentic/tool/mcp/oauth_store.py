"""Where MCP logins are kept between runs: one entry per server URL.

A login is what the OAuth authorization of one MCP server left behind: the tokens (with
the moment the access token expires, so a reloaded token is refreshed on time), the client
registered at the authorization server, and the metadata documents discovered on the way
(so the refresh goes to the token endpoint that issued the token, without a new discovery).

:class:`LoginStore` is the interface; two implementations ship:

- :class:`FileLoginStore` (the default): one JSON file per server in a per-user directory,
  the directory ``0700`` and each file ``0600``, written atomically;
- :class:`MemoryLoginStore`: a dict, for logins that must not outlive the process.

Tokens never appear in ``repr()`` of a :class:`StoredLogin`, nor in any error raised here.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import stat
import time
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from akgentic.tool.mcp._redact import mask_url
from mcp.shared.auth import (
    OAuthClientInformationFull,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)

__all__ = [
    "FileLoginStore",
    "LoginStore",
    "LoginStoreError",
    "MemoryLoginStore",
    "StoredLogin",
    "default_login_dir",
]

logger = logging.getLogger(__name__)

_STATE_DIR_VARIABLE = "XDG_STATE_HOME"


class LoginStoreError(RuntimeError):
    """A stored login cannot be read or written; the message names the file, never a token."""


class StoredLogin(BaseModel):
    """Everything kept for one MCP server (tokens and client secret are not in repr)."""

    model_config = ConfigDict(extra="ignore")

    server_url: str
    tokens: OAuthToken | None = Field(default=None, repr=False)
    expires_at: float | None = Field(
        default=None, description="When the access token expires (seconds since the epoch)."
    )
    client_info: OAuthClientInformationFull | None = Field(default=None, repr=False)
    authorization_server: OAuthMetadata | None = None
    resource_metadata: ProtectedResourceMetadata | None = None

    def is_expired(self, now: float | None = None) -> bool:
        """Whether the access token has expired (``False`` when no expiry is known)."""
        return self.expires_at is not None and (now or time.time()) >= self.expires_at


@runtime_checkable
class LoginStore(Protocol):
    """Keeps one :class:`StoredLogin` per MCP server URL."""

    async def load(self, server_url: str) -> StoredLogin | None:
        """The login stored for ``server_url``, or ``None``."""
        ...

    async def save(self, login: StoredLogin) -> None:
        """Store ``login`` under its ``server_url``, replacing any previous one."""
        ...

    async def delete(self, server_url: str) -> None:
        """Forget the login of ``server_url`` (nothing happens when there is none)."""
        ...


class MemoryLoginStore:
    """Logins kept in this process only."""

    def __init__(self) -> None:
        self._logins: dict[str, StoredLogin] = {}

    async def load(self, server_url: str) -> StoredLogin | None:
        found = self._logins.get(server_url)
        return found.model_copy(deep=True) if found else None

    async def save(self, login: StoredLogin) -> None:
        self._logins[login.server_url] = login.model_copy(deep=True)

    async def delete(self, server_url: str) -> None:
        self._logins.pop(server_url, None)


def default_login_dir() -> Path:
    """``$XDG_STATE_HOME/akgentic/mcp-oauth`` (``~/.local/state/...`` when unset)."""
    base = os.environ.get(_STATE_DIR_VARIABLE) or str(Path.home() / ".local" / "state")
    return Path(base) / "akgentic" / "mcp-oauth"


class FileLoginStore:
    """One JSON file per server URL, readable by its owner only.

    The directory is created ``0700``; a file is written to a fresh ``0600`` temporary
    file and renamed over the old one, so a reader never sees half a login and the
    token is never, even briefly, in a file others can read. A file found with wider
    permissions is narrowed back to ``0600`` (with a warning), and one owned by another
    user is refused: it could have been planted to hand us someone else's client.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory = Path(directory) if directory is not None else default_login_dir()

    def path_for(self, server_url: str) -> Path:
        """The file that holds the login of ``server_url`` (named by a hash of the URL)."""
        digest = hashlib.sha256(server_url.encode()).hexdigest()[:32]
        return self.directory / f"{digest}.json"

    async def load(self, server_url: str) -> StoredLogin | None:
        path = self.path_for(server_url)
        text = _read_private_file(path, server_url)
        if text is None:
            return None
        try:
            login = StoredLogin.model_validate_json(text)
        except ValidationError as exc:
            # Field names only: the input holds the tokens.
            fields = ", ".join(
                ".".join(map(str, error["loc"])) or "(document)"
                for error in exc.errors(include_input=False, include_url=False)
            )
            raise LoginStoreError(
                f"the stored login for {mask_url(server_url)} in {path} is unreadable "
                f"(invalid: {fields}); delete the file and run the authorization again"
            ) from None
        if login.server_url != server_url:
            raise LoginStoreError(
                f"{path} holds the login of another server ({mask_url(login.server_url)}), "
                f"not of {mask_url(server_url)}; delete the file and run the authorization again"
            )
        return login

    async def save(self, login: StoredLogin) -> None:
        self._make_directory()
        path = self.path_for(login.server_url)
        data = login.model_dump_json(exclude_none=True)
        temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            # O_EXCL: a fresh file, created with 0600 (the umask can only narrow it).
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                os.fchmod(handle.fileno(), 0o600)
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise LoginStoreError(
                f"could not store the login for {mask_url(login.server_url)} in {path}: "
                f"{exc.strerror or type(exc).__name__}"
            ) from None

    async def delete(self, server_url: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path_for(server_url).unlink()

    def _make_directory(self) -> None:
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = self.directory.stat()
            if info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077:
                os.chmod(self.directory, 0o700)
        except OSError as exc:
            raise LoginStoreError(
                f"could not create the login directory {self.directory}: "
                f"{exc.strerror or type(exc).__name__}"
            ) from None


def _read_private_file(path: Path, server_url: str) -> str | None:
    """The file's text, after checking it belongs to us and no one else can read it."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise LoginStoreError(
            f"could not read the stored login for {mask_url(server_url)} at {path}: "
            f"{exc.strerror or type(exc).__name__}"
        ) from None
    with os.fdopen(fd, encoding="utf-8") as handle:
        info = os.fstat(handle.fileno())
        if info.st_uid != os.getuid():
            raise LoginStoreError(
                f"{path} belongs to another user (uid {info.st_uid}); refusing to use it as "
                f"the login for {mask_url(server_url)}: delete it and run the authorization again"
            )
        if stat.S_IMODE(info.st_mode) & 0o077:
            logger.warning("%s was readable by others; its permissions are now 0600", path)
            os.fchmod(handle.fileno(), 0o600)
        try:
            return handle.read()
        except UnicodeDecodeError:
            raise LoginStoreError(
                f"the stored login for {mask_url(server_url)} in {path} is not text; "
                "delete the file and run the authorization again"
            ) from None
