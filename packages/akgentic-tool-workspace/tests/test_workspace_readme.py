"""The README's stale-write example runs as written and prints what its comments show."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _block(marker: str) -> str:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    return next(block for block in blocks if marker in block)


def _printed_comments(block: str) -> list[str]:
    """The `# ...` lines that follow each `print(...)`: the output the README promises."""
    shown: list[str] = []
    following_print = False
    for line in block.splitlines():
        if line.lstrip().startswith("print("):
            following_print = True
        elif following_print and line.startswith("# "):
            shown.append(line[2:])
        else:
            following_print = False
    return shown


def test_stale_write_example_runs_and_prints_what_it_says(roots: Path) -> None:
    block = _block("stale_write_protection=False")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {})
    promised = _printed_comments(block)
    assert len(promised) > 8
    assert out.getvalue().splitlines() == promised
    assert (roots / "notes" / "plan.md").read_text() == "- design the API\n- ship\n- write docs\n"
