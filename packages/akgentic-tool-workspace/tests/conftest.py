"""Shared fixtures: a real workspaces root under tmp_path and the tools of a WorkspaceTool."""

from __future__ import annotations

import contextlib
import errno
import os
import resource
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from akgentic.tool.core.testing import Tools
from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import WorkspaceTool, readers


def tools_of(card: WorkspaceTool) -> Tools:
    """The card's model-facing callables by name."""
    return {fn.__name__: fn for fn in card.get_tools()}


def refusal(call: Callable[..., object], *args: object, **kwargs: object) -> str:
    """The text of the `RetriableError` that `call(*args, **kwargs)` must raise."""
    with pytest.raises(RetriableError) as refused:
        call(*args, **kwargs)
    return str(refused.value)


def stale_refusal(name: str, diff: str) -> str:
    """The whole refusal of a change to `name`, which someone else changed since the agent
    saw it; `diff` is the unified diff's body, from its `@@` line."""
    return (
        f"{name} changed since you last read or wrote it (another agent or a command changed "
        "it); nothing was written. What changed since you saw it:\n"
        f"--- {name} (as you saw it)\n"
        f"+++ {name} (now)\n"
        f"{diff}"
        f"Read {name} again with workspace_read, then redo your change on its current content."
    )


@contextlib.contextmanager
def free_descriptors(count: int) -> Iterator[None]:
    """Leave exactly `count` file descriptors free to open while the block runs.

    These tests run as root, so a folder or file that exists but cannot be opened is made
    by running out of descriptors (`EMFILE`) instead of by permissions: every other free
    descriptor is held on `/dev/null` until the block ends. Linux only (reads /proc).
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    highest = max(int(name) for name in os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(highest + 64, hard), hard))
    held: list[int] = []
    try:
        while True:
            try:
                held.append(os.open(os.devnull, os.O_RDONLY))
            except OSError as exc:
                if exc.errno != errno.EMFILE:
                    raise
                break  # every descriptor is taken
        for _ in range(count):
            os.close(held.pop())
        yield
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.fixture(autouse=True)
def _no_caption_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Image captions (DocumentReader.llm_client) never reach a real provider in tests."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(autouse=True)
def _fresh_document_converter() -> None:
    """Every test builds its own MarkItDown converter instead of reusing the process-wide one.

    The cache would otherwise hide the construction path from a test that runs after another
    conversion, and mutation runs fork workers that inherit a filled cache.
    """
    readers._CONVERTERS.clear()


@pytest.fixture
def roots(workspaces_root: Path) -> Path:
    """The workspaces root for this test (the testing kit's fresh ``workspaces_root``)."""
    return workspaces_root


@pytest.fixture
def ws(roots: Path) -> Path:
    """The directory of the `team` workspace the `tools` fixture works in."""
    return roots / "team"


@pytest.fixture
def tools(roots: Path) -> Tools:
    """Every capability of a full-access WorkspaceTool on workspace `team`."""
    return tools_of(WorkspaceTool(workspace_id="team"))
