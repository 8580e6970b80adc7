"""Numbered pages of text, read from a file a block at a time.

`workspace_read` shows a window of lines and says how many there are in all. Counting needs
the whole file, but keeping it does not: the file is scanned in blocks, lines outside the
window are only counted (`bytes.count`, in C), and each line inside it is kept up to what
will be shown. A 100 MB log costs one block of memory to show its first line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace._wording import counted

_BLOCK = 1 << 20
_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass
class Page:
    """The lines of the window (cut to what is shown) and the file's line count."""

    lines: list[str]
    total: int


def scan_page(handle: BinaryIO, offset: int, limit: int, max_chars: int) -> Page:
    """Lines `offset+1 .. offset+limit` of a UTF-8 file, decoded like `decode_text`.

    Undecodable bytes become U+FFFD; a file whose every line ends in CRLF has the "\\r"
    dropped, as the whole-file decoder does. A line longer than `max_chars` characters is
    kept only to `max_chars` (plus one, so the caller sees it was longer).
    """
    cap = (max_chars + 1) * 4  # bytes enough for max_chars + 1 characters of UTF-8
    end = offset + limit
    kept: list[bytearray] = []
    total = 0  # complete lines seen so far
    partial = bytearray()  # the start of the current line, when it is in the window
    newlines = crlf = 0
    previous = b""
    for block in _blocks(handle):
        count = block.count(b"\n")
        newlines += count
        crlf += block.count(b"\r\n") + (previous == b"\r" and block[:1] == b"\n")
        previous = block[-1:]
        if total + count < offset or total >= end:
            # no line of the window ends or starts in this block (then `partial` is empty)
            total += count
            continue
        start = 0
        for _ in range(count):
            stop = block.index(b"\n", start)
            if offset <= total < end:
                if len(partial) < cap:
                    partial += block[start:stop][: cap - len(partial)]
                kept.append(partial)
            partial = bytearray()
            total += 1
            start = stop + 1
        if offset <= total < end and start < len(block) and len(partial) < cap:
            partial += block[start:][: cap - len(partial)]
    if previous and previous != b"\n":  # a last line without its newline is still a line
        if offset <= total < end:
            kept.append(partial)
        total += 1
    strip_cr = newlines > 0 and crlf == newlines
    lines = []
    for raw in kept:
        text = bytes(raw).decode("utf-8", errors="replace")
        if strip_cr and text.endswith("\r"):
            text = text[:-1]
        lines.append(text)
    return Page(lines, total)


def _blocks(handle: BinaryIO) -> Iterator[bytes]:
    """The file's bytes a block at a time, without its UTF-8 byte-order mark if it has one.

    The mark is read on its own, so it is recognised whatever the block size.
    """
    head = handle.read(len(_UTF8_BOM))
    if head and head != _UTF8_BOM:
        yield head
    while block := handle.read(_BLOCK):
        yield block


def split_page(text: str, offset: int, limit: int) -> Page:
    """The same window taken from text already in memory (converted documents)."""
    lines = text.split("\n") if text else []
    if text.endswith("\n"):
        lines.pop()
    return Page(lines[offset : offset + limit], len(lines))


def format_page(page: Page, path: str, offset: int, max_chars: int, note: str) -> str:
    """The numbered lines `workspace_read` returns, with a footer saying where they are."""
    total = page.total
    if total == 0:
        return f"[{path} is empty]" if not note else f"[{note}; no text content]"
    if offset >= total:
        raise RetriableError(
            f"offset {offset} is past the end of {path}, which has {counted(total, 'line')}; "
            f"use an offset between 0 and {total - 1}"
        )
    out = []
    for number, line in enumerate(page.lines, start=offset + 1):
        if len(line) > max_chars:
            line = line[:max_chars] + f"… [line cut at {max_chars} characters]"
        out.append(f"{number:>6}\t{line}")
    last = offset + len(page.lines)
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
