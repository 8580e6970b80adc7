"""The README's first command: the scripted demo team, end to end in a real actor system."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"
sys.path.insert(0, str(SCRIPTS))

import demo  # noqa: E402


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, list[str], Path]:
    root = tmp_path_factory.mktemp("demo")
    lines: list[str] = []
    printer = demo.run("scripted", root, write=lines.append)
    return printer, lines, root


def test_the_team_does_the_whole_task(demo_run: tuple[object, list[str], Path]) -> None:
    printer, lines, root = demo_run
    text = "\n".join(lines)
    fib = root / "demo" / "fib.py"
    assert fib.is_file()
    assert "def fib(n: int) -> int:" in fib.read_text()
    assert printer.files == ["fib.py"]  # type: ignore[attr-defined]
    # The sandbox really ran the file the workspace tool wrote.
    assert "[sandbox] fib(10) = 55: self-check passed" in text
    # The plan went from three pending tasks to three completed ones, in order.
    assert (
        text.index("ID 3 [pending]") < text.index("ID 3 [started]") < text.index("ID 3 [completed]")
    )
    assert "[plan #4] - ID 3 [completed]" in text
    # Knowledge-graph deltas were printed as they arrived.
    assert "[graph #1] + fib-project (Project)" in text
    assert "[graph #2] + review-1 -[covers]-> fib.py" in text
    # The notification the reviewer scheduled came back and was handled.
    kinds = [reply.kind for reply in printer.replies]  # type: ignore[attr-defined]
    assert kinds == ["task", "task", "task", "notification"]


def test_usage_summary_counts_every_model_request(demo_run: tuple[object, list[str], Path]) -> None:
    printer, lines, _ = demo_run
    usage = printer.usage  # type: ignore[attr-defined]
    assert len(usage) == 16
    assert {event.model_name for event in usage} == {
        "scripted-@Lead",
        "scripted-@Writer",
        "scripted-@Reviewer",
    }
    summary_line = next(line for line in lines if line.startswith("  total:"))
    assert "16 requests over 4 runs, $0.000000" in summary_line
