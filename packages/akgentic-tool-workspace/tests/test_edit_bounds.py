"""The similarity stages of the edit cascade do bounded work, whatever the target and file.

A security review found a one-character typo in a 9,000-character one-line `old_string`
keeping `workspace_edit` busy for minutes under the workspace lock (SequenceMatcher over many
long candidates). These tests replay those inputs and assert on the work counter of
`EditMatcher` (`last_work`, in character comparisons) rather than on time: the edit either
lands in the right place or fails with a clear `EditNotFoundError`, within `work_budget`.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import EditMatcher, EditNotFoundError, Filesystem
from akgentic.tool.workspace.edit import FUZZY_WORK_BUDGET

_WORDS = (
    *("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "kappa", "lambda"),
    *("omicron", "sigma", "upsilon", "omega", "compute", "value", "index", "buffer"),
    *("result", "parse", "token", "render", "layout", "cursor"),
)
_GLUE = " ,.;()=+-_0123456789"


def _varied(rng: random.Random, size: int) -> str:
    """`size` characters of word-like text that never repeats at length."""
    parts: list[str] = []
    length = 0
    while length < size:
        part = rng.choice(_WORDS) + rng.choice(_GLUE)
        parts.append(part)
        length += len(part)
    return "".join(parts)[:size]


def _typo(text: str, at: int) -> str:
    """`text` with the character at `at` replaced by one it does not hold there."""
    return text[:at] + ("Q" if text[at] != "Q" else "Z") + text[at + 1 :]


def _lines(seed: int, count: int, size: int) -> list[str]:
    rng = random.Random(seed)
    return [_varied(rng, size) for _ in range(count)]


def _apply_bounded(matcher: EditMatcher, lines: list[str], old: str, new: str) -> str:
    content = "\n".join(lines) + "\n"
    try:
        result = matcher.apply(content, old, new)
    finally:
        assert 0 < matcher.last_work <= matcher.work_budget
    assert result.strategy == "fuzzy"
    return result.content


@pytest.mark.parametrize(("count", "size", "index"), [(1, 9_000, 0), (20, 9_000, 13)])
def test_a_typo_in_a_long_one_line_target_is_fixed_within_the_budget(
    count: int, size: int, index: int
) -> None:
    lines = _lines(1, count, size)
    matcher = EditMatcher()
    content = _apply_bounded(matcher, lines, _typo(lines[index], size // 2), "REPLACED")
    assert content == "\n".join([*lines[:index], "REPLACED", *lines[index + 1 :]]) + "\n"
    assert matcher.work_budget == FUZZY_WORK_BUDGET


def test_two_hundred_lines_of_two_thousand_characters() -> None:
    lines = _lines(2, 200, 2_000)
    matcher = EditMatcher()
    content = _apply_bounded(matcher, lines, _typo(lines[150], 700), "REPLACED")
    assert content.split("\n")[150] == "REPLACED"
    assert content.count("REPLACED") == 1


def test_a_long_multi_line_target_with_typos_is_found_within_the_budget() -> None:
    lines = _lines(3, 200, 2_000)
    old = _typo(_typo("\n".join(lines[100:104]), 5_000), 10)  # the first line differs too
    matcher = EditMatcher()
    content = _apply_bounded(matcher, lines, old, "A\nB")
    assert content == "\n".join([*lines[:100], "A", "B", *lines[104:]]) + "\n"


def test_a_short_fragment_inside_long_lines_is_aligned_in_place() -> None:
    lines = _lines(4, 300, 9_000)
    fragment = lines[200][3_000:3_060]
    matcher = EditMatcher()
    content = _apply_bounded(matcher, lines, _typo(fragment, 30), "<FIXED>")
    assert content.split("\n")[200] == lines[200][:3_000] + "<FIXED>" + lines[200][3_060:]


def test_many_look_alike_long_lines_stop_at_the_budget_with_a_clear_error() -> None:
    base = _lines(5, 1, 9_000)[0]
    rng = random.Random(5)
    lines = [_typo(base, rng.randrange(9_000)) for _ in range(30)]
    matcher = EditMatcher()
    with pytest.raises(EditNotFoundError) as caught:
        matcher.apply("\n".join(lines) + "\n", _typo(base, 4_500), "x")
    message = str(caught.value)
    assert "too long" in message
    assert "copy the text to replace exactly" in message
    assert matcher.last_work <= FUZZY_WORK_BUDGET


def test_a_small_budget_refuses_the_fuzzy_stage_but_not_the_exact_ones() -> None:
    lines = _lines(6, 50, 9_000)
    content = "\n".join(lines) + "\n"
    starved = EditMatcher(work_budget=10_000)
    with pytest.raises(EditNotFoundError, match="too long"):
        starved.apply(content, _typo(lines[7], 100), "x")
    assert starved.last_work <= 10_000
    # exact, indentation and whitespace matching of the same long target do no similarity work
    none = EditMatcher(work_budget=0)
    assert none.apply(content, lines[7], "x").strategy == "exact"
    indented = "\n".join("    " + line for line in lines[7:9])
    assert none.apply(content, indented, "x").strategy == "indentation_flexible"
    spaced = lines[7].replace(" ", "  ")
    assert none.apply(content, spaced, "x").strategy == "whitespace_normalized"
    assert none.last_work == 0


def test_a_realistic_typo_in_a_five_line_block_of_a_large_file() -> None:
    lines = [
        text
        for i in range(1_000)
        for text in (
            f"    def method_{i}(self, arg_{i % 13}):",
            f"        return self.value_{i} + arg_{i % 13}",
        )
    ]
    old = "\n".join(lines[1_200:1_205]).replace("def", "dfe", 1).replace("return", "retrun", 1)
    matcher = EditMatcher()
    content = _apply_bounded(matcher, lines, old, "    pass")
    assert content.split("\n")[1_199:1_202] == [lines[1_199], "    pass", lines[1_205]]
    assert matcher.last_work < FUZZY_WORK_BUDGET // 1_000  # a normal edit is nowhere near


def test_filesystem_edit_of_a_real_file_is_bounded(tmp_path: Path) -> None:
    lines = _lines(7, 20, 9_000)
    target = tmp_path / "data.txt"
    target.write_text("\n".join(lines) + "\n")
    workspace = Filesystem(tmp_path)
    matcher = EditMatcher()
    report = workspace.edit("data.txt", _typo(lines[13], 4_500), "REPLACED", matcher=matcher)
    assert "line 14" in report
    assert "fuzzy" in report
    assert target.read_text().split("\n")[13] == "REPLACED"
    assert 0 < matcher.last_work <= FUZZY_WORK_BUDGET
    # a search that would go over the budget fails as a retriable error and writes nothing
    before = target.read_text()
    with pytest.raises(RetriableError, match="data.txt: .*too long"):
        workspace.edit("data.txt", _typo(lines[3], 10), "x", matcher=EditMatcher(work_budget=1_000))
    assert target.read_text() == before


# -- the cheap strategies stay linear in the file ---------------------------------------------


def _regex_spans(content: str, old: str) -> list[tuple[int, int]]:
    """What the whitespace-normalized strategy promises: the words joined by `\\s+`."""
    pattern = re.compile(r"\s+".join(re.escape(token) for token in old.split()))
    return [match.span() for match in pattern.finditer(content)]


def test_whitespace_normalized_matches_what_a_whitespace_regex_would() -> None:
    rng = random.Random(8)
    pieces = ["ab", "a", "b", " ", "  ", "\n", "\t", "\u00a0", "\r\n", "c."]
    checked = 0
    for _ in range(3_000):
        content = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 40)))
        old = "".join(rng.choice(pieces) for _ in range(rng.randrange(1, 8)))
        expected = _regex_spans(content, old)
        if not old.split() or old == "N" or not expected or old in content:
            continue
        result = EditMatcher(work_budget=0).apply(content, old, "N", replace_all=True)
        if result.strategy != "whitespace_normalized":
            continue  # a stricter line strategy got there first
        pieces_out, cursor = [], 0
        for start, end in expected:
            pieces_out += [content[cursor:start], "N"]
            cursor = end
        assert result.content == "".join([*pieces_out, content[cursor:]])
        checked += 1
    assert checked > 300


def test_whitespace_matching_on_a_repetitive_file_is_one_pass() -> None:
    """A regex with `\\s+` between 5,000 words retried that prefix at each of 200,000
    positions of "a a a ..." (tens of seconds); the collapsed-text search is one pass."""
    words = 200_000
    content = "b " + "a " * words + "\n"  # every word of old_string is in the file
    old = "a  " * 5_000 + "b"
    with pytest.raises(EditNotFoundError):
        EditMatcher(work_budget=0).apply(content, old, "x")
    planted = "a " * 150_000 + "b\n" + "a " * (words - 150_000) + "\n"
    result = EditMatcher(work_budget=0).apply(planted, old, "X")
    assert result.strategy == "whitespace_normalized"
    assert result.content == "a " * 145_000 + "X\n" + "a " * (words - 150_000) + "\n"


def test_line_lookups_stay_linear_on_a_huge_one_line_file() -> None:
    """Every occurrence of the first line's text in a 2,000,000-character line used to scan
    back to the start of that line (quadratic); a line is now looked at once."""
    content = "x" * 2_000_000 + "\n"
    with pytest.raises(EditNotFoundError):
        EditMatcher(work_budget=0).apply(content, "x\ny\nz", "q")
    text = "x = 1; y = x\n    x = 1\n    y = 2\nz = x = 1\n"
    result = EditMatcher(work_budget=0).apply(text, "x = 1\ny = 2", "x = 3\ny = 4")
    assert result.strategy == "indentation_flexible"
    assert result.content == "x = 1; y = x\n    x = 3\n    y = 4\nz = x = 1\n"


# -- the work counted, item by item, on inputs small enough to add up by hand ----------------
# The cost model (see FUZZY_WORK_BUDGET): each candidate place looked at costs 2,000 plus the
# length of the text built from it, each line piece bounded 200 plus its length times the
# target's, and each similarity score the product of the two lengths.


def test_the_work_of_a_fragment_found_in_one_line_adds_up() -> None:
    matcher = EditMatcher(threshold=0.8)
    result = matcher.apply("abcdefghXY\n", "abcdefghij", "Z")
    assert result.content == "Z\n"
    bounds = (2_000 + 10) + (200 + 10 * 10) + (2_000 + 0)  # two lines, the first one piece
    alignment = 10 * 10 + 10 * 10  # aligning the line, then scoring the slice found in it
    assert matcher.last_work == bounds + alignment == 4_510
    # the same fragment five characters into a line: the slice scored starts there
    result = matcher.apply("QQQQQabcdefghXY\n", "abcdefghij", "Z")
    assert result.content == "QQQQQZ\n"
    bounds = (2_000 + 15) + (200 + 15 * 10) + (2_000 + 0)
    assert matcher.last_work == bounds + 15 * 10 + (15 - 5) * 10 == 4_615
    # a line of four characters cannot reach 60% of a ten-character target: only looked at
    result = matcher.apply("abcdefghXY\nabcd\n", "abcdefghij", "Z")
    assert result.content == "Z\nabcd\n"
    assert matcher.last_work == 4_510 + (2_000 + 4) == 6_514


def test_the_work_of_a_block_found_by_its_anchors_adds_up() -> None:
    matcher = EditMatcher()
    content = "a\nstart()\nvalue = compute(alpha, beta)\nfinish()\nb\n"
    old = "start()\nvalue = compte(alpha, beta)\nfinish()"
    assert matcher.apply(content, old, "x").strategy == "block_anchor"
    # one anchor pair: its 28-character middle line, scored against the 27-character one
    assert matcher.last_work == 2_000 + 28 + 28 * 27 == 2_784


def test_the_work_of_line_windows_scored_one_by_one_adds_up() -> None:
    matcher = EditMatcher()
    content = "x = 1\nalpha_value = compute(1)\nbeta = 2\n"
    result = matcher.apply(content, "alpha_valeu = compute(1)\nbeta = 2", "y")
    assert (result.content, result.strategy) == ("x = 1\ny\n", "fuzzy")
    # three two-line windows against a 33-character target; the last one (9 characters)
    # is too short to reach the threshold and is not scored
    windows = (2_000 + 30 + 30 * 33) + (2_000 + 33 + 33 * 33) + (2_000 + 9)
    assert matcher.last_work == windows == 8_151


def test_every_window_is_scored_only_while_the_estimate_fits_half_the_budget() -> None:
    # Estimated per window: 2,000 + its length + its length times the target's (33).
    content = "x = 1\nalpha_value = compute(1)\nbeta = 2\n"
    old = "alpha_valeu = compute(1)\nbeta = 2"
    estimate = (2_000 + 30 + 30 * 33) + (2_000 + 33 + 33 * 33) + (2_000 + 9 + 9 * 33)
    assert estimate == 8_448
    exhaustive = EditMatcher(work_budget=2 * estimate)
    assert exhaustive.apply(content, old, "y").content == "x = 1\ny\n"
    assert exhaustive.last_work == 8_151  # all three windows, as above
    # one unit less: only the window holding the target's rare words is scored
    ranked = EditMatcher(work_budget=2 * estimate - 1)
    assert ranked.apply(content, old, "y").content == "x = 1\ny\n"
    assert ranked.last_work == 2_000 + 33 + 33 * 33


def test_a_one_line_target_is_estimated_by_the_pieces_of_each_line() -> None:
    # Estimated per line: 2,000 + its length + one piece (200 + length times 10).
    estimate = (2_000 + 10 + 200 + 10 * 10) + (2_000 + 0 + 200 + 0)
    assert estimate == 4_510
    exhaustive = EditMatcher(threshold=0.8, work_budget=2 * estimate)
    assert exhaustive.apply("abcdefghXY\n", "abcdefghij", "Z").content == "Z\n"
    assert exhaustive.last_work == 4_510
    # under it, only the line holding the target's three-letter pieces is looked at
    ranked = EditMatcher(threshold=0.8, work_budget=2 * estimate - 1)
    assert ranked.apply("abcdefghXY\n", "abcdefghij", "Z").content == "Z\n"
    assert ranked.last_work == (2_000 + 10) + (200 + 10 * 10) + 10 * 10 + 10 * 10
