"""WorkspaceTool: the card that gives agents a shared team directory.

Each of the eleven tools is a field typed `bool | <Param>`: `False` removes it, `True` keeps
its defaults, a param instance tunes it (and chooses its channels). `read_only=True` keeps
the five reading capabilities only, whatever the write fields say. A twelfth capability,
`expand_media_refs`, is a command (not a model tool): it turns the `!!pattern` references
of a user's message into the workspace images they name.
"""

from __future__ import annotations

import base64
import binascii
import functools
import posixpath
import threading
import uuid
import weakref
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import Any, ClassVar, NamedTuple, ParamSpec, Self, TypeVar, cast

from pydantic import Field, PrivateAttr, model_validator
from pydantic_ai.messages import BinaryContent

from akgentic.core.utils.serializer import SerializableBaseModel
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.channels import COMMAND, Channels
from akgentic.tool.core.channels import TOOL_CALL as TOOL_CALL  # importable here, as it was
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace._files import printable
from akgentic.tool.workspace._media import MediaExpander, Part
from akgentic.tool.workspace._seen import DEFAULT_MAX_SEEN_FILES, SeenFiles, seen_files_of
from akgentic.tool.workspace.edit import EditItem, EditMatcher
from akgentic.tool.workspace.readers import DocumentReader
from akgentic.tool.workspace.workspace import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_WORKSPACE_ID,
    Filesystem,
    GrepEngine,
    get_workspace,
)

__all__ = [
    "ExpandMediaRefs",
    "Resource",
    "ResourceType",
    "WorkspaceDelete",
    "WorkspaceEdit",
    "WorkspaceGlob",
    "WorkspaceGrep",
    "WorkspaceList",
    "WorkspaceMkdir",
    "WorkspaceMultiEdit",
    "WorkspacePatch",
    "WorkspaceRead",
    "WorkspaceTool",
    "WorkspaceView",
    "WorkspaceWrite",
]

P = ParamSpec("P")
R = TypeVar("R")


def _same_setting(data: Any, ours: str, theirs: str) -> Any:
    """Make the two names of one setting agree in the input of a model validation.

    One given: the other takes its value. Both given: they must be equal. Both fields then
    hold the value, so a dump validates again.
    """
    if not isinstance(data, dict):
        return data
    if ours in data and theirs in data:
        if data[ours] != data[theirs]:
            raise ValueError(
                f"{ours} and {theirs} name the same setting; give one of them "
                f"(got {data[ours]!r} and {data[theirs]!r})"
            )
        return data
    if ours in data:
        return {**data, theirs: data[ours]}
    if theirs in data:
        return {**data, ours: data[theirs]}
    return data


class WorkspaceRead(BaseToolParam):
    """`workspace_read`: numbered, paginated file reading; documents as Markdown.

    `default_limit` is `page_lines` under its akgentic-tool 1.6.4 name (set either one).
    Documents are converted when both `convert_documents` and `document_reader` allow it;
    `document_reader` may also be a `DocumentReader` carrying its own settings (captions).
    """

    page_lines: int = Field(
        default=2000, ge=1, description="Lines returned when no limit is given."
    )
    default_limit: int = Field(default=2000, ge=1, description="Same setting as page_lines.")
    max_line_chars: int = Field(default=2000, ge=20, description="Longer lines are cut.")
    convert_documents: bool = Field(
        default=True, description="Convert PDF/DOCX/XLSX/PPTX/images with MarkItDown."
    )
    cache_conversions: bool = Field(
        default=True, description="Keep converted Markdown in a `.name.ext.md` sidecar."
    )
    document_reader: DocumentReader | bool = Field(
        default=True,
        description="The document converter: True (default reader), False (none) or a reader.",
    )
    force_document_regeneration: bool = Field(
        default=False,
        description="Always convert documents again, ignoring (and replacing) the sidecar.",
    )

    @model_validator(mode="before")
    @classmethod
    def _one_page_size(cls, data: Any) -> Any:
        return _same_setting(data, "page_lines", "default_limit")


