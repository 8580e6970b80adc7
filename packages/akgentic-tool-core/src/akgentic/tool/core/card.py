"""ToolCard: the serializable configuration of one tool, and its bridge to the runtime.

A card is inert data until `ToolFactory` hands it an observer (the agent that carries it).
From then on the observer is the card's only way to reach the running system. The card
holds it by weak reference: a tool, its closures and its commands must never keep a
stopped agent alive.
"""

from __future__ import annotations

import weakref
from abc import ABC
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Self

from pydantic import Field, PrivateAttr

from akgentic.tool.core.capability import Capability, CapabilityTable
from akgentic.tool.core.channels import COMMAND, SYSTEM_PROMPT, TOOL_CALL
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.params import BaseToolParam
from akgentic.tool.core.tagged import TaggedModel
from akgentic.tool.errors import ToolObserverGone

__all__ = ["ToolCard"]


class ToolCard(TaggedModel, ABC):
    """Base class of every tool's configuration.

    Fields must be serializable (primitives, models, enums, collections): a card round-trips
    through ``model_dump()`` / ``model_validate()`` and travels with the agent's profile; a
    complete dump carries its class in ``__model__``, so a ``list[ToolCard]`` inside an
    akgentic configuration comes back as the same cards. ``arbitrary_types_allowed`` is
    refused when a subclass is defined. Runtime handles (actor proxies, clients) belong in
    ``PrivateAttr``s, set up in :meth:`observer`.

    ``depends_on`` (the class names of the cards this one must be wired after) is a
    property: a subclass overrides it to compute the list from its settings, or assigns
    ``self.depends_on`` in ``model_post_init``. A configuration may also state it
    (``MyTool(depends_on=["VectorStoreTool"])``); a stated list is kept in dumps.

    ``approval_required`` names capabilities whose model calls wait for a person's decision
    (see :mod:`akgentic.tool.core.approval`); like ``max_output_chars`` it is dumped only
    when set.

    ``capabilities`` is the card's capability table (see :mod:`akgentic.tool.core.capability`):
    one :class:`Capability` row per ``bool | Param`` field, built by ``_build_<field>``,
    derived from the fields when the class is defined (or declared in the class body, for
    special cases). ``writing_capabilities`` names the fields whose capability a
    ``read_only`` card leaves out. ``get_tools``, ``get_system_prompts`` and
    ``get_commands`` are derived from the rows; a card may still override them (or
    ``get_toolsets``) for what no row describes.
    """

    capabilities: ClassVar[tuple[Capability, ...]] = ()
    writing_capabilities: ClassVar[frozenset[str]] = frozenset()
    # The rows checked and resolved for this class (set when each subclass is defined).
    __capability_table__: ClassVar[CapabilityTable] = CapabilityTable(rows=(), with_context=False)

    declared_dependencies: list[str] | None = Field(
        default=None,
        alias="depends_on",
        exclude=True,
        repr=False,
        description="The dependencies stated in the configuration (input key depends_on).",
    )

    max_output_chars: int | None = Field(
        default=None,
        ge=0,
        exclude=True,
        repr=False,
        description=(
            "Most characters one result of this card's tools may hand the model; longer "
            "results are cut with a notice. None: the ToolFactory's bound. 0: no bound."
        ),
    )

    approval_required: set[str] | None = Field(
        default=None,
        exclude=True,
        repr=False,
        description=(
            "Names of this card's capabilities whose model calls wait for a person's "
            "approval (as requires_approval=True on their params does). None: no gate."
        ),
    )

    _observer_ref: weakref.ReferenceType[Any] | None = PrivateAttr(default=None)

    if TYPE_CHECKING:
        # Reading `self._observer` gives the live observer or None; assigning it stores a
        # weak reference. Declared for type checkers only, as a property so that it is
        # neither a pydantic field nor a constructor argument.
        @property
        def _observer(self) -> ToolObserver | None: ...

        @_observer.setter
        def _observer(self, value: ToolObserver | None) -> None: ...

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.model_config.get("arbitrary_types_allowed"):
            raise TypeError(
                f"{cls.__name__}: arbitrary_types_allowed is forbidden on a ToolCard; "
                "keep fields serializable and put runtime handles in PrivateAttr"
            )
        if "depends_on" in cls.model_fields:
            raise TypeError(
                f"{cls.__name__}: depends_on is a property of ToolCard, not a field; override "
                "the property, or assign self.depends_on in model_post_init"
            )
        with_context = cls._capability_context is not ToolCard._capability_context
        table = CapabilityTable.of(cls, with_context=with_context)
        cls.__capability_table__ = table
        cls.capabilities = table.capabilities  # derived rows read like declared ones

    @property
    def depends_on(self) -> list[str]:
        """Class names of the cards that must be wired before this one (default: none)."""
        return list(self.declared_dependencies or ())

    @depends_on.setter
    def depends_on(self, value: list[str]) -> None:
        self.declared_dependencies = [str(name) for name in value]

    def _complete_dump(self, data: dict[str, Any]) -> dict[str, Any]:
        # These settings stay out of dumps unless stated, so that a card's stored form is
        # the predecessor's when they are not used.
        if self.declared_dependencies is not None:
            data["depends_on"] = list(self.declared_dependencies)
        if self.max_output_chars is not None:
            data["max_output_chars"] = self.max_output_chars
        if self.approval_required is not None:
            data["approval_required"] = sorted(self.approval_required)
        return data

    if not TYPE_CHECKING:

        def __getattr__(self, name: str) -> Any:
            if name == "_observer":
                return self.get_observer_or_none()
            return super().__getattr__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "_observer":
            self._observer_ref = None if value is None else weakref.ref(value)
            return
        super().__setattr__(name, value)

    def observer(self, observer: ToolObserver) -> Self:
        """Attach the agent that carries this card. Subclasses call ``super()`` first.

        Keep the parameter typed ``ToolObserver`` in overrides: the factory attaches one
        observer to every card, so narrow to a richer protocol inside an accessor instead.
        """
        self._observer_ref = weakref.ref(observer)
        return self

    def get_observer(self) -> ToolObserver:
        """The live observer; raises :class:`ToolObserverGone` when unset or collected."""
        found = self.get_observer_or_none()
        if found is None:
            raise ToolObserverGone(
                f"{type(self).__name__} has no live observer: its agent stopped, "
                "or the card was never attached through ToolFactory/observer()"
            )
        return found

    def get_observer_or_none(self) -> ToolObserver | None:
        """The live observer, or ``None``; for closures that may outlive their agent."""
        ref = self._observer_ref
        if ref is None:
            return None
        found: ToolObserver | None = ref()
        return found

    def get_tools(self) -> list[Callable[..., Any]]:
        """Callables the model may call (TOOL_CALL channel); from the rows by default."""
        return [fn for _, fn in self.__capability_table__.bind(self, TOOL_CALL)]

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        """Callables rendered into the model's context before each call (SYSTEM_PROMPT)."""
        return [fn for _, fn in self.__capability_table__.bind(self, SYSTEM_PROMPT)]

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        """Callables for agents, the orchestrator and humans (COMMAND), keyed by param type."""
        return {row.param: fn for row, fn in self.__capability_table__.bind(self, COMMAND)}

    def get_toolsets(self) -> list[Any]:
        """pydantic-ai toolset objects (for example an MCP server connection)."""
        return []

    def capability_param(self, field: str) -> BaseToolParam | None:
        """The param of the capability in ``field`` as the rows resolve it: ``None`` when it
        is switched off (``False``, or a writing capability of a ``read_only`` card)."""
        for row, param in self.__capability_table__.params(self):
            if row.field == field:
                return param
        return None

    def _capability_context(self) -> Any:
        """What every builder of this card shares within one ``get_*`` call.

        Override it when building needs something costly (an open workspace, an API
        client): it then runs at most once per ``get_*`` call, only when a builder runs,
        and each ``_build_<field>`` takes its result as a second argument.
        """
        return None
