"""TeamTool: an agent's view of its team, hiring and firing, and who is busy right now.

- :class:`TeamTool` is the card; :class:`TeamManagementToolObserver` is what the carrying
  agent must offer (create actors, hire and fire hooks).
- ``team_activity`` reports busy members from the orchestrator's telemetry; configure it
  with :class:`GetTeamActivity`, and :class:`ActivitySummarizer` for model summaries.
"""

from akgentic.tool.team.activity import (
    DEFAULT_SUMMARIZER_MODEL,
    TEAM_ACTIVITY_ACTOR_NAME,
    TEAM_ACTIVITY_ACTOR_ROLE,
    ActivitySummarizer,
    AgentActivity,
    GetTeamActivity,
    MemberActivity,
    SummarizePayload,
    SummarizerWorker,
    TeamActivityActor,
    TeamActivityReport,
    register_summarizer_model,
    unregister_summarizer_model,
)
from akgentic.tool.team.observer import TeamManagementToolObserver
from akgentic.tool.team.team import (
    FireMembers,
    FireTeamMember,
    GetRoleProfiles,
    GetTeamRoster,
    HireMembers,
    HireTeamMember,
    TeamTool,
)

__all__ = [
    "DEFAULT_SUMMARIZER_MODEL",
    "TEAM_ACTIVITY_ACTOR_NAME",
    "TEAM_ACTIVITY_ACTOR_ROLE",
    "ActivitySummarizer",
    "AgentActivity",
    "FireMembers",
    "FireTeamMember",
    "GetRoleProfiles",
    "GetTeamActivity",
    "GetTeamRoster",
    "HireMembers",
    "HireTeamMember",
    "MemberActivity",
    "SummarizePayload",
    "SummarizerWorker",
    "TeamActivityActor",
    "TeamActivityReport",
    "TeamManagementToolObserver",
    "TeamTool",
    "register_summarizer_model",
    "unregister_summarizer_model",
]
