"""Turning workspace files into text a model can read.

Plain text is decoded directly. Office documents, PDFs and images go through MarkItDown (the
`docs` extra), and the Markdown it produces is cached next to the source in a hidden sidecar
(`report.pdf` -> `.report.pdf.md`). The sidecar carries the source's modification time as
its own, so any change to the source (a rewrite, a touch) makes the cache stale.

Images (and the pictures inside slide decks) can also get a caption written by a vision
model: `DocumentReader.llm_client` / `llm_model` choose it, as MarkItDown's own options do.
"""

from __future__ import annotations

import io
import logging
import os
import threading
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from akgentic.tool.workspace._files import read_fresh_sidecar, write_sidecar

if TYPE_CHECKING:
    import openai

__all__ = [
    "ALL_TEXT_EXTENSIONS",
    "DOCS_INSTALL_HINT",
    "DOCUMENT_EXTENSIONS",
    "IMAGE_EXTENSIONS",
    "TEXT_EXTENSIONS",
    "DocumentReader",
    "DocumentReaderUnavailable",
    "FileTypeReader",
    "MediaContent",
    "document_sidecar",
]

_log = logging.getLogger(__name__)

#: The common text formats, as akgentic-tool 1.6.4 listed them (kept equal for code that
#: tests membership). Whether a file is text is decided by its content, never by this list.
TEXT_EXTENSIONS: frozenset[str] = frozenset(
    {
        ".txt", ".md", ".rst", ".log", ".py", ".js", ".ts", ".html", ".xml", ".json",
        ".yaml", ".yml", ".toml", ".ini", ".cfg", ".csv",
    }
)  # fmt: skip

#: Every extension known to hold text (a superset of `TEXT_EXTENSIONS`: source code of many
#: languages, markup, configuration); used to word the error about a "text" file holding
#: binary data.
ALL_TEXT_EXTENSIONS: frozenset[str] = TEXT_EXTENSIONS | frozenset(
    {
        ".markdown", ".adoc", ".org", ".tex",
        ".pyi", ".ipynb", ".mjs", ".cjs", ".jsx", ".tsx",
        ".java", ".kt", ".kts", ".scala", ".go", ".rs", ".c", ".h", ".cc", ".cpp",
        ".hpp", ".cs", ".swift", ".m", ".rb", ".php", ".pl", ".lua", ".r", ".jl",
        ".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".sql", ".graphql",
        ".htm", ".css", ".scss", ".sass", ".less", ".vue", ".svelte",
        ".svg", ".jsonl", ".conf",
        ".env", ".properties", ".tsv", ".dockerfile", ".mk", ".cmake", ".gradle",
        ".proto", ".tf", ".hcl", ".lock", ".gitignore", ".editorconfig",
    }
)  # fmt: skip

#: Image formats `workspace_view` hands to a vision model (and MarkItDown can describe).
IMAGE_EXTENSIONS: frozenset[str] = frozenset({".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp"})

#: Binary formats `workspace_read` converts to Markdown with MarkItDown.
DOCUMENT_EXTENSIONS: frozenset[str] = frozenset(
    {".pdf", ".docx", ".xlsx", ".xls", ".pptx", ".msg", ".epub"} | IMAGE_EXTENSIONS
)

DOCS_INSTALL_HINT = (
    'pip install "akgentic-tool-workspace[docs]" (or "akgentic-framework[all-extras]")'
)


class DocumentReaderUnavailable(ValueError):  # noqa: N818 - names the state, like the spec's
    """MarkItDown (the `docs` extra) is not installed."""


class MediaContent(BaseModel):
    """Raw media (an image) with its MIME type, as handed to a vision model.

    The workspace's `_expand_media_refs` command returns these for the `!!pattern`
    references of a message; the agent turns each into the model framework's binary part.
    In JSON the bytes travel as base64.
    """

    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    data: bytes
    media_type: str


