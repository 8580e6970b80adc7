"""The kit's helpers give exact answers at their edges.

The local vector store embeds by counting concepts, keeps a hit scoring exactly the
threshold, and answers receipts, stats, deletions and misuse as the protocol says; the
batched-load report draws its windows and its targets where documented; and a growth
benchmark's command line and growth report say what they measure and fail a missed target
whatever comes after it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.growth import Target, bench_options, growth_report
from akgentic.tool.core.testing import (
    LocalVectorStore,
    concept_embedding,
    spawn_local_vector_store,
)
from akgentic.tool.core.testing.batch_load import GROWTH_TARGET, batch_growth, batched_load_rows
from akgentic.tool.core.vector_store import (
    CollectionConfig,
    UnknownCollectionError,
    VectorDocument,
    VectorQuery,
)

# -- the local vector store -----------------------------------------------------------------

SMALL = CollectionConfig(dimension=64)


def _bucket(vector: list[float]) -> int:
    (index,) = [i for i, value in enumerate(vector) if value]
    return index


def test_concept_embedding_counts_each_concept_and_stays_positive() -> None:
    dog = _bucket(concept_embedding("dog", 64))
    car = _bucket(concept_embedding("car", 64))
    assert dog != car
    mixed = concept_embedding("dog puppy car", 64)
    assert mixed[dog] == pytest.approx(2 / math.sqrt(5))
    assert mixed[car] == pytest.approx(1 / math.sqrt(5))
    assert all(value >= 0.0 for value in mixed)


def test_concept_embedding_places_a_word_in_the_same_bucket_in_every_process() -> None:
    # SHA-256 of the concept, read as a hexadecimal number, modulo the dimension.
    assert _bucket(concept_embedding("puppy", 16)) == 2  # "canine"
    assert _bucket(concept_embedding("automobile", 16)) == 9  # "vehicle"
    assert _bucket(concept_embedding("kit", 1000)) == 836


@pytest.fixture
def store(actor_system: ActorSystem, orchestrator: ActorAddress) -> LocalVectorStore:
    local = spawn_local_vector_store(actor_system, orchestrator)
    local.create_collection("c", SMALL)
    return local


def test_the_store_joins_the_team_cast_as_a_vector_store(store: LocalVectorStore) -> None:
    assert store.myAddress.role == "VectorStore"


def test_receipts_and_stats_report_nothing_pending_or_failed(store: LocalVectorStore) -> None:
    receipt = store.upsert(
        "c", [VectorDocument(ref="a", text="dog"), VectorDocument(ref="b", text="car")]
    )
    assert (receipt.accepted, receipt.pending) == (2, 0)
    stats = store.collection_stats("c")
    assert (stats.documents, stats.embedded, stats.pending, stats.failed) == (2, 2, 0, 0)


def test_delete_counts_the_refs_it_removed_only(store: LocalVectorStore) -> None:
    docs = [VectorDocument(ref=ref, text=ref) for ref in ("a", "b", "c")]
    store.upsert("c", docs)
    assert store.delete("c", ["a", "b", "missing"]) == 2
    assert store.refs("c") == ["c"]
    assert store.delete("c", ["gone", "missing"]) == 0


def test_an_unknown_collection_is_named(store: LocalVectorStore) -> None:
    with pytest.raises(UnknownCollectionError, match="nowhere"):
        store.refs("nowhere")


def test_a_search_without_text_is_refused_saying_so(store: LocalVectorStore) -> None:
    with pytest.raises(ValueError, match=r"^LocalVectorStore searches by text only$"):
        store.search("c", VectorQuery(vector=(1.0,) * 64))


def test_a_hit_scoring_exactly_the_threshold_is_kept(store: LocalVectorStore) -> None:
    store.upsert("c", [VectorDocument(ref="a", text="dog car"), VectorDocument(ref="b", text="x")])
    query = concept_embedding("puppy", 64)
    exact = sum(a * b for a, b in zip(query, concept_embedding("dog car", 64), strict=True))
    result = store.search("c", VectorQuery(text="puppy", score_threshold=exact))
    assert [hit.ref for hit in result.hits] == ["a"]
    assert result.hits[0].score == exact


def test_a_degraded_store_answers_with_an_empty_list_of_hits(store: LocalVectorStore) -> None:
    store.set_degraded("provider down")
    result = store.search("c", VectorQuery(text="dog"))
    assert (result.status, result.hits, result.reason) == ("degraded", [], "provider down")


# -- batched loads ---------------------------------------------------------------------------

# Two warm-up batches, then 2..12 (batches 3 to 13), then 130..240.
TIMINGS = [100.0, 100.0, *[float(i) for i in range(2, 13)], *[10.0 * i for i in range(13, 25)]]


def test_growth_takes_the_last_ten_over_batches_three_to_twelve() -> None:
    # last ten: 150..240, median 195; batches 3 to 12: 2..11, median 6.5
    assert batch_growth(TIMINGS) == pytest.approx(195 / 6.5)


def test_twelve_batch_times_are_enough() -> None:
    assert batch_growth([1.0, 1.0, *[2.0] * 10]) == pytest.approx(1.0)


def _rows(
    capsys: pytest.CaptureFixture[str], **overrides: float
) -> tuple[bool, list[dict[str, Any]]]:
    figures = {"total": 0.5, "floor": 0.25, "growth": 1.0, "target_seconds": 0.7, **overrides}
    met = batched_load_rows(
        "plan",
        "20 tasks",
        total=figures["total"],
        floor=figures["floor"],
        timings=TIMINGS,
        growth=figures["growth"],
        target_seconds=figures["target_seconds"],
    )
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("BENCH ")]
    return met, [json.loads(line.removeprefix("BENCH ")) for line in lines]


def test_a_load_taking_exactly_its_target_time_misses_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    met, (load, _) = _rows(capsys, total=0.7, target_seconds=0.7)
    assert met is False
    assert load["ok"] is False


def test_a_growth_equal_to_the_target_meets_it(capsys: pytest.CaptureFixture[str]) -> None:
    met, (_, growth) = _rows(capsys, growth=GROWTH_TARGET)
    assert met is True
    assert growth["ok"] is True


def test_the_growth_row_shows_the_last_ten_batches_against_the_early_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, (_, growth) = _rows(capsys)
    assert growth["median_ms"] == pytest.approx(195 * 1e3)
    assert growth["baseline"] == "the early batches"


# -- growth benchmarks -------------------------------------------------------------------------


def test_bench_options_default_to_the_cpu_clock_at_full_size() -> None:
    options = bench_options("bench", [])
    assert (options.quick, options.clock, options.scale) == (False, "cpu", 1)
    options = bench_options("bench", ["--quick", "--clock", "wall"])
    assert (options.quick, options.clock, options.scale) == (True, "wall", 20)


def test_bench_options_refuse_an_unknown_clock(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench_options("bench", ["--clock", "sundial"])
    assert "invalid choice: 'sundial'" in capsys.readouterr().err


def test_bench_options_help_says_what_each_option_does(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        bench_options("Times the plan tool.", ["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "Times the plan tool." in shown
    assert "1/20 of the sizes (smoke run)" in shown
    assert "what the times measure" in shown
    assert "{cpu,wall}" in shown


def test_a_missed_target_fails_the_report_whatever_follows() -> None:
    sizes = [10.0, 100.0]
    rows = [{"quad": 1.0, "flat": 1.0}, {"quad": 100.0, "flat": 1.0}]
    lines, ok = growth_report(sizes, rows, {"quad": Target(1.2), "flat": Target(1.2)})
    assert ok is False
    assert lines[1].endswith("MISSED")
    assert lines[2].endswith("(target <= 1.2)")


def test_the_report_heads_its_lines_and_prints_a_bare_exponent_without_a_target() -> None:
    lines, ok = growth_report([10.0, 100.0], [{"m": 1.0}, {"m": 10.0}], {"m": None})
    assert ok is True
    assert lines[0] == "  growth exponents (slope of log metric vs log size):"
    assert lines[1] == f"    {'m':18} {1.0:5.2f}"
