"""The find-and-replace cascade: `EditMatcher` locates `old_string` in a file's text.

From the strictest matcher to the most lenient (`EDIT_STRATEGIES`): the first one that
finds anything decides, several equally good places refuse the edit, and the similarity
stages work within a budget of character comparisons. Pure string work: no filesystem.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Indel, LCSseq

from akgentic.tool.workspace._match_text import (
    _Budget,
    _BudgetSpentError,
    _indent_of,
    _line_window_spans,
    _Lines,
    _ratio,
    _reindent,
    _same_dedented,
    _same_trimmed,
    _Span,
    _trim_newlines,
    _unescape,
)

__all__ = [
    "EDIT_STRATEGIES",
    "FUZZY_WORK_BUDGET",
    "AmbiguousEditError",
    "EditError",
    "EditMatcher",
    "EditNotFoundError",
    "EditResult",
    "MatchResult",
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
# The whitespace-normalized strategy first checks that this many of old_string's longest
# words occur in the file at all.
_WORDS_CHECKED = 8

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
        return spans  # ranked by `_non_overlapping`, like every strategy's spans

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
