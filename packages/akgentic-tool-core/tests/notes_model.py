"""A small notes state built on DeltaState, shared by the delta-actor tests: a delta writes
and erases notes, the state applies it and counts its notes."""

from __future__ import annotations

from pydantic import Field

from akgentic.tool.core.delta_actor import DeltaToolConfig
from akgentic.tool.core.delta_state import DeltaState, StateDelta

NOTES = "#Notes"


class NotesDelta(StateDelta):
    written: dict[str, str] = Field(default_factory=dict)
    erased: list[str] = Field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.written or self.erased)

    def change_count(self) -> int:
        return len(self.written) + len(self.erased)


class NotesState(DeltaState):
    notes: dict[str, str] = Field(default_factory=dict)

    def size(self) -> int:
        return len(self.notes)

    def apply(self, delta: NotesDelta, seq: int | None = None) -> None:
        for key in delta.erased:
            self.notes.pop(key, None)
        self.notes.update(delta.written)
        if seq is not None:
            self.seq = seq
        self._touch()

    def serializable_copy(self) -> NotesState:
        return type(self).model_construct(notes=dict(self.notes), seq=self.seq)


class NotesConfig(DeltaToolConfig):
    name: str = NOTES
    role: str = "NotesTool"
