"""The workspace itself: a directory of team files and every operation the tools perform on it.

`Filesystem` is the one implementation of the `Workspace` protocol. Each of its methods takes
model-supplied paths, checks them with core's `safe_path` before touching anything, and
reports every problem the model can fix as a `RetriableError` whose message says what to do.
Methods that change files compute all new contents first and commit them at the end, so a
refused call leaves the workspace exactly as it was.
"""

from __future__ import annotations

import builtins
import contextlib
import errno
import functools
import os
import posixpath
import re
import stat
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import BinaryIO, Literal, ParamSpec, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel
from pydantic_ai.messages import BinaryContent

from akgentic.tool.core.confined import ConfinedRoot, Located, describe_mode
from akgentic.tool.core.workspace_dir import resolve_workspace_dir, workspaces_root
from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace._files import (
    UTF16_BOMS,
    NotTextError,
    TextFile,
    atomic_write,
    commit,
    decode_text,
    looks_binary,
    read_all,
)
from akgentic.tool.workspace._images import MEDIA_TYPES, ImageError, prepare_image_data
from akgentic.tool.workspace._paging import format_page, scan_page, split_page
from akgentic.tool.workspace._search import (
    GONE_ERRNOS,
    BraceExpansionError,
    GrepSources,
    GrepTimeout,
    expand_braces,
    format_hits,
    glob_files,
    is_internal_at,
    ripgrep_path,
    run_grep,
    single_file_source,
    tree_sources,
    unread_note,
)
from akgentic.tool.workspace._seen import SeenFiles, content_digest, digest_fd
from akgentic.tool.workspace._wording import counted
from akgentic.tool.workspace.edit import (
    EditError,
    EditItem,
    EditMatcher,
    FilePatch,
    PatchError,
    apply_file_patch,
    normalise_endings,
    parse_patch,
)
from akgentic.tool.workspace.readers import (
    ALL_TEXT_EXTENSIONS,
    DOCUMENT_EXTENSIONS,
    IMAGE_EXTENSIONS,
    DocumentReader,
    FileTypeReader,
)

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_WORKSPACE_ID",
    "FileEntry",
    "Filesystem",
    "GrepEngine",
    "Workspace",
    "get_workspace",
]

#: The workspace used when neither `workspace_id` nor a team id is available.
DEFAULT_WORKSPACE_ID = "default"

#: Largest file a whole-file operation (write, edit, patch, documents, images) takes on.
DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024

GrepEngine = Literal["auto", "ripgrep", "python"]

P = ParamSpec("P")
R = TypeVar("R")

_DOCUMENT_NAMES = ", ".join(sorted(ext[1:] for ext in DOCUMENT_EXTENSIONS))
_SNIPPET_CONTEXT = 2
# The tree is drawn recursively; deeper listings are better done a subdirectory at a time.
_MAX_TREE_DEPTH = 32
# How much of a file is sniffed for a NUL byte (as git and grep do).
_SNIFF = 8192
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# How many files one media reference may glob through before its images are picked.
_MEDIA_SCAN_LIMIT = 10_000


class FileEntry(BaseModel):
    """One entry of a directory, as `Filesystem.list` returns it."""

    name: str
    is_dir: bool
    size: int


# mutmut leaves the protocol alone: its methods only declare a shape, and the helper methods
# mutmut would add to the class become protocol members no real workspace has, so
# `isinstance(..., Workspace)` would fail under every mutant.
@runtime_checkable
class Workspace(Protocol):  # pragma: no mutate block
    """What the workspace tools need from a storage backend.

    `exists`, `list`, `read_bytes` and `write(path, data)` are the programmatic side (the
    names akgentic-tool 1.6.4 gave them); the other methods back the model's tools and
    return the text the model sees.
    """

    @property
    def root(self) -> Path:
        """The directory every path is relative to."""
        ...

    def read(
        self,
        path: str,
        offset: int = 0,
        limit: int = 2000,
        *,
        max_line_chars: int = 2000,
        reader: DocumentReader | FileTypeReader | None = None,
        regenerate: bool = False,
    ) -> str: ...

    def read_bytes(self, path: str) -> bytes: ...

    def exists(self, path: str) -> bool: ...

    def list_dir(self, path: str = ".", depth: int = 1, *, max_entries: int = 500) -> str: ...

    def glob(self, pattern: str, path: str = ".", *, max_results: int = 200) -> str: ...

    def grep(
        self,
        pattern: str,
        path: str = ".",
        include: str | None = None,
        ignore_case: bool = False,
        *,
        max_matches: int = 200,
        engine: GrepEngine = "auto",
        timeout_seconds: float = 30.0,
        max_line_chars: int = 2000,
    ) -> str: ...

    def view(self, path: str, *, max_dimension: int = 1568) -> BinaryContent: ...

    def write(
        self, path: str, data: str | bytes | None = None, *, content: str | None = None
    ) -> str: ...

    def edit(
        self,
        path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
        *,
        matcher: EditMatcher | None = None,
    ) -> str: ...

    def multi_edit(
        self, edits: Sequence[EditItem], *, matcher: EditMatcher | None = None
    ) -> str: ...

    def patch(self, diff: str) -> str: ...

    def apply_patches(self, patches: Sequence[FilePatch]) -> str: ...

    def delete(self, path: str) -> str: ...

    def mkdir(self, path: str) -> str: ...

    def list(self, path: str = "") -> builtins.list[FileEntry]: ...


