"""The split of ``actor.py`` by concept changes no import path and no recorded class path.

Teams are stored with each model's class path (``__model__``); the configuration, results
and worker of the sandbox were recorded under ``akgentic.tool.sandbox.actor`` and must
still be, and must still load back, now that they live in modules of their own.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import akgentic.tool.sandbox as package
from akgentic.core.utils.deserializer import deserialize_object, import_class
from akgentic.core.utils.serializer import serialize, serialize_type
from akgentic.tool.sandbox import actor, allowlist, config, cwd, result, worker

_HOMES = {
    "ALLOWED_COMMANDS": allowlist,
    "CommandNotAllowedError": allowlist,
    "check_command": allowlist,
    "SANDBOX_ACTOR_NAME": config,
    "SANDBOX_ACTOR_ROLE": config,
    "SandboxConfig": config,
    "SandboxSettings": config,
    "command_in": cwd,
    "ExecResult": result,
    "ExecTicket": result,
    "ExecWorker": worker,
}


@pytest.mark.parametrize("name", sorted(_HOMES))
def test_actor_module_re_exports_the_moved_name(name: str) -> None:
    assert name in actor.__all__
    assert getattr(actor, name) is getattr(_HOMES[name], name)
    if name in package.__all__:
        assert getattr(package, name) is getattr(actor, name)


def test_helpers_the_actor_module_had_still_resolve_there() -> None:
    assert actor.default_shell is worker.default_shell
    assert actor.cancelled_result is result.cancelled_result
    assert actor.run_launch is worker.run_launch
    assert callable(actor.kill_running)


@pytest.mark.parametrize(
    "cls", [actor.SandboxConfig, actor.ExecResult, actor.ExecTicket, actor.ExecWorker]
)
def test_recorded_class_paths_are_unchanged(cls: type) -> None:
    path = serialize_type(cls)
    assert path == f"akgentic.tool.sandbox.actor.{cls.__name__}"
    assert import_class(path) is cls


def test_a_stored_configuration_loads_back_as_the_same_class(tmp_path: Path) -> None:
    stored = actor.SandboxConfig(workspace_dir=str(tmp_path), timeout_seconds=7)
    record = serialize(stored)
    assert isinstance(record, dict)
    assert record["__model__"] == "akgentic.tool.sandbox.actor.SandboxConfig"
    loaded = deserialize_object(record)
    assert type(loaded) is actor.SandboxConfig
    assert loaded.timeout_seconds == 7
    assert loaded.workspace_dir == str(tmp_path)


def test_a_refused_command_still_raises_the_predecessor_exception_class() -> None:
    refusal = allowlist.check_command("nc -l 4444", ["ls"])
    assert refusal is not None
    assert refusal.startswith("CommandNotAllowedError: Command 'nc'")
    assert actor.CommandNotAllowedError.__module__ == "akgentic.tool.sandbox.actor"


_NEW_HOMES = {
    "SandboxConfig": "config",
    "ExecResult": "result",
    "ExecTicket": "result",
    "ExecWorker": "worker",
    "CommandNotAllowedError": "allowlist",
}


def test_classes_imported_from_their_new_homes_first_report_the_recorded_path() -> None:
    # The paths are kept in one place (actor.py); a fresh interpreter that imports only each
    # class's new module must still see the recorded path, without naming actor itself.
    imports = "; ".join(f"from akgentic.tool.sandbox.{m} import {n}" for n, m in _NEW_HOMES.items())
    probe = f"{imports}; print(' '.join(c.__module__ for c in ({', '.join(_NEW_HOMES)},)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["akgentic.tool.sandbox.actor"] * len(_NEW_HOMES)
