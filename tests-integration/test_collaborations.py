"""Tools cooperating at run time without importing one another, in real teams.

One test per run-time collaboration the top README names ("Boundaries, and how they are
enforced"): consumers of a ``#VectorStore`` they did not
create, the workspace shared by WorkspaceTool and ExecTool, a member hired through TeamTool
receiving a notification, and a team stopped and resumed with every tool's state intact.
"""

from __future__ import annotations

import math
import re
import shutil
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_card import AgentCard
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool import ToolCard, ToolFactory
from akgentic.tool.core.testing import (
    ToolTestAgent,
    eventually,
    record_team,
    resume_team,
    settle,
    spawn_tool_agent,
    stop_team,
)
from akgentic.tool.core.vector_store import CollectionConfig, VectorStoreConfig
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV
from akgentic.tool.knowledge_graph import KnowledgeGraphTool
from akgentic.tool.notification import NotificationTool
from akgentic.tool.planning import PlanningTool
from akgentic.tool.sandbox import ExecTool
from akgentic.tool.team import TeamTool
from akgentic.tool.vector_store import VectorStoreTool
from akgentic.tool.vector_store.actor import VectorStoreActor
from akgentic.tool.vector_store.vector import EmbeddingService
from akgentic.tool.workspace import WorkspaceTool

MESSAGE_CLASS = "akgentic_examples.demo_team.TaskMessage"  # content and a free-form type

# A deterministic "semantic" embedding (crc32, not hash(): str hashes are salted per process): words of one concept share a dimension, so
# 'automobile' is close to 'car' although no keyword matches.
CONCEPTS = [
    {"car", "automobile", "vehicle", "engine"},
    {"dog", "puppy", "canine", "pet"},
    {"invoice", "bill", "payment"},
]
DIMENSION = 8


def concept_embed(texts: list[str]) -> list[list[float]]:
    vectors = []
    for text in texts:
        vector = [0.0] * DIMENSION
        for word in re.findall(r"[a-z]+", text.lower()):
            hits = [i for i, concept in enumerate(CONCEPTS) if word in concept]
            for i in hits or [
                len(CONCEPTS) + zlib.crc32(word.encode()) % (DIMENSION - len(CONCEPTS))
            ]:
                vector[i] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        vectors.append([v / norm for v in vector])
    return vectors


class LocalEmbeddingStore(VectorStoreActor):
    """The team's store as a deployment would run it offline: a local embedding function."""

    def embedding_service(self) -> EmbeddingService:
        return EmbeddingService(embed_fn=concept_embed)


def tools_of(agent: ToolTestAgent, *cards: ToolCard) -> dict[str, Callable[..., Any]]:
    factory = ToolFactory(list(cards), observer=agent)
    return {tool.__name__: tool for tool in factory.get_tools()}


@pytest.fixture(autouse=True)
def workspaces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(WORKSPACES_ROOT_ENV, str(tmp_path / "workspaces"))
    return tmp_path / "workspaces"


