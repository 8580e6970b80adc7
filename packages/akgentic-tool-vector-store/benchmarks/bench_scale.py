"""How the in-memory vector store's costs grow with its size (issue 19, item 4).

At 1/8, 1/4, 1/2 and all of 500,000 documents of dimension 256 (the default local model's),
with precomputed random vectors (no embedding model), on ``InMemoryBackend``, the numpy
backend the store actor uses for ``backend="inmemory"``:

* load: documents stored in batches of 1,000 the way the actor stores them, the texts with
  ``put`` and then the batch's vectors with ``set_vectors`` (what an embedding returns);
* resume (state): ``InMemoryBackend.from_record`` on the record the actor keeps in its
  state (``persistence="actor_state"``: texts, metadata and the float32 matrix as bytes);
* resume (file): ``persistence="workspace"``, the collection written with ``flush`` and
  read back by ``from_record`` (only the load is timed);
* search: ``vector_search`` top-10, median and p95 over 50 queries;
* keyword: ``keyword_search`` (what every text search also runs, and all a degraded one
  answers), median and p95 over 50 queries each naming one document, after a first query
  that builds the word index (timed as ``index``);
* memory: what the collection holds after the state resume, its word index built
  (tracemalloc, which numpy reports its buffers to).

The growth exponent of a metric is the slope of log(metric) against log(size) over the
four sizes (1 = linear; the targets: at most 1.2 for load, below 1 for search). Search is
exact (every vector is scored): its cost is one matrix-vector product over the whole
collection, so it grows linearly by nature; only an approximate index could do better.

Run: .venv/bin/python packages/akgentic-tool-vector-store/benchmarks/bench_scale.py
(``--quick`` for a smoke run at 1/20 of the sizes; times are the process's CPU time, all
threads included, unless ``--clock wall``).
"""

from __future__ import annotations

import argparse
import gc
import math
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import numpy.typing as npt

from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument
from akgentic.tool.vector_store.backend import CollectionRecord
from akgentic.tool.vector_store.inmemory import InMemoryBackend

DOCUMENTS = 500_000
DIMENSION = 256
BATCH = 1_000
SEARCHES = 50
TOP_K = 10
FRACTIONS = (8, 4, 2, 1)

# What the figures measure: CPU seconds of this process, all its threads (the actors'
# included), by default, because other processes on a shared machine inflate wall times
# at random and would bend the growth exponents; ``--clock wall`` measures wall time.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def load(config: CollectionConfig, vectors: npt.NDArray[np.float32]) -> InMemoryBackend:
    backend = InMemoryBackend("bench", config)
    for start in range(0, len(vectors), BATCH):
        refs = [f"doc-{i}" for i in range(start, min(start + BATCH, len(vectors)))]
        backend.put(
            [
                VectorDocument(ref=ref, text=f"document n{i:06d} about topic t{i % 97}")
                for i, ref in enumerate(refs, start)
            ]
        )
        backend.set_vectors(refs, vectors[start : start + len(refs)])
    return backend


