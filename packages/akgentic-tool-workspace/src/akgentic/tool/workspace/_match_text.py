"""The text the edit cascade matches against, and what it may spend doing so.

`_Lines` and `_Flattened` are views of one file content (its lines, its whitespace runs
collapsed) that the strategies of one `EditMatcher.apply` call share; the helpers map
indentation between `old_string` and the file, and `_ratio` is the similarity score. Every
name is private to the workspace package: `fuzzy_match` is their one user.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from rapidfuzz.distance import Indel


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    replacement: str
    score: float = 1.0


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "`": "`", "$": "$"}
_ESCAPE_RE = re.compile(r"\\([ntr\"'\\`$])")
_INDENT_RE = re.compile(r"[ \t]*")


class _BudgetSpentError(Exception):
    """The similarity work of one `apply` call would go over its budget."""


class _Budget:
    """Counts the similarity work of one `apply` call and stops it at `limit`."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    @property
    def left(self) -> int:
        return self.limit - self.spent

    def charge(self, units: int) -> None:
        """Account for `units` of work about to be done; refuse it when it does not fit."""
        if units > self.left:
            raise _BudgetSpentError
        self.spent += units


def _unescape(text: str) -> str:
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(1)], text)


def _indent_of(line: str) -> str:
    match = _INDENT_RE.match(line)
    return match.group(0) if match else ""


def _common_indent(lines: Sequence[str]) -> str:
    indents = [_indent_of(line) for line in lines if line.strip()]
    if not indents:
        return ""
    shortest = min(indents, key=len)
    for indent in indents:
        while not indent.startswith(shortest):
            shortest = shortest[:-1]
    return shortest


def _trim_newlines(old: str, new: str) -> tuple[str, str]:
    """Drop the blank lines framing `old` (and the same framing of `new`) for line matching."""
    core = old.strip("\n")
    if not core:
        return old, new
    lead = len(old) - len(old.lstrip("\n"))
    trail = len(old) - len(old.rstrip("\n"))
    new_lead = min(lead, len(new) - len(new.lstrip("\n")))
    new_trail = min(trail, len(new) - len(new.rstrip("\n")))
    return core, new[new_lead : len(new) - new_trail]


def _reindent(new: str, old_lines: Sequence[str], window: Sequence[str]) -> str:
    """Give `new` the file's indentation where `old_string`'s indentation differed.

    Each indentation used in `old_string` is paired with the one the file uses on the matching
    line; a line of `new` indented like some old line gets the file's version of it, and a
    deeper line keeps its extra indentation on top of the closest known level.
    """
    mapping: dict[str, str] = {}
    for old_line, file_line in zip(old_lines, window, strict=False):
        if old_line.strip() and file_line.strip():
            mapping.setdefault(_indent_of(old_line), _indent_of(file_line))
    if all(old == file for old, file in mapping.items()):
        return new
    out = []
    for line in new.split("\n"):
        indent = _indent_of(line)
        if not line.strip():
            out.append(line)
        elif indent in mapping:
            out.append(mapping[indent] + line[len(indent) :])
        else:
            bases = [known for known in mapping if indent.startswith(known)]
            if bases:
                base = max(bases, key=len)
                out.append(mapping[base] + line[len(base) :])
            else:
                out.append(line)
    return "\n".join(out)


# Skip a given number of (token, whitespace run) pairs in one C-level match; possessive
# quantifiers so that a run is never split in two to make up the count.
_SKIPS = tuple((count, re.compile(rf"(?:\S*+\s++){{{count}}}")) for count in (1024, 32, 1))


class _Flattened:
    """`content` with every whitespace run replaced by one space, and the way back.

    Looking for `old_string`'s words joined by single spaces in `text` is one `str.find`
    pass, where a regex with `\\s+` between the words may retry a long prefix at every
    position (seconds on a repetitive file). Offsets are mapped back to `content` by
    counting the runs before them, skipped in C by `_SKIPS`, so the offsets must be asked
    for in increasing order.
    """

    def __init__(self, content: str) -> None:
        self.content = content
        # (str.split is several times faster than re.sub(r"\s+", " ", ...) and agrees with
        # `\s` on what whitespace is; a leading run still counts as one space)
        lead = " " if content[:1].isspace() else ""
        self.text = lead + " ".join(content.split())
        self._counted = 0  # `text` has `_spaces` spaces before `_counted`
        self._spaces = 0
        self._runs = 0  # `content` has `_runs` whitespace runs before `_offset`
        self._offset = 0

    def original(self, position: int) -> int:
        """Offset in `content` of the non-blank character at `position` of `text`."""
        self._spaces += self.text.count(" ", self._counted, position)
        self._counted = position
        for count, skip in _SKIPS:
            while self._spaces - self._runs >= count:
                match = skip.match(self.content, self._offset)
                assert match is not None  # `text` has one space per run of `content`
                self._offset = match.end()
                self._runs += count
        token_start = self.text.rfind(" ", 0, position) + 1
        return self._offset + position - token_start


