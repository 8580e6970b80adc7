"""The directory of ``workspace``-persisted collections, used only through descriptors.

The default directory is ``.vector_store`` inside the team's workspace, where an agent's
sandboxed shell can write too: it can plant ``.vector_store`` (or a collection file) as a
symlink to somewhere else. Every access therefore goes through core's
:class:`~akgentic.tool.core.confined.ConfinedRoot`, and on top of its rules (a link that
stays inside the root is followed) this module refuses any symlink at all on the way to
the store directory: the store writes, reads and deletes only in a real directory it
reached without following a link. Inside that directory:

* a write goes to a fresh temporary file (``O_EXCL | O_NOFOLLOW``) that is renamed over
  the collection file, so a link planted at the file's name is replaced, never written
  through;
* a read opens the file with ``O_NOFOLLOW`` and checks it is a regular file;
* a delete unlinks the name itself (a planted link goes, its target stays).

The root (the team's workspace, the workspaces root, or an absolute ``workspace_path``)
comes from configuration and is trusted.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, TypeVar

from akgentic.tool.core.confined import ConfinedRoot, check_user_path
from akgentic.tool.errors import RetriableError

__all__ = ["STALE_TEMP_SECONDS", "StoreDirectory", "StorePathError"]

T = TypeVar("T")

STALE_TEMP_SECONDS = 60.0
"""A temporary file of ours older than this is left over by a killed flush (a flush
writes for well under a second), so it is removed when the collection is opened."""

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC


class StorePathError(RuntimeError):
    """The store directory or a collection file is a symlink (or not what it should be):
    nothing is read, written or deleted there. The message names the path."""


def _temp_pattern(name: str) -> re.Pattern[str]:
    # The names _temp_name makes (and the former NamedTemporaryFile ones): ".<name>.<id>.tmp"
    return re.compile(rf"\.{re.escape(name)}\.[A-Za-z0-9_]+\.tmp")


def _temp_name(name: str) -> str:
    return f".{name}.{secrets.token_hex(6)}.tmp"


@dataclass(frozen=True)
class StoreDirectory:
    """A store directory: ``relative`` (``""`` for the root itself) beneath ``root``."""

    root: Path
    relative: str = ""

    @classmethod
    def at(cls, path: Path) -> StoreDirectory:
        """A directory given whole by configuration (it is its own root)."""
        return cls(Path(path).expanduser())

    @property
    def path(self) -> Path:
        """The directory's path, for messages and path-based callers."""
        return self.root / self.relative if self.relative else self.root

    def _parts(self) -> tuple[str, ...]:
        parts: list[str] = []
        for part in self.relative.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue  # past the root: ConfinedRoot refuses it below
            parts.append(part)
        return tuple(parts)

    @contextlib.contextmanager
    def opened(self, *, create: bool) -> Iterator[int | None]:
        """A descriptor of the directory (``None`` when it is missing and not ``create``).

        Raises:
            StorePathError: when a symlink (even one staying inside the root) or a
                non-directory stands on the way.
        """
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        elif not self.root.is_dir():
            yield None
            return
        fd = self._open_directory(create=create)
        try:
            yield fd
        finally:
            if fd is not None:
                os.close(fd)

    def _open_directory(self, *, create: bool) -> int | None:
        confined = ConfinedRoot(self.root)
        if not self.relative:
            return confined.open()
        try:
            check_user_path(self.relative)
            loc = confined.locate(self.relative, follow_last=False, create_dirs=create)
        except FileNotFoundError:
            return None
        except (NotADirectoryError, RetriableError) as exc:  # an escape, a file on the way
            raise StorePathError(f"vector store directory {self.path}: {exc}") from None
        with loc:
            if loc.parts != self._parts():
                raise StorePathError(
                    f"vector store directory {self.path} is reached through a symlink; "
                    "the store does not read or write through links"
                )
            info = loc.lstat()
            if info is None:
                if not create:
                    return None
                assert loc.name is not None  # relative is not empty
                with contextlib.suppress(FileExistsError):
                    os.mkdir(loc.name, dir_fd=loc.dir_fd)
                info = loc.lstat()
            if info is None or not stat.S_ISDIR(info.st_mode):
                kind = "missing" if info is None else _kind(info.st_mode)
                raise StorePathError(f"vector store directory {self.path} is {kind}")
            try:
                return loc.open_dir()
            except OSError as exc:  # swapped for a link since the lstat
                raise StorePathError(f"vector store directory {self.path}: {exc}") from None

    def write_atomic(self, name: str, write: Callable[[BinaryIO], None]) -> None:
        """Create or replace ``name`` with what ``write`` writes (temp file, fsync, rename)."""
        with self.opened(create=True) as dir_fd:
            assert dir_fd is not None
            temp = _temp_name(name)
            fd = os.open(temp, _CREATE_FLAGS, 0o644, dir_fd=dir_fd)
            try:
                with os.fdopen(fd, "wb") as handle:
                    write(handle)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=dir_fd)
                raise

    def read(self, name: str, read: Callable[[BinaryIO], T]) -> T | None:
        """``read`` applied to the regular file ``name``; ``None`` when there is none.

        Raises:
            StorePathError: when ``name`` is a symlink, a FIFO, a directory, ...
        """
        with self.opened(create=False) as dir_fd:
            if dir_fd is None:
                return None
            try:
                fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
            except FileNotFoundError:
                return None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
                    raise StorePathError(
                        f"{self.path / name} is a symlink or a special file; not read"
                    ) from None
                raise
            # The type is checked on the bare descriptor: wrapping a directory in a file
            # object fails with IsADirectoryError before any check could name it.
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                os.close(fd)
                raise StorePathError(f"{self.path / name} is {_kind(mode)}; not read")
            with os.fdopen(fd, "rb") as handle:
                os.set_blocking(handle.fileno(), True)
                return read(handle)

    def remove(self, name: str) -> bool:
        """Unlink ``name`` itself (a symlink goes, its target stays); False if absent."""
        with self.opened(create=False) as dir_fd:
            if dir_fd is None:
                return False
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                return False
            if stat.S_ISDIR(info.st_mode):
                raise StorePathError(f"{self.path / name} is a directory; not removed")
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=dir_fd)
            return True

    def set_aside(self, name: str) -> str | None:
        """Rename ``name`` to ``<name>.corrupt-<timestamp>`` (kept for inspection, never
        overwritten by the store); returns the new name, or None when absent."""
        with self.opened(create=False) as dir_fd:
            if dir_fd is None:
                return None
            aside = f"{name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(2)}"
            try:
                os.rename(name, aside, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except FileNotFoundError:
                return None
            return aside

    def clean_stale_temps(self, name: str, *, older_than: float = STALE_TEMP_SECONDS) -> list[str]:
        """Remove this store's temporary files for ``name`` left by a killed flush.

        Only names of the store's own pattern (``.<name>.<id>.tmp``), only in this
        directory, and only when older than ``older_than`` seconds (a flush running in
        another process right now keeps its file). Returns the names removed.
        """
        pattern = _temp_pattern(name)
        removed: list[str] = []
        with self.opened(create=False) as dir_fd:
            if dir_fd is None:
                return removed
            limit = time.time() - older_than
            for entry in os.scandir(dir_fd):
                if pattern.fullmatch(entry.name) is None:
                    continue
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode) or info.st_mtime > limit:
                    continue
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.name, dir_fd=dir_fd)
                    removed.append(entry.name)
        return removed


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISREG(mode):
        return "a regular file"
    return "a special file"