def resident_bytes(record: CollectionRecord) -> int:
    """Bytes held by a collection rebuilt from ``record``, its word index built."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        rebuilt = InMemoryBackend.from_record("bench", record)
        rebuilt.keyword_search("n000001", TOP_K, {})  # builds the word index
        held = tracemalloc.get_traced_memory()[0] - before
        del rebuilt
    finally:
        tracemalloc.stop()
    return held


def file_resume(backend: InMemoryBackend, vectors: npt.NDArray[np.float32]) -> float:
    with tempfile.TemporaryDirectory() as folder:
        config = CollectionConfig(dimension=DIMENSION, persistence="workspace")
        stored = InMemoryBackend("bench", config, Path(folder))
        stored.put([])
        stored._restore(  # the same contents, without a second load through put
            list(backend._docs),
            [doc.text for doc in backend._docs.values()],
            [doc.metadata for doc in backend._docs.values()],
            backend._index.refs,
            vectors,
        )
        stored.flush()
        record = stored.record()
        del stored
        began = clock()
        rebuilt = InMemoryBackend.from_record("bench", record, Path(folder))
        elapsed = clock() - began
        assert rebuilt.counts() == backend.counts()
    return elapsed


def measure(documents: int, rng: np.random.Generator) -> dict[str, float]:
    vectors = rng.standard_normal((documents, DIMENSION), dtype=np.float32)
    queries = rng.standard_normal((SEARCHES, DIMENSION), dtype=np.float32)
    config = CollectionConfig(dimension=DIMENSION)
    gc.collect()
    began = clock()
    backend = load(config, vectors)
    loaded = clock() - began
    assert backend.counts() == (documents, documents)
    record = backend.record()
    began = clock()
    resumed = InMemoryBackend.from_record("bench", record)
    from_state = clock() - began
    del resumed
    memory = resident_bytes(record)
    del record
    times: list[float] = []
    for query in queries:
        t0 = clock()
        hits = backend.vector_search(query, TOP_K, 0.0, {})
        times.append(clock() - t0)
        assert len(hits) == TOP_K
    times.sort()
    began = clock()
    backend.keyword_search("n000000", TOP_K, {})
    first_keyword = clock() - began
    words: list[float] = []
    for i in range(SEARCHES):
        t0 = clock()
        hits = backend.keyword_search(f"n{i * 7919 % documents:06d}", TOP_K, {})
        words.append(clock() - t0)
        assert len(hits) == 1
    words.sort()
    from_file = file_resume(backend, vectors)
    return {
        "load_s": loaded,
        "resume_state_s": from_state,
        "resume_file_s": from_file,
        "search_median_ms": statistics.median(times) * 1e3,
        "search_p95_ms": times[int(0.95 * len(times))] * 1e3,
        "index_build_s": first_keyword,
        "keyword_median_ms": statistics.median(words) * 1e3,
        "keyword_p95_ms": words[int(0.95 * len(words))] * 1e3,
        "memory_mb": memory / 1e6,
    }


def exponent(sizes: list[int], values: list[float]) -> float:
    """Least-squares slope of log(value) against log(size)."""
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(v, 1e-12)) for v in values]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


METRICS = (
    "load_s",
    "resume_state_s",
    "resume_file_s",
    "search_median_ms",
    "search_p95_ms",
    "index_build_s",
    "keyword_median_ms",
    "keyword_p95_ms",
    "memory_mb",
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="1/20 of the sizes (smoke run)")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="cpu", help="what the times measure"
    )
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    print(f"times: {args.clock} ({'process CPU time' if args.clock == 'cpu' else 'wall clock'})")
    scale = 20 if args.quick else 1
    rng = np.random.default_rng(19)
    rows: list[tuple[int, dict[str, float]]] = []
    print(f"in-memory vector store at scale: up to {DOCUMENTS // scale} x {DIMENSION} float32")
    print(
        f"  {'vectors':>8} {'load s':>7} {'resume state s':>15} {'resume file s':>14}"
        f" {'search ms':>10} {'p95':>7} {'index s':>8} {'keyword ms':>11} {'p95':>7}"
        f" {'memory MB':>10}"
    )
    for fraction in FRACTIONS:
        documents = DOCUMENTS // scale // fraction
        row = measure(documents, rng)
        rows.append((documents, row))
        print(
            f"  {documents:>8} {row['load_s']:7.2f} {row['resume_state_s']:15.3f}"
            f" {row['resume_file_s']:14.3f} {row['search_median_ms']:10.3f}"
            f" {row['search_p95_ms']:7.3f} {row['index_build_s']:8.3f}"
            f" {row['keyword_median_ms']:11.3f} {row['keyword_p95_ms']:7.3f}"
            f" {row['memory_mb']:10.1f}",
            flush=True,
        )
    sizes = [size for size, _ in rows]
    ok = True
    print("  growth exponents (slope of log metric vs log size):")
    for metric in METRICS:
        slope = exponent(sizes, [row[metric] for _, row in rows])
        verdict = ""
        if metric.endswith("_s"):
            passed = slope <= 1.2
            verdict = "  (target <= 1.2)" + ("" if passed else "  MISSED")
            ok &= passed
        elif metric.startswith("search"):
            verdict = "  (exact search: linear by nature; target < 1 needs an approximate index)"
        elif metric.startswith("keyword"):
            passed = slope < 1.0
            verdict = "  (target < 1)" + ("" if passed else "  MISSED")
            ok &= passed
        print(f"    {metric:18} {slope:5.2f}{verdict}")
    print("PASS (load, resume and keyword search)" if ok else "FAIL: targets missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
