"""The README's Python examples run as written (against the local Tavily stand-in)."""

from __future__ import annotations

import re
from pathlib import Path

from tavily_standin import FakeTavily

README = Path(__file__).parent.parent / "README.md"


def test_readme_examples_run(fake_tavily: FakeTavily) -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks, "the README has Python examples"
    # The first hit the stand-in returns points at this page; make it long enough to page.
    fake_tavily.pages["https://example.com/0"] = "word " * 6_000
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
    assert [r.path for r in fake_tavily.requests] == ["/search", "/extract"]
