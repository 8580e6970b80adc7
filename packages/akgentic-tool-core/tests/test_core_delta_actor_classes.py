"""DeltaToolActor, more: the readiness guard of classes made at run time, the replay filter
and the default snapshot cadence of an actor whose config is not a DeltaToolConfig.

The guard is put in place when a subclass is created, so the actor classes whose guard is
checked here are defined inside the tests. A writer actor fills the team history; a
reader of the same name, started later in the same team, must replay exactly that
actor's deltas before it serves a call.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from notes_model import NOTES, NotesConfig, NotesDelta, NotesState
from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.tool.core.delta_actor import DeltaToolActor, unguarded
from akgentic.tool.core.testing import record_team, settle

OTHER = "#Other"
LOGGER = "akgentic.tool.core.delta_actor"


class Ping(BaseModel):
    """An event of the team history that is not a tool state event."""

    note: str


class WriterActor(DeltaToolActor[BaseConfig, NotesState]):
    """Fills the team history; its config is a plain BaseConfig (default cadence)."""

    delta_type = NotesDelta

    def on_start(self) -> None:
        self.state = NotesState().observer(self)
        super().on_start()

    def write(self, written: dict[str, str]) -> int | None:
        delta = NotesDelta(
            written={k: v for k, v in written.items() if self.state.notes.get(k) != v}
        )
        self.state.apply(delta)
        return self._emit(delta)

    def ping(self) -> None:
        self.notify_event(Ping(note="not a delta"))


def _writer(system: ActorSystem, orchestrator: ActorAddress, name: str) -> WriterActor:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.getChildrenOrCreate(WriterActor, BaseConfig(name=name, role="NotesTool"))
    actor: WriterActor = system.proxy_ask(address, WriterActor)
    return actor


def _reader_classes() -> tuple[type[Any], type[Any]]:
    """A reader class and a subclass of it, created now (their guard is put in place now)."""

    class Reader(DeltaToolActor[NotesConfig, NotesState]):
        delta_type = NotesDelta
        subject = "notes"
        limit = 5  # a public class constant is no method: it stays as it is

        def on_start(self) -> None:
            self.state = NotesState().observer(self)
            super().on_start()
            self.ready_calls = 0

        def on_ready(self) -> None:
            self.ready_calls += 1

        def notes(self) -> dict[str, str]:
            return dict(self.state.notes)

        def constant(self) -> Any:
            return self.limit

        def readies(self) -> int:
            return self.ready_calls

        @unguarded
        def peek(self) -> tuple[bool, int]:
            return bool(self._catch_up_pending), self._count()

        def _count(self) -> int:  # private: callable from a hook without the catch-up
            return len(self.state.notes)

    class LaterReader(Reader):
        def peek(self) -> tuple[bool, int]:  # an override keeps its parent's mark
            return bool(self._catch_up_pending), self._count()

    return Reader, LaterReader


def _start(system: ActorSystem, orchestrator: ActorAddress, actor_class: type[Any]) -> Any:
    orch = system.proxy_ask(orchestrator, Orchestrator)
    address = orch.createActor(actor_class, config=NotesConfig())
    return system.proxy_ask(address, actor_class)


def _fill_history(system: ActorSystem, orchestrator: ActorAddress) -> None:
    """Three deltas of #Notes, a foreign event, five deltas of #Other (same delta model)."""
    notes = _writer(system, orchestrator, NOTES)
    for i in range(3):
        notes.write({f"k{i}": f"v{i}"})
    notes.ping()
    other = _writer(system, orchestrator, OTHER)
    for i in range(5):
        other.write({f"x{i}": "foreign"})
    settle(system, orchestrator)


EXPECTED = {"k0": "v0", "k1": "v1", "k2": "v2"}


