"""The size a refusal reports is the file's own size (a fixed bug: it said the limit + 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import Filesystem


def test_a_utf16_file_above_the_limit_is_refused_with_its_real_size(tmp_path: Path) -> None:
    fs = Filesystem(root=tmp_path, max_file_bytes=1000)
    (tmp_path / "wide.txt").write_bytes(b"\xff\xfe" + ("b" * 2499).encode("utf-16-le"))
    with pytest.raises(RetriableError, match="it is 5,000 bytes, above the workspace's limit"):
        fs.read("wide.txt")
