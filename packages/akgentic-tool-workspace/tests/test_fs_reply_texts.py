"""What `Filesystem` answers in less travelled places, word for word, on real files.

Grep's refusals of an `include` filter and of a missing path, its answer when nothing
matches in a folder and its cut of very wide lines; hard-linked files named in refusals;
a patch through a symlink whose target cannot even be looked up; the diff shown when a
file changed after the agent *read* it; tree labels of FIFOs and sockets.
"""

from __future__ import annotations

import os
import shutil
import socket
import uuid
from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem
from akgentic.tool.workspace._seen import SeenFiles

from .conftest import stale_refusal

HARD_LINKS = (
    "has 2 hard links; the workspace does not open files that may be shared with places "
    "outside it (copy it to a new file first)"
)


@pytest.fixture
def fs(tmp_path: Path) -> Filesystem:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "notes.txt").write_text("nothing to see\n")
    return Filesystem(root=tmp_path)


# -- grep ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "include",
    ["", "src/*.py", "!*.py", "a\x00.py"],
    ids=["empty", "slash", "negated", "nul"],
)
def test_grep_refuses_an_include_that_is_not_a_file_name_glob(fs: Filesystem, include: str) -> None:
    with pytest.raises(RetriableError) as refused:
        fs.grep("nothing", include=include)
    assert str(refused.value) == (
        f"include {include!r} must be a file-name glob such as '*.py' or '*.{{ts,tsx}}' "
        "(no '/', no leading '!'); use path to choose the directory"
    )


@pytest.mark.parametrize("path", ["gone/notes.txt", "sub/gone.txt"], ids=["folder", "file"])
def test_grep_on_a_missing_path_says_so_and_where_to_look(fs: Filesystem, path: str) -> None:
    with pytest.raises(RetriableError) as refused:
        fs.grep("nothing", path=path)
    assert str(refused.value) == f"Path not found: {path}. Use workspace_list to see what exists."


def test_grep_without_a_match_in_a_folder_names_that_folder(fs: Filesystem) -> None:
    assert fs.grep("absent", path="./sub/") == "No matches for /absent/ in sub."


def test_grep_refuses_a_hard_linked_file_by_its_name(fs: Filesystem) -> None:
    os.link(fs.root / "sub" / "notes.txt", fs.root / "linked.txt")
    with pytest.raises(RetriableError) as refused:
        fs.grep("nothing", path="linked.txt")
    assert str(refused.value) == f"linked.txt {HARD_LINKS}"


@pytest.mark.skipif(shutil.which("rg") is None, reason="no ripgrep")
def test_ripgrep_cuts_a_wide_line_at_a_max_line_chars_far_above_the_default(
    fs: Filesystem,
) -> None:
    # ripgrep's own preview of long lines must be sized from the max_line_chars asked
    (fs.root / "wide.txt").write_text("needle" + "x" * 9994 + "\n")
    found = fs.grep("needle", path="wide.txt", engine="ripgrep", max_line_chars=9000)
    assert found == "wide.txt:1:needle" + "x" * 8994 + "…"


# -- other refusals that name the file ------------------------------------------------------------


def test_an_image_with_a_second_hard_link_is_refused_by_its_name(fs: Filesystem) -> None:
    (fs.root / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    os.link(fs.root / "pic.png", fs.root / "copy.png")
    with pytest.raises(RetriableError) as refused:
        fs.image("copy.png")
    assert str(refused.value) == f"copy.png {HARD_LINKS}"


def test_a_patch_through_a_link_to_an_overlong_name_says_it_cannot_access_it(
    fs: Filesystem,
) -> None:
    (fs.root / "link").symlink_to("n" * 300)  # a valid link; its target name is too long
    with pytest.raises(RetriableError) as refused:
        fs.patch("--- a/link\n+++ b/link\n@@ -1 +1 @@\n-x\n+y\n")
    assert str(refused.value) == (
        "patch rejected: cannot access link: File name too long. No file was changed."
    )
    assert sorted(path.name for path in fs.root.iterdir()) == ["link", "sub"]


# -- a file changed after the agent read it ------------------------------------------------------


def test_an_edit_after_a_read_is_refused_with_what_changed_since_the_read(
    fs: Filesystem,
) -> None:
    seen = SeenFiles()
    tag = uuid.uuid4().hex  # a content no other test has shown to an agent
    path = fs.root / "plan.txt"
    path.write_text(f"plan {tag}\nstep one\nstep two\n")
    fs.read("plan.txt", limit=1, seen=seen)  # any page counts as seeing the whole file
    path.write_text(f"plan {tag}\nstep one\nstep 2 by a colleague\n")
    with pytest.raises(RetriableError) as refused:
        fs.edit("plan.txt", "step one", "step 1", seen=seen)
    assert str(refused.value) == stale_refusal(
        "plan.txt",
        f"@@ -1,3 +1,3 @@\n plan {tag}\n step one\n-step two\n+step 2 by a colleague\n",
    )
    assert path.read_text() == f"plan {tag}\nstep one\nstep 2 by a colleague\n"


# -- tree listings --------------------------------------------------------------------------------


def test_a_tree_labels_fifos_and_sockets_with_their_size_like_files(fs: Filesystem) -> None:
    os.mkfifo(fs.root / "sub" / "pipe")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(fs.root / "sub" / "sock"))
        assert fs.list_dir(".", depth=2).splitlines() == [
            "./",
            "└── sub/",
            "    ├── notes.txt (15 bytes)",
            "    ├── pipe (0 bytes)",
            "    └── sock (0 bytes)",
        ]
