"""What the model reads of a command's result."""

from __future__ import annotations

from akgentic.tool.sandbox.result import ExecResult


def test_only_trailing_newlines_are_trimmed_from_the_output() -> None:
    # Trailing spaces can matter (a diff, a table, a prompt without a newline): kept as is.
    result = ExecResult(command="x", exit_code=0, stdout="  indented  \n\n", stderr="warn \t\n")
    assert result.render() == "exit_code: 0\n--- stdout ---\n  indented  \n--- stderr ---\nwarn \t"


def test_a_command_without_output_says_so() -> None:
    assert ExecResult(command="true", exit_code=0).render() == "exit_code: 0\n(no output)"
