"""Run every package's benchmark script and print one table.

Usage: python scripts/bench.py [--markdown] [--only NAME ...]

Each ``packages/*/benchmarks/bench_*.py`` runs in its own process (one at a time, so they
do not compete for the two cores). Besides its own report, a benchmark prints one line per
workload in a shared format::

    BENCH {"workload": ..., "median_ms": ..., "target": ..., "ratio": ...,
           "baseline": ..., "ok": ...}            (one line of JSON)

``ratio`` is the workload's median over the physical-limit baseline measured in the same
run (a bare pydantic-ai agent, raw numpy, ripgrep, a plain ``re`` scan, a bare list
append ...), ``target`` says what the issue asks for, and ``ok`` whether it was met. This
script gathers those lines into one table; ``--markdown`` prints it for the README.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(script: Path) -> tuple[list[dict[str, object]], str, float]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=900
    )
    rows = []
    for line in result.stdout.splitlines():
        if line.startswith("BENCH "):
            row = json.loads(line[len("BENCH ") :])
            row["package"] = script.parts[-3].removeprefix("akgentic-")
            rows.append(row)
    if result.returncode != 0:
        rows.append({"package": script.parts[-3], "workload": f"{script.name} FAILED", "ok": False})
    return rows, result.stdout + result.stderr, time.monotonic() - started


def _fmt(value: object, digits: int = 2) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(rows: list[dict[str, object]], markdown: bool) -> str:
    header = ["package", "workload", "median (ms)", "ratio", "baseline", "target", "met"]
    body = [
        [
            str(r.get("package", "")),
            str(r.get("workload", "")),
            _fmt(r.get("median_ms"), 3 if (r.get("median_ms") or 1) < 1 else 1),  # type: ignore[operator]
            _fmt(r.get("ratio")),
            str(r.get("baseline") or "-"),
            str(r.get("target") or "-"),
            "yes" if r.get("ok") else ("-" if r.get("ok") is None else "NO"),
        ]
        for r in rows
    ]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        return "\n".join(lines)
    widths = [max(len(h), *(len(c[i]) for c in body)) for i, h in enumerate(header)]
    out = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    out += ["  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) for cells in body]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--only", nargs="*", default=None, help="package names to run")
    parser.add_argument("--verbose", action="store_true", help="also print each report")
    args = parser.parse_args(argv)
    scripts = sorted(ROOT.glob("packages/*/benchmarks/bench_*.py"))
    if args.only:
        scripts = [s for s in scripts if any(name in s.parts[-3] for name in args.only)]
    rows: list[dict[str, object]] = []
    for script in scripts:
        found, output, seconds = run(script)
        print(
            f"ran {script.relative_to(ROOT)} in {seconds:.0f} s: {len(found)} workloads", flush=True
        )
        if args.verbose or not found:
            print(output)
        rows.extend(found)
    cores = len(os.sched_getaffinity(0))
    when = f"{datetime.now(UTC):%Y-%m-%d}"
    print(f"\nakgentic benchmarks, {when}, Python {platform.python_version()}, {cores} cores\n")
    print(table(rows, args.markdown))
    return 0 if all(r.get("ok") is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
