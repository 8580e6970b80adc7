"""The ripgrep adapter on real files: what it reports must come from ripgrep itself.

`run_grep` quietly falls back to the Python engine when ripgrep fails, so a broken ripgrep
command line would go unnoticed through `workspace_grep`; this calls the adapter directly.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from akgentic.tool.workspace import Filesystem
from akgentic.tool.workspace._search import GrepHit, _Deadline, _ripgrep_batch

RG = shutil.which("rg")


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
def test_ripgrep_reports_every_matching_line_of_the_files_it_is_handed(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"Alpha: caf\xe9\nbeta\nALPHA beta\n")
    (tmp_path / "b.txt").write_text("nothing\nalpha\n")
    batch = [(name, os.open(tmp_path / name, os.O_RDONLY)) for name in ("a.txt", "b.txt")]
    try:
        assert RG is not None
        hits = _ripgrep_batch(RG, batch, re.compile("alpha", re.IGNORECASE), _Deadline(30))
        assert _ripgrep_batch(RG, batch, re.compile("gamma"), _Deadline(30)) == []
    finally:
        for _, fd in batch:
            os.close(fd)
    assert sorted(hits, key=lambda hit: (hit.path, hit.line)) == [
        GrepHit("a.txt", 1, "Alpha: caf\ufffd"),
        GrepHit("a.txt", 3, "ALPHA beta"),
        GrepHit("b.txt", 2, "alpha"),
    ]


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
def test_grep_can_be_asked_to_use_ripgrep_when_it_is_installed(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one alpha\n")
    assert Filesystem(root=tmp_path).grep("alpha", engine="ripgrep") == "a.txt:1:one alpha"
