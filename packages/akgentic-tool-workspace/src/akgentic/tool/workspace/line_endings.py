"""Line endings: which one a file uses, and turning every ending into one kind."""

from __future__ import annotations

__all__ = ["detect_line_ending", "normalise_endings"]


def detect_line_ending(content: str) -> str:
    """The line ending most lines of `content` use: CRLF or LF (the default).

    CRLF when at least half of the line feeds follow a carriage return.
    """
    crlf = content.count("\r\n")
    return "\r\n" if crlf and 2 * crlf >= content.count("\n") else "\n"


def normalise_endings(content: str, line_ending: str) -> str:
    """`content` with every line ending (CRLF or LF) turned into `line_ending`.

    `line_ending` is `"\\n"` or `"\\r\\n"`. A lone carriage return is not a line ending
    here and stays as it is.
    """
    if line_ending not in ("\n", "\r\n"):
        raise ValueError(f"line_ending must be '\\n' or '\\r\\n', got {line_ending!r}")
    text = content.replace("\r\n", "\n")
    return text if line_ending == "\n" else text.replace("\n", "\r\n")
