"""The persistence contract of a ``DeltaToolActor``, as a class a package subclasses.

Everything goes through a real team: the card bound to a test agent, the actor reached
through the orchestrator, the history recorded as JSON by a subscriber and replayed into a
new orchestrator (:mod:`akgentic.tool.core.testing.team`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.card import ToolCard
from akgentic.tool.core.delta_actor import DeltaToolActor
from akgentic.tool.core.delta_state import TrackedState
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing.actors import (
    agent_at,
    orchestrator_events,
    spawn_tool_agent,
    team_tool_actor,
)
from akgentic.tool.core.testing.binding import Tools, bind_card, expect_retry
from akgentic.tool.core.testing.team import (
    RecordedTeam,
    record_team,
    recorded_tool_events,
    resume_team,
    stop_team,
)
from akgentic.tool.core.testing.waiting import settle

__all__ = ["DeltaPersistenceTests"]


class DeltaPersistenceTests(ABC):
    """Snapshot cadence, stop/resume, abrupt end, replay: for a ``DeltaToolActor``.

    Supply the card and actor (:meth:`make_card`, :attr:`actor_class`,
    :meth:`actor_config`), one update call adding ``size`` items (:meth:`add_batch`), calls
    that change and delete what batches added (:meth:`edit`), and how to read and compare
    the live state (:meth:`live_state`, :meth:`same_state`, :meth:`empty_state`).
    :meth:`check_resumed` adds the package's own checks on a resumed team.
    """

    actor_class: ClassVar[type[DeltaToolActor[Any, Any]]]
    agent_name: ClassVar[str] = "@Tester"

    @abstractmethod
    def make_card(self) -> ToolCard:
        """The card, bound to the actor under test (no vector store needed)."""

    @abstractmethod
    def actor_config(self) -> BaseConfig:
        """The configuration the card creates its actor with (its name is the tool id)."""

    @abstractmethod
    def add_batch(self, tools: Tools, index: int, size: int) -> None:
        """One update call adding ``size`` new items (batch ``index`` counts from 0)."""

    @abstractmethod
    def edit(self, tools: Tools) -> None:
        """Calls changing and deleting items the first batches added."""

    @abstractmethod
    def live_state(self, actor: Any) -> TrackedState:
        """A copy of the actor's current state (``actor`` is an ask proxy)."""

    @abstractmethod
    def empty_state(self) -> TrackedState:
        """A new, empty state of the actor's class."""

    @abstractmethod
    def same_state(self, left: TrackedState, right: TrackedState) -> bool:
        """Whether two states hold the same data."""

    @abstractmethod
    def restate(self, tools: Tools) -> None:
        """A successful call that re-states what batch 0 (of 3 items) wrote: no change."""

    @abstractmethod
    def calls_after_stop(self, tools: Tools) -> list[Callable[[], Any]]:
        """Calls (reads and writes) to make once the team stopped; each must ask for a
        retry, not crash. Build each as a ``lambda`` over ``tools``."""

    def check_resumed(self, tools: Tools, expected: TrackedState) -> None:
        """The package's own checks on a resumed team, through its tools (none by default)."""
        return

    # -- helpers ----------------------------------------------------------------------

    def _actor(self, system: ActorSystem, orchestrator: ActorAddress) -> Any:
        return team_tool_actor(system, orchestrator, self.actor_class, self.actor_config())

    def _tool_id(self) -> str:
        return str(self.actor_config().name)

    def _bound(self, system: ActorSystem, orchestrator: ActorAddress) -> Tools:
        return bind_card(spawn_tool_agent(system, orchestrator, self.agent_name), self.make_card())

    def _rebound(self, system: ActorSystem, members: dict[str, ActorAddress]) -> Tools:
        return bind_card(agent_at(system, members[self.agent_name]), self.make_card())

    def _burst(self, tools: Tools, batches: int, size: int) -> None:
        for index in range(batches):
            self.add_batch(tools, index, size)

    def _killed_after_burst(
        self, system: ActorSystem, orchestrator: ActorAddress
    ) -> tuple[RecordedTeam, TrackedState, int]:
        """A session of 30 batches and an edit whose process dies without a final snapshot:
        what the store holds, the state it had, and how many deltas it emitted."""
        recorder = record_team(system, orchestrator)
        tools = self._bound(system, orchestrator)
        self._burst(tools, batches=30, size=5)
        self.edit(tools)
        expected = self.live_state(self._actor(system, orchestrator))
        settle(system, orchestrator)
        frozen = recorder.record.copy()  # the process dies here
        stop_team(system, orchestrator)
        return frozen, expected, len(recorded_tool_events(frozen, self._tool_id()))

    # -- the contract -----------------------------------------------------------------

    def test_each_change_is_one_event_emitted_before_the_call_returns(
        self, actor_system: ActorSystem, orchestrator: ActorAddress
    ) -> None:
        tools = self._bound(actor_system, orchestrator)

        def seqs() -> list[int]:
            # No settle: an event emitted before the call returned is there already.
            events = orchestrator_events(actor_system, orchestrator, ToolStateEvent)
            return [e.seq for e in events if e.tool_id == self._tool_id()]

        self.add_batch(tools, 0, 3)
        assert seqs() == [1]
        self.restate(tools)  # nothing changes: no event, no number used
        assert seqs() == [1]
        self.add_batch(tools, 1, 3)
        assert seqs() == [1, 2]
        payloads = orchestrator_events(actor_system, orchestrator, ToolStateEvent)
        assert all(isinstance(e.payload, self.actor_class.delta_type) for e in payloads)

    def test_calls_after_the_team_stopped_ask_for_a_retry(
        self, actor_system: ActorSystem, orchestrator: ActorAddress
    ) -> None:
        tools = self._bound(actor_system, orchestrator)
        self.add_batch(tools, 0, 3)
        stop_team(actor_system, orchestrator)
        calls = self.calls_after_stop(tools)
        assert calls, "list at least one call"
        for call in calls:
            assert expect_retry(call).strip()

    def test_snapshots_are_rare_and_deltas_proportional_to_the_change(
        self, actor_system: ActorSystem, orchestrator: ActorAddress
    ) -> None:
        recorder = record_team(actor_system, orchestrator)
        tools = self._bound(actor_system, orchestrator)
        self._burst(tools, batches=40, size=50)
        settle(actor_system, orchestrator)
        # One snapshot at start, then one each time the changes reach the cadence: a
        # handful for 40 updates, not one per update.
        assert 2 <= recorder.record.snapshots_of(self._tool_id()) <= 8
        deltas = recorded_tool_events(recorder.record, self._tool_id())
        assert [event.seq for event in deltas] == list(range(1, 41))
        sizes = [len(event.model_dump_json()) for event in deltas]
        # The last batch's increment costs what the first one did, not the whole state.
        assert sizes[-1] < 1.2 * sizes[0]

    def test_stop_then_resume_keeps_the_state_and_the_sequence(
        self, actor_system: ActorSystem, orchestrator: ActorAddress
    ) -> None:
        recorder = record_team(actor_system, orchestrator)
        tools = self._bound(actor_system, orchestrator)
        self._burst(tools, batches=2, size=5)
        self.edit(tools)
        before = self.live_state(self._actor(actor_system, orchestrator))
        stop_team(actor_system, orchestrator)
        persisted = recorder.record.copy()
        emitted = len(recorded_tool_events(persisted, self._tool_id()))
        snapshot = persisted.state_of(self._tool_id())
        assert type(snapshot) is type(self.empty_state())
        assert snapshot.last_seq == emitted  # the stop published the final state

        new_orchestrator, members = resume_team(actor_system, persisted)
        # The team layer recreates the tool actor as a member, with its agent id.
        assert self._tool_id() in members
        tools = self._rebound(actor_system, members)
        after = self.live_state(self._actor(actor_system, new_orchestrator))
        assert self.same_state(after, before)
        self.check_resumed(tools, before)
        self.add_batch(tools, 1000, 1)
        settle(actor_system, new_orchestrator)
        seqs = [e.seq for e in orchestrator_events(actor_system, new_orchestrator, ToolStateEvent)]
        # The replayed history, then the new deltas: no gap, no number used twice.
        assert seqs == list(range(1, len(seqs) + 1))
        assert len(seqs) > emitted

    def test_abrupt_end_restores_a_stale_snapshot_and_the_newer_deltas(
        self, actor_system: ActorSystem, orchestrator: ActorAddress
    ) -> None:
        frozen, expected, emitted = self._killed_after_burst(actor_system, orchestrator)
        stale = frozen.state_of(self._tool_id())
        assert stale.last_seq < emitted  # the last snapshot predates the last updates
        new_orchestrator, members = resume_team(actor_system, frozen)
        tools = self._rebound(actor_system, members)
        restored = self.live_state(self._actor(actor_system, new_orchestrator))
        assert self.same_state(restored, expected)
        assert restored.last_seq == emitted
        self.check_resumed(tools, expected)

    def test_abrupt_end_without_a_snapshot_restores_from_the_history(
        self, actor_system: ActorSystem, orchestrator: ActorAddress
    ) -> None:
        frozen, expected, emitted = self._killed_after_burst(actor_system, orchestrator)
        new_orchestrator, members = resume_team(actor_system, frozen, restore_states=False)
        tools = self._rebound(actor_system, members)
        restored = self.live_state(self._actor(actor_system, new_orchestrator))
        assert self.same_state(restored, expected)
        assert restored.last_seq == emitted
        self.check_resumed(tools, expected)

    def test_replaying_the_events_rebuilds_the_live_state(
        self, actor_system: ActorSystem, orchestrator: ActorAddress
    ) -> None:
        recorder = record_team(actor_system, orchestrator)
        tools = self._bound(actor_system, orchestrator)
        self._burst(tools, batches=5, size=8)
        self.edit(tools)
        live = self.live_state(self._actor(actor_system, orchestrator))
        settle(actor_system, orchestrator)
        client = self.empty_state()
        events = recorded_tool_events(recorder.record, self._tool_id())  # from stored JSON
        assert [event.seq for event in events] == list(range(1, len(events) + 1))
        for event in events:
            assert isinstance(event.payload, self.actor_class.delta_type)
            client.apply(event.payload, seq=event.seq)
        assert self.same_state(client, live)
        assert client.last_seq == live.last_seq
