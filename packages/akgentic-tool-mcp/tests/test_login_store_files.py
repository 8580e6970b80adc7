"""The login store on disk: which files it writes, with which permissions, and what it refuses.

Real files in ``tmp_path``. Some refusals need a file or directory that belongs to another
user; those tests run only where the tests may hand one over (as root), and are skipped
elsewhere. Errors are checked for what they must name (the file, the server, the system's
reason), never for the tokens they must not show.
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
from pathlib import Path

import pytest
from _login_files import URL, assert_names_the_server_only, login_for, mode_of

from akgentic.tool.mcp.oauth_store import (
    FileLoginStore,
    LoginStoreError,
    MemoryLoginStore,
    StoredLogin,
)

# A query value the error messages must mask: the URL is named, its secret is not.
OTHER_UID = 65534  # "nobody"

needs_root = pytest.mark.skipif(
    os.getuid() != 0, reason="only root can give a file to another user"
)


# -- writing ------------------------------------------------------------------------------


async def test_a_new_store_writes_one_0600_file_in_a_0700_directory(tmp_path: Path) -> None:
    directory = tmp_path / "state" / "logins"
    store = FileLoginStore(directory)
    await store.save(login_for())
    path = store.path_for(URL)
    # Checked before any load: loading narrows a file's permissions again.
    assert mode_of(path) == 0o600
    assert mode_of(directory) == 0o700
    assert [p.name for p in directory.iterdir()] == [path.name]
    assert await store.load(URL) == login_for()


def test_the_file_name_is_a_hash_of_the_server_url(tmp_path: Path) -> None:
    # Part of the format on disk: a later version must find the logins stored by this one.
    digest = hashlib.sha256(URL.encode()).hexdigest()
    assert FileLoginStore(tmp_path).path_for(URL) == tmp_path / f"{digest[:32]}.json"


@pytest.mark.parametrize("mode", [0o755, 0o777, 0o750])
async def test_an_existing_directory_others_can_enter_is_narrowed(
    tmp_path: Path, mode: int
) -> None:
    directory = tmp_path / "logins"
    directory.mkdir()
    directory.chmod(mode)
    await FileLoginStore(directory).save(login_for())
    assert mode_of(directory) == 0o700


@needs_root
async def test_a_directory_of_another_user_keeps_its_permissions(tmp_path: Path) -> None:
    directory = tmp_path / "shared"
    directory.mkdir()
    directory.chmod(0o755)
    os.chown(directory, OTHER_UID, -1)
    await FileLoginStore(directory).save(login_for())
    assert mode_of(directory) == 0o755


async def test_a_directory_that_cannot_be_created_is_named_with_the_reason(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    directory = blocker / "logins"
    with pytest.raises(LoginStoreError) as caught:
        await FileLoginStore(directory).save(login_for())
    assert str(directory) in str(caught.value)
    assert os.strerror(errno.ENOTDIR) in str(caught.value)


async def test_a_login_that_cannot_be_written_names_the_file_and_leaves_nothing_behind(
    tmp_path: Path,
) -> None:
    store = FileLoginStore(tmp_path)
    path = store.path_for(URL)
    path.mkdir()  # the rename over it fails
    with pytest.raises(LoginStoreError) as caught:
        await store.save(login_for())
    assert str(path) in str(caught.value)
    assert os.strerror(errno.EISDIR) in str(caught.value)
    assert_names_the_server_only(caught.value)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


# -- reading ------------------------------------------------------------------------------


@pytest.mark.parametrize(("mode", "warned"), [(0o600, False), (0o640, True), (0o604, True)])
async def test_only_a_file_others_can_read_is_narrowed_with_a_warning_naming_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, mode: int, warned: bool
) -> None:
    caplog.set_level(logging.WARNING, logger="akgentic.tool.mcp.oauth_store")
    store = FileLoginStore(tmp_path)
    await store.save(login_for())
    path = store.path_for(URL)
    path.chmod(mode)
    assert await store.load(URL) == login_for()
    assert mode_of(path) == 0o600
    assert [str(path) in record.getMessage() for record in caplog.records] == (
        [True] if warned else []
    )


async def test_a_symlink_in_place_of_the_file_is_not_followed(tmp_path: Path) -> None:
    elsewhere = FileLoginStore(tmp_path / "elsewhere")
    await elsewhere.save(login_for())
    store = FileLoginStore(tmp_path / "logins")
    store.directory.mkdir()
    store.path_for(URL).symlink_to(elsewhere.path_for(URL))
    with pytest.raises(LoginStoreError) as caught:
        await store.load(URL)
    assert str(store.path_for(URL)) in str(caught.value)
    assert os.strerror(errno.ELOOP) in str(caught.value)
    assert_names_the_server_only(caught.value)


@needs_root
async def test_a_file_of_another_user_is_refused(tmp_path: Path) -> None:
    store = FileLoginStore(tmp_path)
    await store.save(login_for())
    path = store.path_for(URL)
    os.chown(path, OTHER_UID, -1)
    with pytest.raises(LoginStoreError, match="another user") as caught:
        await store.load(URL)
    assert str(path) in str(caught.value)
    assert f"uid {OTHER_UID}" in str(caught.value)
    assert_names_the_server_only(caught.value)


async def test_a_file_that_is_not_text_is_refused(tmp_path: Path) -> None:
    store = FileLoginStore(tmp_path)
    path = store.path_for(URL)
    path.write_bytes(b'{"server_url": "\xff\xfe"}')
    path.chmod(0o600)
    with pytest.raises(LoginStoreError) as caught:
        await store.load(URL)
    assert str(path) in str(caught.value)
    assert_names_the_server_only(caught.value)


async def test_a_document_that_is_not_a_login_object_names_the_whole_document(
    tmp_path: Path,
) -> None:
    store = FileLoginStore(tmp_path)
    path = store.path_for(URL)
    path.write_text("[1, 2]")
    path.chmod(0o600)
    with pytest.raises(LoginStoreError) as caught:
        await store.load(URL)
    assert "(document)" in str(caught.value)
    assert str(path) in str(caught.value)
    assert_names_the_server_only(caught.value)


async def test_a_file_of_another_server_names_both_servers(tmp_path: Path) -> None:
    store = FileLoginStore(tmp_path)
    other = "https://other.example/mcp?token=OTHER-SECRET"
    await store.save(login_for(other))
    os.replace(store.path_for(other), store.path_for(URL))
    with pytest.raises(LoginStoreError, match="another server") as caught:
        await store.load(URL)
    assert "https://other.example/mcp?token=***" in str(caught.value)
    assert_names_the_server_only(caught.value)


# -- expiry and the memory store ----------------------------------------------------------


def test_a_login_expires_at_its_expiry_time_and_never_without_one() -> None:
    login = login_for()
    assert not login.is_expired(now=999.0)
    assert login.is_expired(now=1_000.0)
    assert login.is_expired(now=1_001.0)
    assert not StoredLogin(server_url=URL).is_expired(now=10**12)


async def test_the_memory_store_keeps_its_own_copy() -> None:
    store = MemoryLoginStore()
    saved = login_for()
    await store.save(saved)
    assert saved.tokens is not None
    saved.tokens.access_token = "changed after saving"
    loaded = await store.load(URL)
    assert loaded is not None
    assert loaded.tokens is not None
    assert loaded.tokens.access_token == "AT-SECRET"
    loaded.tokens.access_token = "changed after loading"
    again = await store.load(URL)
    assert again is not None
    assert again.tokens is not None
    assert again.tokens.access_token == "AT-SECRET"
