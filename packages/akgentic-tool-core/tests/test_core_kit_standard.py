"""The kit's standard test classes run against a small notes tool, and each check bites.

``NotesTool`` is a complete tool (a card, a ``DeltaToolActor``, a delta state) small
enough to read at once. The ``Test*`` subclasses below are what a tool package writes in
its ``test_standard.py``; the ``test_*`` functions break one rule at a time and show the
check that must catch it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Self

import pytest
from pydantic import BaseModel, Field, PrivateAttr

import akgentic.tool.core.testing as kit
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core import RetriableError, ToolCard
from akgentic.tool.core.channels import COMMAND, SYSTEM_PROMPT, TOOL_CALL, Channels
from akgentic.tool.core.delta_actor import DeltaToolActor, DeltaToolConfig
from akgentic.tool.core.delta_state import DeltaPayload, DeltaState, TrackedState
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.params import BaseToolParam, resolve_param
from akgentic.tool.core.shared_actor import ask_shared_actor, bind_team_actor
from akgentic.tool.core.snapshots import SnapshotCadence, SnapshotSchedule
from akgentic.tool.core.testing import (
    BadInputTests,
    CardStandardTests,
    DeltaPersistenceTests,
    PublicSurfaceTests,
    StoredFormTests,
    Tools,
    ToolTestAgent,
    assert_callables_described,
    assert_channels_honoured,
    capability_fields,
    eventually,
    exposed_names,
)

# -- a complete small tool ------------------------------------------------------------------

NOTES = "#KitNotes"


class NotesDelta(DeltaPayload):
    """One call's net change: notes set (key -> text) and keys dropped."""

    written: dict[str, str] = Field(default_factory=dict)
    erased: list[str] = Field(default_factory=list)

    def change_count(self) -> int:
        return len(self.written) + len(self.erased)

    def is_empty(self) -> bool:
        return self.change_count() == 0


class NotesState(DeltaState):
    """The notes, kept as (key, text) pairs in the order they were first written."""

    pairs: list[tuple[str, str]] = Field(default_factory=list)

    @property
    def notes(self) -> dict[str, str]:
        return dict(self.pairs)

    def size(self) -> int:
        return len(self.pairs)

    def apply(self, delta: NotesDelta, seq: int | None = None) -> None:
        merged = {k: v for k, v in self.pairs if k not in delta.erased} | delta.written
        self.pairs = list(merged.items())
        self.seq = self.seq if seq is None else seq
        self._touch()

    def serializable_copy(self) -> NotesState:
        return NotesState.model_construct(pairs=list(self.pairs), seq=self.seq)


class NotesConfig(DeltaToolConfig):
    name: str = NOTES
    role: str = "NotesTool"


class NotesActor(DeltaToolActor[NotesConfig, NotesState]):
    delta_type = NotesDelta

    def on_start(self) -> None:
        self.state = NotesState().observer(self)
        super().on_start()

    def write(self, written: dict[str, str], erased: list[str]) -> int | None:
        delta = NotesDelta(
            written={k: v for k, v in written.items() if self.state.notes.get(k) != v},
            erased=[k for k in erased if k in self.state.notes],
        )
        self.state.apply(delta)
        return self._emit(delta)

    def snapshot(self) -> NotesState:
        return self.state.serializable_copy()


class WriteNotes(BaseToolParam):
    """Write and erase notes."""

    expose: set[Channels] = {TOOL_CALL, COMMAND}


class ShowNotes(BaseToolParam):
    """Show the notes in the model's context."""

    expose: set[Channels] = {SYSTEM_PROMPT}


class NotesTool(ToolCard):
    write_notes: bool | WriteNotes = True
    show_notes: bool | ShowNotes = True
    _actor: Any = PrivateAttr(default=None)

    def observer(self, observer: ToolObserver) -> Self:
        super().observer(observer)
        self._actor = bind_team_actor(observer, NotesActor, NotesConfig(), card="NotesTool")
        return self

    def _write(self) -> Callable[..., str]:
        def write_notes(notes: dict[str, str], erase: list[str] | None = None) -> str:
            """Write notes (key -> text) and erase notes by key."""
            if any(not key.strip() for key in notes):
                raise RetriableError("notes: every key must be non-empty; name each note")
            seq = ask_shared_actor(
                lambda: self._actor.write(notes, list(erase or [])), what="The notes"
            )
            return f"saved (change {seq})"

        return write_notes

    def _show(self) -> Callable[..., str]:
        def show_notes() -> str:
            """The notes, one per line."""
            notes = self._actor.snapshot().notes
            return "\n".join(f"{k}: {v}" for k, v in sorted(notes.items()))

        return show_notes

    def get_tools(self) -> list[Callable[..., Any]]:
        write = resolve_param(self.write_notes, WriteNotes)
        return [write.describe(self._write())] if write and write.exposes(TOOL_CALL) else []

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        show = resolve_param(self.show_notes, ShowNotes)
        return [self._show()] if show and show.exposes(SYSTEM_PROMPT) else []

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        write = resolve_param(self.write_notes, WriteNotes)
        return {WriteNotes: self._write()} if write and write.exposes(COMMAND) else {}


