"""Preparing images for a vision model: format checks, Pillow resizing, a sidecar cache."""

from __future__ import annotations

import io
import os
import threading
import warnings
from pathlib import Path

from akgentic.tool.workspace._files import read_fresh_sidecar, write_sidecar

VISION_INSTALL_HINT = 'pip install "akgentic-tool-workspace[vision]"'

MEDIA_TYPES: dict[str, str] = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".bmp": "image/bmp",
}

# What Pillow writes for each source format. BMP is re-encoded as PNG: the vision endpoints
# of the major providers take PNG, JPEG, GIF and WebP only.
_OUTPUT: dict[str, tuple[str, str, str]] = {
    ".png": ("PNG", "png", "image/png"),
    ".jpg": ("JPEG", "jpeg", "image/jpeg"),
    ".jpeg": ("JPEG", "jpeg", "image/jpeg"),
    ".webp": ("WEBP", "webp", "image/webp"),
    ".gif": ("GIF", "gif", "image/gif"),
    ".bmp": ("PNG", "png", "image/png"),
}

_MAGIC: dict[str, tuple[bytes, ...]] = {
    ".png": (b"\x89PNG\r\n\x1a\n",),
    ".jpg": (b"\xff\xd8\xff",),
    ".jpeg": (b"\xff\xd8\xff",),
    ".gif": (b"GIF87a", b"GIF89a"),
    ".bmp": (b"BM",),
}

_warned = False
_warn_lock = threading.Lock()


class ImageError(ValueError):
    """The file is not an image of the format its extension claims."""


def _looks_like(suffix: str, data: bytes) -> bool:
    if suffix == ".webp":
        return data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    return data.startswith(_MAGIC[suffix])


def image_sidecar(source: Path, max_dimension: int) -> Path:
    _, extension, _ = _OUTPUT[source.suffix.lower()]
    return source.with_name(f".{source.name}.{max_dimension}px.{extension}")


def _warn_no_pillow() -> None:
    global _warned
    with _warn_lock:
        if _warned:
            return
        _warned = True
    warnings.warn(
        "Pillow is not installed: workspace_view sends images at their original size. "
        f"Install it with: {VISION_INSTALL_HINT}",
        RuntimeWarning,
        stacklevel=3,
    )


def prepare_image_data(
    data: bytes, path: Path, max_dimension: int, stat: os.stat_result
) -> tuple[bytes, str]:
    """`prepare_image` for bytes already read from `path` (whose status is `stat`)."""
    suffix = path.suffix.lower()
    if not _looks_like(suffix, data):
        raise ImageError(
            f"{path.name} does not contain {suffix[1:].upper()} image data; "
            "check the file (workspace_read shows what it holds)"
        )
    try:
        from PIL import Image, ImageOps
    except ImportError:
        _warn_no_pillow()
        return data, MEDIA_TYPES[suffix]

    sidecar = image_sidecar(path, max_dimension)
    fmt, _, media_type = _OUTPUT[suffix]
    cached = read_fresh_sidecar(sidecar, stat.st_mtime_ns)
    if cached is not None:
        return cached, media_type
    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.load()
            if max(opened.size) <= max_dimension and suffix != ".bmp":
                return data, MEDIA_TYPES[suffix]
            # a phone photo stores its rotation in EXIF; re-encoding would drop the tag
            image = ImageOps.exif_transpose(opened)
        image.thumbnail((max_dimension, max_dimension), Image.Resampling.LANCZOS)
        if fmt == "JPEG" and image.mode not in ("RGB", "L"):
            image = image.convert("RGB")
        buffer = io.BytesIO()
        image.save(buffer, format=fmt)
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageError(f"{path.name} could not be decoded as an image: {exc}") from exc
    resized = buffer.getvalue()
    write_sidecar(sidecar, resized, stat)
    return resized, media_type
