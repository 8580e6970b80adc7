"""Cost of restoring an agent from its event log, against physical-limit baselines.

    .venv/bin/python packages/akgentic-llm/benchmarks/bench_restore.py [--quick]

The log holds 5,000 turns (10,000 messages, each response with its usage event) with a
``sliding_window`` compaction every 1,000 messages and a clear in the middle, as a long-lived
agent would leave behind. Three medians and ratios:

1. ``ContextManager.replay(log)`` vs the least any replay must do: walk the log once and
   append every message to a list (same log, same isinstance filter);
2. ``LifetimeBudgetCapability.restore(log)`` vs one loop summing tokens and collecting run ids;
3. ``fold_compaction`` of a 10,000-message history (``sliding_window``, keep 4) vs copying the
   list once (``list(messages)``), the floor for any fold that returns a new list.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.usage import RequestUsage

from akgentic.llm.capabilities.budget import LifetimeBudgetCapability
from akgentic.llm.compaction import fold_compaction
from akgentic.llm.context import ContextManager
from akgentic.llm.event import (
    LlmContextClearedEvent,
    LlmContextCompactedEvent,
    LlmMessageEvent,
    LlmUsageEvent,
)

TURNS = 5_000


def _build_log(turns: int) -> list[object]:
    log: list[object] = [
        LlmMessageEvent(ModelRequest(parts=[SystemPromptPart("You are helpful.")]), "r0")
    ]
    for turn in range(turns):
        run_id = f"r{turn}"
        log.append(LlmMessageEvent(ModelRequest(parts=[UserPromptPart(f"q{turn}")]), run_id))
        response = ModelResponse(
            parts=[TextPart(f"a{turn}")], usage=RequestUsage(input_tokens=100, output_tokens=20)
        )
        log.append(LlmMessageEvent(response, run_id))
        log.append(LlmUsageEvent(run_id, "m", None, 100, 20))
        if turn % 500 == 499:
            log.append(
                LlmContextCompactedEvent(
                    run_id=run_id,
                    strategy_id="sliding_window",
                    summary="[older messages dropped]",
                    replaced_message_count=990,
                    summarizer_prompt_version="v1",
                )
            )
        if turn == turns // 2:
            log.append(LlmContextClearedEvent(run_id=run_id, cleared_message_count=0))
    return log


def _median(fn: Callable[[], Any], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def _report(label: str, ours: float, baseline: float) -> None:
    print(
        f"{label:<44} ours {ours * 1e3:8.2f} ms   baseline {baseline * 1e3:8.2f} ms   "
        f"ratio {ours / baseline:5.2f}x"
    )
    row = {
        "workload": f"restore: {label.split('. ', 1)[-1]}",
        "median_ms": round(ours * 1e3, 4),
        "target": None,
        "ratio": round(ours / baseline, 3),
        "baseline": "the same work on bare lists (floor)",
        "ok": None,
    }
    print("BENCH " + json.dumps(row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    args = parser.parse_args()
    repeats = 3 if args.quick else 9
    log = _build_log(TURNS)
    print(f"event log: {len(log)} events, {2 * TURNS + 1} messages")

    def replay() -> None:
        ContextManager().replay(log)

    def replay_floor() -> None:
        messages: list[ModelMessage] = []
        for event in log:
            if isinstance(event, LlmMessageEvent):
                messages.append(event.message)

    _report("1. ContextManager.replay", _median(replay, repeats), _median(replay_floor, repeats))

    def restore() -> None:
        LifetimeBudgetCapability().restore(log)

    def restore_floor() -> None:
        runs: set[str | None] = set()
        tokens = 0
        for event in log:
            if isinstance(event, LlmUsageEvent):
                runs.add(event.run_id)
                tokens += event.input_tokens + event.output_tokens

    _report(
        "2. LifetimeBudgetCapability.restore",
        _median(restore, repeats),
        _median(restore_floor, repeats),
    )

    history: list[ModelMessage] = [
        event.message for event in log[: 3 * TURNS] if isinstance(event, LlmMessageEvent)
    ]
    fold_event = LlmContextCompactedEvent(
        run_id=None,
        strategy_id="sliding_window",
        summary="[older messages dropped]",
        replaced_message_count=len(history) - 5,
        summarizer_prompt_version="v1",
    )

    def fold() -> None:
        fold_compaction(history, fold_event)

    def fold_floor() -> None:
        list(history)

    _report(
        f"3. fold_compaction ({len(history)} messages)",
        _median(fold, repeats),
        _median(fold_floor, repeats),
    )


if __name__ == "__main__":
    main()
