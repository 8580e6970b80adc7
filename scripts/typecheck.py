"""Run ``mypy --strict`` over the source of every workspace package in one invocation.

One run (rather than one per package) lets mypy see the pkgutil-extended ``akgentic.tool``
namespace across all ``src/`` folders, using the root pyproject's ``mypy_path``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    sources = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "packages").glob("*/src"))
    command = [sys.executable, "-m", "mypy", "--strict", *sources]
    return subprocess.call(command, cwd=ROOT)


if __name__ == "__main__":
    raise SystemExit(main())
