"""The workspace itself: a directory of team files and every operation the tools perform on it.

`Filesystem` is the one implementation of the `Workspace` protocol. Each of its methods takes
model-supplied paths, checks them with core's `safe_path` before touching anything, and
reports every problem the model can fix as a `RetriableError` whose message says what to do.
Methods that change files compute all new contents first and commit them at the end, so a
refused call leaves the workspace exactly as it was.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, ParamSpec, Protocol, TypeVar, runtime_checkable

from pydantic_ai.messages import BinaryContent

from akgentic.tool.core.workspace_dir import resolve_workspace_dir, safe_path
from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace._files import (
    NotTextError,
    TextFile,
    atomic_write,
    commit,
    decode_text,
    looks_binary,
)
from akgentic.tool.workspace._images import MEDIA_TYPES, ImageError, prepare_image
from akgentic.tool.workspace._search import (
    BraceExpansionError,
    GrepTimeout,
    RipgrepUnusable,
    expand_braces,
    format_hits,
    glob_files,
    grep_python,
    grep_ripgrep,
    is_internal,
    ripgrep_path,
)
from akgentic.tool.workspace.edit import (
    EditError,
    EditItem,
    EditMatcher,
    FilePatch,
    PatchError,
    apply_file_patch,
    parse_patch,
)
from akgentic.tool.workspace.readers import (
    DOCUMENT_EXTENSIONS,
    IMAGE_EXTENSIONS,
    TEXT_EXTENSIONS,
    DocumentReader,
    document_sidecar,
)

__all__ = ["DEFAULT_WORKSPACE_ID", "Filesystem", "GrepEngine", "Workspace", "get_workspace"]

#: The workspace used when neither `workspace_id` nor a team id is available.
DEFAULT_WORKSPACE_ID = "default"

GrepEngine = Literal["auto", "ripgrep", "python"]

P = ParamSpec("P")
R = TypeVar("R")

_DOCUMENT_NAMES = ", ".join(sorted(ext[1:] for ext in DOCUMENT_EXTENSIONS))
_SNIPPET_CONTEXT = 2
# The tree is drawn recursively; deeper listings are better done a subdirectory at a time.
_MAX_TREE_DEPTH = 32


@runtime_checkable
class Workspace(Protocol):
    """What the workspace tools need from a storage backend."""

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
        reader: DocumentReader | None = None,
    ) -> str: ...

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
    ) -> str: ...

    def view(self, path: str, *, max_dimension: int = 1568) -> BinaryContent: ...

    def write(self, path: str, content: str) -> str: ...

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

    def delete(self, path: str) -> str: ...

    def mkdir(self, path: str) -> str: ...


def get_workspace(workspace_id: str) -> Filesystem:
    """The `Filesystem` of `workspace_id` under `AKGENTIC_WORKSPACES_ROOT` (created if needed).

    Raises `ValueError` for an id that would leave the root (a configuration error).
    """
    return Filesystem(resolve_workspace_dir(workspace_id))


_LOCKS: dict[Path, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


def _workspace_lock(root: Path) -> threading.RLock:
    """One lock per workspace directory, shared by every `Filesystem` of this process."""
    with _LOCKS_GUARD:
        lock = _LOCKS.get(root)
        if lock is None:
            lock = _LOCKS[root] = threading.RLock()
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

    Changes are serialized per workspace directory within a process (see `_serialized`);
    separate processes sharing a directory are not coordinated.
    """

    def __init__(self, root: Path) -> None:
        self._root = root.resolve()
        self._lock = _workspace_lock(self._root)

    @property
    def root(self) -> Path:
        return self._root

    # -- path helpers -----------------------------------------------------------------------

    def _resolve(self, path: str) -> Path:
        return safe_path(self._root, path)

    def _show(self, target: Path) -> str:
        relative = os.path.relpath(target, self._root).replace(os.sep, "/")
        return "." if relative == "." else relative

    def _existing_file(self, path: str) -> Path:
        target = self._resolve(path)
        if target.is_dir():
            raise RetriableError(
                f"{path} is a directory, not a file; use workspace_list to see its content"
            )
        if not target.is_file():
            raise RetriableError(
                f"File not found: {path}. Use workspace_list or workspace_glob to see what exists."
            )
        return target

    def _read_text_strict(self, target: Path, path: str) -> TextFile:
        if target.suffix.lower() in DOCUMENT_EXTENSIONS:
            raise RetriableError(
                f"{path} is a binary document; text tools cannot change it "
                "(workspace_read converts it to Markdown for reading)"
            )
        try:
            return decode_text(target.read_bytes())
        except NotTextError as exc:
            raise RetriableError(
                f"{path} is not a text file ({exc}); text tools cannot change it without "
                "corrupting it"
            ) from exc

    # -- reading ----------------------------------------------------------------------------

    def read(
        self,
        path: str,
        offset: int = 0,
        limit: int = 2000,
        *,
        max_line_chars: int = 2000,
        reader: DocumentReader | None = None,
    ) -> str:
        """Numbered lines `offset+1 .. offset+limit` of a file (documents as Markdown)."""
        if offset < 0:
            raise RetriableError(f"offset must be 0 or more, got {offset}")
        if limit < 1:
            raise RetriableError(f"limit must be 1 or more, got {limit}")
        target = self._existing_file(path)
        suffix = target.suffix.lower()
        note = ""
        if suffix in DOCUMENT_EXTENSIONS:
            if reader is None:
                raise RetriableError(
                    f"{path} is a binary document and document conversion is disabled here"
                )
            try:
                text = reader.read(target)
            except ValueError as exc:
                raise RetriableError(str(exc)) from exc
            note = f"{path} converted to Markdown"
            if suffix in IMAGE_EXTENSIONS:
                note += "; use workspace_view to look at the image itself"
        else:
            data = target.read_bytes()
            if looks_binary(data):
                kind = "has a text extension but holds" if suffix in TEXT_EXTENSIONS else "holds"
                raise RetriableError(
                    f"{path} {kind} binary data (NUL bytes) and is not a document format "
                    f"workspace_read converts ({_DOCUMENT_NAMES})"
                )
            text = decode_text(data, strict=False).text
        return _page(text, path, offset, limit, max_line_chars, note)

    def list_dir(self, path: str = ".", depth: int = 1, *, max_entries: int = 500) -> str:
        """The entries of a directory; `depth` above 1 draws an ASCII tree that deep."""
        if not 1 <= depth <= _MAX_TREE_DEPTH:
            raise RetriableError(f"depth must be between 1 and {_MAX_TREE_DEPTH}, got {depth}")
        target = self._resolve(path)
        if not target.exists():
            raise RetriableError(f"Directory not found: {path}. Use workspace_list('.') first.")
        if not target.is_dir():
            raise RetriableError(f"{path} is a file, not a directory; use workspace_read on it")
        lines: list[str] = []
        total = _draw(target, "", depth, lines, max_entries, flat=depth == 1)
        if not lines:
            return f"{self._show(target)}/ is empty."
        header = f"{self._show(target)}/"
        if total > len(lines):
            more = total - len(lines)
            count = f"{more} more entries" if depth == 1 else f"at least {more} more entries"
            lines.append(f"[{count} not shown; list a subdirectory or lower the depth]")
        return "\n".join([header, *lines])

    def glob(self, pattern: str, path: str = ".", *, max_results: int = 200) -> str:
        """Files matching a glob (`**`, `{a,b}`), newest first."""
        if not pattern or "\x00" in pattern:
            raise RetriableError("pattern must be a non-empty glob such as '**/*.py'")
        if pattern.startswith("/") or any(part == ".." for part in pattern.split("/")):
            raise RetriableError(
                f"glob {pattern!r} must stay inside the searched directory: "
                "no leading '/' and no '..'"
            )
        start = self._resolve(path)
        if not start.is_dir():
            raise RetriableError(f"Directory not found: {path}")
        try:
            found, total = glob_files(self._root, start, pattern, limit=max_results)
        except BraceExpansionError as exc:
            raise RetriableError(f"{exc}; use fewer brace alternatives") from exc
        if not found:
            return f"No files match {pattern!r} in {self._show(start)}."
        lines = [item.relative for item in found]
        if total > len(found):
            lines.append(f"[showing {len(found)} of {total} files, newest first; narrow the glob]")
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
    ) -> str:
        """Lines matching a regular expression, as `path:line:text`, sorted by path."""
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
        start = self._resolve(path)
        if not start.exists():
            raise RetriableError(f"Path not found: {path}. Use workspace_list to see what exists.")
        if start.is_file() and looks_binary(_head(start)):
            raise RetriableError(f"{path} is a binary file; grep searches text files only")
        rg = ripgrep_path() if engine != "python" else None
        if engine == "ripgrep" and rg is None:
            raise RetriableError("ripgrep (rg) is not installed here; search without it")
        hits = None
        try:
            if rg is not None:
                try:
                    hits = grep_ripgrep(
                        rg,
                        self._root,
                        start,
                        regex,
                        include=include,
                        timeout=timeout_seconds,
                        limit=max_matches,
                    )
                except RipgrepUnusable:
                    hits = None  # a pattern only Python's `re` understands: rerun in Python
            if hits is None:
                hits = grep_python(
                    self._root,
                    start,
                    regex,
                    include=include,
                    limit=max_matches,
                    timeout=timeout_seconds,
                )
        except GrepTimeout as exc:
            raise RetriableError(
                f"{exc}; narrow the search with path or include, or a more specific pattern"
            ) from exc
        return format_hits(hits, pattern=pattern, where=self._show(start))

    def view(self, path: str, *, max_dimension: int = 1568) -> BinaryContent:
        """The image at `path` as `BinaryContent` for a vision model."""
        target = self._existing_file(path)
        suffix = target.suffix.lower()
        if suffix not in MEDIA_TYPES:
            kinds = ", ".join(sorted(ext[1:] for ext in MEDIA_TYPES))
            raise RetriableError(
                f"{path} is not an image workspace_view can show ({kinds}); "
                "use workspace_read for text and documents"
            )
        try:
            data, media_type = prepare_image(target, max_dimension)
        except ImageError as exc:
            raise RetriableError(str(exc)) from exc
        return BinaryContent(data=data, media_type=media_type, identifier=self._show(target))

    # -- writing ----------------------------------------------------------------------------

    @_serialized
    def write(self, path: str, content: str) -> str:
        """Create or overwrite a text file, keeping an existing file's line endings."""
        target = self._resolve(path)
        if target == self._root or target.is_dir():
            raise RetriableError(f"{path} is a directory; give a file path to write")
        original = self._read_text_strict(target, path) if target.exists() else None
        if original is not None:
            data = original.encode(content)
        else:
            self._check_parent(target, path)
            data = content.encode("utf-8")
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, data)
        lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
        how = "Created" if original is None else "Overwrote"
        endings = " (kept its CRLF line endings)" if original and original.crlf else ""
        return f"{how} {self._show(target)}: {lines} lines, {len(data)} bytes{endings}."

    @_serialized
    def edit(
        self,
        path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
        *,
        matcher: EditMatcher | None = None,
    ) -> str:
        """Replace `old_string` with `new_string` in one file (see `EditMatcher`)."""
        target = self._existing_file(path)
        original = self._read_text_strict(target, path)
        old, new = _normalize_newlines(old_string, new_string, original)
        try:
            result = (matcher or EditMatcher()).apply(
                original.text, old, new, replace_all=replace_all
            )
        except EditError as exc:
            raise RetriableError(f"{path}: {exc}") from exc
        atomic_write(target, original.encode(result.content))
        where = f"line {result.first_line}"
        plural = "s" if result.count != 1 else ""
        via = "" if result.strategy == "exact" else f" ({result.strategy.replace('_', ' ')} match)"
        snippet = _snippet(result.content, result.start, result.end, result.first_line)
        return (
            f"Edited {self._show(target)}: {result.count} replacement{plural} at {where}{via}.\n"
            f"{snippet}"
        )

    @_serialized
    def multi_edit(self, edits: Sequence[EditItem], *, matcher: EditMatcher | None = None) -> str:
        """Apply several edits, possibly across files; all of them or none."""
        if not edits:
            raise RetriableError("edits is empty; give at least one edit")
        engine = matcher or EditMatcher()
        files: dict[Path, tuple[TextFile, str]] = {}
        summary: dict[Path, int] = {}
        for number, item in enumerate(edits, start=1):
            try:
                target = self._existing_file(item.path)
                if target not in files:
                    original = self._read_text_strict(target, item.path)
                    files[target] = (original, original.text)
                original, current = files[target]
                old, new = _normalize_newlines(item.old_string, item.new_string, original)
                result = engine.apply(current, old, new, replace_all=item.replace_all)
            except (RetriableError, EditError) as exc:
                raise RetriableError(
                    f"edit {number} of {len(edits)} ({item.path}) failed: {exc}. "
                    "No file was changed; fix that edit and send the whole list again."
                ) from exc
            files[target] = (original, result.content)
            summary[target] = summary.get(target, 0) + result.count
        commit({target: original.encode(text) for target, (original, text) in files.items()})
        done = ", ".join(f"{self._show(t)} ({n} replacements)" for t, n in summary.items())
        return f"Applied {len(edits)} edits to {len(files)} files: {done}."

    @_serialized
    def patch(self, diff: str) -> str:
        """Apply a GNU unified diff to one or more files; all of it or none."""
        try:
            patches = parse_patch(diff)
        except PatchError as exc:
            raise RetriableError(f"patch rejected: {exc}. No file was changed.") from exc
        changes: dict[Path, bytes | None] = {}
        report: list[str] = []
        for file_patch in patches:
            try:
                report.append(self._patch_one(file_patch, changes))
            except PatchError as exc:
                raise RetriableError(f"patch rejected: {exc}. No file was changed.") from exc
        commit(changes)
        return f"Patched {len(patches)} file(s): " + "; ".join(report) + "."

    def _patch_one(self, file_patch: FilePatch, changes: dict[Path, bytes | None]) -> str:
        source_name = file_patch.old_path if file_patch.old_path is not None else file_patch.path
        source = self._resolve(source_name)
        target = self._resolve(file_patch.path)
        for candidate, name in ((source, source_name), (target, file_patch.path)):
            if candidate == self._root or candidate.is_dir():
                raise PatchError(f"{name} is a directory, not a file")
        if source in changes or target in changes:
            raise PatchError(f"{file_patch.path} appears twice in the patch; merge its hunks")
        original: TextFile | None = None
        if not file_patch.creates and source.is_file():
            original = self._read_text_strict(source, source_name)
        if (file_patch.creates or source != target) and target.exists():
            how = "creates" if file_patch.creates else f"renames {source_name} to"
            raise PatchError(
                f"{file_patch.path} already exists but the patch {how} it; delete it first"
            )
        self._check_parent(target, file_patch.path)
        result = apply_file_patch(original.text if original else None, file_patch)
        hunks = f"{len(file_patch.hunks)} hunk{'s' if len(file_patch.hunks) != 1 else ''}"
        if result is None:
            changes[source] = None
            return f"{source_name} deleted"
        changes[target] = original.encode(result) if original else result.encode("utf-8")
        if file_patch.creates:
            return f"{file_patch.path} created"
        if source != target:
            changes[source] = None
            return f"{source_name} renamed to {file_patch.path} ({hunks})"
        return f"{file_patch.path} ({hunks})"

    @_serialized
    def delete(self, path: str) -> str:
        """Delete a file (or an empty directory), along with the sidecars cached for it."""
        target = self._resolve(path)
        # A symlink is deleted itself, never the file it points to.
        lexical = self._resolve(os.path.dirname(path.rstrip("/")) or ".") / os.path.basename(
            path.rstrip("/")
        )
        if lexical.is_symlink() and lexical.parent.resolve().is_relative_to(self._root):
            lexical.unlink()
            return f"Deleted symlink {self._show(lexical.parent / lexical.name)}."
        if target == self._root:
            raise RetriableError("the workspace root itself cannot be deleted")
        if target.is_dir():
            if any(target.iterdir()):
                raise RetriableError(
                    f"{path} is a directory that is not empty; workspace_delete removes files "
                    "(and empty directories): delete its files first"
                )
            target.rmdir()
            return f"Deleted empty directory {self._show(target)}."
        if not target.is_file():
            raise RetriableError(
                f"File not found: {path}. Use workspace_list or workspace_glob to see what exists."
            )
        target.unlink()
        for sidecar in _sidecars_of(target):
            sidecar.unlink(missing_ok=True)
        return f"Deleted {self._show(target)}."

    @_serialized
    def mkdir(self, path: str) -> str:
        """Create a directory and its parents; an existing directory is fine."""
        target = self._resolve(path)
        if target.is_dir():
            return f"Directory {self._show(target)} already exists."
        self._check_parent(target, path)
        if target.exists():
            raise RetriableError(f"{path} exists and is a file; choose another directory name")
        target.mkdir(parents=True, exist_ok=True)
        return f"Created directory {self._show(target)}."

    def _check_parent(self, target: Path, path: str) -> None:
        """Refuse a path whose would-be parent directory is an existing file."""
        for parent in target.parents:
            if parent == self._root or not parent.is_relative_to(self._root):
                return
            if parent.exists():
                if not parent.is_dir():
                    raise RetriableError(
                        f"cannot create {path}: {self._show(parent)} is a file, not a directory"
                    )
                return


