"""Build every distribution of the workspace (sdist and wheel) into ``dist/``.

Usage: python scripts/build_all.py [--out DIR]

Builds each member with ``uv build --package <name> --no-sources`` (as the release
workflow does, so a build that only works against workspace sources fails here) and checks
that each produced exactly one sdist and one wheel.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from _workspace import ROOT, members


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    out: Path = args.out.resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    built = 0
    for member in members():
        command = [
            sys.executable, "-m", "uv", "build", "--package", member.name,
            "--no-sources", "--out-dir", str(out), "--quiet",
        ]  # fmt: skip
        if subprocess.call(command, cwd=ROOT) != 0:
            print(f"build failed: {member.name}")
            return 1
        stem = member.name.replace("-", "_")
        wheels = list(out.glob(f"{stem}-{member.version}-*.whl"))
        sdists = list(out.glob(f"{stem}-{member.version}.tar.gz"))
        if len(wheels) != 1 or len(sdists) != 1:
            print(f"{member.name}: expected one wheel and one sdist, got {wheels + sdists}")
            return 1
        built += 1
    print(f"built {built} distributions ({built * 2} files) into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