class WorkspaceList(BaseToolParam):
    """`workspace_list`: a directory listing, flat or as a tree."""

    max_entries: int = Field(default=500, ge=1, description="Entries shown before cutting.")
    max_depth: int = Field(
        default=1, ge=1, le=32, description="Depth listed when the call gives none (1: flat)."
    )


class WorkspaceGlob(BaseToolParam):
    """`workspace_glob`: files by glob pattern, newest first."""

    max_results: int = Field(default=100, ge=1, description="Paths shown before cutting.")


class WorkspaceGrep(BaseToolParam):
    """`workspace_grep`: regex search through files.

    `max_results` is `max_matches` under its akgentic-tool 1.6.4 name (set either one).
    """

    max_matches: int = Field(default=100, ge=1, description="Matching lines shown.")
    max_results: int = Field(default=100, ge=1, description="Same setting as max_matches.")
    max_line_length: int = Field(default=2000, ge=20, description="Longer matching lines are cut.")
    use_ripgrep: bool = Field(
        default=True, description="Use `rg` when it is on PATH (False: always pure Python)."
    )
    timeout_seconds: float = Field(
        default=30.0, gt=0, description="Time limit of one search, either engine."
    )

    @model_validator(mode="before")
    @classmethod
    def _one_match_limit(cls, data: Any) -> Any:
        return _same_setting(data, "max_matches", "max_results")


class WorkspaceView(BaseToolParam):
    """`workspace_view`: an image handed to the model's vision input."""

    max_dimension: int = Field(
        default=1568, ge=16, description="Longer side, in pixels, images are shrunk to (Pillow)."
    )


class WorkspaceWrite(BaseToolParam):
    """`workspace_write`: create or overwrite a text file atomically."""


class WorkspaceEdit(BaseToolParam):
    """`workspace_edit`: find-and-replace through the matching cascade."""

    fuzzy_threshold: float = Field(
        default=0.85, gt=0, le=1, description="Similarity the fuzzy strategies require."
    )


class WorkspaceMultiEdit(BaseToolParam):
    """`workspace_multi_edit`: several edits across files, all or nothing."""

    fuzzy_threshold: float = Field(
        default=0.85, gt=0, le=1, description="Similarity the fuzzy strategies require."
    )


class WorkspacePatch(BaseToolParam):
    """`workspace_patch`: apply a unified diff, all or nothing."""


class WorkspaceDelete(BaseToolParam):
    """`workspace_delete`: remove a file."""


class WorkspaceMkdir(BaseToolParam):
    """`workspace_mkdir`: create a directory with its parents."""


class ExpandMediaRefs(BaseToolParam):
    """`_expand_media_refs` (a command): `!!pattern` in a message attaches workspace images.

    The agent calls it on each incoming message before the model sees it; see
    `akgentic.tool.workspace._media` for the rules.
    """

    expose: set[Channels] = {COMMAND}
    max_images: int = Field(default=8, ge=1, description="Images attached per message.")
    max_image_bytes: int = Field(
        default=5 * 1024 * 1024, ge=1, description="Largest image attached (after resizing)."
    )
    max_dimension: int = Field(
        default=1568, ge=16, description="Longer side images are shrunk to (Pillow)."
    )


class ResourceType(StrEnum):
    """How a `Resource`'s content is stored: text as is, an image as base64."""

    TEXT = "text"
    IMAGE = "image"


