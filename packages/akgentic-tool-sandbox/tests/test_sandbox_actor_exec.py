"""``SandboxActor.exec``: the blocking call for code that asks the actor directly.

What it answers when a command cannot run at all: a refused program raises with the
allowlist's message, a line that does not parse and a backend that cannot prepare come
back as results naming the command. (``test_sandbox_predecessor_names`` covers commands
that run.)
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.sandbox.actor import CommandNotAllowedError, SandboxActor, SandboxConfig
from akgentic.tool.sandbox.local import LocalSandboxActor


@pytest.fixture
def sandbox(actor_system: ActorSystem, orchestrator: ActorAddress, tmp_path: Path) -> SandboxActor:
    config = SandboxConfig(mode="local", workspace_dir=str(tmp_path / "ws"))
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(LocalSandboxActor, config)
    actor: SandboxActor = actor_system.proxy_ask(address, SandboxActor, 30)
    return actor


def test_a_refused_program_raises_with_the_allowlist_message(sandbox: SandboxActor) -> None:
    with pytest.raises(CommandNotAllowedError) as raised:
        sandbox.exec("nc -l 1")
    # The message is the refusal itself, without the exception name in front.
    assert str(raised.value).startswith("Command 'nc' is not in the allowed commands list.")


def test_a_line_that_does_not_parse_comes_back_as_a_result(sandbox: SandboxActor) -> None:
    result = sandbox.exec("echo 'unbalanced")
    assert result.command == "echo 'unbalanced"
    assert result.exit_code is None
    assert result.error is not None
    assert result.error.startswith("SandboxError: could not parse the command line (")


def test_a_refusal_is_ready_at_once_under_its_ticket(
    sandbox: SandboxActor, caplog: pytest.LogCaptureFixture
) -> None:
    refused = sandbox.submit("nc -l 1")
    assert refused.wait_seconds == 0.0  # nothing to wait for: the first poll reads it
    result = sandbox.outcome(refused.key)
    assert result is not None
    assert result.command == "nc -l 1"
    assert (result.error or "").startswith("CommandNotAllowedError: Command 'nc' is not")

    with caplog.at_level(logging.WARNING):
        unprepared = sandbox.submit("ls", cwd="../elsewhere")  # a cwd outside the workspace
    assert unprepared.wait_seconds == 0.0
    result = sandbox.outcome(unprepared.key)
    assert result is not None
    assert result.command == "ls"
    assert (result.error or "").startswith("SandboxError: RetriableError: ")
    [warning] = [m for m in caplog.messages if "could not prepare" in m]
    assert warning.startswith(f"{sandbox.describe().name} could not prepare 'ls': ")
