"""DeltaState and DeltaToolActor: gap-free delta events, rare snapshots, replay on restore.

A small notes actor built on the two bases runs in a real team; the kit's recorder and
resume helpers persist and restore it the way a team layer does.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from notes_model import NOTES, NotesConfig, NotesDelta, NotesState

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_state import BaseState
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.delta_actor import DeltaToolActor, unguarded
from akgentic.tool.core.delta_state import DeltaState
from akgentic.tool.core.event import ToolStateEvent
from akgentic.tool.core.testing import (
    RecordedTeam,
    orchestrator_events,
    record_team,
    resume_team,
    settle,
    stop_team,
)


class NotesActor(DeltaToolActor[NotesConfig, NotesState]):
    delta_type = NotesDelta
    subject = "notes"

    def on_start(self) -> None:
        self.state = NotesState().observer(self)
        super().on_start()
        self.ready_calls = 0
        self.hooked: list[NotesDelta] = []

    def on_ready(self) -> None:
        self.ready_calls += 1

    def on_delta(self, delta: NotesDelta) -> None:
        self.hooked.append(delta)

    # No method calls self._ready(): the base puts the catch-up in front of each one.
    def write(self, written: dict[str, str], erased: list[str] | None = None) -> int | None:
        delta = NotesDelta(
            written={k: v for k, v in written.items() if self.state.notes.get(k) != v},
            erased=[k for k in erased or [] if k in self.state.notes],
        )
        self.state.apply(delta)
        return self._emit(delta)

    def notes(self) -> dict[str, str]:
        return dict(self.state.notes)

    def seq(self) -> int:
        return self.state.seq

    def stats(self) -> tuple[int, list[NotesDelta]]:
        return self.ready_calls, list(self.hooked)


class CountingNotesActor(NotesActor):
    """A subclass adding public methods, none of which asks for the catch-up itself."""

    def count(self) -> int:
        return len(self.state.notes)

    @unguarded
    def still_pending(self) -> bool:
        return bool(self._catch_up_pending)


class Tally:
    """A mixin that knows nothing of delta actors."""

    state: NotesState

    def tally(self) -> int:
        return len(self.state.notes)


class MixedNotesActor(Tally, NotesActor):
    pass


class LaterNotesActor(CountingNotesActor):
    def still_pending(self) -> bool:  # an override keeps its parent's mark
        return bool(self._catch_up_pending)


def _notes(
    system: ActorSystem,
    orchestrator: ActorAddress,
    actor_class: type[NotesActor] = NotesActor,
    **config: Any,
) -> NotesActor:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(actor_class, NotesConfig(**config))
    actor: NotesActor = system.proxy_ask(address, NotesActor)
    return actor


def _fill(actor: NotesActor, count: int) -> None:
    for i in range(count):
        actor.write({f"k{i}": f"v{i}"})


class Published:
    """A state observer keeping what was published (the role the actor plays)."""

    def __init__(self) -> None:
        self.states: list[BaseState] = []

    def notify_state_change(self, state: BaseState) -> None:
        self.states.append(state)


# -- DeltaState -----------------------------------------------------------------------


def test_mutations_set_the_dirty_flag_and_bump_the_version() -> None:
    published = Published()
    state = NotesState().observer(published)  # type: ignore[arg-type]
    published.states.clear()  # attaching the observer publishes once
    state.notify_if_changed()
    assert published.states == []
    state.apply(NotesDelta(written={"a": "1"}))
    assert state.dirty
    assert state.version == 1
    state.notify_if_changed()
    assert published.states == [state]
    assert not state.dirty
    state.notify_if_changed()  # nothing changed since: nothing published
    assert published.states == [state]


def test_a_delta_state_needs_its_subclass_methods() -> None:
    with pytest.raises(TypeError, match="abstract"):
        DeltaState()  # type: ignore[abstract]


# -- DeltaToolActor -------------------------------------------------------------------


def test_each_change_emits_one_event_with_gap_free_seq(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    notes = _notes(actor_system, orchestrator)
    assert notes.write({"a": "1"}) == 1
    assert notes.write({"a": "1"}) is None  # no change: no event
    assert notes.write({"b": "2"}, erased=["a"]) == 2
    settle(actor_system, orchestrator)
    events = orchestrator_events(actor_system, orchestrator, ToolStateEvent)
    assert [(e.tool_id, e.seq) for e in events] == [(NOTES, 1), (NOTES, 2)]
    assert events[1].payload == NotesDelta(written={"b": "2"}, erased=["a"])
    ready_calls, hooked = notes.stats()
    assert ready_calls == 1
    assert [d.change_count() for d in hooked] == [1, 2]


def test_snapshots_follow_the_schedule_not_every_change(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    recorder = record_team(actor_system, orchestrator)
    notes = _notes(actor_system, orchestrator, snapshot_min_changes=10, snapshot_size_ratio=1.0)
    # Due after 10 changes (size 0 -> floor), then after 10 more (size 10), then after 20.
    _fill(notes, 39)
    settle(actor_system, orchestrator)
    snapshot = recorder.record.state_of(NOTES)
    assert snapshot.notes == {f"k{i}": f"v{i}" for i in range(20)}
    assert snapshot.seq == 20
    assert list(recorder.record.state_count.values()) == [3]  # on start, at 10, at 20


def _killed_after_burst(
    system: ActorSystem,
    orchestrator: ActorAddress,
    count: int,
    actor_class: type[NotesActor] = NotesActor,
) -> RecordedTeam:
    recorder = record_team(system, orchestrator)
    notes = _notes(system, orchestrator, actor_class, snapshot_min_changes=1000)
    _fill(notes, count)
    settle(system, orchestrator)
    frozen = recorder.record.copy()  # the process dies here: no snapshot since the start
    stop_team(system, orchestrator)
    return frozen


def test_restore_replays_the_deltas_newer_than_the_snapshot(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    frozen = _killed_after_burst(actor_system, orchestrator, 5)
    assert frozen.state_of(NOTES).notes == {}  # the stale snapshot
    new_orchestrator, members = resume_team(actor_system, frozen)
    notes = actor_system.proxy_ask(members[NOTES], NotesActor)
    assert notes.notes() == {f"k{i}": f"v{i}" for i in range(5)}
    assert notes.write({"late": "x"}) == 6  # the sequence continues without a gap
    assert notes.stats()[0] == 1
    stop_team(actor_system, new_orchestrator)


def test_a_gap_in_the_history_is_logged_and_the_replay_goes_on(
    actor_system: ActorSystem, orchestrator: ActorAddress, caplog: pytest.LogCaptureFixture
) -> None:
    frozen = _killed_after_burst(actor_system, orchestrator, 4)
    frozen.events = [text for text in frozen.events if '"seq":2,' not in text]
    with caplog.at_level(logging.WARNING, logger="akgentic.tool.core.delta_actor"):
        new_orchestrator, members = resume_team(actor_system, frozen)
        notes = actor_system.proxy_ask(members[NOTES], NotesActor)
        assert notes.notes() == {"k0": "v0", "k2": "v2", "k3": "v3"}
    assert "#Notes: history lacks delta(s) 2..2; the notes may miss changes" in caplog.text
    assert notes.seq() == 4
    stop_team(actor_system, new_orchestrator)


@pytest.mark.parametrize("actor_class", [CountingNotesActor, LaterNotesActor])
def test_a_new_public_method_waits_for_the_catch_up_without_asking(
    actor_system: ActorSystem, orchestrator: ActorAddress, actor_class: type[NotesActor]
) -> None:
    frozen = _killed_after_burst(actor_system, orchestrator, 3, actor_class)
    new_orchestrator, members = resume_team(actor_system, frozen)
    notes = actor_system.proxy_ask(members[NOTES], CountingNotesActor)
    assert notes.still_pending()  # the unguarded hook did not trigger the replay
    assert notes.count() == 3  # the first guarded call replayed the history first
    assert not notes.still_pending()
    assert notes.stats()[0] == 1
    stop_team(actor_system, new_orchestrator)


def test_the_guard_leaves_the_base_names_alone() -> None:
    assert getattr(CountingNotesActor.count, "__delta_guarded__", False)
    assert getattr(NotesActor.write, "__delta_guarded__", False)
    # Life cycle and hooks are called by akgentic-core and pykka, some before the replay.
    for name in ("on_start", "on_ready", "on_delta", "init_state", "stop"):
        assert not getattr(getattr(NotesActor, name), "__delta_guarded__", False), name
    assert not getattr(CountingNotesActor.still_pending, "__delta_guarded__", False)
    assert getattr(MixedNotesActor.tally, "__delta_guarded__", False)  # from the mixin
    assert not getattr(Tally.tally, "__delta_guarded__", False)  # the mixin is untouched
    assert not getattr(LaterNotesActor.still_pending, "__delta_guarded__", False)