# -- helpers --------------------------------------------------------------------------------


def _head(path: Path) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(8192)


def _normalize_newlines(old: str, new: str, original: TextFile) -> tuple[str, str]:
    # A CRLF file is matched in "\n" form (see TextFile), so model text follows suit.
    if original.crlf:
        return old.replace("\r\n", "\n"), new.replace("\r\n", "\n")
    return old, new


def _page(text: str, path: str, offset: int, limit: int, max_chars: int, note: str) -> str:
    lines = text.split("\n") if text else []
    if text.endswith("\n"):
        lines.pop()
    total = len(lines)
    if total == 0:
        return f"[{path} is empty]" if not note else f"[{note}; no text content]"
    if offset >= total:
        raise RetriableError(
            f"offset {offset} is past the end of {path}, which has {total} lines; "
            f"use an offset between 0 and {total - 1}"
        )
    shown = lines[offset : offset + limit]
    out = []
    for number, line in enumerate(shown, start=offset + 1):
        if len(line) > max_chars:
            line = line[:max_chars] + f"… [line cut at {max_chars} characters]"
        out.append(f"{number:>6}\t{line}")
    last = offset + len(shown)
    footer: list[str] = []
    if note:
        footer.append(note)
    if last < total:
        footer.append(
            f"lines {offset + 1}-{last} of {total}; call again with offset={last} to continue"
        )
    elif offset:
        footer.append(f"lines {offset + 1}-{last} of {total}; end of file")
    if footer:
        out.append("[" + "; ".join(footer) + "]")
    return "\n".join(out)


