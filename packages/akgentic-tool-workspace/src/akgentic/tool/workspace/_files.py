"""Byte-level file handling: text detection, line endings, atomic writes, grouped commits."""

from __future__ import annotations

import codecs
import contextlib
import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

# How much of a file is sniffed for a NUL byte to call it binary (what git and grep do).
_SNIFF = 8192
_BOM = "\ufeff"


class NotTextError(ValueError):
    """The bytes are not text a text tool can work on."""


@dataclass(frozen=True)
class TextFile:
    """A decoded text file, with what is needed to write it back the way it was."""

    text: str  # with "\n" line endings when the file used CRLF throughout
    crlf: bool
    bom: bool
    encoding: str = "utf-8"  # or "utf-16-le" / "utf-16-be" (always with a BOM)

    def encode(self, text: str) -> bytes:
        """Encode new content with this file's encoding, line endings and byte-order mark."""
        if self.crlf:
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        return ((_BOM if self.bom else "") + text).encode(self.encoding)


UTF16_BOMS = {codecs.BOM_UTF16_LE: "utf-16-le", codecs.BOM_UTF16_BE: "utf-16-be"}


def printable(text: str) -> str:
    """`text` safe to serialize as UTF-8 JSON.

    A file name that is not valid UTF-8 reaches Python with escape surrogates (PEP 383), which
    JSON encoders refuse; they become U+FFFD here, like undecodable bytes in file content.
    """
    if text.isascii():
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate outside the escape range
        raw = text.encode("utf-8", "replace")
    return raw.decode("utf-8", "replace")


def read_fresh_sidecar(sidecar: Path, source_mtime_ns: int) -> bytes | None:
    """The cached bytes at `sidecar` if it is a regular file stamped `source_mtime_ns`.

    The stamp is the source's modification time, copied onto the sidecar when it is written,
    so any change to the source makes the cache stale. A symlink is never a valid sidecar:
    something else put it there (a shell in the same workspace, say), and following it could
    read a file outside the workspace. It is replaced on the next write.
    """
    try:
        info = os.lstat(sidecar)
        if not stat.S_ISREG(info.st_mode) or info.st_mtime_ns != source_mtime_ns:
            return None
        return sidecar.read_bytes()
    except OSError:
        return None


def write_sidecar(sidecar: Path, data: bytes, source: os.stat_result) -> None:
    """Cache `data` at `sidecar`, stamped with the source's times; failures only lose the cache."""
    with contextlib.suppress(OSError):
        atomic_write(sidecar, data)
        os.utime(sidecar, ns=(source.st_atime_ns, source.st_mtime_ns), follow_symlinks=False)


def looks_binary(data: bytes) -> bool:
    """A NUL byte near the start, unless the file is UTF-16 announced by its BOM."""
    return data[:2] not in UTF16_BOMS and b"\x00" in data[:_SNIFF]


def decode_text(data: bytes, *, strict: bool = True) -> TextFile:
    """Decode UTF-8 (or BOM-marked UTF-16) bytes; CRLF-only files are normalised to "\\n".

    With `strict`, undecodable bytes raise `NotTextError` (a tool about to rewrite the file
    must not corrupt it); otherwise they are replaced, which is fine for display.
    """
    if looks_binary(data):
        raise NotTextError("binary content (NUL bytes)")
    encoding = UTF16_BOMS.get(data[:2], "utf-8")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        if strict:
            raise NotTextError(f"not valid {encoding} ({exc.reason} at byte {exc.start})") from exc
        text = data.decode(encoding, errors="replace")
    bom = text.startswith(_BOM)
    if bom:
        text = text[1:]
    # (the `in` test spares LF files, the common case, both full counts)
    crlf = "\r\n" in text and text.count("\r\n") == text.count("\n")
    if crlf:
        text = text.replace("\r\n", "\n")
    return TextFile(text=text, crlf=crlf, bom=bom, encoding=encoding)


def atomic_write(path: Path, data: bytes) -> None:
    """Replace `path` with `data` through a temporary sibling and a rename.

    A reader (or a crash) sees either the old file or the new one, never a truncated mix. The
    temporary file lives in the same directory so the rename stays on one filesystem, and the
    existing file's permission bits are kept. No fsync: it costs ~7 ms per write here (more
    than the whole edit) and ext4 already orders a rename-over after the new data.
    """
    mode: int | None = None
    with contextlib.suppress(FileNotFoundError):
        info = os.lstat(path)  # a symlink swapped in here is replaced, never followed
        if stat.S_ISREG(info.st_mode):
            mode = info.st_mode & 0o7777
    fd, temp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(temp, mode if mode is not None else 0o666 & ~_UMASK)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _temp_prefix(path: Path) -> str:
    """The start of a temporary sibling's name: a dot, at most 200 bytes of the name, a dot.

    Cut in bytes, not characters: a legal 254-byte name of two-byte characters would
    otherwise give a temporary name past the 255-byte limit and the write would fail. A
    character split by the cut stays as its raw bytes (surrogate escapes). Listings hide
    names of this shape (``_search._TEMP_RE``).
    """
    return f".{os.fsdecode(os.fsencode(path.name)[:200])}."


def _read_umask() -> int:
    # os.umask can only be read by setting it; done once at import, before any thread runs
    current = os.umask(0)
    os.umask(current)
    return current


_UMASK = _read_umask()


def commit(changes: Mapping[Path, bytes | None]) -> None:
    """Write (bytes) or delete (None) several files, all or nothing.

    Every new content is first written to a temporary sibling; only when all of them exist are
    they renamed into place. If a rename fails, the files already replaced are restored from
    the copies read beforehand, so a failure leaves the workspace as it was.
    """
    originals: dict[Path, bytes | None] = {}
    modes: dict[Path, int] = {}
    for path in changes:
        originals[path] = _read_no_follow(path)
        with contextlib.suppress(OSError):
            modes[path] = os.lstat(path).st_mode & 0o7777
    staged: dict[Path, str] = {}
    try:
        for path, data in changes.items():
            if data is None:
                continue
            fd, temp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=path.parent)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.chmod(temp, modes.get(path, 0o666 & ~_UMASK))
            staged[path] = temp
    except BaseException:
        for temp in staged.values():
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise
    done: list[Path] = []
    try:
        for path, data in changes.items():
            if data is None:
                path.unlink()
            else:
                os.replace(staged[path], path)
                del staged[path]
            done.append(path)
    except BaseException:
        for path in done:
            original = originals[path]
            with contextlib.suppress(OSError):
                if original is None:
                    path.unlink()
                else:
                    atomic_write(path, original)
        for temp in staged.values():
            with contextlib.suppress(OSError):
                os.unlink(temp)
        raise


def _read_no_follow(path: Path) -> bytes | None:
    """The bytes of the regular file at `path` (None when absent), never through a symlink."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(f"{path.name} is not a regular file")
        return handle.read()


def read_all(fd: int) -> bytes:
    """Every byte of the open file `fd`, which is closed afterwards."""
    with os.fdopen(fd, "rb", buffering=0) as handle:
        return handle.readall()
