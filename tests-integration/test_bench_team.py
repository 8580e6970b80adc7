"""The team-scale benchmark's quick mode, in-process at three members: it runs and reports.

The figures themselves are the benchmark's business; this checks that both flavours
assemble, that every member takes its turn (the benchmark counts the notes written and
raises otherwise), and that the table and the chart come out of the rows.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "scripts" / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_team  # noqa: E402


@pytest.fixture(autouse=True)
def _placeholder_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # The members' ReactAgents are configured for OpenAI; the scripted model answers.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")


def test_quick_mode_measures_both_flavours(tmp_path: Path) -> None:
    logged: list[str] = []
    rows = bench_team.run([3], repeats=1, isolate=False, log=logged.append)

    assert [(row.kind, row.members) for row in rows] == [("ours", 3), ("anchor", 3)]
    for row in rows:
        assert row.assembly_ms > 0
        assert row.turns_per_s > 0
        assert row.p95_ms > 0
        assert row.turn_cpu_ms > 0  # the whole process's CPU over the burst, per turn
    ours = rows[0]
    assert ours.threads >= 3  # one thread per member actor (plus the team's own)
    assert len(logged) == 2

    table = bench_team.table(rows)
    assert table.splitlines()[2].startswith("| 3 | ")
    assert "CPU ms/turn: ours / anchor" in table.splitlines()[0]
    targets = bench_team.targets_table(rows, at=3)
    assert "| assembly per member | ≤ 5 ms |" in targets
    chart = bench_team.chart(rows, tmp_path / "team.svg")
    assert chart.read_text().lstrip().startswith("<?xml")


def test_sizes_must_be_positive_integers() -> None:
    with pytest.raises(SystemExit):
        bench_team.main(["--sizes", "0,10"])
    with pytest.raises(SystemExit):
        bench_team.main(["--sizes", "ten"])
