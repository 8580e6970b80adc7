"""The login directory's permissions: the store takes away the access of others, nothing more.

Real directories in ``tmp_path``, with modes a user may have left on them: the owner's own
bits are the owner's business (the store neither adds nor removes them), while any access
of the group or of others goes, whether or not the owner can enter the directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _login_files import URL, login_for, mode_of

from akgentic.tool.mcp.oauth_store import FileLoginStore


@pytest.mark.parametrize(
    ("mode", "left"),
    [
        (0o677, 0o700),  # others may enter, the owner may not: others' access goes
        (0o070, 0o700),
        (0o300, 0o300),  # private already: the owner's choice of bits stays
        (0o700, 0o700),
    ],
)
async def test_only_the_access_of_others_is_taken_from_the_directory(
    tmp_path: Path, mode: int, left: int
) -> None:
    directory = tmp_path / "logins"
    directory.mkdir()
    directory.chmod(mode)
    store = FileLoginStore(directory)
    await store.save(login_for())
    assert mode_of(directory) == left
    assert mode_of(store.path_for(URL)) == 0o600
