"""Qdrant embedded against the numpy in-memory index, measured in the same run.

Workload: top-10 cosine search over 50,000 x 256 float32 vectors, 100 queries, through
the store's own backends (``QdrantBackend`` on ``location=":memory:"`` and on ``path=``,
``InMemoryBackend``), so both sides build the same hits (ref, score, text, metadata).
The in-memory backend is the baseline: ratios are Qdrant / in-memory (lower is better).

* search: one query at a time, the sides taking turns query by query (and swapping who
  goes first), so load from elsewhere on the machine hits all alike;
* loading: writing the 50,000 documents with their vectors, in batches of 1,000.

Both answer the same top-10 first (Qdrant's local mode is exact, like the index), or the
run fails. Wall time is about 100 s on a shared 2-core machine, two thirds of it loading
the on-disk store (Qdrant's local mode writes each point through SQLite). Its warning
that local mode is not meant for more than 20,000 points is expected here and silenced.

Run: ``.venv/bin/python packages/akgentic-tool-vector-store/benchmarks/bench_qdrant.py``
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import uuid
import warnings
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument
from akgentic.tool.vector_store.backend import CollectionBackend, CollectionRecord
from akgentic.tool.vector_store.inmemory import InMemoryBackend
from akgentic.tool.vector_store.qdrant import QdrantBackend, QdrantSettings

TOP_K = 10
BATCH = 1000


def _load(backend: CollectionBackend, data: npt.NDArray[np.float32]) -> float:
    """Write every row as a document (with its vector); the seconds it took."""
    started = time.perf_counter()
    for start in range(0, len(data), BATCH):
        backend.put(
            [
                VectorDocument(
                    ref=f"doc-{row}",
                    text=f"document {row}",
                    metadata={"shard": row % 8},
                    vector=data[row].tolist(),
                )
                for row in range(start, min(start + BATCH, len(data)))
            ]
        )
    return time.perf_counter() - started


def _timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vectors", type=int, default=50_000)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="Local mode is not recommended")

    rng = np.random.default_rng(7)
    data = rng.standard_normal((args.vectors, args.dim), dtype=np.float32)
    queries = rng.standard_normal((args.queries, args.dim), dtype=np.float32)
    config = CollectionConfig(dimension=args.dim, backend="qdrant")
    record = CollectionRecord(config=config)
    team = uuid.uuid4()

    with tempfile.TemporaryDirectory() as directory:
        sides: dict[str, CollectionBackend] = {
            "inmemory": InMemoryBackend("bench", CollectionConfig(dimension=args.dim)),
            "qdrant :memory:": QdrantBackend.connect(
                "bench", record, team_id=team, settings=QdrantSettings(location=":memory:")
            ),
            "qdrant path=": QdrantBackend.connect(
                "bench", record, team_id=team, settings=QdrantSettings(path=directory)
            ),
        }
        try:
            loading = {label: _load(backend, data) for label, backend in sides.items()}
            _check_same_answers(sides, queries)
            samples = _search_samples(sides, queries)
        finally:
            for backend in sides.values():
                backend.close()

    print(
        f"top-{TOP_K} over {args.vectors:,} x {args.dim} float32, {args.queries} queries, "
        "one at a time, through the store's backends"
    )
    base = statistics.median(samples["inmemory"])
    print(f"{'inmemory (baseline)':<28} search {base * 1e3:8.3f} ms")
    for label in ("qdrant :memory:", "qdrant path="):
        mine = statistics.median(samples[label])
        print(f"{label:<28} search {mine * 1e3:8.3f} ms   ratio {mine / base:6.2f}x")
        _bench(f"qdrant embedded top-{TOP_K} search ({label})", mine, base)
        print(
            f"{label:<28} loading {loading[label]:7.2f} s   "
            f"(in-memory {loading['inmemory']:.2f} s, ratio "
            f"{loading[label] / loading['inmemory']:.1f}x)"
        )
        _bench(f"qdrant embedded loading ({label})", loading[label], loading["inmemory"])


def _check_same_answers(
    sides: dict[str, CollectionBackend], queries: npt.NDArray[np.float32]
) -> None:
    """A fast wrong answer is worth nothing: every side finds the same top-k refs."""
    for query in queries[:10]:
        answers = {
            label: {hit.ref for hit in backend.vector_search(query, TOP_K, -1.0, {})}
            for label, backend in sides.items()
        }
        expected = answers["inmemory"]
        for label, found in answers.items():
            assert found == expected, f"{label} disagrees with the in-memory index"


def _search_samples(
    sides: dict[str, CollectionBackend], queries: npt.NDArray[np.float32]
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {label: [] for label in sides}
    order = list(sides.items())
    for backend in sides.values():  # warm-up, outside the measurement
        backend.vector_search(queries[0], TOP_K, 0.0, {})
    for number, query in enumerate(queries):
        turn = order[number % len(order) :] + order[: number % len(order)]
        for label, backend in turn:
            samples[label].append(
                _timed(lambda b=backend, q=query: b.vector_search(q, TOP_K, 0.0, {}))
            )
    return samples


def _bench(workload: str, mine: float, base: float) -> None:
    row = {
        "workload": workload,
        "median_ms": round(mine * 1e3, 4),
        "target": "information",
        "ratio": round(mine / base, 3),
        "baseline": "InMemoryBackend (numpy VectorIndex), same data, same run",
        "ok": None,
    }
    print("BENCH " + json.dumps(row))


if __name__ == "__main__":
    main()
