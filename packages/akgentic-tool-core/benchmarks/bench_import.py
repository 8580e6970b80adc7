"""Cold import time of the tool layer's entry points, each in a fresh interpreter.

Usage: python packages/akgentic-tool-core/benchmarks/bench_import.py [--runs N]

Prints the median wall time of ``import akgentic.tool`` and ``import akgentic.tool.core``
over N fresh processes, against the baseline of importing what they stand on
(``akgentic.core`` and ``pydantic``), plus the slowest modules from ``-X importtime``.
Target: under 0.3 s for both.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

# The BENCH row lives in the testing kit; the imports measured below run in fresh
# interpreters, so loading it here costs them nothing.
from akgentic.tool.core.testing.benchmark import bench_row

TARGET_SECONDS = 0.3


def cold_import(module: str | None) -> float:
    code = f"import {module}" if module else "pass"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def self_time_top(module: str, count: int = 5) -> list[tuple[int, str]]:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[int, str]] = []
    for line in result.stderr.splitlines()[1:]:
        parts = line.split("|")
        if len(parts) == 3:
            rows.append((int(parts[0].split(":")[1]), parts[2].strip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    baseline = statistics.median(cold_import(None) for _ in range(args.runs))
    deps = statistics.median(cold_import("akgentic.core, pydantic") for _ in range(args.runs))
    print(f"interpreter start (baseline): {baseline * 1000:7.1f} ms")
    print(f"import akgentic.core+pydantic: {deps * 1000:7.1f} ms")
    first_use = statistics.median(
        cold_import("akgentic.tool; from akgentic.tool import ToolFactory")
        for _ in range(args.runs)
    )
    print(f"import akgentic.tool, then first use of ToolFactory: {first_use * 1000:7.1f} ms")
    for module in ("akgentic.tool", "akgentic.tool.core"):
        median = statistics.median(cold_import(module) for _ in range(args.runs))
        verdict = "ok" if median < TARGET_SECONDS else "OVER TARGET"
        bench_row(
            f"cold import {module}",
            median,
            ratio=median / deps,
            baseline="import akgentic.core + pydantic",
            target=f"< {TARGET_SECONDS * 1000:.0f} ms",
            ok=median < TARGET_SECONDS,
        )
        print(
            f"import {module:<20} median {median * 1000:7.1f} ms "
            f"(x{median / deps:.2f} of its dependencies, target < {TARGET_SECONDS * 1000:.0f} ms:"
            f" {verdict})"
        )
    print("slowest modules (self time, us) for import akgentic.tool:")
    for micros, name in self_time_top("akgentic.tool"):
        print(f"  {micros:8d}  {name}")


if __name__ == "__main__":
    main()