def get_workspace(
    workspace_id: str | None = None,
    *,
    workspace_name: str | None = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> Filesystem:
    """The `Filesystem` of `workspace_id` under `AKGENTIC_WORKSPACES_ROOT` (created if needed).

    `workspace_name` is the same argument under its akgentic-tool 1.6.4 name; give one of
    the two. Raises `ValueError` for an id that would leave the root (a configuration error).
    """
    if workspace_name is not None:
        if workspace_id is not None and workspace_id != workspace_name:
            raise TypeError("give workspace_id or workspace_name, not two different names")
        workspace_id = workspace_name
    if workspace_id is None:
        raise TypeError("get_workspace() needs the workspace_id (or workspace_name)")
    return Filesystem(resolve_workspace_dir(workspace_id), max_file_bytes=max_file_bytes)


_LOCKS: dict[Path, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def _workspace_lock(root: Path) -> threading.RLock:
    """One lock per workspace tree, shared by every `Filesystem` of this process.

    Workspace ids may nest ("team" and "team/sub" share files), so a directory under the
    workspaces root is locked by its top-level folder there; any other directory by itself.
    """
    key = root
    top = workspaces_root()
    if root.is_relative_to(top) and root != top:
        key = top / root.relative_to(top).parts[0]
    with _LOCKS_GUARD:
        lock = _LOCKS.get(key)
        if lock is None:
            lock = _LOCKS[key] = threading.RLock()
        return lock


def _serialized(method: Callable[P, R]) -> Callable[P, R]:
    """Run a read-modify-write method under the workspace's lock.

    pydantic-ai runs the tool calls of one model turn in parallel threads, and several agents
    of a team may edit the same file: without the lock two edits of one file could both read
    the old content and the second rename would silently drop the first edit.
    """

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        workspace = args[0]
        assert isinstance(workspace, Filesystem)
        with workspace._lock:
            return method(*args, **kwargs)

    return wrapper


class Filesystem:
    """A workspace stored as a plain directory on the local disk.

    Every path is opened by descriptor beneath the root (core's `ConfinedRoot`): a shell
    sharing the directory cannot redirect a checked path by renaming or swapping in a symlink
    while it is used. Only regular files and directories are handled; FIFOs, sockets and
    devices are refused before anything waits on them. Whole-file operations (write, edit,
    patch, documents, images) refuse files above `max_file_bytes`; reading and grep stream.
    Changes are serialized per workspace within a process (see `_serialized`); separate
    processes sharing a directory are not coordinated.
    """

    def __init__(
        self,
        base_path: Path | str | None = None,
        workspace_name: str | None = None,
        *,
        root: Path | str | None = None,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    ) -> None:
        """A workspace in the directory `root` (or `base_path`), which must exist.

        `Filesystem(base_path, workspace_name)` is the akgentic-tool 1.6.4 form: the
        directory `workspace_name` under `base_path`, created when missing; the name must
        stay inside `base_path` (`ValueError` otherwise).
        """
        if root is not None and base_path is not None:
            raise TypeError("give the directory as root or as base_path, not both")
        directory = Path(root if root is not None else base_path or ".")
        if workspace_name is not None:
            directory = _named_directory(directory, workspace_name)
        self._root = directory.resolve()
        self._confined = ConfinedRoot(self._root)
        self._lock = _workspace_lock(self._root)
        self.max_file_bytes = max_file_bytes

    @property
    def root(self) -> Path:
        return self._root

    # -- path helpers -----------------------------------------------------------------------

    def _locate(
        self,
        path: str,
        *,
        missing: str,
        follow_last: bool = True,
        create_dirs: bool = False,
    ) -> Located:
        """`path` resolved beneath the root; `missing` is the message for a missing folder."""
        try:
            return self._confined.locate(path, follow_last=follow_last, create_dirs=create_dirs)
        except FileNotFoundError:
            raise RetriableError(missing) from None
        except NotADirectoryError as exc:
            raise RetriableError(
                f"cannot use {path}: {exc.filename} is a file, not a directory"
            ) from None
        except OSError as exc:
            raise RetriableError(f"cannot access {path}: {exc.strerror or exc}") from None

    def _show(self, loc: Located) -> str:
        return loc.relative

    def _existing_file(self, path: str) -> Located:
        """`path` located, after checking it is a regular file (the caller closes it)."""
        not_found = (
            f"File not found: {path}. Use workspace_list or workspace_glob to see what exists."
        )
        loc = self._locate(path, missing=not_found)
        try:
            info = loc.lstat()
            if info is None:
                raise RetriableError(not_found)
            if loc.name is None or stat.S_ISDIR(info.st_mode):
                raise RetriableError(
                    f"{path} is a directory, not a file; use workspace_list to see its content"
                )
            if not stat.S_ISREG(info.st_mode):
                raise RetriableError(_special_message(path, info.st_mode))
        except BaseException:
            loc.close()
            raise
        return loc

    def _open(self, loc: Located, path: str) -> tuple[int, os.stat_result]:
        """Open a located regular file for reading, as the checks on it require."""
        try:
            fd, info = loc.open_file()
        except FileNotFoundError:
            raise RetriableError(
                f"File not found: {path}. Use workspace_list or workspace_glob to see what exists."
            ) from None
        except IsADirectoryError:
            raise RetriableError(f"{path} is a directory, not a file") from None
        except OSError as exc:
            if isinstance(exc, RetriableError):
                raise
            raise RetriableError(f"cannot open {path}: {exc.strerror or exc}") from None
        if info.st_nlink > 1:
            os.close(fd)
            raise RetriableError(
                f"{path} has {info.st_nlink} hard links; the workspace does not open files "
                "that may be shared with places outside it (copy it to a new file first)"
            )
        return fd, info

    def _read_bytes(self, loc: Located, path: str) -> tuple[bytes, os.stat_result]:
        """The whole content of a located regular file, refusing one above the size limit."""
        fd, info = self._open(loc, path)
        if info.st_size > self.max_file_bytes:
            os.close(fd)
            raise RetriableError(_too_big(path, info.st_size, self.max_file_bytes))
        return read_all(fd), info

    def _read_text_strict(self, loc: Located, path: str, seen: SeenFiles | None = None) -> TextFile:
        """The decoded text of a file about to be changed (by the agent owning `seen`, if any)."""
        if Path(loc.name or "").suffix.lower() in DOCUMENT_EXTENSIONS:
            raise RetriableError(
                f"{path} is a binary document; text tools cannot change it "
                "(workspace_read converts it to Markdown for reading)"
            )
        data, _ = self._read_bytes(loc, path)
        self._refuse_if_stale(seen, loc, path, data)
        try:
            return decode_text(data)
        except NotTextError as exc:
            raise RetriableError(
                f"{path} is not a text file ({exc}); text tools cannot change it without "
                "corrupting it"
            ) from exc

    # -- what each agent last saw (see `_seen`) ----------------------------------------------

    def _key(self, relative: str) -> tuple[Path, str]:
        return self._root, relative

    def _refuse_if_stale(
        self, seen: SeenFiles | None, loc: Located, path: str, current: bytes
    ) -> None:
        """Refuse a change to a file that changed since the agent owning `seen` last saw it."""
        if seen is None:
            return
        message = seen.stale(self._key(loc.relative), current, path)
        if message is not None:
            raise RetriableError(message)

    def _remember_read(self, seen: SeenFiles | None, loc: Located, fd: int) -> None:
        """Record the whole content of the open file `fd` as seen (any page counts)."""
        if seen is None:
            return
        size = os.fstat(fd).st_size
        if size > self.max_file_bytes:
            return  # no tool may change it anyway; hashing it would only cost time
        digest, data = digest_fd(fd, size)
        seen.record(self._key(loc.relative), digest, data)

    @staticmethod
    def _remember(seen: SeenFiles | None, key: tuple[Path, str], data: bytes) -> None:
        """Record `data` as the content of `key` the agent owning `seen` has now seen."""
        if seen is not None:
            seen.record(key, content_digest(data), data)

    # -- reading ----------------------------------------------------------------------------

    def read(
        self,
        path: str,
        offset: int = 0,
        limit: int = 2000,
        *,
        max_line_chars: int = 2000,
        reader: DocumentReader | FileTypeReader | None = None,
        regenerate: bool = False,
        seen: SeenFiles | None = None,
    ) -> str:
        """Numbered lines `offset+1 .. offset+limit` of a file (documents as Markdown).

        `reader` converts documents (None: refused); `regenerate` converts a document again
        even when its cached Markdown is fresh. `seen` (an agent's memory) records the whole
        content as seen by that agent, whatever page was asked for.
        """
        if offset < 0:
            raise RetriableError(f"offset must be 0 or more, got {offset}")
        if limit < 1:
            raise RetriableError(f"limit must be 1 or more, got {limit}")
        with self._existing_file(path) as loc:
            suffix = Path(loc.name or "").suffix.lower()
            if suffix in DOCUMENT_EXTENSIONS:
                text, note = self._read_document(loc, path, suffix, reader, regenerate, seen)
                page = split_page(text, offset, limit)
                return format_page(page, path, offset, max_line_chars, note)
            fd, _ = self._open(loc, path)
        with os.fdopen(fd, "rb") as handle:
            head = os.pread(fd, _SNIFF, 0)
            if head[:2] in UTF16_BOMS:
                text = self._small_text(handle, path)
                page = split_page(text, offset, limit)
            elif looks_binary(head):
                text_ext = suffix in ALL_TEXT_EXTENSIONS
                kind = "has a text extension but holds" if text_ext else "holds"
                raise RetriableError(
                    f"{path} {kind} binary data (NUL bytes) and is not a document format "
                    f"workspace_read converts ({_DOCUMENT_NAMES})"
                )
            else:
                page = scan_page(handle, offset, limit, max_line_chars)
            self._remember_read(seen, loc, fd)
        return format_page(page, path, offset, max_line_chars, "")

    def _small_text(self, handle: BinaryIO, path: str) -> str:
        """A UTF-16 file, decoded whole (within the size limit: it cannot be streamed by line)."""
        data = handle.read(self.max_file_bytes + 1)
        if len(data) > self.max_file_bytes:
            size = max(len(data), os.fstat(handle.fileno()).st_size)  # not just what was read
            raise RetriableError(_too_big(path, size, self.max_file_bytes))
        return decode_text(data, strict=False).text

    def _read_document(
        self,
        loc: Located,
        path: str,
        suffix: str,
        reader: DocumentReader | FileTypeReader | None,
        regenerate: bool,
        seen: SeenFiles | None,
    ) -> tuple[str, str]:
        if reader is None:
            raise RetriableError(
                f"{path} is a binary document and document conversion is disabled here"
            )
        data, info = self._read_bytes(loc, path)
        self._remember(seen, self._key(loc.relative), data)  # seen as read
        try:
            if isinstance(reader, DocumentReader):
                text = reader.read_data(data, loc.pinned(), info, regenerate=regenerate)
            else:
                text = reader.extract_text(loc.relative, data)
        except ValueError as exc:
            raise RetriableError(str(exc)) from exc
        note = f"{path} converted to Markdown"
        if suffix in IMAGE_EXTENSIONS:
            note += "; use workspace_view to look at the image itself"
        return text, note

    def list_dir(self, path: str = ".", depth: int = 1, *, max_entries: int = 500) -> str:
        """The entries of a directory; `depth` above 1 draws an ASCII tree that deep."""
        if not 1 <= depth <= _MAX_TREE_DEPTH:
            raise RetriableError(f"depth must be between 1 and {_MAX_TREE_DEPTH}, got {depth}")
        not_found = f"Directory not found: {path}. Use workspace_list('.') first."
        with self._locate(path, missing=not_found) as loc:
            info = loc.lstat()
            if info is None:
                raise RetriableError(not_found)
            if not stat.S_ISDIR(info.st_mode):
                raise RetriableError(f"{path} is a file, not a directory; use workspace_read on it")
            directory = self._open_dir(loc, path)
        lines: list[str] = []
        try:
            total = _draw(directory, "", depth, lines, max_entries, flat=depth == 1)
        except OSError as exc:
            # Only the listing of `path` itself gets here (a subfolder's failure is noted on
            # its line): saying "empty" would hide the files from the model.
            raise RetriableError(f"cannot list {path}: {exc.strerror or exc}") from None
        finally:
            os.close(directory)
        shown = self._show(loc)
        if not lines:
            return f"{shown}/ is empty."
        if total > len(lines):
            more = total - len(lines)
            entries = counted(more, "more entry", "more entries")
            count = entries if depth == 1 else f"at least {entries}"
            lines.append(f"[{count} not shown; list a subdirectory or lower the depth]")
        return "\n".join([f"{shown}/", *lines])

    def _open_dir(self, loc: Located, path: str) -> int:
        try:
            return loc.open_dir()
        except OSError as exc:
            if isinstance(exc, RetriableError):
                raise
            if exc.errno in (errno.ENOENT, errno.ENOTDIR):
                raise RetriableError(f"Directory not found: {path}") from None
            # A folder that exists but cannot be opened (out of descriptors, no permission)
            # must not be reported as missing: the model would look for it elsewhere.
            raise RetriableError(f"cannot open {path}: {exc.strerror or exc}") from None

    def _start_dir(self, path: str) -> tuple[int, str]:
        """An open descriptor of the directory `path` and its canonical relative name."""
        with self._locate(path, missing=f"Directory not found: {path}") as loc:
            info = loc.lstat()
            if info is None or not stat.S_ISDIR(info.st_mode):
                raise RetriableError(f"Directory not found: {path}")
            return self._open_dir(loc, path), loc.relative

    def glob(self, pattern: str, path: str = ".", *, max_results: int = 200) -> str:
        """Files matching a glob (`**`, `{a,b}`), newest first."""
        _check_glob(pattern)
        start, shown = self._start_dir(path)
        unread: builtins.list[str] = []
        try:
            found, total = glob_files(start, shown, pattern, limit=max_results, unread=unread)
        finally:
            os.close(start)
        place = "the workspace" if shown == "." else shown
        lines = [item.relative for item in found] or [f"No files match {pattern!r} in {place}."]
        if total > len(found):
            lines.append(f"[showing {len(found)} of {total} files, newest first; narrow the glob]")
        if unread:
            lines.append(unread_note(unread, "files there are not in this list"))
        return "\n".join(lines)

    def grep(
        self,
        pattern: str,
        path: str = ".",
        include: str | None = None,
        ignore_case: bool = False,
        *,
        max_matches: int = 200,
        engine: GrepEngine = "auto",
        timeout_seconds: float = 30.0,
        max_line_chars: int = 2000,
    ) -> str:
        """Lines matching a regular expression, as `path:line:text`, sorted by path.

        Lines longer than `max_line_chars` are cut (and end with "…").
        """
        if not pattern:
            raise RetriableError("pattern must be a non-empty regular expression")
        try:
            regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
        except re.error as exc:
            raise RetriableError(f"Invalid regex pattern: {exc}") from exc
        if include is not None:
            if "/" in include or not include or "\x00" in include or include.startswith("!"):
                raise RetriableError(
                    f"include {include!r} must be a file-name glob such as '*.py' or "
                    "'*.{ts,tsx}' (no '/', no leading '!'); use path to choose the directory"
                )
            try:
                expand_braces(include)
            except BraceExpansionError as exc:
                raise RetriableError(f"{exc}; use fewer brace alternatives") from exc
        rg = ripgrep_path() if engine != "python" else None
        if engine == "ripgrep" and rg is None:
            raise RetriableError("ripgrep (rg) is not installed here; search without it")
        with self._locate(
            path, missing=f"Path not found: {path}. Use workspace_list to see what exists."
        ) as loc:
            info = loc.lstat()
            if info is None:
                raise RetriableError(
                    f"Path not found: {path}. Use workspace_list to see what exists."
                )
            unread: builtins.list[str] = []
            if stat.S_ISDIR(info.st_mode):
                sources = tree_sources(self._open_dir(loc, path), loc.relative, include, unread)
            else:
                sources = self._file_source(loc, path)
            try:
                result = run_grep(
                    rg,
                    sources,
                    regex,
                    limit=max_matches,
                    timeout=timeout_seconds,
                    max_line_chars=max_line_chars,
                    unread=unread,
                )
            except GrepTimeout as exc:
                raise RetriableError(
                    f"{exc}; narrow the search with path or include, or a more specific pattern"
                ) from exc
        hits = format_hits(
            result, pattern=pattern, where=loc.relative, max_line_chars=max_line_chars
        )
        if unread:
            hits += "\n" + unread_note(unread, "they were not searched")
        return hits

    def _file_source(self, loc: Located, path: str) -> GrepSources:
        fd, _ = self._open(loc, path)
        if looks_binary(os.pread(fd, _SNIFF, 0)):
            os.close(fd)
            raise RetriableError(f"{path} is a binary file; grep searches text files only")
        return single_file_source(fd, loc.relative)

    def view(self, path: str, *, max_dimension: int = 1568) -> BinaryContent:
        """The image at `path` as `BinaryContent` for a vision model."""
        prepared, media_type, relative = self.image(path, max_dimension=max_dimension)
        return BinaryContent(data=prepared, media_type=media_type, identifier=relative)

    def image(self, path: str, *, max_dimension: int = 1568) -> tuple[bytes, str, str]:
        """The image at `path` prepared for a vision model: (bytes, media type, its path).

        Shrunk to `max_dimension` on its longer side when Pillow is installed (see
        `workspace_view`); a file that is not an image of a supported format is refused.
        """
        with self._existing_file(path) as loc:
            suffix = Path(loc.name or "").suffix.lower()
            if suffix not in MEDIA_TYPES:
                raise RetriableError(
                    f"{path} is not an image workspace_view can show ({_IMAGE_KINDS}); "
                    "use workspace_read for text and documents"
                )
            data, info = self._read_bytes(loc, path)
            try:
                prepared, media_type = prepare_image_data(data, loc.pinned(), max_dimension, info)
            except ImageError as exc:
                raise RetriableError(str(exc)) from exc
            return prepared, media_type, loc.relative

    def find_images(self, pattern: str, *, limit: int) -> tuple[builtins.list[str], int, int]:
        """Images matching the glob `pattern` from the root, newest first.

        Returns (up to `limit` image paths, how many images matched, how many other files
        matched). The pattern follows `workspace_glob`'s rules and stays inside the root.
        """
        _check_glob(pattern)
        start, shown = self._start_dir(".")
        try:
            found, _ = glob_files(start, shown, pattern, limit=_MEDIA_SCAN_LIMIT)
        finally:
            os.close(start)
        images = [
            item.relative
            for item in found
            if posixpath.splitext(item.relative)[1].lower() in MEDIA_TYPES
        ]
        return images[:limit], len(images), len(found) - len(images)

    # -- the programmatic interface ---------------------------------------------------------

    def exists(self, path: str) -> bool:
        """Whether `path` names an entry inside the workspace (a symlink is resolved).

        A path leaving the workspace is refused (`RetriableError`), as everywhere else.
        """
        try:
            loc = self._confined.locate(path)
        except (FileNotFoundError, NotADirectoryError):
            return False
        with loc:
            return loc.lstat() is not None

    def read_bytes(self, path: str) -> bytes:
        """The whole content of a regular file (refused above `max_file_bytes`)."""
        with self._existing_file(path) as loc:
            data, _ = self._read_bytes(loc, path)
        return data

    # -- writing ----------------------------------------------------------------------------

    def _locate_for_create(self, path: str) -> Located:
        """`path` located for writing, creating the directories it needs (none on refusal)."""
        try:
            return self._confined.locate(path)
        except FileNotFoundError:
            pass
        except NotADirectoryError as exc:
            raise RetriableError(
                f"cannot create {path}: {exc.filename} is a file, not a directory"
            ) from None
        return self._locate(path, missing=f"cannot create {path}", create_dirs=True)

    @_serialized
    def write(
        self,
        path: str,
        data: str | bytes | None = None,
        *,
        content: str | None = None,
        seen: SeenFiles | None = None,
    ) -> str:
        """Create or overwrite a file; returns what was done, in words.

        Text (`data` as `str`, or `content`, the tool's name for it) keeps an existing text
        file's line endings, BOM and encoding. Bytes are written exactly as given. With
        `seen` (an agent's memory), overwriting a file that changed since that agent last
        saw it is refused; a file it never saw (or a new one) is written.
        """
        if (data is None) == (content is None):
            raise TypeError("write() takes the new content once: as data or as content")
        new = data if data is not None else content
        assert new is not None
        with self._locate_for_create(path) as loc:
            info = loc.lstat()
            if loc.name is None or (info is not None and stat.S_ISDIR(info.st_mode)):
                raise RetriableError(f"{path} is a directory; give a file path to write")
            if info is not None and not stat.S_ISREG(info.st_mode):
                raise RetriableError(_special_message(path, info.st_mode))
            original: TextFile | None = None
            if isinstance(new, bytes):
                encoded = new
                if info is not None and seen is not None:
                    self._refuse_if_stale(seen, loc, path, self._read_bytes(loc, path)[0])
            else:
                original = self._read_text_strict(loc, path, seen) if info is not None else None
                encoded = original.encode(new) if original is not None else new.encode("utf-8")
            self._check_size(path, len(encoded))
            atomic_write(loc.pinned(), encoded)
            self._remember(seen, self._key(loc.relative), encoded)
            shown = self._show(loc)
        how = "Created" if info is None else "Overwrote"
        if isinstance(new, bytes):
            return f"{how} {shown}: {len(encoded)} bytes."
        lines = new.count("\n") + (1 if new and not new.endswith("\n") else 0)
        endings = " (kept its CRLF line endings)" if original and original.crlf else ""
        return f"{how} {shown}: {counted(lines, 'line')}, {len(encoded)} bytes{endings}."

    @_serialized
    def write_if_absent(self, path: str, data: bytes) -> bool:
        """Create the file `path` with `data` unless something exists there; True if created."""
        with self._locate_for_create(path) as loc:
            if loc.name is None or loc.lstat() is not None:
                return False
            self._check_size(path, len(data))
            atomic_write(loc.pinned(), data)
        return True

    def _check_size(self, path: str, size: int) -> None:
        if size > self.max_file_bytes:
            raise RetriableError(_too_big(path, size, self.max_file_bytes, result=True))

    @_serialized
    def edit(
        self,
        path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
        *,
        matcher: EditMatcher | None = None,
        seen: SeenFiles | None = None,
    ) -> str:
        """Replace `old_string` with `new_string` in one file (see `EditMatcher`).

        With `seen`, a file that changed since that agent last saw it is refused.
        """
        with self._existing_file(path) as loc:
            original = self._read_text_strict(loc, path, seen)
            old, new = _normalize_newlines(old_string, new_string, original)
            try:
                result = (matcher or EditMatcher()).apply(
                    original.text, old, new, replace_all=replace_all
                )
            except EditError as exc:
                raise RetriableError(f"{path}: {exc}") from exc
            data = original.encode(result.content)
            self._check_size(path, len(data))
            atomic_write(loc.pinned(), data)
            self._remember(seen, self._key(loc.relative), data)
            shown = self._show(loc)
        where = f"line {result.first_line}"
        via = "" if result.strategy == "exact" else f" ({result.strategy.replace('_', ' ')} match)"
        snippet = _snippet(result.content, result.start, result.end, result.first_line)
        replacements = counted(result.count, "replacement")
        return f"Edited {shown}: {replacements} at {where}{via}.\n{snippet}"

    @_serialized
    def multi_edit(
        self,
        edits: Sequence[EditItem],
        *,
        matcher: EditMatcher | None = None,
        seen: SeenFiles | None = None,
    ) -> str:
        """Apply several edits, possibly across files; all of them or none.

        With `seen`, the whole call is refused if one of its files changed since that agent
        last saw it.
        """
        if not edits:
            raise RetriableError("edits is empty; give at least one edit")
        engine = matcher or EditMatcher()
        with contextlib.ExitStack() as held:
            files: dict[str, tuple[Located, TextFile, str]] = {}
            summary: dict[str, int] = {}
            for number, item in enumerate(edits, start=1):
                try:
                    loc = held.enter_context(self._existing_file(item.path))
                    key = loc.relative
                    if key not in files:
                        text_file = self._read_text_strict(loc, item.path, seen)
                        files[key] = (loc, text_file, text_file.text)
                    loc, original, current = files[key]
                    old, new = _normalize_newlines(item.old_string, item.new_string, original)
                    result = engine.apply(current, old, new, replace_all=item.replace_all)
                except (RetriableError, EditError) as exc:
                    raise RetriableError(
                        f"edit {number} of {len(edits)} ({item.path}) failed: {exc}. "
                        "No file was changed; fix that edit and send the whole list again."
                    ) from exc
                files[key] = (loc, original, result.content)
                summary[key] = summary.get(key, 0) + result.count
            changes: dict[Path, bytes | None] = {}
            written: dict[str, bytes] = {}
            for key, (loc, original, text) in files.items():
                data = written[key] = original.encode(text)
                self._check_size(key, len(data))
                changes[loc.pinned()] = data
            commit(changes)
            for key, data in written.items():
                self._remember(seen, self._key(key), data)
        done = ", ".join(f"{key} ({n} replacements)" for key, n in summary.items())
        return f"Applied {len(edits)} edits to {len(files)} files: {done}."

    def patch(self, diff: str, *, seen: SeenFiles | None = None) -> str:
        """Apply a GNU unified diff to one or more files; all of it or none.

        With `seen`, the patch is refused if a file it changes (or deletes, or renames)
        changed since that agent last saw it; files it creates are never refused for that.
        """
        try:
            patches = parse_patch(diff)
        except PatchError as exc:
            raise RetriableError(f"patch rejected: {exc}. No file was changed.") from exc
        return self.apply_patches(patches, seen=seen)

    @_serialized
    def apply_patches(self, patches: Sequence[FilePatch], *, seen: SeenFiles | None = None) -> str:
        """Apply parsed patches (see `parse_patch`) to their files; all of them or none."""
        if not patches:
            raise RetriableError("the patch changes no file")
        with contextlib.ExitStack() as held:
            staged: dict[str, tuple[Located | None, bytes | None]] = {}
            report: list[str] = []
            for file_patch in patches:
                try:
                    report.append(self._patch_one(file_patch, staged, held, seen))
                except PatchError as exc:
                    raise RetriableError(f"patch rejected: {exc}. No file was changed.") from exc
            changes: dict[Path, bytes | None] = {}
            for key, (loc, data) in staged.items():
                if data is not None:
                    self._check_size(key, len(data))
                if loc is None:  # a new file in a missing folder: made now every hunk applied
                    loc = held.enter_context(self._locate_for_create(key))
                changes[loc.pinned()] = data
            commit(changes)
        self._remember_patched(seen, staged)
        return f"Patched {len(patches)} file(s): " + "; ".join(report) + "."

    def _remember_patched(
        self, seen: SeenFiles | None, staged: dict[str, tuple[Located | None, bytes | None]]
    ) -> None:
        if seen is None:
            return
        for key, (_, data) in staged.items():
            if data is None:
                seen.forget(self._key(key))
            else:
                self._remember(seen, self._key(key), data)

    def _patch_entry(
        self, name: str, held: contextlib.ExitStack
    ) -> tuple[Located | None, bool, str]:
        """Where a patched file is: (location or None when its folder is missing, exists, key)."""
        try:
            loc = held.enter_context(self._confined.locate(name))
        except FileNotFoundError:
            return None, False, posixpath.normpath(name)
        except NotADirectoryError as exc:
            raise PatchError(
                f"cannot create {name}: {exc.filename} is a file, not a directory"
            ) from None
        except RetriableError as exc:
            raise PatchError(str(exc)) from None
        except OSError as exc:
            raise PatchError(f"cannot access {name}: {exc.strerror or exc}") from None
        info = loc.lstat()
        if loc.name is None or (info is not None and stat.S_ISDIR(info.st_mode)):
            raise PatchError(f"{name} is a directory, not a file")
        if info is not None and not stat.S_ISREG(info.st_mode):
            raise PatchError(_special_message(name, info.st_mode))
        return loc, info is not None, loc.relative

    def _patch_one(
        self,
        file_patch: FilePatch,
        staged: dict[str, tuple[Located | None, bytes | None]],
        held: contextlib.ExitStack,
        seen: SeenFiles | None,
    ) -> str:
        source_name = file_patch.old_path if file_patch.old_path is not None else file_patch.path
        source, source_exists, source_key = self._patch_entry(source_name, held)
        target, target_exists, target_key = self._patch_entry(file_patch.path, held)
        if source_key in staged or target_key in staged:
            raise PatchError(f"{file_patch.path} appears twice in the patch; merge its hunks")
        original: TextFile | None = None
        if not file_patch.creates and source is not None and source_exists:
            try:
                original = self._read_text_strict(source, source_name, seen)
            except RetriableError as exc:
                raise PatchError(str(exc)) from None
        if (file_patch.creates or source_key != target_key) and target_exists:
            how = "creates" if file_patch.creates else f"renames {source_name} to"
            raise PatchError(
                f"{file_patch.path} already exists but the patch {how} it; delete it first"
            )
        result = apply_file_patch(original.text if original else None, file_patch)
        hunks = counted(len(file_patch.hunks), "hunk")
        if result is None:
            staged[source_key] = (source, None)
            return f"{source_name} deleted"
        data = original.encode(result) if original else result.encode("utf-8")
        staged[target_key] = (target, data)
        if file_patch.creates:
            return f"{file_patch.path} created"
        if source_key != target_key:
            staged[source_key] = (source, None)
            return f"{source_name} renamed to {file_patch.path} ({hunks})"
        return f"{file_patch.path} ({hunks})"

    @_serialized
    def delete(self, path: str) -> str:
        """Delete a file (or an empty directory), along with the sidecars cached for it.

        A symlink is removed itself, wherever it points; so is a FIFO or socket left by a
        shell in the workspace.
        """
        not_found = (
            f"File not found: {path}. Use workspace_list or workspace_glob to see what exists."
        )
        with self._locate(path, missing=not_found, follow_last=False) as loc:
            if loc.name is None:
                raise RetriableError("the workspace root itself cannot be deleted")
            info = loc.lstat()
            if info is None:
                raise RetriableError(not_found)
            shown = self._show(loc)
            try:
                if stat.S_ISLNK(info.st_mode):
                    os.unlink(loc.name, dir_fd=loc.dir_fd)
                    return f"Deleted symlink {shown}."
                if stat.S_ISDIR(info.st_mode):
                    return self._delete_dir(loc, path)
                os.unlink(loc.name, dir_fd=loc.dir_fd)
            except FileNotFoundError:
                raise RetriableError(not_found) from None
            for sidecar in _sidecars_of(loc):
                with contextlib.suppress(OSError):
                    os.unlink(sidecar, dir_fd=loc.dir_fd)
        if not stat.S_ISREG(info.st_mode):
            return f"Deleted {describe_mode(info.st_mode)[2:]} {shown}."
        return f"Deleted {shown}."

    def _delete_dir(self, loc: Located, path: str) -> str:
        assert loc.name is not None
        try:
            os.rmdir(loc.name, dir_fd=loc.dir_fd)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise RetriableError(f"cannot delete {path}: {exc.strerror}") from None
            raise RetriableError(
                f"{path} is a directory that is not empty; workspace_delete removes files "
                "(and empty directories): delete its files first"
            ) from None
        return f"Deleted empty directory {self._show(loc)}."

    @_serialized
    def mkdir(self, path: str) -> str:
        """Create a directory and its parents; an existing directory is fine."""
        with self._locate_for_create(path) as loc:
            info = loc.lstat()
            if loc.name is None or (info is not None and stat.S_ISDIR(info.st_mode)):
                return f"Directory {self._show(loc)} already exists."
            if info is not None:
                raise RetriableError(f"{path} exists and is a file; choose another directory name")
            try:
                os.mkdir(loc.name, dir_fd=loc.dir_fd)
            except FileExistsError:
                raise RetriableError(
                    f"{path} exists and is a file; choose another directory name"
                ) from None
            return f"Created directory {self._show(loc)}."

    def list(self, path: str = "") -> builtins.list[FileEntry]:
        """The entries of the directory `path` ("" is the root): directories first, by name.

        Internal files (cached conversions, temporary files of a write) are left out;
        `size` is in bytes (a symlink's own size; it is not followed).
        """
        not_found = f"Directory not found: {path}"
        with self._locate(path or ".", missing=not_found) as loc:
            info = loc.lstat()
            if info is None or not stat.S_ISDIR(info.st_mode):
                raise RetriableError(not_found if info is None else f"{path} is not a directory")
            directory = self._open_dir(loc, path)
        entries: builtins.list[FileEntry] = []
        try:
            with os.scandir(directory) as scan:
                for entry in scan:
                    if is_internal_at(directory, entry.name):
                        continue
                    try:
                        status = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue  # removed since the listing
                    is_dir = stat.S_ISDIR(status.st_mode)
                    entries.append(FileEntry(name=entry.name, is_dir=is_dir, size=status.st_size))
        finally:
            os.close(directory)
        entries.sort(key=lambda entry: (not entry.is_dir, entry.name))
        return entries


# -- helpers --------------------------------------------------------------------------------

_IMAGE_KINDS = ", ".join(sorted(ext[1:] for ext in MEDIA_TYPES))


def _named_directory(base: Path, name: str) -> Path:
    """`base/name`, created when missing; `name` must stay strictly inside `base`."""
    if not name or "\x00" in name:
        raise ValueError(f"workspace_name must be a non-empty name, got {name!r}")
    top = base.resolve()
    candidate = (top / name).resolve()
    if candidate == top or not candidate.is_relative_to(top):
        raise ValueError(
            f"workspace_name {name!r} resolves outside {top}; use a plain relative name"
        )
    candidate.mkdir(parents=True, exist_ok=True)
    return candidate


def _check_glob(pattern: str) -> None:
    """Refuse a glob that is empty, leaves the searched directory or expands too far."""
    if not pattern or "\x00" in pattern:
        raise RetriableError("pattern must be a non-empty glob such as '**/*.py'")
    if pattern.startswith("/") or any(part == ".." for part in pattern.split("/")):
        raise RetriableError(
            f"glob {pattern!r} must stay inside the searched directory: no leading '/' and no '..'"
        )
    try:
        expand_braces(pattern)
    except BraceExpansionError as exc:
        raise RetriableError(f"{exc}; use fewer brace alternatives") from exc


def _special_message(path: str, mode: int) -> str:
    return (
        f"{path} is {describe_mode(mode)}, not a regular file; workspace tools only read and "
        "write regular files (workspace_delete removes it)"
    )


def _too_big(path: str, size: int, limit: int, *, result: bool = False) -> str:
    what = "the result would be" if result else "it is"
    return (
        f"{path} is too large for this operation: {what} {size:,} bytes, above the workspace's "
        f"limit of {limit:,} bytes (max_file_bytes); use workspace_read with offset and limit "
        "to page through it, or the shell for bulk changes"
    )


def _normalize_newlines(old: str, new: str, original: TextFile) -> tuple[str, str]:
    # A CRLF file is matched in "\n" form (see TextFile), so model text follows suit.
    if original.crlf:
        return normalise_endings(old, "\n"), normalise_endings(new, "\n")
    return old, new


def _snippet(content: str, start: int, end: int, first_line: int) -> str:
    """A few numbered lines around the changed span, so the model sees the result.

    The changed lines run from the one holding `start` to the one holding the span's last
    character (a replacement ending in a newline ends on the line that newline closes), with
    `_SNIPPET_CONTEXT` lines on either side. A long change is shown by its two ends.
    """
    begin = start
    for _ in range(_SNIPPET_CONTEXT + 1):
        begin = content.rfind("\n", 0, begin)
        if begin == -1:
            break
    begin += 1  # just past the newline found, or 0 when the file's start was reached
    finish = max(start, end - 1)
    for step in range(_SNIPPET_CONTEXT + 1):
        finish = content.find("\n", finish + (1 if step else 0))
        if finish == -1:
            # the text after a final newline is not a line of its own
            finish = len(content) - content.endswith("\n")
            break
    first = first_line - content.count("\n", begin, start)
    numbered: list[tuple[int, str] | None] = list(
        enumerate(content[begin:finish].split("\n"), start=first)
    )
    if len(numbered) > 2 * _SNIPPET_CONTEXT + 12:
        keep = _SNIPPET_CONTEXT + 6
        numbered = [*numbered[:keep], None, *numbered[-keep:]]
    return "\n".join("   ..." if row is None else f"{row[0]:>6}\t{row[1]}" for row in numbered)


def _sidecars_of(loc: Located) -> list[str]:
    """Names of the sidecars cached for the file at `loc`, in its directory."""
    name = loc.name or ""
    found = [f".{name}.md"]
    pattern = re.compile(re.escape(f".{name}.") + r"\d+px\.(?:png|jpeg|webp|gif)$")
    with contextlib.suppress(OSError), os.scandir(loc.dir_fd) as entries:
        found += [entry.name for entry in entries if pattern.match(entry.name)]
    return found


def _draw(dir_fd: int, prefix: str, depth: int, lines: list[str], limit: int, *, flat: bool) -> int:
    """Append the listing of the directory `dir_fd` to `lines` (up to `limit`); return the count.

    Subdirectories are opened from their parent's descriptor without following links. One
    that is there but cannot be read (no permission, out of descriptors) gets the reason on
    its own line instead of looking empty; an `OSError` reading `dir_fd` itself propagates.
    """
    with os.scandir(dir_fd) as scan:
        entries = sorted(
            (e for e in scan if not is_internal_at(dir_fd, e.name)),
            key=lambda e: (not e.is_dir(follow_symlinks=False), e.name),
        )
    total = 0
    for index, entry in enumerate(entries):
        total += 1
        last = index == len(entries) - 1
        branch = "" if flat else ("└── " if last else "├── ")
        is_dir = entry.is_dir(follow_symlinks=False)
        if entry.is_symlink():
            label = f"{entry.name}@"
        elif is_dir:
            label = f"{entry.name}/"
        else:
            try:
                label = f"{entry.name} ({entry.stat(follow_symlinks=False).st_size} bytes)"
            except OSError:
                label = entry.name
        if len(lines) < limit:
            lines.append(prefix + branch + label)
        # Past the limit, entries of this level are still counted (cheap: already scanned),
        # but no deeper level is walked, so a tree's count of what was left out is a minimum.
        if is_dir and not flat and depth > 1 and len(lines) < limit:
            extension = prefix + ("    " if last else "│   ")
            try:
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=dir_fd)
            except OSError as exc:
                if exc.errno not in GONE_ERRNOS:
                    lines[-1] += f" [cannot open: {exc.strerror or exc}]"
                continue
            try:
                total += _draw(child, extension, depth - 1, lines, limit, flat=False)
            except OSError as exc:
                lines[-1] += f" [cannot open: {exc.strerror or exc}]"
            finally:
                os.close(child)
    return total
