"""Paths opened beneath a root by descriptor, so a concurrent rename cannot steer them out.

:func:`~akgentic.tool.core.workspace_dir.safe_path` checks a path and hands back a string; a
process sharing the directory (a shell sandbox, say) can swap a checked directory for a
symlink between that check and the use of the string, and the use then lands outside the
root. This module never lets the kernel resolve more than one name at a time: every
component is looked up relative to the descriptor of the directory before it, opened with
``O_NOFOLLOW``, and ``..`` pops back to a descriptor already held (it is never asked of the
kernel). Symlinks are read with ``readlinkat`` and resolved here, by the same rules, so a
link that stays inside the root still works and one that leads out is refused. It is the
user-space equivalent of Linux's ``openat2(RESOLVE_BENEATH)``, with the same guarantee on
every platform with ``dir_fd`` support.

What it does not cover: the root itself (it comes from configuration, not from the model),
and a directory moved out of the root while a descriptor is held (a sandbox bound to the
root cannot move anything out: that rename crosses a mount point and fails).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from akgentic.tool.errors import RetriableError

__all__ = [
    "ConfinedRoot",
    "Located",
    "NotRegularFileError",
    "PathChangedError",
    "check_user_path",
    "describe_mode",
]

# Linux NAME_MAX and PATH_MAX; longer names fail in the OS with a less helpful error.
_MAX_COMPONENT = 255
_MAX_PATH = 4096
# The kernel gives up after 40 links (MAXSYMLINKS); so does this resolver.
_MAX_SYMLINKS = 40
# How often a resolution is restarted when a component changes under it before giving up.
_MAX_RETRIES = 16
_SLASHES = re.compile("/+")
# /proc/self/fd/N names the very directory a descriptor holds (Linux); see Located.pinned.
_PINNABLE = os.path.isdir("/proc/self/fd")

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
# O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
_READ_FLAGS = (
    os.O_RDONLY
    | os.O_NOFOLLOW
    | os.O_NONBLOCK
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
)


class PathChangedError(RetriableError):
    """A component of the path kept changing while it was resolved (a concurrent rename)."""


class NotRegularFileError(RetriableError):
    """The path names a FIFO, socket or device: workspace tools only handle files and folders."""


def describe_mode(mode: int) -> str:
    """A short name for the file type in `mode`, for error messages."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def check_user_path(user_path: object) -> str:
    """The lexical checks every model-supplied path gets: type, NUL, length, relative."""
    if not isinstance(user_path, str):
        raise RetriableError(f"path must be a string, got {type(user_path).__name__}")
    if "\x00" in user_path:
        raise RetriableError("path contains a NUL byte; use a plain relative path")
    if len(user_path) > _MAX_PATH or any(
        len(part.encode("utf-8", "surrogatepass")) > _MAX_COMPONENT for part in user_path.split("/")
    ):
        raise RetriableError(
            f"path is too long (limit {_MAX_COMPONENT} bytes per name, {_MAX_PATH} in total)"
        )
    if user_path.startswith(("/", "\\", "~")) or os.path.isabs(user_path):
        raise RetriableError(
            f"absolute path {user_path!r} is not allowed; paths are relative to the "
            "workspace root (e.g. 'src/main.py')"
        )
    return user_path


def _escape(user_path: str) -> RetriableError:
    return RetriableError(
        f"path {user_path!r} escapes the workspace root; use a path inside the workspace, "
        "relative to its root"
    )