@runtime_checkable
class FileTypeReader(Protocol):
    """Something that turns the bytes of a file into text for the model.

    `DocumentReader` is one. Any object with this method can be handed to
    `Filesystem.read(..., reader=...)`; it is then called for the document formats
    (`DOCUMENT_EXTENSIONS`) without any sidecar cache.
    """

    def extract_text(self, path: str | Path, content: bytes) -> str:
        """The text of `content`, the bytes of the file named `path` (its extension decides)."""
        ...


def document_sidecar(source: Path) -> Path:
    """Where the Markdown of `source` is cached: a hidden sibling `.name.ext.md`."""
    return source.with_name(f".{source.name}.md")


# The formats in which MarkItDown asks the vision model for a caption.
_CAPTIONED = IMAGE_EXTENSIONS | {".pptx"}


class DocumentReader(BaseModel):
    """Converts binary documents to Markdown, caching the result in a sidecar file.

    With `llm_client="openai"` (the default, as in akgentic-tool 1.6.4) images and the
    pictures of slide decks also get a caption from `llm_model`, through the `openai`
    package and the `OPENAI_API_KEY` / `OPENAI_BASE_URL` of the environment. When the
    package or the key is missing, or the call fails, the document is converted without a
    caption. `llm_client=None` keeps every file on this machine.
    """

    use_sidecar: bool = Field(
        default=True, description="Cache conversions next to the source (.name.ext.md)."
    )
    llm_client: Literal["openai"] | None = Field(
        default="openai", description="Vision model provider for image captions (None: off)."
    )
    llm_model: str = Field(
        default="gpt-5.4-mini", description="Model that writes the image captions."
    )
    llm_timeout_seconds: float = Field(
        default=60.0, gt=0, description="Time limit of one caption request."
    )

    def extract_text(self, path: str | Path, content: bytes) -> str:
        """The Markdown of `content`, the bytes of a document named `path` (no cache).

        Raises `DocumentReaderUnavailable` without MarkItDown and `ValueError` for a file
        that cannot be converted, like :meth:`read`.
        """
        name = Path(path).name
        return self._convert_bytes(content, name, Path(name).suffix.lower())

    def read(self, path: Path, *, regenerate: bool = False) -> str:
        """The Markdown text of `path`, from a fresh sidecar when there is one.

        `regenerate` converts again even when the sidecar is fresh (and replaces it).
        Raises `DocumentReaderUnavailable` (a `ValueError`) with the install command when
        MarkItDown is missing, and `ValueError` when the file cannot be converted.
        """
        return self.read_data(path.read_bytes(), path, path.stat(), regenerate=regenerate)

    def read_data(
        self, data: bytes, path: Path, source: os.stat_result, *, regenerate: bool = False
    ) -> str:
        """Like :meth:`read`, for bytes the caller already read from `path` (stat `source`).

        The workspace reads a document through a descriptor it checked, then converts those
        bytes: the file is never opened again by name, so it cannot be swapped in between.
        The sidecar is looked up and written next to `path` without following a link.
        """
        sidecar = document_sidecar(path)
        if self.use_sidecar and not regenerate:
            cached = read_fresh_sidecar(sidecar, source.st_mtime_ns)
            if cached is not None:
                return cached.decode("utf-8", errors="replace")
        text = self._convert_bytes(data, path.name, path.suffix.lower())
        if self.use_sidecar:
            # A read-only workspace or a full disk only costs us the cache, not the read.
            write_sidecar(sidecar, text.encode("utf-8"), source)
        return text

    def _caption_client(self) -> openai.OpenAI | None:
        """The client captions are asked from, or None when they are off or unavailable."""
        if self.llm_client != "openai" or not os.environ.get("OPENAI_API_KEY"):
            return None
        try:
            import openai
        except ImportError:
            return None
        return openai.OpenAI(timeout=self.llm_timeout_seconds, max_retries=1)

    def _caption_options(self, suffix: str) -> dict[str, Any]:
        """MarkItDown's `llm_client`/`llm_model` options for a file, when captions apply."""
        client = self._caption_client() if suffix in _CAPTIONED else None
        if client is None:
            return {}
        return {"llm_client": client, "llm_model": self.llm_model}

    def _convert_bytes(self, data: bytes, name: str, suffix: str) -> str:
        try:
            from markitdown import MarkItDown, StreamInfo
        except ImportError as exc:
            raise DocumentReaderUnavailable(
                f"{name} is a {suffix or 'binary'} document; reading it needs MarkItDown, "
                f"which is not installed. Install it with: {DOCS_INSTALL_HINT}"
            ) from exc
        _check_signature(data, name, suffix)
        with _CONVERTER_LOCK:
            converter = _CONVERTERS.get(MarkItDown)
            if converter is None:
                # building one loads every converter (~0.2-1.5 s): keep it per process
                converter = _CONVERTERS[MarkItDown] = MarkItDown(enable_plugins=False)
        info = StreamInfo(extension=suffix, filename=name)
        options = self._caption_options(suffix)
        if options:
            try:
                result = converter.convert_stream(io.BytesIO(data), stream_info=info, **options)
                return str(result.text_content or "")
            except Exception as exc:  # the caption request failed: convert without it
                _log.warning(
                    "image caption for %s failed (%s); converting without it", name, _reason(exc)
                )
        try:
            result = converter.convert_stream(io.BytesIO(data), stream_info=info)
        except Exception as exc:  # MarkItDown wraps each converter's own failures
            raise ValueError(
                f"could not convert {name} to text ({_reason(exc)}); "
                "the file may be damaged or not what its extension says"
            ) from exc
        return str(result.text_content or "")