def _snippet(content: str, start: int, end: int, first_line: int) -> str:
    """A few numbered lines around the changed span, so the model sees the result."""
    begin = start
    for _ in range(_SNIPPET_CONTEXT + 1):
        found = content.rfind("\n", 0, begin)
        if found == -1:
            begin = 0
            break
        begin = found
    if begin:
        begin += 1
    finish = end
    for _ in range(_SNIPPET_CONTEXT + 1):
        found = content.find("\n", finish + (1 if finish > end else 0))
        if found == -1:
            finish = len(content)
            break
        finish = found
    chunk = content[begin:finish].split("\n")
    if len(chunk) > 2 * _SNIPPET_CONTEXT + 12:
        keep = _SNIPPET_CONTEXT + 6
        chunk = [*chunk[:keep], "…", *chunk[-keep:]]
    line_number = first_line - content.count("\n", begin, start)
    out = []
    for line in chunk:
        if line == "…":
            out.append("   ...")
            continue
        out.append(f"{line_number:>6}\t{line}")
        line_number += 1
    return "\n".join(out)


def _sidecars_of(source: Path) -> list[Path]:
    found = [document_sidecar(source)]
    pattern = re.compile(re.escape(f".{source.name}.") + r"\d+px\.(?:png|jpeg|webp|gif)$")
    with contextlib.suppress(OSError):
        found += [entry for entry in source.parent.iterdir() if pattern.match(entry.name)]
    return found


def _draw(
    directory: Path, prefix: str, depth: int, lines: list[str], limit: int, *, flat: bool
) -> int:
    """Append the listing of `directory` to `lines` (up to `limit`); return the entry count."""
    try:
        entries = sorted(
            (e for e in os.scandir(directory) if not is_internal(str(directory), e.name)),
            key=lambda e: (not e.is_dir(follow_symlinks=False), e.name),
        )
    except OSError:
        return 0
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
            total += _draw(Path(entry.path), extension, depth - 1, lines, limit, flat=False)
    return total