@dataclass
class Located:
    """Where a path ends: an open descriptor of its directory and the last name in it.

    ``name`` is ``None`` when the path is the root itself. ``parts`` are the names from the
    root to the entry, after every ``..`` and in-root symlink was resolved. The descriptor
    is owned: use the object as a context manager or call :meth:`close`.
    """

    dir_fd: int
    name: str | None
    parts: tuple[str, ...]
    root: Path
    _closed: bool = field(default=False, repr=False)

    def pinned(self, name: str | None = None) -> Path:
        """A path to `name` (default: the entry) in the held directory, for path-based APIs.

        On Linux it goes through ``/proc/self/fd``: the directory is the one held, whatever
        was renamed since, and only the last name is looked up again, so it is safe for
        operations that do not follow a final symlink (``lstat``, ``rename``, ``unlink``,
        ``O_EXCL`` creation). Elsewhere it is the plain path, which a concurrent rename can
        still redirect (see the module docstring).
        """
        last = self.name if name is None else name
        if _PINNABLE:
            base = Path(f"/proc/self/fd/{self.dir_fd}")
            return base / last if last is not None else base
        directory = self.root.joinpath(*self.parts[:-1]) if self.name else self.root
        return directory / last if last is not None else directory

    @property
    def relative(self) -> str:
        """The canonical path from the root, with "/" separators ("." for the root)."""
        return "/".join(self.parts) or "."

    def lstat(self) -> os.stat_result | None:
        """The entry's own status (a symlink is not followed), or None when it is absent."""
        try:
            if self.name is None:
                return os.stat(self.dir_fd)
            return os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open_file(self) -> tuple[int, os.stat_result]:
        """Open the entry for reading; it must be a regular file. Returns (fd, its status).

        The open cannot block (``O_NONBLOCK``: a FIFO does not wait for a writer) and cannot
        follow a symlink swapped in since the resolution (``O_NOFOLLOW``); the type is checked
        on the opened descriptor, so what was checked is what is read.
        """
        if self.name is None:
            raise IsADirectoryError(errno.EISDIR, "the workspace root is a directory")
        try:
            fd = os.open(self.name, _READ_FLAGS, dir_fd=self.dir_fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise PathChangedError(
                    f"{self.relative} turned into a symlink while it was opened; try again"
                ) from None
            if exc.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing
                raise NotRegularFileError(f"{self.relative} is not a regular file") from None
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                if stat.S_ISDIR(info.st_mode):
                    raise IsADirectoryError(errno.EISDIR, f"{self.relative} is a directory")
                raise NotRegularFileError(
                    f"{self.relative} is {describe_mode(info.st_mode)}, not a regular file; "
                    "workspace tools only read and write regular files (workspace_delete "
                    "removes it)"
                )
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd, info

    def open_dir(self) -> int:
        """A new descriptor of the entry, which must be a directory (not a symlink to one)."""
        if self.name is None:
            return os.dup(self.dir_fd)
        try:
            return os.open(self.name, _DIR_FLAGS, dir_fd=self.dir_fd)
        except OSError as exc:
            # Linux answers ENOTDIR, not ELOOP, for a symlink opened with O_DIRECTORY and
            # O_NOFOLLOW; only a look at the entry tells a swapped-in link from a file.
            info = self.lstat() if exc.errno == errno.ENOTDIR else None
            if exc.errno == errno.ELOOP or (info is not None and stat.S_ISLNK(info.st_mode)):
                raise PathChangedError(
                    f"{self.relative} turned into a symlink while it was opened; try again"
                ) from None
            raise

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            os.close(self.dir_fd)

    def __enter__(self) -> Located:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ConfinedRoot:
    """A directory beneath which model-supplied paths are resolved by descriptor."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root).resolve()

    def open(self) -> int:
        """A descriptor of the root directory (the caller closes it)."""
        return os.open(self.path, _DIR_FLAGS & ~os.O_NOFOLLOW)

    def locate(
        self,
        user_path: str,
        *,
        follow_last: bool = True,
        create_dirs: bool = False,
    ) -> Located:
        """Resolve `user_path` to its directory's descriptor and final name.

        - ``follow_last``: a symlink in the last position is resolved (by the in-root rules)
          rather than returned as itself; ``workspace_delete`` wants the link itself.
        - ``create_dirs``: missing directories on the way are created (never through a link).

        Raises ``RetriableError`` for an escape, ``FileNotFoundError`` for a missing
        directory on the way, ``NotADirectoryError`` when a file stands where a directory
        is needed, and ``PathChangedError`` when a concurrent rename kept racing it.
        """
        check_user_path(user_path)
        for _ in range(_MAX_RETRIES):
            try:
                return self._walk(user_path, follow_last=follow_last, create_dirs=create_dirs)
            except _Raced:
                continue
        raise PathChangedError(
            f"{user_path!r} kept changing while it was resolved (something is renaming it); "
            "try again"
        )

    def _walk(self, user_path: str, *, follow_last: bool, create_dirs: bool) -> Located:
        pending = [part for part in reversed(user_path.split("/")) if part not in ("", ".")]
        stack: list[int] = [self.open()]  # descriptors of the directories walked so far
        names: list[str] = []
        links = 0
        try:
            while pending:
                part = pending.pop()
                if part == "..":
                    if len(stack) == 1:
                        raise _escape(user_path)
                    os.close(stack.pop())
                    names.pop()
                    continue
                last = not pending
                info = _lstat_at(stack[-1], part)
                if info is not None and stat.S_ISLNK(info.st_mode) and (follow_last or not last):
                    links += 1
                    if links > _MAX_SYMLINKS:
                        raise RetriableError(
                            f"cannot resolve path {user_path!r}: too many levels of symlinks"
                        )
                    target = _readlink_at(stack[-1], part)
                    if os.path.isabs(target):
                        inside = self._inside(target)
                        if inside is None:
                            raise _escape(user_path)
                        while len(stack) > 1:
                            os.close(stack.pop())
                        names.clear()
                        target = inside
                    pending.extend(p for p in reversed(target.split("/")) if p not in ("", "."))
                    continue
                if last:
                    return Located(stack.pop(), part, (*names, part), self.path)
                if info is None:
                    if not create_dirs:
                        raise FileNotFoundError(
                            errno.ENOENT, "no such directory", "/".join((*names, part))
                        )
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, dir_fd=stack[-1])
                elif not stat.S_ISDIR(info.st_mode):
                    raise NotADirectoryError(
                        errno.ENOTDIR, "not a directory", "/".join((*names, part))
                    )
                stack.append(_open_dir_at(stack[-1], part))
                names.append(part)
            # the path ended on a directory reached through ".." or a link: name it from its parent
            if not names:
                return Located(stack.pop(), None, (), self.path)
            os.close(stack.pop())
            return Located(stack.pop(), names[-1], tuple(names), self.path)
        finally:
            for fd in stack:
                os.close(fd)

    def _inside(self, target: str) -> str | None:
        """`target` (absolute) relative to the root, or None when it is outside.

        Only the prefix is compared; what follows (``..`` included) is walked like any other
        path, so ``/root/a/../../etc`` is refused when the walk pops past the root.
        """
        target = _SLASHES.sub("/", target)
        root = str(self.path).rstrip("/")
        if target.rstrip("/") == root:
            return "."
        if target.startswith(root + "/"):
            return target[len(root) + 1 :]
        return None


class _Raced(Exception):  # noqa: N818 - a signal to restart, never seen by callers
    """A directory became a symlink between its lstat and its open: resolve again."""


def _lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _readlink_at(dir_fd: int, name: str) -> str:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT):  # no longer a link: look again
            raise _Raced from None
        raise


def _open_dir_at(dir_fd: int, name: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        # ELOOP: swapped for a symlink; ENOTDIR: swapped for a file; ENOENT: renamed away
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
            raise _Raced from None
        raise
