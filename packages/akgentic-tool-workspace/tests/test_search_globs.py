"""What `Filesystem.glob` matches: hidden directories below the walk's start, character
classes, runs of stars, `**` at the end, and the brace-group limit, on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem


def _names(answer: str) -> list[str]:
    return sorted(answer.splitlines())


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    for name in [
        ".github/workflows/ci.yml",
        "docs/guide.yml",
        "pkg/.config/settings.yml",
        "src/top.py",
        "src/a/deep.py",
        "file1.txt",
        "file2.txt",
        "file3.txt",
        "a-c.txt",
        "b-d.txt",
        "a-x.txt",
        "]x.txt",
        "a.c.txt",
        "aQc.txt",
    ]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    return Filesystem(root=tmp_path)


def test_a_pattern_naming_a_hidden_directory_below_the_walks_start_finds_it(
    fs: Filesystem,
) -> None:
    # two brace options share no directory: the walk starts at the top and must enter .github
    assert _names(fs.glob("{.github/workflows,docs}/*.yml")) == [
        ".github/workflows/ci.yml",
        "docs/guide.yml",
    ]
    assert _names(fs.glob("*/.config/*.yml")) == ["pkg/.config/settings.yml"]
    assert _names(fs.glob("**/*.yml")) == ["docs/guide.yml"]  # not named: hidden stays hidden


def test_character_classes_match_one_character_each(fs: Filesystem) -> None:
    assert _names(fs.glob("file[12].txt")) == ["file1.txt", "file2.txt"]
    assert _names(fs.glob("[ab]-[cd].txt")) == ["a-c.txt", "b-d.txt"]
    assert _names(fs.glob("[]x]*.txt")) == ["]x.txt"]  # a leading ] is a member
    assert _names(fs.glob("file[1].txt")) == ["file1.txt"]
    # each class ends at its own ]: the dot between two classes stays a literal dot
    assert _names(fs.glob("[ab].[cd].txt")) == ["a.c.txt"]


def test_a_run_of_stars_in_a_name_is_one_star(fs: Filesystem) -> None:
    stars = ["a-c.txt", "a-x.txt", "a.c.txt", "aQc.txt"]
    assert _names(fs.glob("a***.txt")) == _names(fs.glob("a*.txt")) == stars
    assert _names(fs.glob("**x.txt")) == ["]x.txt", "a-x.txt"]


def test_a_double_star_at_the_end_matches_every_file_below(fs: Filesystem) -> None:
    assert _names(fs.glob("src/**")) == ["src/a/deep.py", "src/top.py"]


@pytest.mark.timeout(20)
def test_sixty_four_brace_groups_are_expanded_and_one_more_is_refused(fs: Filesystem) -> None:
    # Each `{,}` has two options that expand alike: the expansion once walked every one of the
    # 2**63 combinations (the distinct results, all its cap counted, stayed one) and hung.
    assert _names(fs.glob("file{1,1}.txt" + "{,}" * 63)) == ["file1.txt"]
    pattern = "file{1,2}.txt" + "{,}" * 64
    with pytest.raises(RetriableError) as refused:
        fs.glob(pattern)
    assert f"{pattern[:40]!r}... has more than 64 brace groups" in str(refused.value)
