"""Bump one distribution's version and every internal ``==`` pin on it.

Usage: python scripts/bump_version.py <distribution> <new-version> [--no-lock]

Edits the distribution's pyproject, then every workspace pyproject that pins it (the meta
package and dependent packages), then refreshes uv.lock unless --no-lock is given.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys

from _workspace import ROOT, members


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("distribution")
    parser.add_argument("version")
    parser.add_argument("--no-lock", action="store_true", help="do not run uv lock afterwards")
    args = parser.parse_args(argv)

    found = {m.name: m for m in members()}
    if args.distribution not in found:
        print(f"unknown distribution {args.distribution!r}; known: {', '.join(sorted(found))}")
        return 2
    if not re.fullmatch(r"\d+(\.\d+)*([ab]|rc|\.dev|\.post)?\d*", args.version):
        print(f"{args.version!r} is not a version number")
        return 2
    target = found[args.distribution]
    old = target.version

    text = target.path.read_text()
    text, count = re.subn(r'(?m)^version = "[^"]+"', f'version = "{args.version}"', text, count=1)
    if count != 1:
        print(f"no version line in {target.path}")
        return 1
    target.path.write_text(text)

    pin = re.compile(rf'"{re.escape(args.distribution)}(\[[^\]]*\])?=={re.escape(old)}"')
    for member in found.values():
        body = member.path.read_text()
        updated = pin.sub(lambda m: f'"{args.distribution}{m[1] or ""}=={args.version}"', body)
        if updated != body:
            member.path.write_text(updated)
            print(f"updated pins in {member.path.relative_to(ROOT)}")
    print(f"{args.distribution}: {old} -> {args.version}")

    if not args.no_lock:
        return subprocess.call([sys.executable, "-m", "uv", "lock"], cwd=ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