class _Lines:
    """Line views of one content string, shared by the strategies of one `apply` call.

    Whole-file work stays in C: the content is split once, line starts come from
    `accumulate(map(len, ...))` (no Python-level loop), and lines holding a given text are
    found with `str.find` rather than by stripping and indexing every line.
    """

    def __init__(self, content: str, budget: _Budget) -> None:
        self.content = content
        self.budget = budget
        self.lines = content.split("\n")
        # _lengths[i] = total length of lines 0..i (newlines excluded), so line i starts at
        # _lengths[i - 1] + i.
        self._lengths = list(accumulate(map(len, self.lines)))
        self._where: dict[str, list[int]] = {}
        self._flat: _Flattened | None = None
        self.closest: tuple[float, int] = (0.0, -1)  # best sub-threshold fuzzy score, line

    def start(self, line: int) -> int:
        """Offset of the first character of `line` (0-based)."""
        return (self._lengths[line - 1] + line) if line else 0

    def line_of(self, offset: int) -> int:
        """The line (0-based) holding character `offset`."""
        return bisect.bisect_right(range(len(self.lines)), offset, key=self.start) - 1

    def where(self, key: str) -> list[int]:
        """Line numbers (0-based) whose text, stripped, equals `key` (non-empty)."""
        if key not in self._where:
            content = self.content
            found: list[int] = []
            position = content.find(key)
            while position != -1:
                line_start = content.rfind("\n", 0, position) + 1
                line_end = content.find("\n", position)
                line_end = len(content) if line_end == -1 else line_end
                if not content[line_start:position].strip(" \t") and not content[
                    position + len(key) : line_end
                ].strip(" \t\r"):
                    found.append(self.line_of(line_start))
                # Only the first occurrence on a line can be the line's whole text (a later
                # one has `key`, which starts with a non-blank, before it): go to the next
                # line, which keeps the search linear even on a huge one-line file.
                position = content.find(key, line_end + 1) if line_end < len(content) else -1
            self._where[key] = found
        return self._where[key]

    @property
    def flat(self) -> _Flattened:
        """The content with whitespace runs collapsed (built on first use)."""
        if self._flat is None:
            self._flat = _Flattened(self.content)
        return self._flat

    def span_length(self, first: int, count: int) -> int:
        """Characters (newlines included) of the `count` lines from `first`, in O(1)."""
        start, end = self.span(first, first + count - 1)
        return end - start

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Character span of lines first..last (inclusive), without the final newline."""
        return self.start(first), self.start(last) + len(self.lines[last])

    def window(self, first: int, count: int) -> list[str]:
        return self.lines[first : first + count]

    def stripped(self, first: int, count: int) -> str:
        return "\n".join(line.strip() for line in self.lines[first : first + count])

    def note_closest(self, score: float, line: int) -> None:
        if score > self.closest[0]:
            self.closest = (score, line)


def _line_window_spans(
    doc: _Lines,
    old: str,
    new: str,
    same: Callable[[list[str], list[str]], bool],
) -> list[_Span]:
    old_core, new_core = _trim_newlines(old, new)
    old_lines = old_core.split("\n")
    count = len(old_lines)
    first_key = old_lines[0].strip()
    if not first_key:
        return []
    spans: list[_Span] = []
    for first in doc.where(first_key):
        window = doc.window(first, count)
        if len(window) == count and same(window, old_lines):
            start, end = doc.span(first, first + count - 1)
            spans.append(_Span(start, end, _reindent(new_core, old_lines, window)))
    return spans


def _same_trimmed(window: list[str], old_lines: list[str]) -> bool:
    return all(a.strip() == b.strip() for a, b in zip(window, old_lines, strict=True))


def _same_dedented(window: list[str], old_lines: list[str]) -> bool:
    file_indent = len(_common_indent(window))
    old_indent = len(_common_indent(old_lines))
    for a, b in zip(window, old_lines, strict=True):
        if not a.strip() and not b.strip():
            continue
        if a[file_indent:].rstrip() != b[old_indent:].rstrip():
            return False
    return True


def _ratio(a: str, b: str, floor: float = 0.0) -> float:
    """Similarity in [0, 1]: 2 * LCS / (len(a) + len(b)), 0.0 when below `floor`.

    This is difflib's `ratio` with the longest common subsequence in place of difflib's
    greedy matching blocks, computed by rapidfuzz in C++ (bit-parallel, about 64 character
    pairs per machine word) instead of Python's quadratic-ish `SequenceMatcher`.
    """
    return Indel.normalized_similarity(a, b, score_cutoff=floor)