def test_planning_and_graph_use_a_store_they_did_not_create(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    orch.getChildrenOrCreate(LocalEmbeddingStore, VectorStoreConfig(name="#VectorStore"))
    keeper = spawn_tool_agent(actor_system, orchestrator, name="@Keeper")
    planner = spawn_tool_agent(actor_system, orchestrator, name="@Planner")
    curator = spawn_tool_agent(actor_system, orchestrator, name="@Curator")
    assert tools_of(keeper, VectorStoreTool()) == {}  # configuration only: no tools
    small = CollectionConfig(dimension=DIMENSION)
    plan = tools_of(planner, PlanningTool(collection=small))
    graph = tools_of(curator, KnowledgeGraphTool(collection=small))

    plan["update_planning"](
        create_tasks=[
            {"description": "Service car engine"},
            {"description": "Send the quarterly invoice"},
        ]
    )
    graph["update_graph"](
        create_entities=[
            {"name": "Rex", "entity_type": "Animal", "description": "A loyal dog"},
            {"name": "Ledger", "entity_type": "Document", "description": "Monthly payment record"},
        ]
    )

    def semantic_task() -> list[str]:
        found = plan["search_planning"](query="automobile")
        return [task.description for task in found.tasks]

    # Embedding happens off the store's thread: the hit appears once the worker is done.
    assert eventually(semantic_task, timeout=10) == ["Service car engine"]

    def semantic_entity() -> list[str]:
        found = graph["search_graph"](query="puppy", mode="vector")
        return [hit.entity.name for hit in found.hits if hit.entity is not None]

    assert eventually(lambda: "Rex" in semantic_entity(), timeout=10)
    # Both consumers wrote into the one store that someone else created.
    stores = [m.name for m in orch.get_team() if m.name.startswith("#VectorStore")]
    assert stores == ["#VectorStore"]


def test_workspace_and_sandbox_share_one_directory(
    actor_system: ActorSystem, orchestrator: ActorAddress, workspaces: Path
) -> None:
    agent = spawn_tool_agent(actor_system, orchestrator, name="@Dev")
    tools = tools_of(
        agent, WorkspaceTool(workspace_id="shared"), ExecTool(mode="local", workspace_id="shared")
    )
    tools["workspace_write"](path="notes/data.txt", content="written by the workspace tool\n")
    out = tools["exec_command"](cmd="cat notes/data.txt")
    assert "written by the workspace tool" in out
    tools["exec_command"](cmd="python3 -c \"open('made.txt', 'w').write('from the sandbox')\"")
    assert "from the sandbox" in tools["workspace_read"](path="made.txt")
    assert (workspaces / "shared" / "made.txt").read_text() == "from the sandbox"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_bwrap_sandbox_sees_the_same_workspace(
    actor_system: ActorSystem, orchestrator: ActorAddress, workspaces: Path
) -> None:
    agent = spawn_tool_agent(actor_system, orchestrator, name="@Dev")
    tools = tools_of(
        agent, WorkspaceTool(workspace_id="jail"), ExecTool(mode="bwrap", workspace_id="jail")
    )
    tools["workspace_write"](path="in.txt", content="inside\n")
    out = tools["exec_command"](cmd="cat in.txt")
    if "SandboxError" in out and "namespace" in out.lower():
        pytest.skip(f"the kernel refuses namespaces here: {out}")
    assert "inside" in out


def test_a_hired_member_receives_its_notification(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    orch.register_agent_profiles(
        [
            AgentCard(
                agent_class="akgentic.tool.core.testing.ToolTestAgent",
                description="Helps with anything.",
                config=BaseConfig(name="@Helper", role="Helper"),
                can_be_hired=True,
            )
        ]
    )
    manager = spawn_tool_agent(actor_system, orchestrator, name="@Manager")
    team = tools_of(manager, TeamTool())
    answer = team["hire_members"](roles=["Helper"])
    assert "Helper" in answer
    (hired,) = manager.hired
    helper: ToolTestAgent = actor_system.proxy_ask(hired, ToolTestAgent).itself()

    reminders = tools_of(helper, NotificationTool(message_class=MESSAGE_CLASS))
    confirmation = reminders["register_notification"](
        content="stand-up in a second", delay_seconds=1
    )
    assert confirmation.startswith("Scheduled notification")
    (delivered,) = eventually(lambda: helper.received, timeout=10)
    assert delivered.type == "notification"
    assert delivered.content == "stand-up in a second"
    assert delivered.sender is not None
    assert delivered.sender.name == "#NotificationTool"
    assert manager.received == []  # delivered to its owner only


def test_a_team_resumes_with_every_tool_state(
    actor_system: ActorSystem, orchestrator: ActorAddress, workspaces: Path
) -> None:
    recorder = record_team(actor_system, orchestrator)
    orch = actor_system.proxy_ask(orchestrator, Orchestrator)
    orch.getChildrenOrCreate(LocalEmbeddingStore, VectorStoreConfig(name="#VectorStore"))
    alice = spawn_tool_agent(actor_system, orchestrator, name="@Alice")
    small = CollectionConfig(dimension=DIMENSION)
    cards: list[ToolCard] = [
        WorkspaceTool(workspace_id="team"),
        PlanningTool(collection=small),
        KnowledgeGraphTool(collection=small),
        NotificationTool(message_class=MESSAGE_CLASS),
    ]
    tools = tools_of(alice, *cards)
    tools["workspace_write"](path="report.md", content="# Report\n")
    tools["update_planning"](
        create_tasks=[{"description": "Fix automobile engine", "owner": "@Alice"}]
    )
    tools["update_planning"](update_tasks=[{"id": 1, "status": "started"}])
    tools["update_graph"](
        create_entities=[{"name": "Rex", "entity_type": "Animal", "description": "good dog"}],
    )
    eventually(lambda: tools["search_planning"](query="car").tasks, timeout=10)
    tools["register_notification"](content="after the restart", delay_seconds=2)
    plan_before = tools["search_planning"]().tasks
    settle(actor_system, orchestrator)
    stop_team(actor_system, orchestrator)

    new_orchestrator, members = resume_team(actor_system, recorder.record.copy())
    assert {
        "@Alice",
        "#PlanningTool",
        "#KnowledgeGraphTool",
        "#NotificationTool",
        "#VectorStore",
    } <= set(members)
    alice_again: ToolTestAgent = actor_system.proxy_ask(members["@Alice"], ToolTestAgent).itself()
    again = tools_of(alice_again, *[type(card).model_validate(card.model_dump()) for card in cards])

    assert again["search_planning"]().tasks == plan_before
    assert again["search_graph"](query="Rex", mode="keyword").hits
    # The store's documents came back too: the semantic match needs no re-embedding.
    assert [t.description for t in again["search_planning"](query="car").tasks] == [
        "Fix automobile engine"
    ]
    assert again["workspace_read"](path="report.md").count("# Report") == 1
    # The pending notification kept its absolute due time and reaches its owner.
    (delivered,) = eventually(lambda: alice_again.received, timeout=10)
    assert delivered.content == "after the restart"
    assert new_orchestrator.team_id == orchestrator.team_id
