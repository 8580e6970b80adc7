"""The store directory on real files: how a relative store path is normalised, which links
and odd entries it refuses (and what its error says), and what write, read, remove,
set-aside and the stale-temporary-file cleanup do to the files in it."""

from __future__ import annotations

import datetime
import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

import pytest

from akgentic.tool.vector_store._store_dir import StoreDirectory, StorePathError

NAME = "notes.vectors.npz"


def write_bytes(data: bytes) -> Callable[[BinaryIO], None]:
    """A ``write`` callback for :meth:`StoreDirectory.write_atomic` writing ``data``."""

    def write(handle: BinaryIO) -> None:
        handle.write(data)

    return write


def read_all(handle: BinaryIO) -> bytes:
    return handle.read()


def never_read(handle: BinaryIO) -> bytes:
    raise AssertionError("the store read a file it should have refused")


def old(path: Path, seconds: float = 3600.0) -> None:
    """Make ``path`` itself (not a link's target) look ``seconds`` old."""
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


@pytest.fixture
def umask_zero() -> Iterator[None]:
    previous = os.umask(0)
    try:
        yield
    finally:
        os.umask(previous)


# -- where the directory is: relative paths ----------------------------------------------


@pytest.mark.parametrize("relative", ["./store", "store/", "store//", "other/../store"])
def test_a_relative_path_with_dots_or_extra_slashes_names_the_same_directory(
    tmp_path: Path, relative: str
) -> None:
    StoreDirectory(tmp_path, relative).write_atomic(NAME, write_bytes(b"payload"))

    assert (tmp_path / "store" / NAME).read_bytes() == b"payload"
    assert StoreDirectory(tmp_path, "store").read(NAME, read_all) == b"payload"
    assert StoreDirectory(tmp_path, relative).read(NAME, read_all) == b"payload"


def test_a_relative_path_climbing_out_of_the_root_is_refused_with_the_path(
    tmp_path: Path,
) -> None:
    root = tmp_path / "root"
    root.mkdir()
    directory = StoreDirectory(root, "../outside")

    with pytest.raises(StorePathError) as caught:
        directory.write_atomic(NAME, write_bytes(b"x"))

    assert str(directory.path) in str(caught.value)
    assert not (tmp_path / "outside").exists()


def test_a_file_standing_on_the_way_is_refused_with_the_path(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file, not a directory")
    directory = StoreDirectory(tmp_path, "blocker/store")

    with pytest.raises(StorePathError) as caught:
        directory.write_atomic(NAME, write_bytes(b"x"))

    assert str(directory.path) in str(caught.value)
    assert (tmp_path / "blocker").read_text() == "a file, not a directory"


def test_a_store_directory_that_is_a_symlink_is_refused_as_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "store").symlink_to(real)  # a link that even stays inside the root
    directory = StoreDirectory(tmp_path, "store")

    with pytest.raises(StorePathError, match="is a symlink"):
        directory.write_atomic(NAME, write_bytes(b"x"))
    with pytest.raises(StorePathError, match="is a symlink"):
        directory.read(NAME, never_read)

    assert list(real.iterdir()) == []


def test_a_symlink_on_the_way_to_the_store_is_refused_and_said_so(tmp_path: Path) -> None:
    (tmp_path / "real" / "store").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    directory = StoreDirectory(tmp_path, "link/store")

    with pytest.raises(StorePathError) as caught:
        directory.write_atomic(NAME, write_bytes(b"x"))

    message = str(caught.value)
    assert "reached through a symlink" in message
    assert "does not read or write through links" in message
    assert str(directory.path) in message
    assert list((tmp_path / "real" / "store").iterdir()) == []


def test_a_regular_file_where_the_store_directory_belongs_is_named_as_such(
    tmp_path: Path,
) -> None:
    (tmp_path / "store").write_text("not a directory")

    with pytest.raises(StorePathError, match="is a regular file"):
        StoreDirectory(tmp_path, "store").write_atomic(NAME, write_bytes(b"x"))


