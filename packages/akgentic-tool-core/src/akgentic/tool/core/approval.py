"""Approval gates: a person decides on a gated tool call before it runs.

A capability is gated by ``requires_approval=True`` on its param, or by naming it in its
card's ``approval_required``; ``ToolFactory`` then flags the tool callable with
``requires_approval = True``, which the agent runtime reads (akgentic-llm's ``ReactAgent``
holds such a call open instead of running it). The agent that owns the runtime hands the open
calls to its factory's :class:`ApprovalGate` (:meth:`ApprovalGate.request`); the gate puts an
:class:`ApprovalRequestedEvent` naming each call and its exact arguments on the team's event
stream, and the decisions come back as commands:

- ``/approve <call_id>``: run the call with the arguments the event showed;
- ``/approve <call_id> {"path": "other.md", ...}``: run it with these arguments instead;
- ``/deny <call_id> <reason>``: do not run it; the model is given the reason;
- ``/pending_approvals``: what waits, with each request's expiry.

An approval is bound to its call: it names the call id and carries the digest of the
arguments it approves (:func:`args_hash`, SHA-256 of the canonical JSON), so it cannot stand
for another call or other arguments. Each request expires (15 minutes by default): a late
``/approve`` is refused and the call is denied, so that no run stays suspended on a
question nobody answers. Once every call of a batch is decided the gate hands the decisions
to the resume callback its owner bound (:meth:`ApprovalGate.bind`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Literal, Protocol

from pydantic import Field

from akgentic.core.utils.serializer import SerializableBaseModel
from akgentic.tool.core.commands import rest_of_line
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.errors import RetriableError

__all__ = [
    "DEFAULT_APPROVAL_TTL",
    "ApprovalDecidedEvent",
    "ApprovalDecision",
    "ApprovalGate",
    "ApprovalRequestedEvent",
    "PendingApproval",
    "args_hash",
    "flag_requires_approval",
    "gate_toolset",
]

DEFAULT_APPROVAL_TTL = timedelta(minutes=15)
"""How long a request waits for a decision unless the factory is told otherwise."""

Outcome = Literal["approved", "edited", "denied", "expired"]


def args_hash(args: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of ``args`` (sorted keys, no spaces, UTF-8).

    The same digest akgentic-llm's ``args_digest`` computes, so a decision made here is
    checked there against the call it answers.
    """
    canonical = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def flag_requires_approval[F: Callable[..., Any]](fn: F) -> F:
    """``fn`` carrying ``requires_approval = True``: the attribute agent runtimes read.

    A callable that takes no attributes (a bound method, a builtin) is wrapped first, in a
    coroutine function when it is one, keeping its name, docstring and signature.
    """
    try:
        fn.requires_approval = True  # type: ignore[attr-defined]
        return fn
    except AttributeError:
        pass
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_call(*args: Any, **kwargs: Any) -> Any:
            return await fn(*args, **kwargs)

        flagged: Any = async_call
    else:

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            return fn(*args, **kwargs)

        flagged = call
    flagged.requires_approval = True
    return flagged  # type: ignore[no-any-return]


def gate_toolset(toolset: Any, names: Iterable[str], *, owner: str, check_names: bool) -> Any:
    """A pydantic-ai toolset whose tools named in ``names`` wait for approval.

    pydantic-ai's own ``ApprovalRequiredToolset`` does the holding: a call of a gated tool
    ends the run with the call open, as a flagged function tool does. The wrapper carries
    ``requires_approval = True``, the attribute agent runtimes read to allow such an end.
    A toolset learns its tools' names only when a run lists them (an MCP server answers
    then), so a name cannot be checked when the factory is built: with ``check_names`` the
    first listing refuses a gated name the toolset does not offer, naming ``owner`` and the
    tools it has, rather than leaving a misspelt, dangerous tool ungated.
    """
    wanted = frozenset(names)
    if not wanted:
        return toolset
    return _gated_toolset_class()(
        wrapped=toolset,
        approval_required_func=lambda ctx, tool_def, args: tool_def.name in wanted,
        gated_names=wanted,
        owner=owner,
        check_names=check_names,
    )


