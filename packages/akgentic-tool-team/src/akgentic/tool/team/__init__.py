"""TeamTool: an agent's view of its team, hiring and firing, and who is busy right now.

- :class:`TeamTool` is the card; :class:`TeamManagementToolObserver` is what the carrying
  agent must offer (create actors, hire and fire hooks).
- ``team_activity`` reports busy members from the orchestrator's telemetry; configure it
  with :class:`GetTeamActivity`, and :class:`ActivitySummarizer` for model summaries.
"""

from akgentic.tool.team.activity import (
    TEAM_ACTIVITY_ACTOR_NAME,
    ActivitySummarizer,
    GetTeamActivity,
    MemberActivity,
    SummarizerWorker,
    SummaryRequest,
    TeamActivityActor,
    TeamActivityReport,
    register_summarizer_model,
    unregister_summarizer_model,
)
from akgentic.tool.team.observer import TeamManagementToolObserver
from akgentic.tool.team.team import FireMembers, GetTeamRoster, HireMembers, TeamTool

__all__ = [
    "TEAM_ACTIVITY_ACTOR_NAME",
    "ActivitySummarizer",
    "FireMembers",
    "GetTeamActivity",
    "GetTeamRoster",
    "HireMembers",
    "MemberActivity",
    "SummarizerWorker",
    "SummaryRequest",
    "TeamActivityActor",
    "TeamActivityReport",
    "TeamManagementToolObserver",
    "TeamTool",
    "register_summarizer_model",
    "unregister_summarizer_model",
]