def _reason(exc: Exception) -> str:
    """Why MarkItDown failed, on one line.

    Its own message lists every converter tried over several lines; a model or a log reads
    better with each converter's error, `PdfConverter: PSEOF: Unexpected EOF`.
    """
    attempts = getattr(exc, "attempts", None) or []
    reasons = [
        f"{type(attempt.converter).__name__}: {type(attempt.exc_info[1]).__name__}: "
        + " ".join(str(attempt.exc_info[1]).split())
        for attempt in attempts
        if attempt.exc_info
    ]
    return "; ".join(reasons) or f"{type(exc).__name__}: " + " ".join(str(exc).split())


# The leading bytes each format must start with. MarkItDown falls back to reading anything
# as plain text, which would pass a damaged file off as its own garbled content.
_ZIP = b"PK\x03\x04"
_SIGNATURES: dict[str, tuple[bytes, ...]] = {
    ".pdf": (b"%PDF",),
    ".docx": (_ZIP,),
    ".xlsx": (_ZIP,),
    ".pptx": (_ZIP,),
    ".epub": (_ZIP,),
    ".xls": (b"\xd0\xcf\x11\xe0",),
    ".msg": (b"\xd0\xcf\x11\xe0",),
    ".png": (b"\x89PNG\r\n\x1a\n",),
    ".jpg": (b"\xff\xd8\xff",),
    ".jpeg": (b"\xff\xd8\xff",),
    ".gif": (b"GIF87a", b"GIF89a"),
    ".bmp": (b"BM",),
    ".webp": (b"RIFF",),
}

_CONVERTERS: dict[type, Any] = {}
_CONVERTER_LOCK = threading.Lock()


def _check_signature(data: bytes, name: str, suffix: str) -> None:
    expected = _SIGNATURES.get(suffix)
    if expected is None:
        return
    # Office and EPUB files are zip archives: a damaged one can still open with "PK", and
    # MarkItDown would then read its bytes as plain text.
    archive = expected == (_ZIP,)
    if not data.startswith(expected) or (archive and not zipfile.is_zipfile(io.BytesIO(data))):
        raise ValueError(
            f"could not convert {name}: its content is not a "
            f"{suffix[1:].upper()} file (damaged, or a wrong extension)"
        )