@functools.cache
def _gated_toolset_class() -> type[Any]:
    # Built on first use so that importing core never imports pydantic-ai.
    from dataclasses import dataclass

    from pydantic_ai.exceptions import UserError
    from pydantic_ai.toolsets.approval_required import ApprovalRequiredToolset

    @dataclass
    class GatedToolset(ApprovalRequiredToolset[Any]):
        """Holds calls of ``gated_names`` for a decision; lists tools like ``wrapped``."""

        gated_names: frozenset[str] = frozenset()
        owner: str = ""
        check_names: bool = True
        requires_approval: ClassVar[bool] = True

        async def get_tools(self, ctx: Any) -> dict[str, Any]:
            tools: dict[str, Any] = await super().get_tools(ctx)
            missing = sorted(self.gated_names - set(tools))
            if self.check_names and missing:
                offered = ", ".join(sorted(tools)) or "none"
                raise UserError(
                    f"{self.owner}.approval_required names {', '.join(missing)}, which its "
                    f"toolset does not offer (its tools: {offered}); fix the name so the "
                    "tool it meant is gated"
                )
            return tools

    return GatedToolset


class OpenCall(Protocol):
    """A call waiting for approval, as the agent runtime reports it."""

    @property
    def call_id(self) -> str: ...

    @property
    def tool_name(self) -> str: ...

    @property
    def args(self) -> dict[str, Any]: ...


class PendingApproval(SerializableBaseModel):
    """One call that waits for a decision."""

    call_id: str
    tool_name: str
    args: dict[str, Any] = Field(description="The exact arguments the model asked for.")
    args_hash: str = Field(description="args_hash(args): what a plain approval is bound to.")
    requested_at: datetime
    expires_at: datetime


class ApprovalRequestedEvent(SerializableBaseModel):
    """A gated call did not run: it waits for ``/approve`` or ``/deny``."""

    call_id: str
    tool_name: str
    args: dict[str, Any]
    args_hash: str
    expires_at: datetime
    how: str = Field(description="The commands that decide it, ready to type.")


class ApprovalDecision(SerializableBaseModel):
    """A decision on one call; what the agent runtime resumes the run with."""

    call_id: str
    tool_name: str
    approved: bool
    args_hash: str | None = Field(
        default=None, description="Digest of the approved arguments (the call's, or the edited)."
    )
    override_args: dict[str, Any] | None = Field(
        default=None, description="Edited arguments to run with; None runs the model's."
    )
    reason: str | None = Field(default=None, description="Why it was denied (given to the model).")


class ApprovalDecidedEvent(SerializableBaseModel):
    """A call was decided: it will run (``args``), or it will not (``reason``)."""

    call_id: str
    tool_name: str
    outcome: Outcome
    args: dict[str, Any] | None = None
    reason: str | None = None


Resume = Callable[[list[ApprovalDecision]], Any]


def _now() -> datetime:
    return datetime.now(UTC)


