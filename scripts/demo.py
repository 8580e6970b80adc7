"""The akgentic demo: a small team works through a short task, printing what it does.

    python scripts/demo.py                       # scripted model: no key, no service, no network
    python scripts/demo.py --model openai:gpt-4o # the same team on a real provider (needs its key)
    python scripts/demo.py --semantic            # plus a vector store: search by meaning

Three ReactAgents join a real akgentic-core team. Their tools come from a ToolFactory over
WorkspaceTool, PlanningTool, KnowledgeGraphTool, NotificationTool and ExecTool (local mode),
so the plan, the graph, the notifications and the sandbox are real team tool actors. The
driver hands one task to each member in turn; the reviewer schedules a notification to
itself and handles it when it arrives. Everything the team does is printed as it happens;
the run ends with the files in the workspace and the usage and cost summary.

One line says what embeds for each vector store of the team. By default there is none
(planning and the graph search by keyword). ``--semantic`` adds the team's ``#VectorStore``:
with the scripted model it embeds with the local model2vec model (``minishlab/potion-base-8M``,
downloaded once into the Hugging Face cache, or the folder named by
``AKGENTIC_LOCAL_EMBEDDING_MODEL``); with a real model, with OpenAI or Azure when their key
is set, else locally.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from demo_team import LivePrinter, LlmMember, Script, Step, TaskMessage

from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.llm import ModelConfig, aggregate_usage
from akgentic.tool import ToolCard
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV, resolve_workspace_dir
from akgentic.tool.knowledge_graph import KnowledgeGraphTool
from akgentic.tool.notification import NotificationTool
from akgentic.tool.planning import PlanningTool
from akgentic.tool.sandbox import ExecTool
from akgentic.tool.workspace import WorkspaceTool

WORKSPACE_ID = "demo"

FIB_PY = '''"""Fibonacci numbers, iteratively."""


def fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


if __name__ == "__main__":
    assert [fib(i) for i in range(8)] == [0, 1, 1, 2, 3, 5, 8, 13]
    print(f"fib(10) = {fib(10)}: self-check passed")
'''

TASKS = {
    "@Lead": "Plan a tiny project: a fib.py module with a self-check. Create the tasks for "
    "@Writer and @Reviewer and record the project in the knowledge graph.",
    "@Writer": "Do your tasks in the plan: write fib.py in the workspace, run it in the "
    "sandbox, and mark your tasks completed with their outcome.",
    "@Reviewer": "Review fib.py, record the review in the knowledge graph, schedule a "
    "follow-up check for yourself in one second, and mark your review task started.",
}

SCRIPTS = {
    "@Lead": [
        Step(
            "update_planning",
            {
                "create_tasks": [
                    {
                        "description": "Write fib.py with fib(n) and a self-check",
                        "owner": "@Writer",
                    },
                    {"description": "Run fib.py in the sandbox", "owner": "@Writer"},
                    {"description": "Review fib.py and follow up", "owner": "@Reviewer"},
                ]
            },
        ),
        Step(
            "update_graph",
            {
                "create_entities": [
                    {
                        "name": "fib-project",
                        "entity_type": "Project",
                        "is_root": True,
                        "description": "A Fibonacci module with a self-check",
                    },
                    {"name": "fib.py", "entity_type": "File"},
                    {"name": "@Writer", "entity_type": "Agent"},
                    {"name": "@Reviewer", "entity_type": "Agent"},
                ],
                "create_relations": [
                    {
                        "from_entity": "fib-project",
                        "to_entity": "fib.py",
                        "relation_type": "contains",
                    },
                    {"from_entity": "@Writer", "to_entity": "fib.py", "relation_type": "writes"},
                    {"from_entity": "@Reviewer", "to_entity": "fib.py", "relation_type": "reviews"},
                ],
            },
        ),
        Step(text="Plan ready: three tasks assigned, project recorded in the graph."),
    ],
    "@Writer": [
        Step("workspace_write", {"path": "fib.py", "content": FIB_PY}),
        Step("exec_command", {"cmd": "python fib.py"}),
        Step(
            "update_planning",
            {
                "update_tasks": [
                    {"id": 1, "status": "completed", "output": "fib.py written"},
                    {"id": 2, "status": "completed", "output": "self-check passed"},
                ]
            },
        ),
        Step(text="fib.py is written and its self-check passes in the sandbox."),
    ],
    "@Reviewer": [
        Step("workspace_read", {"path": "fib.py"}),
        Step("workspace_grep", {"pattern": r"def fib\("}),
        Step(
            "update_graph",
            {
                "create_entities": [{"name": "review-1", "entity_type": "Review"}],
                "update_entities": [
                    {"name": "fib.py", "add_observations": ["iterative, O(n), self-checked"]}
                ],
                "create_relations": [
                    {"from_entity": "review-1", "to_entity": "fib.py", "relation_type": "covers"}
                ],
            },
        ),
        Step(
            "register_notification",
            {"content": "Follow up on the fib.py review", "delay_seconds": 1},
        ),
        Step("update_planning", {"update_tasks": [{"id": 3, "status": "started"}]}),
        Step(text="Review recorded; a follow-up is scheduled in one second."),
        # The notification arrives: a new run picks the script up here.
        Step("search_planning", {"owner": "@Reviewer"}),
        Step(
            "update_planning",
            {
                "update_tasks": [
                    {"id": 3, "status": "completed", "output": "reviewed, follow-up done"}
                ]
            },
        ),
        Step(text="Follow-up done: every task of the plan is completed."),
    ],
}


def _store_cards(semantic: bool, scripted: bool) -> list[ToolCard]:
    """The vector store card (for every member: binding it twice finds the same store)."""
    if not semantic:
        return []
    from akgentic.tool.vector_store import VectorStoreTool

    # The scripted run sets a placeholder OpenAI key for its LLM client: "auto" would take
    # it for an embedding key, so the scripted demo asks for local embeddings outright.
    return [VectorStoreTool(embedding_provider="local" if scripted else "auto")]


def _cards(member: str, semantic: bool = False, scripted: bool = True) -> list[ToolCard]:
    planning = PlanningTool(vector_store=semantic)
    graph = KnowledgeGraphTool(vector_store=semantic)
    stores = _store_cards(semantic, scripted)
    if member == "@Lead":
        return [*stores, planning, graph]
    if member == "@Writer":
        return [
            *stores,
            WorkspaceTool(workspace_id=WORKSPACE_ID),
            ExecTool(mode="local", workspace_id=WORKSPACE_ID),
            planning,
        ]
    return [
        *stores,
        WorkspaceTool(workspace_id=WORKSPACE_ID, read_only=True),
        planning,
        graph,
        NotificationTool(message_class="demo_team.TaskMessage", max_delay_seconds=60),
    ]


def _embedding_line(system: ActorSystem, orchestrator: Any) -> str:
    """One line: what each vector store of the team embeds with (or that there is none)."""
    team = system.proxy_ask(orchestrator, Orchestrator).get_team()
    stores = [member for member in team if member.name.startswith("#VectorStore")]
    if not stores:
        return "vector stores: none (plan and graph search by keyword; --semantic adds one)"
    from akgentic.tool.vector_store.actor import VectorStoreActor

    described = [
        f"{store.name} embeds with "
        + system.proxy_ask(store, VectorStoreActor).embedding_description()
        for store in stores
    ]
    return "vector stores: " + "; ".join(described)


def _wait(printer: LivePrinter, count: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while len(printer.replies) < count:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _model_config(spec: str) -> tuple[ModelConfig, bool]:
    if spec == "scripted":
        # The ReactAgents are built for OpenAI and their model is then replaced by the
        # script before any request; the OpenAI client is created but never contacted, and
        # it needs some key to be created at all.
        os.environ.setdefault("OPENAI_API_KEY", "not-used-by-the-scripted-demo")
        return ModelConfig(provider="openai", model="gpt-4o"), True
    provider, sep, model = spec.partition(":")
    if not sep or not model:
        raise SystemExit(f"--model takes provider:model (e.g. openai:gpt-4o), got {spec!r}")
    return ModelConfig(provider=provider, model=model), False  # type: ignore[arg-type]


def run(
    model: str = "scripted",
    workspaces: Path | None = None,
    write: Any = print,
    semantic: bool = False,
) -> LivePrinter:
    """Run the demo team once; return the printer holding what happened.

    ``semantic`` adds the team's vector store (see the module notes)."""
    model_cfg, scripted = _model_config(model)
    root = workspaces or Path(tempfile.mkdtemp(prefix="akgentic-demo-"))
    os.environ[WORKSPACES_ROOT_ENV] = str(root)
    printer = LivePrinter(write)
    system = ActorSystem()
    try:
        orchestrator = system.createActor(
            Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        system.proxy_ask(orchestrator, Orchestrator).subscribe(printer)
        members: dict[str, Any] = {}
        for name in SCRIPTS:
            address = system.proxy_ask(orchestrator, Orchestrator).createActor(
                LlmMember, config=BaseConfig(name=name, role=name.strip("@"))
            )
            member = system.proxy_ask(address, LlmMember)
            script = Script(name, SCRIPTS[name]) if scripted else None
            tools = member.equip(
                _cards(name, semantic, scripted),
                model_cfg,
                f"You are {name} in a small software team.",
                script,
            )
            write(f"{name} joins with tools: {', '.join(tools)}")
            members[name] = address
        write(_embedding_line(system, orchestrator))

        timeout = 15.0 if scripted else 180.0
        for index, (name, task) in enumerate(TASKS.items(), start=1):
            write(f"\n▶ task for {name}: {task}")
            system.tell(members[name], TaskMessage(content=task))
            if not _wait(printer, index, timeout):
                raise SystemExit(f"{name} did not answer within {timeout:.0f} s")
        write("\n… waiting for the reviewer's notification")
        if not _wait(printer, len(TASKS) + 1, timeout) and scripted:
            raise SystemExit("the notification never arrived")

        write(f"\nWorkspace {resolve_workspace_dir(WORKSPACE_ID)}:")
        for path in sorted(resolve_workspace_dir(WORKSPACE_ID).rglob("*")):
            if path.is_file():
                write(f"  {path.relative_to(root / WORKSPACE_ID)} ({path.stat().st_size} bytes)")
        summary = aggregate_usage(printer.usage, by_run=True)
        write("\nUsage and cost (aggregate_usage):")
        for model_name, usage in summary.by_model.items():
            write(
                f"  {model_name}: {usage.requests} requests, {usage.input_tokens} in / "
                f"{usage.output_tokens} out tokens, ${usage.estimated_cost_usd:.6f}"
            )
        write(
            f"  total: {summary.total_input_tokens + summary.total_output_tokens} tokens, "
            f"{summary.total_requests} requests over {len(summary.runs or [])} runs, "
            f"${summary.total_cost_usd:.6f}"
        )
        return printer
    finally:
        system.shutdown(timeout=10)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--model", default="scripted", help="'scripted' (default) or provider:model"
    )
    parser.add_argument("--workspaces", type=Path, default=None, help="where the team's files go")
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="add a vector store: plan and graph search by meaning (local model without a key)",
    )
    args = parser.parse_args(argv)
    run(args.model, args.workspaces, semantic=args.semantic)
    return 0


if __name__ == "__main__":
    sys.exit(main())
