"""Text surgery: the find-and-replace cascade and GNU unified-diff patches.

Everything here is pure string work (no filesystem), so the tool layer can compute every new
file content in memory first and only then commit, which is how `workspace_multi_edit` and
`workspace_patch` stay all-or-nothing. The one exception is `apply_file_patch` called with a
workspace (its akgentic-tool 1.6.4 form), which hands the patch to that workspace.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING, Any, overload

from pydantic import BaseModel, Field, model_validator
from rapidfuzz.distance import Indel, LCSseq

if TYPE_CHECKING:
    from akgentic.tool.workspace.workspace import Workspace

__all__ = [
    "EDIT_STRATEGIES",
    "FUZZY_WORK_BUDGET",
    "AmbiguousEditError",
    "EditError",
    "EditItem",
    "EditMatcher",
    "EditNotFoundError",
    "EditResult",
    "FilePatch",
    "Hunk",
    "MatchResult",
    "PatchError",
    "apply_file_patch",
    "detect_line_ending",
    "normalise_endings",
    "parse_patch",
]

#: The cascade, from the strictest matcher to the most lenient one.
EDIT_STRATEGIES: tuple[str, ...] = (
    "exact",
    "indentation_flexible",
    "line_trimmed",
    "whitespace_normalized",
    "escape_normalized",
    "block_anchor",
    "fuzzy",
)


class EditError(ValueError):
    """An edit that cannot be applied; the message tells the caller what to change."""


class EditNotFoundError(EditError):
    """No strategy of the cascade located `old_string`."""


class AmbiguousEditError(EditError):
    """`old_string` matches more than one place and `replace_all` was not asked for."""


class PatchError(ValueError):
    """A patch that cannot be parsed or applied; the message names the file and the hunk."""


class EditItem(BaseModel):
    """One find-and-replace operation of `workspace_multi_edit`."""

    path: str = Field(description="File to edit, relative to the workspace root.")
    old_string: str = Field(description="Text to find (include enough context to be unique).")
    new_string: str = Field(description="Text to put in its place.")
    replace_all: bool = Field(default=False, description="Replace every occurrence.")


@dataclass(frozen=True)
class EditResult:
    """The outcome of `EditMatcher.apply`."""

    content: str
    strategy: str
    count: int
    first_line: int  # 1-based line of the first replacement, in the new content
    start: int  # character span of the first replacement, in the new content
    end: int


@dataclass(frozen=True)
class MatchResult:
    """Where `EditMatcher.find` located a target: a character span and the strategy used."""

    start: int
    end: int
    strategy: str


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    replacement: str
    score: float = 1.0


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "`": "`", "$": "$"}
_ESCAPE_RE = re.compile(r"\\([ntr\"'\\`$])")
_INDENT_RE = re.compile(r"[ \t]*")

# Up to this many windows the fuzzy stage scores every window; above it, only the (at most)
# _FUZZY_CANDIDATES windows that share the most rare words with the target (see
# `_likely_windows`). A word found more than _PROBE_CAP times says nothing and is dropped;
# voting stops after _PROBES_USED informative words.
_EXHAUSTIVE_WINDOWS = 400
_FUZZY_CANDIDATES = 24
_PROBE_CAP = 64
_PROBES_USED = 5
# Two fuzzy candidates closer than this in score are a tie: the edit is refused as ambiguous.
_TIE_MARGIN = 0.02
# Similarity scoring is quadratic in the worst case: longer targets (or lines) than this are
# left to the exact and whitespace-level strategies.
_FUZZY_MAX_CHARS = 10_000
# The least similarity worth pointing at when nothing matched.
_HINT_SCORE = 0.6
# A single-line target scores the best-bounded lines first; past the ones that can still pass
# the threshold, at most this many more are aligned only to improve the not-found hint.
_HINT_TRIES = 3

#: The most work one `EditMatcher.apply` call may spend on similarity (the block-anchor and
#: fuzzy strategies), in character comparisons: every score of strings `a` and `b` costs
#: `len(a) * len(b)` (whatever the algorithm really does), every string built for scoring its
#: length, and every candidate place looked at `_CANDIDATE_COST`. Input length caps alone do
#: not bound the work, since a target is compared with many places of the file. At rapidfuzz's
#: speed (bit-parallel, a few tens of milliseconds per 10^9 comparisons) the budget stands for
#: well under a second under the workspace lock.
FUZZY_WORK_BUDGET = 3_000_000_000
_CANDIDATE_COST = 2_000
# A long line is scored in overlapping pieces at least this long (see `_piece_width`), each
# charged _PIECE_COST on top of its comparisons.
_MIN_STEP = 256
_PIECE_COST = 200


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


# The whitespace-normalized strategy first checks that this many of old_string's longest
# words occur in the file at all.
_WORDS_CHECKED = 8
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


_TOKEN_RE = re.compile(r"\w{3,}|[^\w\s]{3,}")


class EditMatcher:
    """Locates `old_string` in a text through a cascade of increasingly lenient matchers.

    The strategies are tried in the order of `EDIT_STRATEGIES`; the first one that finds
    anything decides. When it finds more than one place and `replace_all` is false, the edit
    is refused rather than guessed (`AmbiguousEditError`). The last two strategies score
    similarity (2 * longest common subsequence / total length, see `_ratio`) and accept a match
    at `threshold` or above. Their work is bounded by `work_budget` character comparisons per
    call (see `FUZZY_WORK_BUDGET`); when a target would need more, the edit fails with an
    `EditNotFoundError` asking for an exact copy. `last_work` holds the work the last call did.
    """

    def __init__(self, threshold: float = 0.85, *, work_budget: int = FUZZY_WORK_BUDGET) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        if work_budget < 0:
            raise ValueError(f"work_budget must be >= 0, got {work_budget}")
        self.threshold = threshold
        self.work_budget = work_budget
        self.last_work = 0
        # below this score a window is neither a match nor worth naming in the not-found hint
        self._floor = min(threshold, _HINT_SCORE)

    def apply(self, content: str, old: str, new: str, *, replace_all: bool = False) -> EditResult:
        """Return `content` with `old` replaced by `new`, or raise an `EditError`."""
        if not old:
            raise EditError(
                "old_string is empty; give the exact text to replace "
                "(use workspace_write to create or overwrite a whole file)"
            )
        if old == new:
            raise EditError("old_string and new_string are identical; nothing would change")

        # Fast path: an exact, unique match needs no line bookkeeping at all.
        self.last_work = 0
        occurrences = content.count(old)
        if occurrences == 1 or (occurrences > 1 and replace_all):
            return self._exact(content, old, new, replace_all=replace_all)
        doc = _Lines(content, _Budget(self.work_budget))
        try:
            name, spans = self._cascade(doc, old, new, occurrences, replace_all=replace_all)
        except _BudgetSpentError:
            raise EditNotFoundError(self._too_costly_message()) from None
        finally:
            self.last_work = doc.budget.spent
        return self._splice(content, spans, name)

    def find(self, content: str, old_string: str) -> MatchResult | None:
        """Where `apply` would replace `old_string` in `content`, without changing anything.

        Returns the span in `content` and the strategy that found it, or None when no
        strategy finds it (within the work budget). Several equally good places raise
        `AmbiguousEditError`, as `apply` does without `replace_all`.
        """
        self.last_work = 0
        if not old_string:
            return None
        occurrences = content.count(old_string)
        if occurrences == 1:
            start = content.find(old_string)
            return MatchResult(start, start + len(old_string), "exact")
        doc = _Lines(content, _Budget(self.work_budget))
        try:
            name, spans = self._cascade(doc, old_string, old_string, occurrences, replace_all=False)
        except (EditNotFoundError, _BudgetSpentError):
            return None
        finally:
            self.last_work = doc.budget.spent
        return MatchResult(spans[0].start, spans[0].end, name)

    def _cascade(
        self, doc: _Lines, old: str, new: str, occurrences: int, *, replace_all: bool
    ) -> tuple[str, list[_Span]]:
        """The strategy that located `old` and the spans to replace (at least one)."""
        content = doc.content
        if occurrences > 1:
            spans = []
            position = content.find(old)
            while position != -1:
                spans.append(_Span(position, position + len(old), new))
                position = content.find(old, position + len(old))
            raise self._ambiguous(doc, spans, "exact")

        for name, finder in self._strategies():
            spans = finder(doc, old, new)
            if not spans:
                continue
            spans = _non_overlapping(spans)
            if len(spans) > 1 and not replace_all:
                best, runner_up = spans[0].score, spans[1].score
                if best - runner_up < _TIE_MARGIN or best == 1.0:
                    raise self._ambiguous(doc, spans, name)
                spans = spans[:1]
            return name, spans
        raise EditNotFoundError(self._not_found_message(doc))

    # -- strategies -------------------------------------------------------------------------

    def _strategies(self) -> list[tuple[str, Callable[[_Lines, str, str], list[_Span]]]]:
        return [
            ("indentation_flexible", self._indentation_flexible),
            ("line_trimmed", self._line_trimmed),
            ("whitespace_normalized", self._whitespace_normalized),
            ("escape_normalized", self._escape_normalized),
            ("block_anchor", self._block_anchor),
            ("fuzzy", self._fuzzy),
        ]

    @staticmethod
    def _exact(content: str, old: str, new: str, *, replace_all: bool) -> EditResult:
        first = content.find(old)
        if replace_all:
            count = content.count(old)
            updated = content.replace(old, new)
        else:
            count = 1
            updated = content[:first] + new + content[first + len(old) :]
        line = content.count("\n", 0, first) + 1
        return EditResult(updated, "exact", count, line, first, first + len(new))

    @staticmethod
    def _indentation_flexible(doc: _Lines, old: str, new: str) -> list[_Span]:
        return _line_window_spans(doc, old, new, _same_dedented)

    @staticmethod
    def _line_trimmed(doc: _Lines, old: str, new: str) -> list[_Span]:
        return _line_window_spans(doc, old, new, _same_trimmed)

    @staticmethod
    def _whitespace_normalized(doc: _Lines, old: str, new: str) -> list[_Span]:
        """`old_string`'s words separated by any whitespace (as `\\s+` would match)."""
        tokens = old.split()
        if not tokens:
            return []
        # A word missing from the file rules a match out without building the collapsed
        # text (the usual case when old_string has a typo); the longest words are the
        # likeliest to be missing, and checking a few bounds the cost.
        longest = sorted(set(tokens), key=len, reverse=True)[:_WORDS_CHECKED]
        if any(token not in doc.content for token in longest):
            return []
        needle = " ".join(tokens)
        flat = doc.flat
        spans: list[_Span] = []
        position = flat.text.find(needle)
        while position != -1:
            start = flat.original(position)
            end = flat.original(position + len(needle) - 1) + 1
            spans.append(_Span(start, end, new))
            position = flat.text.find(needle, position + len(needle))
        return spans

    def _escape_normalized(self, doc: _Lines, old: str, new: str) -> list[_Span]:
        plain_old = _unescape(old)
        if plain_old == old:
            return []
        plain_new = _unescape(new)
        spans: list[_Span] = []
        position = doc.content.find(plain_old)
        while position != -1:
            spans.append(_Span(position, position + len(plain_old), plain_new))
            position = doc.content.find(plain_old, position + len(plain_old))
        return spans or self._line_trimmed(doc, plain_old, plain_new)

    def _block_anchor(self, doc: _Lines, old: str, new: str) -> list[_Span]:
        """First and last lines match (trimmed); the lines between are similar enough."""
        old_core, new_core = _trim_newlines(old, new)
        old_lines = old_core.split("\n")
        count = len(old_lines)
        if count < 3:
            return []
        head, tail = old_lines[0].strip(), old_lines[-1].strip()
        if not head or not tail:
            return []
        middle = "\n".join(line.strip() for line in old_lines[1:-1])
        if len(middle) > _FUZZY_MAX_CHARS:
            return []
        tails = doc.where(tail)
        spans: list[_Span] = []
        for first in doc.where(head):
            # The closing anchor may sit a little earlier or later than in old_string.
            low = first + max(2, count // 2)
            high = first + count + count // 2
            candidates = tails[bisect.bisect_left(tails, low) : bisect.bisect_right(tails, high)]
            if not candidates:
                continue
            last = min(candidates, key=lambda line: abs(line - (first + count - 1)))
            doc.budget.charge(_CANDIDATE_COST + doc.span_length(first + 1, last - first - 1))
            text = doc.stripped(first + 1, last - first - 1)
            score = self._score(doc, text, middle)
            doc.note_closest(score, first)
            if score >= self.threshold:
                start, end = doc.span(first, last)
                window = doc.lines[first : last + 1]
                replacement = _reindent(new_core, old_lines, window)
                spans.append(_Span(start, end, replacement, score))
        return sorted(spans, key=lambda span: -span.score)

    def _score(self, doc: _Lines, text: str, target: str) -> float:
        """`_ratio` of two strings, charged to the budget; 0.0 below the hint floor.

        `2 * min / sum` of the lengths bounds the ratio from above, so strings too different
        in length to reach the floor cost nothing.
        """
        shorter, total = min(len(text), len(target)), len(text) + len(target)
        if 2 * shorter < self._floor * total:
            return 0.0
        doc.budget.charge(len(text) * len(target))
        return _ratio(text, target, self._floor)

    def _fuzzy(self, doc: _Lines, old: str, new: str) -> list[_Span]:
        """Similarity over line windows (or inside one line for a single-line target)."""
        old_core, new_core = _trim_newlines(old, new)
        old_lines = old_core.split("\n")
        target = "\n".join(line.strip() for line in old_lines)
        if not 3 <= len(target.strip()) <= _FUZZY_MAX_CHARS:
            return []
        count = len(old_lines)
        total = len(doc.lines) - count + 1
        if total <= 0:
            return []
        starts = self._fuzzy_starts(doc, old_lines, total, len(target))
        if count == 1:
            spans = self._fuzzy_single_line(doc, old_core, new_core, target, starts)
        else:
            spans = self._fuzzy_windows(doc, old_lines, new_core, target, starts)
        return sorted(spans, key=lambda span: -span.score)

    def _fuzzy_starts(
        self, doc: _Lines, old_lines: list[str], total: int, size: int
    ) -> Sequence[int] | range:
        """Every window when there are few and scoring them all fits half the budget.

        Otherwise only the windows that share the most rare words with the target. The
        other half of the budget is for aligning and re-scoring the best ones.
        """
        count = len(old_lines)
        if total <= _EXHAUSTIVE_WINDOWS:
            estimate = sum(
                self._window_cost(doc.span_length(first, count), count, size)
                for first in range(total)
            )
            if estimate <= doc.budget.left // 2:
                return range(total)
        return self._likely_windows(doc, old_lines, total)

    def _window_cost(self, length: int, count: int, size: int) -> int:
        """About what scoring a window of `length` characters costs (an upper bound).

        A window longer than `reach` is skipped by length, unless it is one line, which may
        hold the target as a fragment: that line is scored in overlapping pieces (up to
        `_FUZZY_MAX_CHARS`).
        """
        if count > 1:
            reach = int(size * (2 - self._floor) / self._floor) + 1
            return _CANDIDATE_COST + length + min(length, reach) * size
        length = min(length, _FUZZY_MAX_CHARS)
        width = self._piece_width(size)
        step = max(size, _MIN_STEP)
        pieces = 1 + max(0, -(-(length - width) // step))
        return _CANDIDATE_COST + length + pieces * (_PIECE_COST + min(length, width) * size)

    def _fuzzy_windows(
        self,
        doc: _Lines,
        old_lines: list[str],
        new_core: str,
        target: str,
        starts: Sequence[int] | range,
    ) -> list[_Span]:
        count = len(old_lines)
        spans: list[_Span] = []
        for first in starts:
            doc.budget.charge(_CANDIDATE_COST + doc.span_length(first, count))
            score = self._score(doc, doc.stripped(first, count), target)
            doc.note_closest(score, first)
            if score >= self.threshold:
                start, end = doc.span(first, first + count - 1)
                replacement = _reindent(new_core, old_lines, doc.window(first, count))
                spans.append(_Span(start, end, replacement, score))
        return spans

    def _fuzzy_single_line(
        self,
        doc: _Lines,
        old_core: str,
        new_core: str,
        target: str,
        starts: Sequence[int] | range,
    ) -> list[_Span]:
        # `old_string` may be a fragment of a line: look for the best-aligned slice of it.
        lead = _indent_of(old_core)
        replacement = new_core[len(lead) :] if new_core.startswith(lead) else new_core.lstrip()
        trail = old_core[len(old_core.rstrip()) :]
        if trail and replacement.endswith(trail):
            replacement = replacement[: len(replacement) - len(trail)]
        spans: list[_Span] = []
        best, tries = 0.0, 0
        # Branch and bound: align the most promising lines first; once no line left can reach
        # the threshold, a few more are aligned only if they could improve the hint.
        for bound, number, line, origin in self._line_bounds(doc, target, starts):
            if bound < self.threshold and (bound <= best or tries >= _HINT_TRIES):
                break
            tries += bound < self.threshold
            piece = line[origin : origin + self._piece_width(len(target))]
            score, begin, end = self._best_slice(doc, piece, target)
            best = max(best, score)
            doc.note_closest(score, number)
            if score >= self.threshold:
                offset = doc.start(number) + len(_indent_of(doc.lines[number])) + origin
                spans.append(_Span(offset + begin, offset + end, replacement, score))
        return spans

    def _piece_width(self, size: int) -> int:
        """Width of the overlapping pieces a long line is cut into for a `size`-long target.

        A slice longer than `reach` cannot score the floor against the target, so every slice
        worth scoring lies inside one piece of `step + reach` characters cut every `step`.
        """
        reach = int(size * (2 - self._floor) / self._floor) + 1
        return max(size, _MIN_STEP) + reach

    def _line_bounds(
        self, doc: _Lines, target: str, starts: Sequence[int] | range
    ) -> list[tuple[float, int, str, int]]:
        """(score bound, line number, stripped line, start of its best piece), best first.

        No slice of a text can score above 2C / (C + len(target)), C being the length of the
        longest common subsequence of the text and the target: one cheap bit-parallel pass,
        where aligning is the costly part. A line much longer than the target is cut into
        overlapping pieces (see `_piece_width`) so that the bound stays tight and the
        alignment stays local: over a whole long line, a short target's characters can be
        picked one by one from anywhere.
        """
        size = len(target)
        width = self._piece_width(size)
        step = max(size, _MIN_STEP)
        bounds: list[tuple[float, int, str, int]] = []
        for number in starts:
            raw = doc.lines[number]
            doc.budget.charge(_CANDIDATE_COST + len(raw))
            line = raw.strip()
            # (scores down to the hint floor still count: they feed the not-found hint)
            if len(line) < size and 2 * len(line) < self._floor * (size + len(line)):
                continue
            if len(line) > _FUZZY_MAX_CHARS:
                continue  # minified code or data: left to the exact strategies
            common, origin = 0, 0
            for begin in range(0, max(1, len(line) - width + step), step):
                piece = line[begin : begin + width]
                doc.budget.charge(_PIECE_COST + len(piece) * size)
                found = LCSseq.similarity(piece, target)
                if found > common:
                    common, origin = found, begin
            bound = 2 * common / (common + size) if common else 0.0
            if bound >= self._floor:
                bounds.append((bound, number, line, origin))
        bounds.sort(key=lambda item: (-item[0], item[1]))
        return bounds

    def _best_slice(self, doc: _Lines, line: str, target: str) -> tuple[float, int, int]:
        """The best-scoring slice of `line` for `target`: (score, begin, end)."""
        size = len(target)
        doc.budget.charge(len(line) * size)
        blocks = [block for block in Indel.opcodes(line, target).as_matching_blocks() if block.size]
        if not blocks:
            return 0.0, 0, 0
        # Two guesses at the slice of the line the target stands for: the target's length
        # around the longest matching block, and the span of the blocks aligned about like it
        # (a subsequence alignment may pair a few stray characters farther away; a shift of
        # more than the edits the threshold allows marks them).
        longest = max(blocks, key=lambda block: block.size)
        shift = longest.a - longest.b
        slack = max(2, int(size * (1 - self.threshold)) + 1)
        near = [block for block in blocks if abs(block.a - block.b - shift) <= slack]
        head = max(0, shift)
        regions = {
            (max(0, near[0].a - near[0].b), min(len(line), near[-1].a + size - near[-1].b)),
            (head, min(len(line), head + size)),
        }
        scored = []
        for begin, end in sorted(regions):
            doc.budget.charge((end - begin) * size)
            scored.append((_ratio(line[begin:end], target), begin, end))
        return max(scored, key=lambda item: item[0])

    @staticmethod
    def _likely_windows(doc: _Lines, old_lines: list[str], total: int) -> list[int]:
        """Window starts sharing the most rare words (or trigrams) with the target.

        Each probe is a `str.find` loop, which runs in C, and a probe seen more than
        `_PROBE_CAP` times is dropped as uninformative, so ranking a 5,000-line file costs a few
        milliseconds; only the best-ranked windows are then scored.
        A window similar enough to pass the threshold keeps most of the target's words (a
        typo breaks one), so it ranks near the top.
        """
        probes: list[tuple[str, int]] = []
        for number, line in enumerate(old_lines):
            probes += [(token, number) for token in _TOKEN_RE.findall(line)]
        probes.sort(key=lambda probe: -len(probe[0]))
        votes = _vote(doc, probes[:16], total)
        if not votes:
            grams: list[tuple[str, int]] = []
            for number, line in enumerate(old_lines):
                text = line.strip()
                grams += [(text[i : i + 3], number) for i in range(0, len(text) - 2, 3)]
            votes = _vote(doc, grams[:24], total)
        if not votes:
            return []
        # a window holding under half the votes of the best one is not worth scoring
        floor = (max(votes.values()) + 1) // 2
        ranked = sorted((first for first in votes if votes[first] >= floor), key=votes.__getitem__)
        return sorted(ranked[-_FUZZY_CANDIDATES:])

    # -- results ----------------------------------------------------------------------------

    @staticmethod
    def _splice(content: str, spans: list[_Span], strategy: str) -> EditResult:
        ordered = sorted(spans, key=lambda span: span.start)
        pieces: list[str] = []
        cursor = 0
        for span in ordered:
            pieces.append(content[cursor : span.start])
            pieces.append(span.replacement)
            cursor = span.end
        pieces.append(content[cursor:])
        first = ordered[0]
        first_line = content.count("\n", 0, first.start) + 1
        end = first.start + len(first.replacement)
        return EditResult("".join(pieces), strategy, len(ordered), first_line, first.start, end)

    @staticmethod
    def _ambiguous(doc: _Lines, spans: list[_Span], strategy: str) -> AmbiguousEditError:
        lines = sorted({doc.line_of(span.start) + 1 for span in spans})
        shown = ", ".join(str(line) for line in lines[:10])
        more = f" and {len(lines) - 10} more" if len(lines) > 10 else ""
        return AmbiguousEditError(
            f"old_string matches {len(spans)} places ({strategy} match at lines {shown}{more}); "
            "add surrounding lines to old_string so it matches exactly one place, "
            "or set replace_all=true to change every one of them"
        )

    def _too_costly_message(self) -> str:
        return (
            "old_string was not found as written, and it is too long, or too many places of "
            "the file look like it, for a fuzzy match (the similarity search stopped after "
            f"{self.work_budget:,} character comparisons). Read those lines of the file again "
            "and copy the text to replace exactly, or give a shorter old_string of a few "
            "distinctive lines."
        )

    def _not_found_message(self, doc: _Lines) -> str:
        score, line = doc.closest
        hint = ""
        if line >= 0 and score >= _HINT_SCORE:
            hint = (
                f" The most similar text starts at line {line + 1} "
                f"({score:.0%} similar): {doc.lines[line].strip()!r}."
            )
        return (
            "old_string was not found (tried exact, indentation, whitespace, escape, "
            f"block-anchor and fuzzy matching at {self.threshold:.2f}).{hint} "
            "Read the file again and copy the text to replace exactly."
        )


def _vote(doc: _Lines, probes: list[tuple[str, int]], total: int) -> dict[int, int]:
    """Window start -> number of probes found where the window would hold them.

    A probe seen more than `_PROBE_CAP` times is dropped as uninformative (and its search
    stops there); voting ends once `_PROBES_USED` informative probes have been counted.
    """
    votes: dict[int, int] = {}
    content = doc.content
    used = 0
    for probe, target_line in probes:
        positions: list[int] = []
        position = content.find(probe)
        while position != -1 and len(positions) <= _PROBE_CAP:
            positions.append(position)
            position = content.find(probe, position + 1)
        if not positions or len(positions) > _PROBE_CAP:
            continue
        used += 1
        for line in {doc.line_of(position) for position in positions}:
            first = line - target_line
            if 0 <= first < total:
                votes[first] = votes.get(first, 0) + 1
        if used >= _PROBES_USED:
            break
    return votes


def _non_overlapping(spans: list[_Span]) -> list[_Span]:
    """Best-scored spans first, dropping any that overlaps a better one."""
    chosen: list[_Span] = []
    for span in sorted(spans, key=lambda span: (-span.score, span.start)):
        if all(span.end <= other.start or span.start >= other.end for other in chosen):
            chosen.append(span)
    return chosen


# -- unified diffs ----------------------------------------------------------------------------


class Hunk(BaseModel):
    """One `@@ -a,b +c,d @@` section of a unified diff.

    `header` defaults to the `@@` line the counts describe (it names the hunk in errors).
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list[str]  # each prefixed with ' ', '-' or '+'
    header: str = ""
    old_missing_newline: bool = False  # "\ No newline at end of file" after an old line
    new_missing_newline: bool = False

    @model_validator(mode="after")
    def _default_header(self) -> Hunk:
        if not self.header:
            self.header = (
                f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"
            )
        return self

    @property
    def old_lines(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " -"]

    @property
    def new_lines(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " +"]


class FilePatch(BaseModel):
    """The changes a unified diff makes to one file.

    `old_path` and `new_path` are the `---` and `+++` names (`None`: `/dev/null`, so the
    patch creates or deletes the file); `path` is the file the patch writes (or deletes),
    derived from them. `FilePatch(path=..., hunks=...)` (the akgentic-tool 1.6.4 form)
    changes `path` in place.
    """

    path: str
    hunks: list[Hunk]
    old_path: str | None = None
    new_path: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _paths(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if "old_path" not in data and "new_path" not in data:
            if data.get("path") is None:
                raise ValueError("a FilePatch needs path (or old_path / new_path)")
            return {**data, "old_path": data["path"], "new_path": data["path"]}
        old, new = data.get("old_path"), data.get("new_path")
        if old is None and new is None:
            raise ValueError("old_path and new_path cannot both be /dev/null (None)")
        derived = new if new is not None else old
        if data.get("path") not in (None, derived):
            raise ValueError(
                f"path {data['path']!r} is not the file the patch writes ({derived!r})"
            )
        return {**data, "old_path": old, "new_path": new, "path": derived}

    @property
    def creates(self) -> bool:
        return self.old_path is None

    @property
    def deletes(self) -> bool:
        return self.new_path is None


_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _patch_path(raw: str) -> str | None:
    name = raw.split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"') and len(name) >= 2:
        name = name[1:-1]
    return None if name == "/dev/null" else name


def parse_patch(patch_text: str) -> list[FilePatch]:
    """Parse a GNU unified diff (one or more files, one or more hunks each).

    `a/` and `b/` prefixes (git style) are removed. Raises `PatchError` on malformed input.
    """
    lines = patch_text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text's final newline ends the last line; it starts no empty one
    patches: list[FilePatch] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if not (line.startswith("--- ") and index + 1 < len(lines)):
            index += 1
            continue
        if not lines[index + 1].startswith("+++ "):
            index += 1
            continue
        old_path = _patch_path(line[4:])
        new_path = _patch_path(lines[index + 1][4:])
        if old_path is None and new_path is None:
            raise PatchError("a file header names /dev/null on both sides (--- and +++)")
        old_path, new_path = _strip_git_prefixes(old_path, new_path)
        written = new_path if new_path is not None else old_path
        assert written is not None  # both /dev/null was refused above
        patch = FilePatch(path=written, old_path=old_path, new_path=new_path, hunks=[])
        index += 2
        while index < len(lines) and lines[index].startswith("@@"):
            hunk, index = _parse_hunk(lines, index, patch.path, len(patch.hunks) + 1)
            patch.hunks.append(hunk)
        if not patch.hunks:
            raise PatchError(f"the patch for {patch.path} has a file header but no @@ hunk")
        patches.append(patch)
    if not patches:
        raise PatchError(
            "no file changes found; a unified diff needs '--- old' and '+++ new' header lines "
            "followed by '@@ -start,count +start,count @@' hunks"
        )
    return patches


def _strip_git_prefixes(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    old_ok = old is None or old.startswith("a/")
    new_ok = new is None or new.startswith("b/")
    if old_ok and new_ok:
        return (old[2:] if old else None), (new[2:] if new else None)
    return old, new


def _parse_hunk(lines: list[str], index: int, path: str, number: int) -> tuple[Hunk, int]:
    header = lines[index]
    match = _HUNK_RE.match(header)
    if match is None:
        raise PatchError(f"hunk {number} of {path}: malformed header {header!r}")
    # an omitted count means one line, as in GNU diff's output for single-line hunks
    old_start = int(match.group(1))
    old_count = int(match.group(2)) if match.group(2) is not None else 1
    new_start = int(match.group(3))
    new_count = int(match.group(4)) if match.group(4) is not None else 1
    hunk = Hunk(
        old_start=old_start,
        old_count=old_count,
        new_start=new_start,
        new_count=new_count,
        lines=[],
        header=header,
    )
    index += 1
    seen_old = seen_new = 0
    last_kind = ""
    while index < len(lines) and (seen_old < old_count or seen_new < new_count):
        line = lines[index]
        kind = line[:1]
        if kind == "\\":
            _mark_missing_newline(hunk, last_kind)
            index += 1
            continue
        if line == "":
            # editors and chat UIs drop the lone space of an empty context line
            line, kind = " ", " "
        if kind not in " -+":
            break
        if kind in " -":
            seen_old += 1
        if kind in " +":
            seen_new += 1
        hunk.lines.append(line)
        last_kind = kind
        index += 1
    if index < len(lines) and lines[index].startswith("\\"):
        _mark_missing_newline(hunk, last_kind)
        index += 1
    if seen_old != old_count or seen_new != new_count:
        raise PatchError(
            f"hunk {number} of {path} ({header}) promises {old_count} old and {new_count} new "
            f"lines but its body has {seen_old} old and {seen_new} new lines; "
            "fix the counts in the @@ header"
        )
    return hunk, index


def _mark_missing_newline(hunk: Hunk, last_kind: str) -> None:
    if last_kind in (" ", "-"):
        hunk.old_missing_newline = True
    if last_kind in (" ", "+"):
        hunk.new_missing_newline = True


@overload
def apply_file_patch(content: str | None, patch: FilePatch) -> str | None: ...


@overload
def apply_file_patch(content: FilePatch, patch: Workspace) -> str: ...


@overload
def apply_file_patch(*, file_patch: FilePatch, workspace: Workspace) -> str: ...


def apply_file_patch(
    content: str | FilePatch | None = None,
    patch: FilePatch | Workspace | None = None,
    *,
    file_patch: FilePatch | None = None,
    workspace: Workspace | None = None,
) -> str | None:
    """Apply a parsed patch to a text, or (1.6.4 form) to the files of a workspace.

    `apply_file_patch(content, patch)`: every hunk of `patch` applied to `content` (`None`
    stands for a missing / deleted file); returns the new text, or `None` when the patch
    deletes the file. Each hunk is looked for at its stated line first, then progressively
    further away (as GNU patch does), then once more ignoring trailing whitespace.

    `apply_file_patch(file_patch, workspace)`: the patch applied to the workspace's file,
    all or nothing, as `workspace_patch` does; returns its report.

    Raises `PatchError` naming the first hunk that does not apply (a `RetriableError` in
    the workspace form).
    """
    if isinstance(content, FilePatch) or file_patch is not None or workspace is not None:
        target = file_patch if file_patch is not None else content
        where = workspace if workspace is not None else patch
        if not isinstance(target, FilePatch) or where is None or isinstance(where, FilePatch):
            raise TypeError("apply_file_patch(file_patch, workspace) needs both of them")
        return where.apply_patches([target])
    if not isinstance(patch, FilePatch):
        raise TypeError("apply_file_patch(content, patch) needs the FilePatch to apply")
    return _apply_to_text(content, patch)


def _apply_to_text(content: str | None, patch: FilePatch) -> str | None:
    if patch.creates:
        if content is not None:
            raise PatchError(
                f"{patch.path} already exists but the patch creates it (--- /dev/null)"
            )
        content = ""
    elif content is None:
        raise PatchError(f"{patch.path}: file not found, so the patch cannot be applied")
    lines = content.split("\n")
    final_newline = content.endswith("\n") or content == ""
    if final_newline:
        lines.pop()
    offset = 0
    floor = 0
    for number, hunk in enumerate(patch.hunks, start=1):
        old = hunk.old_lines
        new = hunk.new_lines
        expected = hunk.old_start - 1 + offset if hunk.old_count else hunk.old_start + offset
        position = _locate(lines, old, max(expected, floor), floor)
        if position is None:
            preview = old[0] if old else ""
            raise PatchError(
                f"hunk {number} of {patch.path} ({hunk.header}) does not apply: its "
                f"{len(old)} context/removed lines were not found near line {hunk.old_start} "
                f"(first expected line: {preview!r}); re-read the file and rebuild the hunk"
            )
        lines[position : position + len(old)] = new
        offset += len(new) - len(old) + (position - expected)
        floor = position + len(new)
        at_end = position + len(new) == len(lines)
        if (hunk.old_missing_newline or hunk.new_missing_newline) and at_end:
            final_newline = not hunk.new_missing_newline
    if patch.deletes:
        if any(line for line in lines):
            raise PatchError(
                f"the patch deletes {patch.path} (+++ /dev/null) but lines would remain; "
                "its hunk must remove the whole file"
            )
        return None
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline else "")


def _locate(lines: list[str], old: list[str], expected: int, floor: int) -> int | None:
    if not old:
        return min(max(expected, floor), len(lines))
    size = len(old)
    last = len(lines) - size
    for compare in (_equal, _equal_rstrip):
        for distance in range(max(last - floor, expected - floor, 0) + 1):
            for candidate in (
                (expected - distance, expected + distance) if distance else (expected,)
            ):
                if floor <= candidate <= last and compare(lines, candidate, old):
                    return candidate
    return None


def _equal(lines: list[str], start: int, old: list[str]) -> bool:
    return lines[start : start + len(old)] == old


def _equal_rstrip(lines: list[str], start: int, old: list[str]) -> bool:
    window = lines[start : start + len(old)]
    return all(a.rstrip() == b.rstrip() for a, b in zip(window, old, strict=True))


# -- line endings -----------------------------------------------------------------------------


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
