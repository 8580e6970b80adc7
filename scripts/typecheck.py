"""Run ``mypy --strict`` over the source of every workspace member in one invocation.

One run (rather than one per package) lets mypy see the pkgutil-extended ``akgentic.tool``
namespace across all ``src/`` folders, using the root pyproject's ``mypy_path``. The
``examples/*`` members (plain top-level packages, not portions of ``akgentic``) are checked
in the same run, their ``src/`` folders added to the search path through ``MYPYPATH``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    packages = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "packages").glob("*/src"))
    examples = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "examples").glob("*/src"))
    search = [*examples, *filter(None, [os.environ.get("MYPYPATH")])]
    env = dict(os.environ, MYPYPATH=os.pathsep.join(search))
    command = [sys.executable, "-m", "mypy", "--strict", *packages, *examples]
    return subprocess.call(command, cwd=ROOT, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
