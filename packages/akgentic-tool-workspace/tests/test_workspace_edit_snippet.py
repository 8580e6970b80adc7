"""The numbered lines an edit sends back, so the model sees what the file now holds there.

Every expectation is written out whole: the lines changed, two lines of context on each side
(fewer at either end of the file), the line numbers of the file after the edit, and a long
change shown by its two ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from akgentic.tool.workspace import Filesystem

LINES = [f"line {n}" for n in range(1, 41)]


def _rows(*rows: tuple[int, str] | str) -> str:
    return "\n".join(row if isinstance(row, str) else f"{row[0]:>6}\t{row[1]}" for row in rows)


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "a.txt").write_text("\n".join(LINES) + "\n")
    return Filesystem(root=tmp_path)


def _shown(report: str) -> str:
    """The numbered lines of an edit's report (its first line is the summary)."""
    return report.split("\n", 1)[1]


def test_a_line_replaced_in_the_middle_shows_two_lines_either_side(fs: Filesystem) -> None:
    report = fs.edit("a.txt", "line 20\n", "twenty\n")
    assert report.startswith("Edited a.txt: 1 replacement at line 20.\n")
    expected = _rows(
        (18, "line 18"), (19, "line 19"), (20, "twenty"), (21, "line 21"), (22, "line 22")
    )
    assert _shown(report) == expected


def test_a_replacement_inside_a_line_shows_the_same_window(fs: Filesystem) -> None:
    report = fs.edit("a.txt", "line 20", "line twenty")
    expected = _rows(
        (18, "line 18"), (19, "line 19"), (20, "line twenty"), (21, "line 21"), (22, "line 22")
    )
    assert _shown(report) == expected


def test_the_first_lines_have_no_context_above(fs: Filesystem) -> None:
    assert _shown(fs.edit("a.txt", "line 1\n", "one\n")) == _rows(
        (1, "one"), (2, "line 2"), (3, "line 3")
    )
    assert _shown(fs.edit("a.txt", "line 2\n", "two\n")) == _rows(
        (1, "one"), (2, "two"), (3, "line 3"), (4, "line 4")
    )


def test_the_last_line_has_no_context_below_and_no_empty_line_after_the_final_newline(
    fs: Filesystem,
) -> None:
    assert _shown(fs.edit("a.txt", "line 40\n", "forty\n")) == _rows(
        (38, "line 38"), (39, "line 39"), (40, "forty")
    )
    assert _shown(fs.edit("a.txt", "line 39\n", "x\ny\n")) == _rows(
        (37, "line 37"), (38, "line 38"), (39, "x"), (40, "y"), (41, "forty")
    )


def test_a_file_without_a_final_newline_shows_its_last_line(tmp_path: Path) -> None:
    (tmp_path / "b.txt").write_text("\n".join(LINES))
    report = Filesystem(root=tmp_path).edit("b.txt", "line 40", "forty")
    assert _shown(report) == _rows((38, "line 38"), (39, "line 39"), (40, "forty"))


def test_deleted_lines_show_the_lines_that_close_the_gap(fs: Filesystem) -> None:
    report = fs.edit("a.txt", "line 20\nline 21\n", "")
    expected = _rows(
        (18, "line 18"), (19, "line 19"), (20, "line 22"), (21, "line 23"), (22, "line 24")
    )
    assert _shown(report) == expected


def test_sixteen_lines_are_shown_whole(fs: Filesystem) -> None:
    new = "".join(f"new {n}\n" for n in range(12))
    report = fs.edit("a.txt", "line 10\n", new)
    expected = _rows(
        (8, "line 8"),
        (9, "line 9"),
        *[(10 + n, f"new {n}") for n in range(12)],
        (22, "line 11"),
        (23, "line 12"),
    )
    assert _shown(report) == expected


def test_a_longer_change_is_shown_by_its_two_ends_with_the_right_line_numbers(
    fs: Filesystem,
) -> None:
    new = "".join(f"new {n}\n" for n in range(20))
    report = fs.edit("a.txt", "line 10\n", new)
    # 2 + 20 + 2 lines: the first eight and the last eight, numbered as in the file
    expected = _rows(
        (8, "line 8"),
        (9, "line 9"),
        *[(10 + n, f"new {n}") for n in range(6)],
        "   ...",
        *[(10 + n, f"new {n}") for n in range(14, 20)],
        (30, "line 11"),
        (31, "line 12"),
    )
    assert _shown(report) == expected


def test_every_replacement_is_counted_and_the_first_one_is_shown(fs: Filesystem) -> None:
    report = fs.edit("a.txt", "line 3", "LINE 3", replace_all=True)  # 3 and 30..39
    assert report.startswith("Edited a.txt: 11 replacements at line 3.\n")
    assert _shown(report) == _rows(
        (1, "line 1"), (2, "line 2"), (3, "LINE 3"), (4, "line 4"), (5, "line 5")
    )


def test_a_lenient_match_names_its_strategy(fs: Filesystem) -> None:
    report = fs.edit("a.txt", "   line 20\n   line 21", "line twenty\nline 21")
    assert report.split("\n", 1)[0] == (
        "Edited a.txt: 1 replacement at line 20 (indentation flexible match)."
    )
    expected = _rows(
        (18, "line 18"),
        (19, "line 19"),
        (20, "line twenty"),
        (21, "line 21"),
        (22, "line 22"),
        (23, "line 23"),
    )
    assert _shown(report) == expected
