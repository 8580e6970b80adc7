"""Turning workspace files into text a model can read.

Plain text is decoded directly. Office documents, PDFs and images go through MarkItDown (the
`docs` extra), and the Markdown it produces is cached next to the source in a hidden sidecar
(`report.pdf` -> `.report.pdf.md`). The sidecar carries the source's modification time as
its own, so any change to the source (a rewrite, a touch) makes the cache stale.
"""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from akgentic.tool.workspace._files import read_fresh_sidecar, write_sidecar

__all__ = [
    "DOCS_INSTALL_HINT",
    "DOCUMENT_EXTENSIONS",
    "IMAGE_EXTENSIONS",
    "TEXT_EXTENSIONS",
    "DocumentReader",
    "DocumentReaderUnavailable",
    "document_sidecar",
]

#: Extensions read as text without sniffing their content.
TEXT_EXTENSIONS: frozenset[str] = frozenset(
    {
        ".txt", ".md", ".markdown", ".rst", ".adoc", ".org", ".tex", ".log",
        ".py", ".pyi", ".ipynb", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx",
        ".java", ".kt", ".kts", ".scala", ".go", ".rs", ".c", ".h", ".cc", ".cpp",
        ".hpp", ".cs", ".swift", ".m", ".rb", ".php", ".pl", ".lua", ".r", ".jl",
        ".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".sql", ".graphql",
        ".html", ".htm", ".css", ".scss", ".sass", ".less", ".vue", ".svelte", ".xml",
        ".svg", ".json", ".jsonl", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf",
        ".env", ".properties", ".csv", ".tsv", ".dockerfile", ".mk", ".cmake", ".gradle",
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


def document_sidecar(source: Path) -> Path:
    """Where the Markdown of `source` is cached: a hidden sibling `.name.ext.md`."""
    return source.with_name(f".{source.name}.md")


class DocumentReader(BaseModel):
    """Converts binary documents to Markdown, caching the result in a sidecar file."""

    use_sidecar: bool = Field(
        default=True, description="Cache conversions next to the source (.name.ext.md)."
    )

    def can_convert(self, path: Path) -> bool:
        """Whether `path` is a document format this reader converts."""
        return path.suffix.lower() in DOCUMENT_EXTENSIONS

    def read(self, path: Path) -> str:
        """The Markdown text of `path`, from a fresh sidecar when there is one.

        Raises `DocumentReaderUnavailable` (a `ValueError`) with the install command when
        MarkItDown is missing, and `ValueError` when the file cannot be converted.
        """
        source = path.stat()
        sidecar = document_sidecar(path)
        if self.use_sidecar:
            cached = read_fresh_sidecar(sidecar, source.st_mtime_ns)
            if cached is not None:
                return cached.decode("utf-8", errors="replace")
        text = self._convert(path)
        if self.use_sidecar:
            # A read-only workspace or a full disk only costs us the cache, not the read.
            write_sidecar(sidecar, text.encode("utf-8"), source)
        return text

    def read_data(self, data: bytes, path: Path, source: os.stat_result) -> str:
        """Like :meth:`read`, for bytes the caller already read from `path` (stat `source`).

        The workspace reads a document through a descriptor it checked, then converts those
        bytes: the file is never opened again by name, so it cannot be swapped in between.
        The sidecar is looked up and written next to `path` without following a link.
        """
        sidecar = document_sidecar(path)
        if self.use_sidecar:
            cached = read_fresh_sidecar(sidecar, source.st_mtime_ns)
            if cached is not None:
                return cached.decode("utf-8", errors="replace")
        text = self._convert_bytes(data, path.name, path.suffix.lower())
        if self.use_sidecar:
            write_sidecar(sidecar, text.encode("utf-8"), source)
        return text

    @staticmethod
    def _convert(path: Path) -> str:
        return DocumentReader._convert_bytes(path.read_bytes(), path.name, path.suffix.lower())

    @staticmethod
    def _convert_bytes(data: bytes, name: str, suffix: str) -> str:
        try:
            from markitdown import MarkItDown, StreamInfo
        except ImportError as exc:
            raise DocumentReaderUnavailable(
                f"{name} is a {suffix or 'binary'} document; reading it needs MarkItDown, "
                f"which is not installed. Install it with: {DOCS_INSTALL_HINT}"
            ) from exc
        _check_signature(data, name, suffix)
        try:
            with _CONVERTER_LOCK:
                converter = _CONVERTERS.get(MarkItDown)
                if converter is None:
                    # building one loads every converter (~0.2-1.5 s): keep it per process
                    converter = _CONVERTERS[MarkItDown] = MarkItDown(enable_plugins=False)
            info = StreamInfo(extension=suffix, filename=name)
            result = converter.convert_stream(io.BytesIO(data), stream_info=info)
        except Exception as exc:  # MarkItDown wraps each converter's own failures
            raise ValueError(
                f"could not convert {name} to text ({type(exc).__name__}: {exc}); "
                "the file may be damaged or not what its extension says"
            ) from exc
        text: str = result.text_content or ""
        return text


# The leading bytes each format must start with. MarkItDown falls back to reading anything
# as plain text, which would pass a damaged file off as its own garbled content.
_SIGNATURES: dict[str, tuple[bytes, ...]] = {
    ".pdf": (b"%PDF",),
    ".docx": (b"PK\x03\x04",),
    ".xlsx": (b"PK\x03\x04",),
    ".pptx": (b"PK\x03\x04",),
    ".epub": (b"PK\x03\x04",),
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
    if not data.startswith(expected):
        raise ValueError(
            f"could not convert {name}: its content is not a "
            f"{suffix[1:].upper()} file (damaged, or a wrong extension)"
        )
