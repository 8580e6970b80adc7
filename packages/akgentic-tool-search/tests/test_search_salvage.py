"""Reading back an answer cut at the download limit: where the cut falls decides the result.

``close_cut_json`` gets the bytes that arrived before the cut. A cut inside a string value
gives back the document up to the cut; a cut anywhere else gives None, which the transport
reports as an unreadable answer. Each row below is one place a cut can fall; the end-to-end
cut (a real server, a real download limit) is in test_search_hardening.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from akgentic.tool.search._salvage import close_cut_json

# Bytes are written with ordinary escapes: b"\\" is ONE backslash on the wire.
SALVAGED: list[tuple[bytes, Any]] = [
    (b'["abc', ["abc"]),
    (b'{"a": "', {"a": ""}),
    (b'{"a": ["x", "y', {"a": ["x", "y"]}),
    (b'["x", "y', ["x", "y"]),
    (
        b'{"results": [{"url": "u", "raw_content": "te',
        {"results": [{"url": "u", "raw_content": "te"}]},
    ),
    # A multi-byte character cut in half is dropped, not a decoding error.
    (b'{"a": "caf\xc3', {"a": "caf"}),
    # A lone backslash (an escape cut in half) is dropped; escaped backslashes are kept.
    (b'["ab\\', ["ab"]),
    (b'["ab\\\\\\', ["ab\\"]),
    # An escaped quote does not end the string.
    (b'["ab\\"', ['ab"']),
    (b'["a\\\\\\"', ['a\\"']),
    # A \u escape cut short, and the first half of a surrogate pair, are dropped.
    (b'{"a": "x\\u12', {"a": "x"}),
    (b'["x\\ud83d', ["x"]),
    (b'["x\\ud83d\\', ["x"]),
    (b'["x\\ud83d\\u00', ["x"]),
]

NOT_SALVAGED: list[bytes] = [
    b"",  # nothing arrived
    b"123",  # no string and no bracket
    b'"abc',  # a bare string is not inside any document
    b'["ab"',  # the string ended: the cut is between tokens
    b'["a\\\\"',  # ... even after an escaped backslash
    b'{"a": "b", "c',  # the cut is inside a key
    b'{"a": 12',  # ... inside a number
    b'["a", ',  # ... after a comma
    b']"a',  # a closer with nothing open
]


# Plain ids: the byte strings themselves hold quotes, brackets and backslashes, which do not
# survive being passed back to pytest as node ids (mutmut selects tests that way).
@pytest.mark.parametrize(
    ("prefix", "expected"), SALVAGED, ids=[f"salvaged-{i}" for i in range(len(SALVAGED))]
)
def test_a_cut_inside_a_string_value_is_closed(prefix: bytes, expected: Any) -> None:
    assert close_cut_json(prefix) == expected


@pytest.mark.parametrize(
    "prefix", NOT_SALVAGED, ids=[f"refused-{i}" for i in range(len(NOT_SALVAGED))]
)
def test_a_cut_anywhere_else_is_not_guessed_at(prefix: bytes) -> None:
    assert close_cut_json(prefix) is None
