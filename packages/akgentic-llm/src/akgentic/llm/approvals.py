"""Tool calls that wait for a decision: pydantic-ai's deferred approvals, made durable.

The llm layer knows nothing about tool cards. Its protocol is one attribute: a callable whose
``requires_approval`` attribute is true is registered as ``Tool(fn, requires_approval=True)``.
pydantic-ai's own gates (``approval_required()`` toolsets, a tool raising ``ApprovalRequired``)
work too. When the model calls a held tool the run ends without running it, and
``ReactAgent`` keeps the open calls as :class:`PendingToolCall`\\ s (name, exact arguments,
and a digest of them). A later ``ReactAgent.resume(decisions)`` answers every open call at
once, with any objects that have the attributes of :class:`ToolCallDecision` (the tool
layer's own decision model fits as is).

A plain approval is bound to the arguments it was given for: it carries their digest, and a
digest that no longer matches the open call's arguments is refused. Approving other arguments
is a distinct act (``override_args``), whose digest is that of the new arguments.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field
from pydantic_ai import DeferredToolRequests, DeferredToolResults, Tool, ToolApproved, ToolDenied

from akgentic.llm._tool_schemas import shared_schema_tool

__all__ = [
    "SUPERSEDED_CALL_MESSAGE",
    "ApprovalMismatchError",
    "PendingToolCall",
    "ToolCallDecision",
    "args_digest",
]

SUPERSEDED_CALL_MESSAGE = (
    "Not executed: a new message arrived before anyone approved this tool call. Do not "
    "assume it had any effect; call the tool again if it is still needed."
)
"""The tool result given to open calls when ``run()`` starts before they were decided."""


def args_digest(args: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of ``args``: sorted keys, no spaces, UTF-8.

    Two argument mappings with equal content have equal digests whatever their key order.
    """
    canonical = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class PendingToolCall(BaseModel):
    """One model tool call that ran nothing yet and waits for a decision."""

    model_config = ConfigDict(frozen=True)

    call_id: str = Field(description="The tool call id the model gave (unique in the run).")
    tool_name: str
    args: dict[str, Any] = Field(description="The exact arguments the model asked for.")
    args_hash: str = Field(description="args_digest(args): what a plain approval must carry.")


@runtime_checkable
class ToolCallDecision(Protocol):
    """What ``ReactAgent.resume`` reads from each decision (any object with these attributes)."""

    @property
    def call_id(self) -> str:
        """The open call this decision answers."""
        ...

    @property
    def approved(self) -> bool:
        """True to run the call, False to refuse it."""
        ...

    @property
    def args_hash(self) -> str | None:
        """Digest of the arguments approved: the call's own, or ``override_args``."""
        ...

    @property
    def override_args(self) -> dict[str, Any] | None:
        """Arguments to run the call with in place of the model's (``None``: the model's)."""
        ...

    @property
    def reason(self) -> str | None:
        """Why the call was refused; handed to the model as the tool's result."""
        ...


class ApprovalMismatchError(ValueError):
    """Decisions that do not answer exactly the open calls; nothing was resumed."""


def registered_tools(tools: Iterable[Any]) -> list[Any]:
    """``tools`` ready for ``Agent(tools=...)``.

    A plain callable becomes a ``Tool`` whose schema is shared with every equal tool of the
    process (see ``_tool_schemas``); it requires approval when its ``requires_approval``
    attribute is true. A ``Tool`` (or anything else) is kept as given.
    """
    out: list[Any] = []
    for tool in tools:
        if not isinstance(tool, Tool) and callable(tool):
            flagged = getattr(tool, "requires_approval", False) is True
            tool = shared_schema_tool(tool, requires_approval=flagged)
        out.append(tool)
    return out


def with_deferred_output(output_type: Any) -> Any:
    """``output_type`` that also lets a run end with ``DeferredToolRequests``."""
    if output_type is None:
        output_type = str
    if isinstance(output_type, list):
        kept = [item for item in output_type if item is not DeferredToolRequests]
        return [*kept, DeferredToolRequests]
    return [output_type, DeferredToolRequests]


def pending_calls(requests: DeferredToolRequests) -> list[PendingToolCall]:
    """The approvals ``requests`` waits for, in the model's order."""
    found: list[PendingToolCall] = []
    for part in requests.approvals:
        args = part.args_as_dict()
        found.append(
            PendingToolCall(
                call_id=part.tool_call_id,
                tool_name=part.tool_name,
                args=args,
                args_hash=args_digest(args),
            )
        )
    return found


def deferred_results(
    pending: Sequence[PendingToolCall], decisions: Iterable[ToolCallDecision]
) -> DeferredToolResults:
    """The results answering every call of ``pending`` with ``decisions``.

    Raises :class:`ApprovalMismatchError` when a decision names no open call, a call is
    decided twice or not at all, or a plain approval's digest is not the call's.
    """
    by_id = {call.call_id: call for call in pending}
    approvals: dict[str, bool | ToolApproved | ToolDenied] = {}
    for decision in decisions:
        call = by_id.get(decision.call_id)
        if call is None:
            open_ids = ", ".join(sorted(by_id)) or "none"
            raise ApprovalMismatchError(
                f"decision for call {decision.call_id!r}, which is not open; open calls: {open_ids}"
            )
        if decision.call_id in approvals:
            raise ApprovalMismatchError(f"call {decision.call_id!r} is decided twice")
        approvals[decision.call_id] = _result_for(call, decision)
    missing = [call_id for call_id in by_id if call_id not in approvals]
    if missing:
        raise ApprovalMismatchError(
            f"no decision for open call(s) {', '.join(missing)}: decide every open call"
        )
    return DeferredToolResults(approvals=approvals)


def _result_for(call: PendingToolCall, decision: ToolCallDecision) -> ToolApproved | ToolDenied:
    if not decision.approved:
        return ToolDenied(decision.reason or "The tool call was denied.")
    override = decision.override_args
    if override is None:
        if decision.args_hash != call.args_hash:
            raise ApprovalMismatchError(
                f"the approval of call {call.call_id!r} ({call.tool_name}) is for other "
                "arguments than the ones the model gave; approve the call as it stands, or "
                "approve it with edited arguments"
            )
        return ToolApproved()
    if decision.args_hash is not None and decision.args_hash != args_digest(override):
        raise ApprovalMismatchError(
            f"the edited arguments of call {call.call_id!r} do not match their digest"
        )
    return ToolApproved(override_args=dict(override))


def superseded_results(pending: Sequence[PendingToolCall]) -> DeferredToolResults:
    """Every open call refused with :data:`SUPERSEDED_CALL_MESSAGE`."""
    return DeferredToolResults(
        approvals={call.call_id: ToolDenied(SUPERSEDED_CALL_MESSAGE) for call in pending}
    )
