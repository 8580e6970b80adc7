"""Run one package's tests in an environment holding only that package.

Usage: python scripts/test_package.py <distribution> [pytest args...]
       python scripts/test_package.py --all

The environment (``.venvs/<distribution>``) gets the package, its extras, its own ``dev``
dependency group and nothing else from the workspace, so a test or module that imports a
sibling package it does not declare fails here, as it would for a user installing the
package alone. The CI workflow runs the same thing as a matrix job per package.
"""

from __future__ import annotations

import os
import subprocess
import sys

from _workspace import ROOT, members


def run(distribution: str, pytest_args: list[str]) -> int:
    env = dict(os.environ, UV_PROJECT_ENVIRONMENT=str(ROOT / ".venvs" / distribution))
    sync = [
        sys.executable, "-m", "uv", "sync", "--quiet", "--locked",
        "--package", distribution, "--all-extras",
    ]  # fmt: skip
    if subprocess.call(sync, cwd=ROOT, env=env) != 0:
        return 1
    python = ROOT / ".venvs" / distribution / "bin" / "python"
    tests = ROOT / "packages" / distribution / "tests"
    command = [str(python), "-m", "pytest", str(tests), "-q", "-p", "no:randomly", *pytest_args]
    return subprocess.call(command, cwd=ROOT)


def main(argv: list[str]) -> int:
    packages = [m.name for m in members() if (ROOT / "packages" / m.name).is_dir()]
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    if argv[0] == "--all":
        failed = [name for name in packages if run(name, argv[1:]) != 0]
        print("isolated test runs failed: " + ", ".join(failed) if failed else "isolated runs ok")
        return 1 if failed else 0
    if argv[0] not in packages:
        print(f"unknown package {argv[0]!r}; one of: {', '.join(packages)}")
        return 2
    return run(argv[0], argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