class Resource(SerializableBaseModel):
    """A file the card places in the workspace when it is first used.

    `file_name` is a path relative to the workspace root; `content` is the text (`TEXT`) or
    the base64 of the bytes (`IMAGE`). A file already at that path is left as it is, so a
    restarted agent never undoes what the team changed.
    """

    file_name: str
    content: str
    file_type: ResourceType = ResourceType.TEXT

    @model_validator(mode="after")
    def _check(self) -> Self:
        name = self.file_name
        if not name or "\x00" in name or name.startswith("/"):
            raise ValueError(f"file_name must be a relative path, got {name!r}")
        if ".." in name.split("/") or posixpath.normpath(name) in (".", ""):
            raise ValueError(f"file_name must name a file inside the workspace, got {name!r}")
        if self.file_type is ResourceType.IMAGE:
            self.to_bytes()
        return self

    def to_bytes(self) -> bytes:
        """The bytes of the file: the text in UTF-8, or the decoded base64 of an image."""
        if self.file_type is ResourceType.IMAGE:
            try:
                return base64.b64decode(self.content, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise ValueError(
                    f"resource {self.file_name!r}: an image's content must be base64 ({exc})"
                ) from exc
        return self.content.encode("utf-8")


# A card used without an observer is an agent of its own, named by a token kept beside the
# card rather than in it: a private attribute would take part in the card's equality.
_CARD_TOKENS: dict[int, tuple[weakref.ref[Any], str]] = {}
_CARD_TOKENS_GUARD = threading.Lock()


def _card_token(card: object) -> str:
    """A token unique to `card` for its lifetime (ids of dead cards are never reused for it)."""
    key = id(card)
    with _CARD_TOKENS_GUARD:
        found = _CARD_TOKENS.get(key)
        if found is not None and found[0]() is card:
            return found[1]
        token = uuid.uuid4().hex
        _CARD_TOKENS[key] = (weakref.ref(card), token)
    weakref.finalize(card, _drop_token, key, token)
    return token


def _drop_token(key: int, token: str) -> None:
    with _CARD_TOKENS_GUARD:
        found = _CARD_TOKENS.get(key)
        if found is not None and found[1] == token:
            del _CARD_TOKENS[key]


def _guarded(fn: Callable[P, R]) -> Callable[P, R]:
    """The one exit of every tool: text made serializable, OS errors made retriable.

    Everything expected is already reported as `RetriableError` by `Filesystem`; this is the
    backstop for what the OS alone knows (permissions, a full disk, an unencodable name). Text
    going back to the model (results and error messages) passes through `printable`, because
    a file name that is not UTF-8 would otherwise make the agent's JSON encoding fail.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            result = fn(*args, **kwargs)
        except RetriableError as exc:
            message = str(exc)
            if printable(message) != message:
                raise RetriableError(printable(message)) from exc
            raise
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            raise RetriableError(
                f"{fn.__name__} failed: {exc.strerror or exc}{where}; check the path and retry"
            ) from exc
        except ValueError as exc:  # e.g. a lone surrogate the OS cannot encode in a name
            raise RetriableError(f"{fn.__name__} failed: invalid argument ({exc})") from exc
        if isinstance(result, str):
            return cast(R, printable(result))
        return result

    return wrapper


class WorkspaceTool(ToolCard):
    """Read and write access to a team directory under `AKGENTIC_WORKSPACES_ROOT`.

    `workspace_id` names the directory; left unset, the team's id is used (so each team gets
    its own), or `"default"` when the card runs outside a team. Two cards (or a `WorkspaceTool`
    and an `ExecTool`) with the same `workspace_id` share their files.

    `stale_write_protection` (on by default) refuses a change to a file that changed since
    the carrying agent last read or wrote it (see `akgentic.tool.workspace._seen`).
    """

    workspace_id: str | None = Field(
        default=None, description="Directory name under the workspaces root; default: team id."
    )
    read_only: bool = Field(default=False, description="Expose the reading capabilities only.")
    max_file_bytes: int = Field(
        default=DEFAULT_MAX_FILE_BYTES,
        ge=1,
        description="Largest file that write, edit, patch, documents and images take on.",
    )

    # Each capability field is built by its _build_<field>, in field order (the order the
    # tools are offered in): read, list, glob, grep, view and the media command read; the
    # six after them write, and a read_only card leaves them out.
    writing_capabilities: ClassVar[frozenset[str]] = frozenset(
        {
            "workspace_write",
            "workspace_edit",
            "workspace_multi_edit",
            "workspace_patch",
            "workspace_delete",
            "workspace_mkdir",
        }
    )

    workspace_read: bool | WorkspaceRead = True
    workspace_list: bool | WorkspaceList = True
    workspace_glob: bool | WorkspaceGlob = True
    workspace_grep: bool | WorkspaceGrep = True
    workspace_view: bool | WorkspaceView = True
    expand_media_refs: bool | ExpandMediaRefs = True
    workspace_write: bool | WorkspaceWrite = True
    workspace_edit: bool | WorkspaceEdit = True
    workspace_multi_edit: bool | WorkspaceMultiEdit = True
    workspace_patch: bool | WorkspacePatch = True
    workspace_delete: bool | WorkspaceDelete = True
    workspace_mkdir: bool | WorkspaceMkdir = True

    resources: list[Resource] = Field(
        default=[],  # pydantic copies it for each card
        description="Files placed in the workspace when the card is first used (if absent).",
    )
    stale_write_protection: bool = Field(
        default=True,
        description=(
            "Refuse a write, edit or patch of a file that changed since this agent last read "
            "or wrote it (False: the last writer wins)."
        ),
    )
    max_seen_files: int = Field(
        default=DEFAULT_MAX_SEEN_FILES,
        ge=1,
        description="Files each agent's stale-write memory holds; the oldest is forgotten.",
    )

    _seeded: set[Path] = PrivateAttr(default_factory=set)

    def resolved_workspace_id(self) -> str:
        """The directory name this card works in (see the class docstring)."""
        if self.workspace_id:
            return self.workspace_id
        team_id = getattr(self.get_observer_or_none(), "team_id", None)
        return str(team_id) if team_id is not None else DEFAULT_WORKSPACE_ID

    def get_workspace(self) -> Filesystem:
        """The workspace directory, created when missing, with the `resources` placed in it."""
        workspace = get_workspace(self.resolved_workspace_id(), max_file_bytes=self.max_file_bytes)
        if self.resources and workspace.root not in self._seeded:
            for resource in self.resources:
                workspace.write_if_absent(resource.file_name, resource.to_bytes())
            self._seeded.add(workspace.root)
        return workspace

    @property
    def workspace(self) -> Filesystem:
        """The card's `Filesystem` (same as :meth:`get_workspace`)."""
        return self.get_workspace()

    def observer(self, observer: ToolObserver) -> Self:
        """Attach the carrying agent, then place the `resources` in its workspace."""
        super().observer(observer)
        if self.resources:
            self.get_workspace()
        return self

    def agent_identity(self) -> str:
        """Whose memory the stale-write protection uses: the carrying agent's id.

        An akgentic agent is identified by its address's `agent_id`; another observer by the
        object itself; a card used without an observer is an agent of its own.
        """
        observer = self.get_observer_or_none()
        if observer is None:
            return f"card:{_card_token(self)}"
        agent_id = getattr(getattr(observer, "myAddress", None), "agent_id", None)
        if agent_id is not None:
            return f"agent:{agent_id}"
        return f"observer:{id(observer)}"

    def seen_files(self) -> SeenFiles | None:
        """The carrying agent's memory of what it saw, or None when the protection is off."""
        if not self.stale_write_protection:
            return None
        return seen_files_of(self.agent_identity(), self.max_seen_files)

    def _capability_context(self) -> _Bound:
        # Opened once per get_* call and shared by every builder: opening the workspace
        # costs a directory check, and the stale-write memory is the agent's.
        return _Bound(self.get_workspace(), self.seen_files())

    # -- the model-facing callables ---------------------------------------------------------
    # One _build_<field> per capability: it reads every field of its param at bind time and
    # closes over the workspace. Every callable goes through _guarded, the tools' one exit.

    def _build_workspace_read(self, param: WorkspaceRead, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace
        seen = bound.seen
        converter = _document_reader(param)
        page, max_chars = param.page_lines, param.max_line_chars
        always_regenerate = param.force_document_regeneration

        @_guarded
        def workspace_read(
            path: str,
            offset: int = 0,
            limit: int | None = None,
            force_document_regeneration: bool = False,
        ) -> str:
            """Read a file from the workspace, with line numbers.

            PDF, Word, Excel, PowerPoint and image files are returned as Markdown text.
            Long files come in pages: the footer says which offset to ask for next.

            Args:
                path: File path relative to the workspace root, e.g. 'src/app.py'.
                offset: Number of lines to skip (0 starts at the first line).
                limit: Maximum number of lines to return (default: one page).
                force_document_regeneration: Convert a document again instead of using the
                    Markdown cached from an earlier read.
            """
            return ws.read(
                path,
                offset,
                limit or page,
                max_line_chars=max_chars,
                reader=converter,
                regenerate=always_regenerate or force_document_regeneration,
                seen=seen,
            )

        return workspace_read

    def _build_workspace_list(self, param: WorkspaceList, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace
        max_entries, default_depth = param.max_entries, param.max_depth

        @_guarded
        def workspace_list(path: str = ".", depth: int = default_depth) -> str:
            """List a workspace directory: directories end with '/', files show their size.

            Args:
                path: Directory relative to the workspace root ('.' is the root).
                depth: 1 lists the directory itself; 2 or more draws a tree that many levels deep.
            """
            return ws.list_dir(path, depth, max_entries=max_entries)

        return workspace_list

    def _build_workspace_glob(self, param: WorkspaceGlob, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace
        max_results = param.max_results

        @_guarded
        def workspace_glob(pattern: str, path: str = ".") -> str:
            """Find files by name pattern; the most recently modified come first.

            Supports '**' (any number of directories), '*', '?', '[abc]' and braces:
            '**/*.{py,ts}' finds Python and TypeScript files at any depth.

            Args:
                pattern: Glob relative to `path`, e.g. '**/*.py' or 'docs/*.md'.
                path: Directory to search from ('.' is the workspace root).
            """
            return ws.glob(pattern, path, max_results=max_results)

        return workspace_glob

    def _build_workspace_grep(self, param: WorkspaceGrep, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace
        max_matches, timeout = param.max_matches, param.timeout_seconds
        max_line_length = param.max_line_length
        engine: GrepEngine = "auto" if param.use_ripgrep else "python"

        @_guarded
        def workspace_grep(
            pattern: str, path: str = ".", include: str | None = None, ignore_case: bool = False
        ) -> str:
            """Search file contents with a regular expression (Python `re` syntax).

            Returns 'path:line:text' for every matching line, sorted by path. Hidden files
            (names starting with '.') and binary files are skipped.

            Args:
                pattern: Regular expression matched against each line, e.g. 'def \\w+_total'.
                path: File or directory to search ('.' is the workspace root).
                include: Only search files whose name matches this glob, e.g. '*.py' or '*.{ts,tsx}'.
                ignore_case: Match letters regardless of case.
            """  # noqa: E501 (the model reads each argument's description as one line)
            return ws.grep(
                pattern,
                path,
                include,
                ignore_case,
                max_matches=max_matches,
                engine=engine,
                timeout_seconds=timeout,
                max_line_chars=max_line_length,
            )

        return workspace_grep

    def _build_workspace_view(
        self, param: WorkspaceView, bound: _Bound
    ) -> Callable[..., BinaryContent]:
        ws = bound.workspace
        max_dimension = param.max_dimension

        @_guarded
        def workspace_view(path: str) -> BinaryContent:
            """Look at an image (PNG, JPEG, WebP, GIF or BMP) from the workspace.

            Args:
                path: Image path relative to the workspace root, e.g. 'screens/home.png'.
            """
            return ws.view(path, max_dimension=max_dimension)

        return workspace_view

    def _build_workspace_write(self, param: WorkspaceWrite, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace
        seen = bound.seen

        @_guarded
        def workspace_write(path: str, content: str) -> str:
            """Create a file, or replace the whole content of an existing one.

            Missing parent directories are created. An existing file keeps its line endings
            (CRLF or LF). Prefer workspace_edit to change part of a file. Replacing a file that
            someone changed since you last read it is refused: read it again first.

            Args:
                path: File path relative to the workspace root.
                content: The complete new content of the file.
            """
            return ws.write(path, content=content, seen=seen)

        return workspace_write

    def _build_workspace_edit(self, param: WorkspaceEdit, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace
        seen = bound.seen
        matcher = EditMatcher(param.fuzzy_threshold)

        @_guarded
        def workspace_edit(
            path: str, old_string: str, new_string: str, replace_all: bool = False
        ) -> str:
            """Replace a piece of text in a file.

            `old_string` must identify one place: copy it from workspace_read (without the line
            numbers) and include a few surrounding lines if it could appear more than once.
            Small differences in indentation, whitespace or a typo are tolerated.

            Args:
                path: File path relative to the workspace root.
                old_string: The text to replace.
                new_string: The replacement text.
                replace_all: Replace every occurrence instead of requiring a unique one.
            """
            return ws.edit(path, old_string, new_string, replace_all, matcher=matcher, seen=seen)

        return workspace_edit

    def _build_workspace_multi_edit(
        self, param: WorkspaceMultiEdit, bound: _Bound
    ) -> Callable[..., str]:
        ws = bound.workspace
        seen = bound.seen
        matcher = EditMatcher(param.fuzzy_threshold)

        @_guarded
        def workspace_multi_edit(edits: list[EditItem]) -> str:
            """Apply several replacements, in one or more files, as a single change.

            Edits run in order (later edits see the result of earlier ones in the same file).
            If any edit fails, no file is changed and the error names the failing edit.

            Args:
                edits: The edits, each with path, old_string, new_string and replace_all.
            """
            return ws.multi_edit(edits, matcher=matcher, seen=seen)

        return workspace_multi_edit

    def _build_workspace_patch(self, param: WorkspacePatch, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace
        seen = bound.seen

        @_guarded
        def workspace_patch(patch_text: str) -> str:
            """Apply a unified diff (the format of `diff -u` and `git diff`) to the workspace.

            The patch may touch several files and have several hunks per file; '--- /dev/null'
            creates a file and '+++ /dev/null' deletes one. Either the whole patch applies or
            nothing changes, and the error names the hunk that did not fit.

            Args:
                patch_text: The unified diff text, with '--- a/file' / '+++ b/file' headers.
            """
            return ws.patch(patch_text, seen=seen)

        return workspace_patch

    def _build_workspace_delete(self, param: WorkspaceDelete, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace

        @_guarded
        def workspace_delete(path: str) -> str:
            """Delete a file (or an empty directory) from the workspace.

            Args:
                path: Path relative to the workspace root.
            """
            return ws.delete(path)

        return workspace_delete

    def _build_workspace_mkdir(self, param: WorkspaceMkdir, bound: _Bound) -> Callable[..., str]:
        ws = bound.workspace

        @_guarded
        def workspace_mkdir(path: str) -> str:
            """Create a directory, including missing parents; an existing one is left as is.

            Args:
                path: Directory path relative to the workspace root, e.g. 'src/utils'.
            """
            return ws.mkdir(path)

        return workspace_mkdir

    def _build_expand_media_refs(
        self, param: ExpandMediaRefs, bound: _Bound
    ) -> Callable[[str], list[Part]]:
        ws = bound.workspace
        max_dimension = param.max_dimension

        def load(path: str) -> tuple[bytes, str]:
            data, media_type, _ = ws.image(path, max_dimension=max_dimension)
            return data, media_type

        def find(pattern: str, limit: int) -> tuple[list[str], int, int]:
            return ws.find_images(pattern, limit=limit)

        expander = MediaExpander(
            find, load, max_images=param.max_images, max_image_bytes=param.max_image_bytes
        )

        @_guarded
        def _expand_media_refs(text: str) -> list[Part]:
            """Attach the workspace images a message names with `!!<glob>` (e.g. `!!shots/*.png`).

            Returns the message as parts: text, and a `MediaContent` after each reference for
            every image it matched. A message without references comes back as `[text]`;
            references that attach nothing keep a note saying why.

            Args:
                text: The message text.
            """
            return expander.expand(text)

        return _expand_media_refs


class _Bound(NamedTuple):
    """What the builders of one get_* call share: the workspace and the agent's memory."""

    workspace: Filesystem
    seen: SeenFiles | None


def _document_reader(param: WorkspaceRead) -> DocumentReader | None:
    """The converter `workspace_read` uses, or None when conversion is off."""
    if not param.convert_documents or param.document_reader is False:
        return None
    if param.document_reader is True:
        return DocumentReader(use_sidecar=param.cache_conversions)
    if param.cache_conversions:
        return param.document_reader
    return param.document_reader.model_copy(update={"use_sidecar": False})
