"""A login the store cannot even start writing: the error names the file and the reason.

As root nothing refuses to create a file in the store's own directory, so the refusal
here is the process's: no file descriptor left (its soft limit lowered for the one save,
then restored).
"""

from __future__ import annotations

import errno
import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from _login_files import URL, assert_names_the_server_only, login_for

from akgentic.tool.mcp.oauth_store import FileLoginStore, LoginStoreError


@contextmanager
def _no_descriptor_left() -> Iterator[None]:
    """Until the block ends, opening any file fails with ``EMFILE``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lowest_free = os.open(os.devnull, os.O_RDONLY)
    os.close(lowest_free)
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowest_free, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def test_a_login_file_that_cannot_be_created_names_the_file_and_the_reason(
    tmp_path: Path,
) -> None:
    store = FileLoginStore(tmp_path)
    with _no_descriptor_left(), pytest.raises(LoginStoreError) as caught:
        await store.save(login_for())
    assert str(store.path_for(URL)) in str(caught.value)
    assert os.strerror(errno.EMFILE) in str(caught.value)
    assert_names_the_server_only(caught.value)
    assert list(tmp_path.iterdir()) == []
