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

Growth exponents come from :mod:`akgentic.tool.core.growth` (load, resume and index
build must stay at or below 1.2, keyword search below 1). Search is exact (every vector
is scored): its cost is one matrix-vector product over the whole collection, so it grows
linearly by nature; only an approximate index could do better.

Run: .venv/bin/python packages/akgentic-tool-vector-store/benchmarks/bench_scale.py
(``--quick`` for a smoke run at 1/20 of the sizes; times are the process's CPU time, all
threads included, unless ``--clock wall``).
"""

from __future__ import annotations

import gc
import sys
import tempfile
from functools import partial
from pathlib import Path

import numpy as np
import numpy.typing as npt

from akgentic.tool.core import growth
from akgentic.tool.core.vector_store import CollectionConfig, VectorDocument
from akgentic.tool.vector_store.backend import CollectionRecord
from akgentic.tool.vector_store.inmemory import InMemoryBackend

DOCUMENTS = 500_000
DIMENSION = 256
BATCH = 1_000
SEARCHES = 50
TOP_K = 10

WATCH = growth.Stopwatch()  # CPU time of the process unless --clock wall


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

    def rebuilt() -> InMemoryBackend:
        backend = InMemoryBackend.from_record("bench", record)
        backend.keyword_search("n000001", TOP_K, {})  # builds the word index
        return backend

    return growth.held_bytes(rebuilt)


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
        rebuilt, elapsed = WATCH.call(
            lambda: InMemoryBackend.from_record("bench", record, Path(folder))
        )
        assert rebuilt.counts() == backend.counts()
    return elapsed


def state_resume(record: CollectionRecord) -> float:
    """Seconds to rebuild the collection from the record the actor keeps in its state."""
    return WATCH.call(lambda: InMemoryBackend.from_record("bench", record))[1]


def measure(documents: int, rng: np.random.Generator) -> dict[str, float]:
    vectors = rng.standard_normal((documents, DIMENSION), dtype=np.float32)
    queries = rng.standard_normal((SEARCHES, DIMENSION), dtype=np.float32)
    config = CollectionConfig(dimension=DIMENSION)
    gc.collect()
    backend, loaded = WATCH.call(lambda: load(config, vectors))
    assert backend.counts() == (documents, documents)
    record = backend.record()
    from_state = state_resume(record)
    memory = resident_bytes(record)
    del record
    vector = WATCH.samples([partial(backend.vector_search, q, TOP_K, 0.0, {}) for q in queries])
    _, first_keyword = WATCH.call(lambda: backend.keyword_search("n000000", TOP_K, {}))
    names = [f"n{i * 7919 % documents:06d}" for i in range(SEARCHES)]
    keyword = WATCH.samples([partial(backend.keyword_search, n, TOP_K, {}) for n in names])
    assert all(len(backend.keyword_search(n, TOP_K, {})) == 1 for n in names)
    return {
        "load_s": loaded,
        "resume_state_s": from_state,
        "resume_file_s": file_resume(backend, vectors),
        "search_median_ms": vector.median_ms,
        "search_p95_ms": vector.p95_ms,
        "index_build_s": first_keyword,
        "keyword_median_ms": keyword.median_ms,
        "keyword_p95_ms": keyword.p95_ms,
        "memory_mb": memory / 1e6,
    }


EXACT = "exact search: linear by nature; target < 1 needs an approximate index"
METRICS = growth.metric_targets(
    {
        growth.NEAR_LINEAR: "load_s resume_state_s resume_file_s index_build_s",
        EXACT: "search_median_ms search_p95_ms",
        growth.SUBLINEAR: "keyword_median_ms keyword_p95_ms",
        None: "memory_mb",
    }
)


def main() -> int:
    options = growth.start(__doc__.splitlines()[0], WATCH)
    rng = np.random.default_rng(19)
    sizes = growth.size_ladder(DOCUMENTS, options.scale)
    print(f"in-memory vector store at scale: up to {sizes[-1]} x {DIMENSION} float32")
    rows = growth.measure_ladder(sizes, lambda documents: measure(documents, rng), "vectors")
    return growth.finish(sizes, rows, METRICS, passed="PASS (load, resume and keyword search)")


if __name__ == "__main__":
    sys.exit(main())