def test_a_missing_directory_reads_as_nothing_and_is_not_created(tmp_path: Path) -> None:
    beneath = StoreDirectory(tmp_path, "store")
    deeper = StoreDirectory(tmp_path, "missing/store")
    whole = StoreDirectory.at(tmp_path / "configured")

    for directory in (beneath, deeper, whole):
        assert directory.read(NAME, never_read) is None
        assert directory.remove(NAME) is False
        assert directory.set_aside(NAME) is None
        assert directory.clean_stale_temps(NAME) == []

    assert list(tmp_path.iterdir()) == []


# -- write -----------------------------------------------------------------------------------


def test_a_write_goes_through_a_hidden_temporary_file_named_after_the_file(
    tmp_path: Path,
) -> None:
    directory = StoreDirectory(tmp_path, "store")
    seen: list[list[str]] = []

    def write(handle: BinaryIO) -> None:
        seen.append(sorted(os.listdir(tmp_path / "store")))
        handle.write(b"new")

    directory.write_atomic(NAME, write)

    [during] = seen
    assert len(during) == 1
    assert during[0].startswith(f".{NAME}.")
    assert during[0].endswith(".tmp")
    assert sorted(os.listdir(tmp_path / "store")) == [NAME]


def test_a_written_file_is_readable_by_all_and_not_executable(
    tmp_path: Path, umask_zero: None
) -> None:
    StoreDirectory(tmp_path, "store").write_atomic(NAME, write_bytes(b"data"))

    mode = (tmp_path / "store" / NAME).stat().st_mode & 0o777
    assert mode == 0o644


