"""Reading what arrived of a JSON answer that was cut at the download limit.

A provider answer that passes the download limit is cut mid-stream, so it is no longer
valid JSON. Tavily's answers are objects whose bulk is one long string (a page's text), so
the cut nearly always falls inside a string value: closing that string and every open
bracket gives back a valid document holding everything before the cut. Any other cut (in
a key, a number, between tokens) is not repaired; the caller then reports the answer as
too large instead of guessing.
"""

from __future__ import annotations

import json
import re
from typing import Any

# One token at a time: a whole string (possibly unterminated at the very end) or one
# structural character. Everything else (numbers, literals, whitespace) is skipped; the
# final json.loads decides whether the repair is valid.
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\],:]', re.DOTALL)
# An escape sequence cut before it was complete (a lone backslash, or \u with fewer than
# four digits, or the first half of a surrogate pair, which no text may end with), after any
# number of complete escaped backslashes.
_PARTIAL_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)\\(?:u[0-9a-fA-F]{0,3}|u[dD][89abAB][0-9a-fA-F]{2})?$"
)
_CLOSERS = {"{": "}", "[": "]"}


def close_cut_json(prefix: bytes) -> Any | None:
    """The document ``prefix`` would be, closed at the cut; None when that is not safe."""
    text = prefix.decode("utf-8", errors="ignore")
    stack: list[str] = []
    expect_key = False
    last = ""
    value_string = False
    for match in _TOKEN.finditer(text):
        token = match.group()
        last = token
        if token in _CLOSERS:
            stack.append(token)
            expect_key = token == "{"
        elif token in "}]":
            if not stack:
                return None
            stack.pop()
            expect_key = False
        elif token == ",":
            expect_key = bool(stack) and stack[-1] == "{"
        elif token == ":":
            expect_key = False
        else:
            value_string = not expect_key
    unterminated = last.startswith('"') and (len(last) == 1 or not _closes(last))
    if not unterminated or not value_string or not stack:
        return None
    # Twice: cutting a lone backslash can leave the first half of a surrogate pair before it.
    body = _PARTIAL_ESCAPE.sub(r"\1", _PARTIAL_ESCAPE.sub(r"\1", text))
    closed = body + '"' + "".join(_CLOSERS[opener] for opener in reversed(stack))
    try:
        return json.loads(closed)
    except (ValueError, RecursionError):
        return None


def _closes(token: str) -> bool:
    """Whether a string token ends with an unescaped quote."""
    if not token.endswith('"'):
        return False
    backslashes = len(token) - 1 - len(token[:-1].rstrip("\\"))
    return backslashes % 2 == 0