# -- what a tool package writes ------------------------------------------------------------


class TestNotesCard(CardStandardTests):
    def make_card(self) -> ToolCard:
        return NotesTool(write_notes=WriteNotes(instructions="Keep notes short."))


class TestNotesBadInput(BadInputTests):
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {
        "write_notes": [{"notes": {"": "x"}}, {"notes": {"ok": "y", "  ": "z"}}]
    }

    def make_card(self) -> ToolCard:
        return NotesTool()

    def seed(self, tools: Tools) -> None:
        tools["write_notes"](notes={"a": "first"})

    def read_state(self, tools: Tools) -> Any:
        return tools["show_notes"]()


class TestNotesPersistence(DeltaPersistenceTests):
    actor_class = NotesActor

    def make_card(self) -> ToolCard:
        return NotesTool()

    def actor_config(self) -> BaseConfig:
        return NotesConfig()

    def add_batch(self, tools: Tools, index: int, size: int) -> None:
        tools["write_notes"](notes={f"n{index}-{i}": f"note {index}/{i}" for i in range(size)})

    def edit(self, tools: Tools) -> None:
        tools["write_notes"](notes={"n0-1": "rewritten"}, erase=["n0-2"])

    def restate(self, tools: Tools) -> None:
        tools["write_notes"](notes={"n0-1": "note 0/1"}, erase=["never-written"])

    def calls_after_stop(self, tools: Tools) -> list[Callable[[], Any]]:
        return [lambda: tools["write_notes"](notes={"late": "note"})]

    def live_state(self, actor: Any) -> TrackedState:
        state: NotesState = actor.snapshot()
        return state

    def empty_state(self) -> TrackedState:
        return NotesState()

    def same_state(self, left: TrackedState, right: TrackedState) -> bool:
        assert isinstance(left, NotesState)
        assert isinstance(right, NotesState)
        return left.notes == right.notes

    def check_resumed(self, tools: Tools, expected: TrackedState) -> None:
        shown = tools["show_notes"]()
        assert "n0-1: rewritten" in shown
        assert "n0-2:" not in shown


class TestNotesStoredForms(StoredFormTests):
    stored_models: ClassVar[Sequence[BaseModel]] = [
        NotesTool(show_notes=False),
        NotesConfig(snapshot_min_changes=8),
        NotesState(pairs=[("a", "b")], seq=3),
    ]
    model_paths: ClassVar[Mapping[type[BaseModel], str]] = {NotesConfig: f"{__name__}.NotesConfig"}


class TestKitSurface(PublicSurfaceTests):
    module = kit
    public_names: ClassVar[Sequence[str]] = kit.__all__
    aliases: ClassVar[Mapping[str, object]] = {
        "akgentic.tool.core.testing.actors:ToolTestAgent": kit.ToolTestAgent,
        "akgentic.tool.core.testing.standard:DeltaPersistenceTests": kit.DeltaPersistenceTests,
    }


# -- each check bites --------------------------------------------------------------------


class Undescribed(ToolCard):
    def get_tools(self) -> list[Callable[..., Any]]:
        def quiet() -> str:
            return "?"

        return [quiet]


class Twice(ToolCard):
    def get_tools(self) -> list[Callable[..., Any]]:
        def one() -> str:
            """Once."""
            return "1"

        def other() -> str:
            """Twice."""
            return "2"

        other.__name__ = "one"
        return [one, other]


def test_a_tool_without_a_docstring_fails() -> None:
    with pytest.raises(AssertionError, match=r"Undescribed.quiet has no description"):
        assert_callables_described(Undescribed(), None)


def test_a_tool_name_given_twice_fails() -> None:
    with pytest.raises(AssertionError, match=r"Twice exposes the tool name\(s\) \['one'\]"):
        assert_callables_described(Twice(), None)