def test_a_failed_write_reports_its_own_error_even_when_its_temporary_file_is_gone(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"

    def write(handle: BinaryIO) -> None:
        for temp in store.iterdir():
            temp.unlink()  # something else already removed the temporary file
        raise RuntimeError("writer failed")

    with pytest.raises(RuntimeError, match="writer failed"):
        StoreDirectory(tmp_path, "store").write_atomic(NAME, write)

    assert list(store.iterdir()) == []


# -- read ------------------------------------------------------------------------------------


def test_a_symlinked_file_is_not_read_and_the_error_names_it(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    secret = tmp_path / "secret"
    secret.write_bytes(b"not for the store")
    (store / NAME).symlink_to(secret)

    with pytest.raises(StorePathError) as caught:
        StoreDirectory(tmp_path, "store").read(NAME, never_read)

    assert str(store / NAME) in str(caught.value)
    assert "symlink" in str(caught.value)


def test_a_directory_at_the_file_name_is_not_read_and_the_error_names_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "store" / NAME).mkdir(parents=True)
    open_before = len(os.listdir("/proc/self/fd"))

    with pytest.raises(StorePathError) as caught:
        StoreDirectory(tmp_path, "store").read(NAME, never_read)

    assert str(tmp_path / "store" / NAME) in str(caught.value)
    assert "is a directory" in str(caught.value)
    # the refused descriptor is closed, not left to the garbage collector
    assert len(os.listdir("/proc/self/fd")) == open_before


def test_a_fifo_at_the_file_name_is_not_read_and_does_not_block(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    os.mkfifo(tmp_path / "store" / NAME)

    with pytest.raises(StorePathError) as caught:
        StoreDirectory(tmp_path, "store").read(NAME, never_read)

    assert str(tmp_path / "store" / NAME) in str(caught.value)
    assert "is a special file" in str(caught.value)


def test_a_missing_file_in_an_existing_directory_reads_as_nothing(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    assert StoreDirectory(tmp_path, "store").read(NAME, never_read) is None


# -- remove ----------------------------------------------------------------------------------


def test_remove_deletes_a_file_and_says_whether_there_was_one(tmp_path: Path) -> None:
    directory = StoreDirectory(tmp_path, "store")
    directory.write_atomic(NAME, write_bytes(b"x"))

    assert directory.remove(NAME) is True
    assert not (tmp_path / "store" / NAME).exists()
    assert directory.remove(NAME) is False


def test_remove_takes_away_a_link_to_a_directory_never_the_directory(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    target = tmp_path / "precious"
    target.mkdir()
    (target / "kept.txt").write_text("kept")
    (store / NAME).symlink_to(target)
    (store / "dangling").symlink_to(tmp_path / "nowhere")
    directory = StoreDirectory(tmp_path, "store")

    assert directory.remove(NAME) is True
    assert directory.remove("dangling") is True

    assert list(store.iterdir()) == []
    assert (target / "kept.txt").read_text() == "kept"


def test_remove_refuses_a_directory_and_names_it(tmp_path: Path) -> None:
    (tmp_path / "store" / NAME).mkdir(parents=True)

    with pytest.raises(StorePathError) as caught:
        StoreDirectory(tmp_path, "store").remove(NAME)

    assert str(tmp_path / "store" / NAME) in str(caught.value)
    assert "is a directory" in str(caught.value)
    assert (tmp_path / "store" / NAME).is_dir()


# -- set aside -------------------------------------------------------------------------------


def test_set_aside_renames_the_file_with_the_time_it_was_set_aside(tmp_path: Path) -> None:
    directory = StoreDirectory(tmp_path, "store")
    directory.write_atomic(NAME, write_bytes(b"damaged"))
    before = datetime.datetime.now().replace(microsecond=0)

    aside = directory.set_aside(NAME)

    after = datetime.datetime.now()
    assert aside is not None
    found = re.fullmatch(rf"{re.escape(NAME)}\.corrupt-(\w+)-[0-9a-f]+", aside)
    assert found is not None
    stamp = datetime.datetime.strptime(found.group(1), "%Y%m%dT%H%M%S")
    assert before <= stamp <= after
    assert sorted(os.listdir(tmp_path / "store")) == [aside]
    assert (tmp_path / "store" / aside).read_bytes() == b"damaged"
    assert directory.set_aside(NAME) is None  # nothing left to set aside


# -- stale temporary files -------------------------------------------------------------------


def test_clean_stale_temps_removes_every_old_temporary_file_and_returns_their_names(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    stale = [f".{NAME}.dead{n}.tmp" for n in range(5)]
    unrelated = [f"other-{n}.txt" for n in range(15)] + [".other.vectors.npz.dead.tmp", NAME]
    for name in stale + unrelated:
        (store / name).write_bytes(b"partial")
        old(store / name)
    fresh = store / f".{NAME}.writing.tmp"
    fresh.write_bytes(b"a flush running right now")

    removed = StoreDirectory(tmp_path, "store").clean_stale_temps(NAME)

    assert sorted(removed) == sorted(stale)
    assert sorted(os.listdir(store)) == sorted([*unrelated, fresh.name])


def test_clean_stale_temps_removes_links_named_like_temporary_files_not_their_targets(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    target = tmp_path / "target"
    target.mkdir()  # a fresh directory: following the link would keep it
    to_directory = store / f".{NAME}.todir.tmp"
    to_directory.symlink_to(target)
    dangling = store / f".{NAME}.dangling.tmp"
    dangling.symlink_to(tmp_path / "nowhere")
    old(to_directory)
    old(dangling)
    (store / f".{NAME}.adir.tmp").mkdir()
    old(store / f".{NAME}.adir.tmp")

    removed = StoreDirectory(tmp_path, "store").clean_stale_temps(NAME)

    assert sorted(removed) == sorted([to_directory.name, dangling.name])
    assert sorted(os.listdir(store)) == [f".{NAME}.adir.tmp"]  # a directory is never removed
    assert target.is_dir()


def test_clean_stale_temps_honours_the_age_it_is_given(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    temp = store / f".{NAME}.abc.tmp"
    temp.write_bytes(b"partial")
    old(temp, seconds=30)
    directory = StoreDirectory(tmp_path, "store")

    assert directory.clean_stale_temps(NAME) == []  # 30 s is younger than the default
    assert directory.clean_stale_temps(NAME, older_than=10) == [temp.name]
    assert not temp.exists()
