"""Local embedding throughput: texts per second through ``EmbeddingService(provider="local")``.

Workloads, each at batch sizes 1 and 64 (texts per ``embed`` call):

* the tiny word-level model that the tests write (``write_static_model``): the cost of
  the service, tokeniser and lookup path with an almost empty model;
* ``minishlab/potion-base-8M``, the default local model, only when it is already in the
  Hugging Face cache. This benchmark never downloads: downloads are switched off
  (``HF_HUB_OFFLINE=1``) before anything is loaded, and a model missing from the cache is
  reported as skipped.

Texts are short task-like sentences (8 to 20 words). Each figure is the median of
``--rounds`` timed passes over ``--texts`` texts, after one warm-up pass (which also
loads the model). Wall time is a few seconds on an idle 2-core machine.

Run: ``.venv/bin/python packages/akgentic-tool-vector-store/benchmarks/bench_embeddings.py``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"  # before any Hugging Face import: never download here

from akgentic.tool.vector_store.local_embeddings import (
    DEFAULT_LOCAL_MODEL,
    LocalModelError,
    load_local_model,
)
from akgentic.tool.vector_store.testing import TINY_CONCEPTS, write_static_model
from akgentic.tool.vector_store.vector import EmbeddingService

_FILLER = ["the", "for", "with", "team", "before", "friday", "check", "notes", "plan", "draft"]


def _texts(count: int) -> list[str]:
    rng = random.Random(7)
    words = [*TINY_CONCEPTS, *_FILLER]
    return [" ".join(rng.choices(words, k=rng.randint(8, 20))) for _ in range(count)]


def _throughput(service: EmbeddingService, texts: list[str], batch: int, rounds: int) -> float:
    def one_pass() -> float:
        started = time.perf_counter()
        for start in range(0, len(texts), batch):
            service.embed(texts[start : start + batch])
        return time.perf_counter() - started

    one_pass()  # warm-up: loads the model, fills caches
    return len(texts) / statistics.median(one_pass() for _ in range(rounds))


def _report(label: str, model: str, texts: list[str], rounds: int) -> None:
    for batch in (1, 64):
        service = EmbeddingService(model, "local", batch_size=batch)
        rate = _throughput(service, texts, batch, rounds)
        print(f"{label:<18} batch {batch:>3}  {rate:12,.0f} texts/s")
        row = {
            "workload": f"local embeddings: {label}, batch {batch}",
            "texts_per_second": round(rate, 1),
            "texts": len(texts),
            "ok": None,
        }
        print("BENCH " + json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=2_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    texts = _texts(args.texts)

    with tempfile.TemporaryDirectory(prefix="akgentic-bench-") as tmp:
        tiny = write_static_model(Path(tmp) / "tiny")
        _report("tiny model", str(tiny), texts, args.rounds)

    try:
        load_local_model(DEFAULT_LOCAL_MODEL)
    except LocalModelError as exc:
        print(f"{DEFAULT_LOCAL_MODEL}: skipped ({exc})")
        row = {"workload": f"local embeddings: {DEFAULT_LOCAL_MODEL}", "skipped": str(exc)}
        print("BENCH " + json.dumps(row))
        return
    _report("potion-base-8M", DEFAULT_LOCAL_MODEL, texts, args.rounds)


if __name__ == "__main__":
    main()
