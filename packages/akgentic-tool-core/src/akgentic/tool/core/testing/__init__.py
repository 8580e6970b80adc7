"""A testing kit for tool authors: real actors, a real orchestrator, standard test classes.

It is a pytest plugin, registered through the ``pytest11`` entry point of
akgentic-tool-core: installing the package gives every test session the fixtures
``actor_system``, ``orchestrator``, ``tool_agent`` and ``workspaces_root``, with no
``conftest.py`` line.
Everything runs on akgentic-core's real (Pykka) actor system. Requires the ``testing``
extra (pytest).

The modules, one concern each:

- :mod:`~akgentic.tool.core.testing.actors`: the fixtures, the test agent, reaching team
  actors;
- :mod:`~akgentic.tool.core.testing.waiting`: ``eventually`` and ``settle``;
- :mod:`~akgentic.tool.core.testing.binding`: binding a card as an agent does, retries;
- :mod:`~akgentic.tool.core.testing.conformance`: the checks every card must pass;
- :mod:`~akgentic.tool.core.testing.team`: recording, stopping and resuming a team;
- :mod:`~akgentic.tool.core.testing.tool_events`: the state events one tool actor sent;
- :mod:`~akgentic.tool.core.testing.vectors`: a local vector store and its embedding;
- :mod:`~akgentic.tool.core.testing.standard`: test classes a package subclasses.

Every name is also importable from this package, as it was when the kit was one module.
"""

from akgentic.tool.core.testing.actors import (
    ToolTestAgent,
    actor_system,
    agent_at,
    orchestrator,
    orchestrator_events,
    spawn_tool_agent,
    team_tool_actor,
    tool_agent,
    workspaces_root,
)
from akgentic.tool.core.testing.binding import (
    ToolRetry,
    Tools,
    bind_card,
    card_callables,
    expect_retry,
)
from akgentic.tool.core.testing.conformance import (
    ConformanceRetry,
    assert_callables_described,
    assert_card_conformance,
    assert_channels_honoured,
    capability_fields,
    exposed_names,
)
from akgentic.tool.core.testing.standard import (
    BadCalls,
    BadInputTests,
    CardStandardTests,
    DeltaPersistenceTests,
    LiveTeam,
    LocalEmbeddingTests,
    LoweredLimitsTests,
    PartialBatchTests,
    PublicSurfaceTests,
    Refusal,
    RefusalTests,
    StoredFormTests,
    StoredUseTests,
    VectorSearchTests,
)
from akgentic.tool.core.testing.team import (
    RecordedTeam,
    TeamRecorder,
    record_team,
    recorded_tool_events,
    resume_team,
    stop_team,
)
from akgentic.tool.core.testing.tool_events import tool_event_seqs, tool_state_events
from akgentic.tool.core.testing.vectors import (
    LOCAL_EMBEDDING_CONCEPTS,
    LocalVectorStore,
    concept_embedding,
    spawn_local_vector_store,
)
from akgentic.tool.core.testing.waiting import eventually, settle

__all__ = [
    "LOCAL_EMBEDDING_CONCEPTS",
    "BadCalls",
    "BadInputTests",
    "CardStandardTests",
    "ConformanceRetry",
    "DeltaPersistenceTests",
    "LiveTeam",
    "LocalEmbeddingTests",
    "LocalVectorStore",
    "LoweredLimitsTests",
    "PartialBatchTests",
    "PublicSurfaceTests",
    "RecordedTeam",
    "Refusal",
    "RefusalTests",
    "StoredFormTests",
    "StoredUseTests",
    "TeamRecorder",
    "ToolRetry",
    "ToolTestAgent",
    "Tools",
    "VectorSearchTests",
    "actor_system",
    "agent_at",
    "assert_callables_described",
    "assert_card_conformance",
    "assert_channels_honoured",
    "bind_card",
    "capability_fields",
    "card_callables",
    "concept_embedding",
    "eventually",
    "expect_retry",
    "exposed_names",
    "orchestrator",
    "orchestrator_events",
    "record_team",
    "recorded_tool_events",
    "resume_team",
    "settle",
    "spawn_local_vector_store",
    "spawn_tool_agent",
    "stop_team",
    "team_tool_actor",
    "tool_agent",
    "tool_event_seqs",
    "tool_state_events",
    "workspaces_root",
]