@pytest.mark.parametrize("which", [0, 1])
def test_a_class_made_at_run_time_replays_its_own_history_before_its_first_call(
    actor_system: ActorSystem,
    orchestrator: ActorAddress,
    caplog: pytest.LogCaptureFixture,
    which: int,
) -> None:
    _fill_history(actor_system, orchestrator)
    reader = _start(actor_system, orchestrator, _reader_classes()[which])
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        # The unguarded hook, and the private helper it calls, do not replay anything.
        assert reader.peek() == (True, 0)
        # The first public call replays the three deltas of #Notes, nothing of #Other.
        assert reader.notes() == EXPECTED
        assert reader.peek() == (False, 3)
        assert reader.constant() == 5
        assert reader.readies() == 1
    assert not [r for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING]


def test_a_subclass_inherits_the_guarded_method_without_a_second_guard() -> None:
    reader, later = _reader_classes()
    assert later.notes is reader.notes
    assert getattr(reader.notes, "__delta_guarded__", False) is True
    assert reader.notes.__wrapped__.__name__ == "notes"
    assert not hasattr(reader.notes.__wrapped__, "__wrapped__")
    # Life cycle and hooks overridden by the subclass are left alone.
    for name in ("on_start", "on_ready", "peek"):
        assert not getattr(getattr(reader, name), "__delta_guarded__", False), name
    assert not getattr(later.peek, "__delta_guarded__", False)
    assert "peek" in later._unguarded_names


def test_a_restored_state_replays_only_the_deltas_after_its_seq_without_a_gap_warning(
    actor_system: ActorSystem, orchestrator: ActorAddress, caplog: pytest.LogCaptureFixture
) -> None:
    _fill_history(actor_system, orchestrator)
    recorder = record_team(actor_system, orchestrator)
    reader = _start(actor_system, orchestrator, _reader_classes()[0])
    # The snapshot knows seq 2 but holds a value the history's seq 2 does not: a replay
    # of seq 2 would overwrite it.
    reader.init_state(NotesState(notes={"k0": "v0", "k1": "kept"}, seq=2))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert reader.notes() == {"k0": "v0", "k1": "kept", "k2": "v2"}
    assert not [r for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING]
    settle(actor_system, orchestrator)
    published = recorder.record.snapshots_of(NOTES)
    # Up to date already: a second restored reader replays nothing and publishes nothing.
    again = _start(actor_system, orchestrator, _reader_classes()[0])
    again.init_state(NotesState(notes=dict(EXPECTED), seq=3))
    settle(actor_system, orchestrator)
    before = sum(recorder.record.state_count.values())
    assert again.notes() == EXPECTED
    settle(actor_system, orchestrator)
    assert sum(recorder.record.state_count.values()) == before
    assert published >= 1


def test_a_plain_config_gets_the_default_cadence_of_64_changes(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    recorder = record_team(actor_system, orchestrator)
    writer = _writer(actor_system, orchestrator, "#Plain")
    for i in range(63):
        writer.write({f"k{i}": "v"})
    settle(actor_system, orchestrator)
    assert recorder.record.snapshots_of("#Plain") == 1  # the one on start
    writer.write({"k63": "v"})
    settle(actor_system, orchestrator)
    assert recorder.record.snapshots_of("#Plain") == 2
    assert recorder.record.state_of("#Plain").seq == 64


def test_the_copies_mutmut_keeps_of_a_hook_are_not_guarded() -> None:
    # Under mutation testing, `on_ready` calls its original kept as `xǁ...__mutmut_orig`:
    # a guard there would run the catch-up inside the hook.
    def on_ready_orig(self: Any) -> None:
        self.ready_calls = 1

    def notes(self: Any) -> dict[str, str]:
        return {}

    members = {
        "delta_type": NotesDelta,
        "xǁKeptǁon_ready__mutmut_orig": on_ready_orig,
        "notes": notes,
    }
    kept = type("Kept", (DeltaToolActor,), members)
    assert not getattr(vars(kept)["xǁKeptǁon_ready__mutmut_orig"], "__delta_guarded__", False)
    assert getattr(vars(kept)["notes"], "__delta_guarded__", False) is True
