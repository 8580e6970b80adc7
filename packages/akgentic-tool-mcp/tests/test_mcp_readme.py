"""The README's Python examples run as written."""

from __future__ import annotations

import re
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path

import anyio.to_thread
import httpx
import pytest
from mcp_harness import start_http_server
from pydantic_ai import Agent

from akgentic.llm.testing import ScriptedCall, ScriptedModel
from akgentic.tool.mcp import MCPTool

README = Path(__file__).parent.parent / "README.md"
EXAMPLE_URL = "https://mcp.acme.example/mcp"


def _blocks() -> list[str]:
    return [block for _, block in _marked_blocks()]


def _marked_blocks() -> list[tuple[bool, str]]:
    """Each block, and whether it continues the previous one (``<!-- readme: continue -->``)."""
    found = re.findall(
        r"(<!-- readme: continue -->\n)?```python\n(.*?)```", README.read_text(), flags=re.DOTALL
    )
    return [(bool(marker), block) for marker, block in found]


def test_readme_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _blocks()
    server = [b for b in blocks if b.startswith("# server.py")]
    assert len(server) == 1, "the README shows one server.py"
    (tmp_path / "server.py").write_text(server[0])
    monkeypatch.chdir(tmp_path)
    ran = 0
    namespace: dict[str, object] = {"__name__": "readme"}
    for continues, block in _marked_blocks():
        if block.startswith("# server.py") or "login_mcp_server_sync(" in block:
            continue  # the login example runs in the test below
        if "authorize_mcp_server_sync(" in block:
            # Needs a person at a browser and a live server; test_mcp_oauth_flow.py runs the
            # same flow against a local authorization server.
            continue
        if not continues:
            namespace = {"__name__": "readme"}
        exec(compile(block, str(README), "exec"), namespace)
        ran += 1
    assert ran == 3
    # TestModel called the server's `add` tool over stdio and reported its answer.
    output = namespace["result"].output  # type: ignore[attr-defined]
    assert '"add":0' in str(output).replace(" ", "")
    # The gated `add` first stopped the run, then ran once approved.
    assert namespace["call"].tool_name == "add"  # type: ignore[attr-defined]
    assert '"add":0' in str(namespace["second"].output).replace(" ", "")  # type: ignore[attr-defined]


def _browser_that_approves(url: str) -> bool:
    """Stands for the system browser: consents, then lands on the local listener.

    In a thread, as a real browser is another process: the listener it lands on runs in
    the event loop of the flow that called it.
    """

    def visit() -> None:
        consent = httpx.get(url)
        httpx.get(consent.headers["location"])

    threading.Thread(target=visit, daemon=True).start()
    return True


async def test_the_lasting_login_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (block,) = [b for b in _blocks() if "login_mcp_server_sync(" in b]
    server = start_http_server("streamable-http", "/mcp", "--oauth", "--token-lifetime", "2")
    try:
        # The example as written, against the local server, with the per-user directory in
        # tmp_path and a browser that consents at once.
        monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
        monkeypatch.setattr(webbrowser, "open", _browser_that_approves)
        namespace: dict[str, object] = {"__name__": "__main__"}  # run as the script it is
        code = compile(block.replace(EXAMPLE_URL, server.url), str(README), "exec")
        # login_mcp_server_sync runs its own event loop: not from inside this test's loop.
        await _in_thread(lambda: exec(code, namespace))
        stored = list((tmp_path / "akgentic" / "mcp-oauth").iterdir())
        assert len(stored) == 1
        assert stored[0].stat().st_mode & 0o777 == 0o600
        card = namespace["card"]
        assert isinstance(card, MCPTool)
        script = ScriptedModel(ScriptedCall("add", {"a": 20, "b": 22}))
        await Agent(script, toolsets=card.get_toolsets()).run("go")
        assert [r.content for r in script.tool_results()] == [42]
    finally:
        server.stop()


async def _in_thread(work: Callable[[], None]) -> None:
    await anyio.to_thread.run_sync(work)