class ApprovalGate:
    """The open approval requests of one agent, and the commands that decide them.

    Args:
        observer: Where the request and decision events go (the carrying agent).
        ttl: How long a request may wait for a decision.
        clock: The current time (tests pass a controllable one).
    """

    def __init__(
        self,
        observer: ToolObserver | None = None,
        *,
        ttl: timedelta = DEFAULT_APPROVAL_TTL,
        clock: Callable[[], datetime] = _now,
    ) -> None:
        if ttl <= timedelta(0):
            raise ValueError(f"ttl must be positive, got {ttl}")
        self.observer = observer
        self.ttl = ttl
        self.clock = clock
        self._resume: Resume | None = None
        self._open: dict[str, PendingApproval] = {}
        self._decided: dict[str, ApprovalDecision] = {}
        self._signatures: dict[str, inspect.Signature] = {}
        self._lock = threading.RLock()

    # -------------------------------------------------------------- wiring

    def bind(self, resume: Resume) -> None:
        """Call ``resume(decisions)`` once every open call is decided (in the deciding thread)."""
        self._resume = resume

    def gate_tool(self, name: str, fn: Callable[..., Any]) -> None:
        """Know ``fn``'s signature, to check edited arguments before they are accepted."""
        # Without an introspectable signature, edited arguments go unchecked here (the
        # runtime still validates them against the tool's schema).
        with contextlib.suppress(TypeError, ValueError):
            self._signatures[name] = inspect.signature(fn)

    @property
    def gated_tools(self) -> list[str]:
        """Names of the gated tools this gate knows."""
        return list(self._signatures)

    def commands(self) -> list[Callable[..., Any]]:
        """The ``approve``, ``deny`` and ``pending_approvals`` commands, for a registry."""
        return [self.approve, self.deny, self.pending_approvals]

    # ------------------------------------------------------------ requests

    def request(self, calls: Iterable[OpenCall]) -> list[PendingApproval]:
        """Open a request for each of ``calls`` and announce it; returns the open requests.

        ``calls`` is everything the runtime holds open now (``ReactAgent.pending_tool_calls``
        after a run): it replaces what was open before, whose calls the runtime no longer
        holds. Nothing is announced for an empty list.
        """
        with self._lock:
            now = self.clock()
            self._open = {}
            self._decided = {}
            for call in calls:
                args = dict(call.args)
                self._open[call.call_id] = PendingApproval(
                    call_id=call.call_id,
                    tool_name=call.tool_name,
                    args=args,
                    args_hash=args_hash(args),
                    requested_at=now,
                    expires_at=now + self.ttl,
                )
            opened = list(self._open.values())
        for entry in opened:
            self._notify(
                ApprovalRequestedEvent(
                    call_id=entry.call_id,
                    tool_name=entry.tool_name,
                    args=entry.args,
                    args_hash=entry.args_hash,
                    expires_at=entry.expires_at,
                    how=f"/approve {entry.call_id}  |  /approve {entry.call_id} "
                    f"{{...edited args...}}  |  /deny {entry.call_id} <reason>",
                )
            )
        return opened

    def pending(self) -> list[PendingApproval]:
        """The requests still waiting for a decision, oldest first."""
        with self._lock:
            return [e for call_id, e in self._open.items() if call_id not in self._decided]

    def expire_overdue(self) -> list[str]:
        """Deny every request past its expiry (an owner's timer may call it); their ids."""
        with self._lock:
            now = self.clock()
            overdue = [e for e in self.pending() if now >= e.expires_at]
            for entry in overdue:
                self._record_expiry(entry)
        self._resume_if_complete()
        return [entry.call_id for entry in overdue]

    # ------------------------------------------------------------ commands

    @rest_of_line
    def approve(self, call_id: str, args: str | None = None) -> str:
        """Approve a tool call that waits for approval, optionally with edited arguments.

        Args:
            call_id: The id the approval request named.
            args: A JSON object of arguments to run the call with instead of the model's.
        """
        with self._lock:
            entry = self._undecided(call_id)
            if self.clock() >= entry.expires_at:
                self._record_expiry(entry)
                expired = entry
            else:
                expired = None
                decision = self._approval(entry, args)
                self._record(decision, "edited" if decision.override_args else "approved")
        resumed = self._resume_if_complete()
        if expired is not None:
            raise RetriableError(
                f"the approval request for call {call_id!r} ({expired.tool_name}) expired at "
                f"{expired.expires_at.isoformat()}: the call was denied and will not run; "
                "ask the agent to try again if it is still wanted"
            )
        how = "with the edited arguments" if args and args.strip() else "as requested"
        return f"Approved {entry.tool_name} (call {call_id}) {how}." + _resumed_note(resumed)

    @rest_of_line
    def deny(self, call_id: str, reason: str) -> str:
        """Refuse a tool call that waits for approval; the model is told the reason.

        Args:
            call_id: The id the approval request named.
            reason: Why, in words the model can act on.
        """
        reason = reason.strip()
        if not reason:
            raise RetriableError(f"/deny {call_id}: give a reason after the call id")
        with self._lock:
            entry = self._undecided(call_id)
            decision = ApprovalDecision(
                call_id=call_id,
                tool_name=entry.tool_name,
                approved=False,
                reason=f"Denied by a person: {reason}",
            )
            self._record(decision, "denied")
        resumed = self._resume_if_complete()
        return f"Denied {entry.tool_name} (call {call_id})." + _resumed_note(resumed)

    def pending_approvals(self) -> list[PendingApproval]:
        """List the tool calls waiting for approval, with their arguments and expiry."""
        return self.pending()

    # ------------------------------------------------------------- helpers

    def _undecided(self, call_id: str) -> PendingApproval:
        call_id = call_id.strip()
        if call_id in self._decided:
            raise RetriableError(f"call {call_id!r} is already decided")
        entry = self._open.get(call_id)
        if entry is None:
            waiting = ", ".join(e.call_id for e in self.pending()) or "none"
            raise RetriableError(
                f"no tool call {call_id!r} waits for approval; waiting: {waiting} "
                "(see /pending_approvals)"
            )
        return entry

    def _approval(self, entry: PendingApproval, raw: str | None) -> ApprovalDecision:
        if raw is None or not raw.strip():
            return ApprovalDecision(
                call_id=entry.call_id,
                tool_name=entry.tool_name,
                approved=True,
                args_hash=entry.args_hash,
            )
        edited = self._edited_args(entry, raw)
        return ApprovalDecision(
            call_id=entry.call_id,
            tool_name=entry.tool_name,
            approved=True,
            args_hash=args_hash(edited),
            override_args=edited,
        )

    def _edited_args(self, entry: PendingApproval, raw: str) -> dict[str, Any]:
        prefix = f"/approve {entry.call_id}: edited args"
        try:
            edited = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise RetriableError(
                f"{prefix} are not valid JSON ({exc}); nothing was approved"
            ) from None
        if not isinstance(edited, dict):
            raise RetriableError(f"{prefix} must be a JSON object of argument names to values")
        signature = self._signatures.get(entry.tool_name)
        if signature is not None:
            try:
                signature.bind(**edited)
            except TypeError as exc:
                raise RetriableError(
                    f"{prefix} do not fit {entry.tool_name}{signature}: {exc}; nothing was approved"
                ) from None
        return edited

    def _record(self, decision: ApprovalDecision, outcome: Outcome) -> None:
        self._decided[decision.call_id] = decision
        entry = self._open[decision.call_id]
        runs_with = decision.override_args if decision.override_args else entry.args
        self._notify(
            ApprovalDecidedEvent(
                call_id=decision.call_id,
                tool_name=decision.tool_name,
                outcome=outcome,
                args=runs_with if decision.approved else None,
                reason=decision.reason,
            )
        )

    def _record_expiry(self, entry: PendingApproval) -> None:
        reason = (
            f"Not executed: the approval request expired at {entry.expires_at.isoformat()} "
            "before anyone approved it."
        )
        decision = ApprovalDecision(
            call_id=entry.call_id, tool_name=entry.tool_name, approved=False, reason=reason
        )
        self._record(decision, "expired")

    def _resume_if_complete(self) -> Any:
        with self._lock:
            if not self._open or len(self._decided) < len(self._open):
                return _NOT_RESUMED
            if self._resume is None:
                return _NOT_RESUMED  # decisions stay readable through take_decisions()
            decisions = self._take_batch()
        try:
            return self._resume(decisions)
        except RetriableError:
            raise
        except Exception as exc:
            # The person's decisions stand (the events went out); what failed is the run
            # they resumed. Say so in words a person can act on instead of a traceback.
            raise RetriableError(
                f"the decisions were recorded, but resuming the run failed "
                f"({type(exc).__name__}: {exc}); ask the agent again"
            ) from exc

    def take_decisions(self) -> list[ApprovalDecision]:
        """The decisions of a fully decided batch (and close it); empty while any call waits."""
        with self._lock:
            if len(self._decided) < len(self._open):
                return []
            return self._take_batch()

    def _take_batch(self) -> list[ApprovalDecision]:
        decisions = [self._decided[call_id] for call_id in self._open]
        self._open = {}
        self._decided = {}
        return decisions

    def _notify(self, event: object) -> None:
        if self.observer is not None:
            self.observer.notify_event(event)


_NOT_RESUMED = object()


def _resumed_note(resumed: Any) -> str:
    if resumed is _NOT_RESUMED:
        return ""
    if isinstance(resumed, str) and resumed:
        return f" The run resumed: {resumed}"
    return " The run resumed."
