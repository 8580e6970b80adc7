"""Run import-linter over the whole workspace with the contracts of the root pyproject.

Why a wrapper: our code lives in eleven ``src/`` folders that all contribute to the
``akgentic`` namespace, and ``akgentic`` itself is a regular package (akgentic-core ships
its ``__init__.py``). grimp, import-linter's graph builder, walks one directory per root
package and refuses namespace portions under a regular parent, so it cannot see the
workspace as installed. This script lays out a merged view — one ``akgentic`` folder
holding symlinks to akgentic-core and to every workspace portion — puts it first on the
path, and runs ``lint-imports`` on it with the root pyproject's contracts.

Usage: python scripts/lint_imports.py [--root DIR] [lint-imports options...]
``--root`` points at another checkout (tests use it on a temporary copy).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_ROOT = Path(__file__).resolve().parent.parent


def build_view(root: Path, view: Path) -> Path:
    """Create ``view/akgentic`` merging akgentic-core and every workspace portion."""
    target = view / "akgentic"
    target.mkdir(parents=True)
    spec = importlib.util.find_spec("akgentic.core")
    if spec is None or spec.origin is None:
        raise SystemExit("akgentic-core is not installed in this environment")
    core_dir = Path(spec.origin).parent
    (target / "__init__.py").write_text("")
    (target / "core").symlink_to(core_dir, target_is_directory=True)
    tool = target / "tool"
    tool.mkdir()
    for src in sorted(root.glob("packages/*/src/akgentic")):
        for entry in sorted(src.iterdir()):
            if entry.name == "tool":
                for part in sorted(entry.iterdir()):
                    if part.name != "__pycache__":
                        (tool / part.name).symlink_to(part, target_is_directory=part.is_dir())
            elif entry.name != "__pycache__":
                (target / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return view


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT)
    args, rest = parser.parse_known_args(argv)
    root: Path = args.root.resolve()
    with tempfile.TemporaryDirectory(prefix="akgentic-lint-") as tmp:
        view = build_view(root, Path(tmp))
        env = dict(
            os.environ, PYTHONPATH=os.pathsep.join([str(view), os.environ.get("PYTHONPATH", "")])
        )
        linter = Path(sys.executable).with_name("lint-imports")
        command = [str(linter), "--no-cache", "--no-logo", str(root / "pyproject.toml"), *rest]
        return subprocess.call(command, cwd=tmp, env=env)


if __name__ == "__main__":
    sys.exit(main())
