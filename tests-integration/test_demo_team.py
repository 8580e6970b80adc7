"""The README's first command: the scripted demo team, end to end in a real actor system.

Besides the task itself, the run shows two safety rails, asserted here through the demo's
own code: a sandbox command waits for a person's approval (the demo's scripted
``/approve`` goes through the member's command registry), and an edit of a file another
member changed since is refused with a diff, then goes through once the file is read again.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from akgentic_examples import demo

Run = tuple[object, list[str], Path]


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("demo")
    lines: list[str] = []
    printer = demo.run("scripted", root, write=lines.append)
    return printer, lines, root


def _index(lines: list[str], text: str, start: int = 0) -> int:
    """Index of the first line from ``start`` that contains ``text``."""
    return next(i for i in range(start, len(lines)) if text in lines[i])


def test_the_team_does_the_whole_task(demo_run: Run) -> None:
    printer, lines, root = demo_run
    text = "\n".join(lines)
    fib = root / "demo" / "fib.py"
    assert fib.is_file()
    assert "def fib(n: int) -> int:" in fib.read_text()
    # Written by the writer, edited by the reviewer, edited again by the writer.
    assert printer.files == ["fib.py", "fib.py", "fib.py"]  # type: ignore[attr-defined]
    # The sandbox really ran the file the workspace tool wrote.
    assert "[sandbox] fib(10) = 55: self-check passed" in text
    # The plan went from pending tasks to completed ones, in order.
    assert (
        text.index("ID 3 [pending]") < text.index("ID 3 [started]") < text.index("ID 3 [completed]")
    )
    assert "[plan #4] - ID 3 [completed]" in text
    assert "[plan #5] - ID 4 [completed] Add fib_list(n) to fib.py" in text
    # Knowledge-graph deltas were printed as they arrived.
    assert "[graph #1] + fib-project (Project)" in text
    assert "[graph #2] + review-1 -[covers]-> fib.py" in text
    # The notification the reviewer scheduled came back and was handled.
    kinds = [reply.kind for reply in printer.replies]  # type: ignore[attr-defined]
    assert kinds == ["task", "task", "task", "notification", "task"]


def test_a_sandbox_command_waits_for_an_approval_then_runs(demo_run: Run) -> None:
    printer, lines, _ = demo_run
    ((who, request),) = printer.approvals  # type: ignore[attr-defined]
    assert (who, request.call_id, request.tool_name) == ("@Writer", "call-run-fib", "exec_command")
    assert request.args == {"cmd": "python fib.py"}
    # The pause is printed with the exact arguments, before anything ran in the sandbox.
    paused = _index(lines, "⏸ @Writer's exec_command waits for approval (call call-run-fib)")
    assert lines[paused].endswith(json.dumps({"cmd": "python fib.py"}))
    decided = _index(lines, "[person] /approve call-run-fib")
    ran = _index(lines, "[sandbox] fib(10) = 55: self-check passed")
    assert paused < decided < ran
    # The decision went through the member's command registry, which resumed the run.
    (answer,) = printer.answers  # type: ignore[attr-defined]
    assert (answer.member, answer.line) == ("@Writer", "/approve call-run-fib")
    assert answer.answer.startswith("Approved exec_command (call call-run-fib) as requested.")
    assert "The run resumed: fib.py is written and its self-check passes" in answer.answer
    assert "✔ call call-run-fib (exec_command) approved" in lines[decided + 1]


def test_a_stale_edit_is_refused_with_the_diff_then_succeeds_after_a_read(demo_run: Run) -> None:
    printer, lines, root = demo_run
    (refusal,) = printer.refusals  # type: ignore[attr-defined]
    assert refusal.startswith("fib.py changed since you last read or wrote it")
    assert "nothing was written" in refusal
    # The diff shows the reviewer's change the writer had not seen.
    assert '-"""Fibonacci numbers, iteratively."""' in refusal
    assert "+" + demo.REVIEWED_DOCSTRING in refusal
    assert "Read fib.py again with workspace_read" in refusal

    last_task = _index(lines, "▶ task for @Writer: Do your last task")
    refused = _index(lines, "✘ @Writer's workspace_edit was refused", last_task)
    shown = _index(lines, '│ -"""Fibonacci numbers, iteratively."""', refused)
    reread = _index(lines, "@Writer → workspace_read(path=", shown)
    edited = _index(lines, "[file] fib.py edited", reread)
    assert last_task < refused < shown < reread < edited
    # Nothing was lost: the reviewer's docstring and the writer's function are both there.
    final = (root / "demo" / "fib.py").read_text()
    assert final.startswith(demo.REVIEWED_DOCSTRING)
    assert "def fib_list(n: int) -> list[int]:" in final


def test_usage_summary_counts_every_model_request(demo_run: Run) -> None:
    printer, lines, _ = demo_run
    usage = printer.usage  # type: ignore[attr-defined]
    assert len(usage) == 22
    assert {event.model_name for event in usage} == {
        "scripted-@Lead",
        "scripted-@Writer",
        "scripted-@Reviewer",
    }
    summary_line = next(line for line in lines if line.startswith("  total:"))
    # Six runs: one per task and the notification, plus the run the approval resumed.
    assert "22 requests over 6 runs, $0.000000" in summary_line
