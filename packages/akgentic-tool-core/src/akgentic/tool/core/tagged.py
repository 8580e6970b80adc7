"""TaggedModel: the serialization base of cards and params.

Cards and params are stored inside agent configurations (``tools: list[ToolCard]``) and
restored from them, so a dump has to say which class it came from. ``TaggedModel`` is an
akgentic-core ``SerializableBaseModel`` (whose validator reads the ``__model__`` tag back)
with pydantic's own field serialization, so ``include``/``exclude``, ``mode="json"`` and
secret types behave as pydantic documents them:

- a complete dump carries ``"__model__": "<module>.<Class>"``; a partial one (``include`` or
  ``exclude`` given) is a plain dict of the chosen fields;
- even in python mode a dump holds only what JSON holds (sets become lists, UUIDs and
  dates strings), converted by akgentic-core's ``serialize``, so an agent configuration
  that stores its cards can write its ``model_dump()`` as JSON;
- an instance held in a field typed with its base class dumps as its own class
  (``polymorphic_serialization``), as it did under the predecessor's serializer.
"""

from __future__ import annotations

import contextlib
from typing import Any

from pydantic import ConfigDict, SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from akgentic.core.utils.serializer import SerializableBaseModel, serialize, serialize_type

__all__ = ["TaggedModel"]


class TaggedModel(SerializableBaseModel):
    """A ``SerializableBaseModel`` whose dumps keep pydantic's semantics and a class tag."""

    model_config = ConfigDict(
        arbitrary_types_allowed=False, extra="forbid", polymorphic_serialization=True
    )

    @model_serializer(mode="wrap")
    def serialize_model(  # type: ignore[override]  # wrap mode replaces the plain serializer
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            self._order_sets(data)
        if info.mode == "python":
            data = serialize(data)
        if isinstance(data, dict) and info.include is None and info.exclude is None:
            data = self._complete_dump(data)
            data["__model__"] = serialize_type(self)
        return data

    def _order_sets(self, data: dict[str, Any]) -> None:
        # A set is dumped as a list in its iteration order, which depends on the process's
        # hash seed: the same card would give a different stored form in every process.
        # Sorted, a stored configuration is stable and a round trip compares equal.
        for name, value in data.items():
            if isinstance(getattr(self, name, None), set | frozenset) and isinstance(
                value, set | frozenset | list
            ):
                # Items that do not order among themselves keep their order.
                with contextlib.suppress(TypeError):
                    data[name] = sorted(value)

    def _complete_dump(self, data: dict[str, Any]) -> dict[str, Any]:
        """Hook for what a complete dump adds beyond the fields (see ``ToolCard``)."""
        return data