class DeafNotes(NotesTool):
    """Shows its notes whatever ``show_notes.expose`` says."""

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        return [self._show()] if self.show_notes is not False else []


def test_a_capability_ignoring_its_expose_fails(tool_agent: ToolTestAgent) -> None:
    assert capability_fields(NotesTool) == {"write_notes": WriteNotes, "show_notes": ShowNotes}
    assert exposed_names(NotesTool(), tool_agent) == {
        TOOL_CALL: ["write_notes"],
        SYSTEM_PROMPT: ["show_notes"],
        COMMAND: ["WriteNotes"],
    }
    assert_channels_honoured(NotesTool(), tool_agent)
    with pytest.raises(AssertionError, match=r"show_notes without 'system_prompt' in expose"):
        assert_channels_honoured(DeafNotes(), tool_agent)


class CarelessNotes(NotesTool):
    """Writes the valid notes of a call before refusing the invalid ones."""

    def _write(self) -> Callable[..., str]:
        def write_notes(notes: dict[str, str], erase: list[str] | None = None) -> str:
            """Write notes (key -> text) and erase notes by key."""
            self._actor.write({k: v for k, v in notes.items() if k.strip()}, [])
            if any(not key.strip() for key in notes):
                raise RetriableError("notes: every key must be non-empty")
            return "saved"

        return write_notes


class CarelessBadInput(TestNotesBadInput):
    __test__ = False

    def make_card(self) -> ToolCard:
        return CarelessNotes()


def test_a_bad_call_that_changes_the_state_fails(
    actor_system: Any, orchestrator: Any, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(AssertionError, match=r"changed the state"):
        CarelessBadInput().test_bad_calls_retry_and_change_nothing(
            actor_system, orchestrator, tool_agent
        )


class ForgetfulState(NotesState):
    """Replays writes but not erasures: a client rebuilding from events would differ."""

    def apply(self, delta: NotesDelta, seq: int | None = None) -> None:
        super().apply(delta.model_copy(update={"erased": []}), seq)


class ForgetfulReplay(TestNotesPersistence):
    __test__ = False

    def empty_state(self) -> TrackedState:
        return ForgetfulState()


def test_a_replay_that_loses_changes_fails(actor_system: Any, orchestrator: Any) -> None:
    with pytest.raises(AssertionError):
        ForgetfulReplay().test_replaying_the_events_rebuilds_the_live_state(
            actor_system, orchestrator
        )


class PinnedWrongly(TestNotesStoredForms):
    __test__ = False
    model_paths: ClassVar[Mapping[type[BaseModel], str]] = {NotesConfig: "old.place.NotesConfig"}


def test_a_moved_model_path_fails() -> None:
    with pytest.raises(AssertionError):
        PinnedWrongly().test_pinned_model_paths_do_not_move()


def test_eventually_names_what_it_waited_for() -> None:
    def never() -> bool:
        return False

    with pytest.raises(AssertionError, match=r"within 0.02 s: the queue drained last returned"):
        eventually(never, timeout=0.02, what="the queue drained")
    with pytest.raises(AssertionError, match=r": never last returned False"):
        eventually(never, timeout=0.02)
    with pytest.raises(AssertionError) as failure:
        eventually(lambda: [], timeout=0.02)
    assert "eventually(lambda: []" in str(failure.value)
    assert "<function" not in str(failure.value)


class ChattyNotesActor(NotesActor):
    """Publishes its whole state after every change."""

    def _snapshot_cadence(self) -> SnapshotCadence:
        return SnapshotSchedule(1, 0.0)


class ChattyNotesTool(NotesTool):
    def observer(self, observer: ToolObserver) -> Self:
        ToolCard.observer(self, observer)
        self._actor = bind_team_actor(observer, ChattyNotesActor, NotesConfig(), card="Chatty")
        return self


class ChattyPersistence(TestNotesPersistence):
    __test__ = False
    actor_class = ChattyNotesActor

    def make_card(self) -> ToolCard:
        return ChattyNotesTool()


def test_a_snapshot_per_update_fails_the_cadence_check(
    actor_system: Any, orchestrator: Any
) -> None:
    with pytest.raises(AssertionError, match=r"<= 8"):
        ChattyPersistence().test_snapshots_are_rare_and_deltas_proportional_to_the_change(
            actor_system, orchestrator
        )
