"""What SearchTool adds on top of a bare tavily-python call, against a local Tavily stand-in.

Run:  .venv/bin/python packages/akgentic-tool-search/benchmarks/bench_search_overhead.py

The stand-in (tests/tavily_standin.py) answers on 127.0.0.1, so the numbers are dominated by
local HTTP plus JSON work: they show the card's own cost (validation, clipping, result
models, error mapping), not Tavily's latency. Baselines are measured in the same run:
- search: TavilyClient.search vs the web_search tool;
- fetch: TavilyClient.extract vs web_fetch's first window vs a later window (cached page).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from tavily import TavilyClient
from tavily_standin import API_KEY, FakeTavily, make_handler

from akgentic.tool.search import SearchTool, WebFetch

ROUNDS = 200


def median_us(fn: Callable[[], Any], rounds: int = ROUNDS) -> float:
    for _ in range(10):
        fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1e6


def main() -> None:
    fake = FakeTavily()
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(fake))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    os.environ["TAVILY_API_KEY"] = API_KEY
    os.environ["TAVILY_API_BASE_URL"] = base
    page_url = "https://docs.example.com/big"
    fake.pages[page_url] = "lorem ipsum dolor sit amet " * 20_000  # ~540 kB of text

    raw = TavilyClient(api_key=API_KEY, api_base_url=base)
    tools = {t.__name__: t for t in SearchTool(web_fetch=WebFetch(max_chars=12_000)).get_tools()}

    raw_search = median_us(lambda: raw.search("actors", max_results=5))
    tool_search = median_us(lambda: tools["web_search"](query="actors", max_results=5))

    raw_extract = median_us(lambda: raw.extract(page_url, format="markdown"), rounds=50)
    fetch = tools["web_fetch"]

    def first_window() -> None:
        # A fresh tool each time, so the page is not cached: this includes binding the
        # tool and opening a new HTTP connection, which the raw baseline reuses.
        fresh = SearchTool(web_search=False, web_crawl=False).get_tools()[0]
        fresh(url=page_url)

    tool_first = median_us(first_window, rounds=50)
    fetch(url=page_url)
    tool_cached = median_us(lambda: fetch(url=page_url, offset=240_000))

    rows = [
        ("search  raw tavily-python  ", raw_search, None),
        ("search  web_search tool    ", tool_search, raw_search),
        ("fetch   raw extract (540kB)", raw_extract, None),
        ("fetch   web_fetch, uncached", tool_first, raw_extract),
        ("fetch   web_fetch, cached  ", tool_cached, raw_extract),
    ]
    print(f"rounds: {ROUNDS} (fetch of the 540 kB page: 50)")
    for label, value, baseline in rows:
        ratio = f"   ratio vs raw {value / baseline:6.3f}" if baseline else ""
        print(f"{label} median {value:9.0f} us{ratio}")
        if baseline:
            row = {
                "workload": label.strip(),
                "median_ms": round(value / 1000, 4),
                "target": None,
                "ratio": round(value / baseline, 3),
                "baseline": "raw tavily-python client",
                "ok": None,
            }
            print("BENCH " + json.dumps(row))
    server.shutdown()


if __name__ == "__main__":
    main()
