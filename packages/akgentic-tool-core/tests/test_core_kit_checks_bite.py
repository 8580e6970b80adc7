"""The kit's card checks bite: each rule passes a card that keeps it and fails one that
breaks it, with a message naming the problem.

Covers ``assert_card_conformance``, ``assert_callables_described``, ``exposed_names`` and
``assert_channels_honoured`` (including cards whose callables exist only once bound to an
agent, so that a check run without the agent would see nothing), how the kit shows values
in its failure messages (``shorten``, ``describe``), and the standard test classes
``CardStandardTests``, ``BadInputTests``, ``RefusalTests``, ``LoweredLimitsTests``,
``StoredFormTests`` and ``DeltaPersistenceTests`` run against small tools: a tool keeping
the rules passes them, and a tool breaking one fails with a message naming it.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, Self

import pytest
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_serializer, model_validator

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core import RetriableError, ToolCard
from akgentic.tool.core.channels import COMMAND, SYSTEM_PROMPT, TOOL_CALL, Channels
from akgentic.tool.core.delta_actor import DeltaToolActor, DeltaToolConfig
from akgentic.tool.core.delta_state import DeltaPayload, DeltaState, TrackedState
from akgentic.tool.core.input_limits import LowerableLimits, lowerable, tighter_limits
from akgentic.tool.core.observer import ToolObserver
from akgentic.tool.core.params import BaseToolParam, resolve_param
from akgentic.tool.core.shared_actor import ask_shared_actor, bind_team_actor
from akgentic.tool.core.testing import (
    CardStandardTests,
    DeltaPersistenceTests,
    LoweredLimitsTests,
    Refusal,
    RefusalTests,
    StoredFormTests,
    Tools,
    ToolTestAgent,
    assert_callables_described,
    assert_card_conformance,
    assert_channels_honoured,
    exposed_names,
)
from akgentic.tool.core.testing._text import describe, shorten

# -- a card whose callables exist only once it is bound to an agent ------------------------


class Lookup(BaseToolParam):
    """Look a word up."""

    expose: set[Channels] = {TOOL_CALL, COMMAND}


class Count(BaseToolParam):
    """Count the words."""

    expose: set[Channels] = {TOOL_CALL}


class Hint(BaseToolParam):
    """Hint at the words in the model's context."""

    expose: set[Channels] = {SYSTEM_PROMPT}


class BoundWords(ToolCard):
    """Three capabilities, none of which shows before the card is bound to an agent."""

    lookup: bool | Lookup = True
    count: bool | Count = True
    hint: bool | Hint = True

    def bound(self) -> bool:
        return self.get_observer_or_none() is not None

    def _lookup(self) -> Callable[..., str]:
        def lookup(word: str) -> str:
            """Look a word up."""
            if not word:
                raise RetriableError("word: give a non-empty word")
            return f"found {word}"

        return lookup

    def _count(self) -> Callable[..., int]:
        def count() -> int:
            """How many words there are."""
            return 3

        return count

    def _hint(self) -> Callable[..., str]:
        def hint() -> str:
            """The words, as a hint."""
            return "a b c"

        return hint

    def get_tools(self) -> list[Callable[..., Any]]:
        if not self.bound():
            return []
        tools: list[Callable[..., Any]] = []
        lookup = resolve_param(self.lookup, Lookup)
        if lookup and lookup.exposes(TOOL_CALL):
            tools.append(self._lookup())
        count = resolve_param(self.count, Count)
        if count and count.exposes(TOOL_CALL):
            tools.append(self._count())
        return tools

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        hint = resolve_param(self.hint, Hint)
        return [self._hint()] if self.bound() and hint and hint.exposes(SYSTEM_PROMPT) else []

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        lookup = resolve_param(self.lookup, Lookup)
        if self.bound() and lookup and lookup.exposes(COMMAND):
            return {Lookup: self._lookup()}
        return {}


class DeafHint(BoundWords):
    """Shows its hint whatever ``hint.expose`` says."""

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        return [self._hint()] if self.bound() and self.hint is not False else []


class HintNeedsLookup(DeafHint):
    """Refuses to switch ``lookup`` off while the hint is on."""

    @model_validator(mode="after")
    def _hint_needs_lookup(self) -> HintNeedsLookup:
        if self.hint is not False and self.lookup is False:
            raise ValueError("hint needs lookup")
        return self


class DeafCountCommand(BoundWords):
    """Offers ``count`` as a command whatever ``count.expose`` says."""

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        commands = super().get_commands()
        if self.bound() and self.count is not False:
            commands[Count] = self._count()
        return commands


class TiedCommand(BoundWords):
    """Drops the lookup command along with the lookup tool."""

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        lookup = resolve_param(self.lookup, Lookup)
        if self.bound() and lookup and lookup.exposes(COMMAND) and lookup.exposes(TOOL_CALL):
            return {Lookup: self._lookup()}
        return {}


class QuietWhenBound(BoundWords):
    """Once bound, adds a tool without a description."""

    def get_tools(self) -> list[Callable[..., Any]]:
        def quiet() -> str:
            return "?"

        return [*super().get_tools(), quiet] if self.bound() else []


class UndescribedParam(BaseToolParam):
    expose: set[Channels] = {COMMAND}


class CommandCard(ToolCard):
    """Offers one command, once bound; its function and param docstrings are given."""

    command_doc: str | None = None
    param_doc: str | None = None

    def get_commands(self) -> dict[type[BaseToolParam], Callable[..., Any]]:
        if self.get_observer_or_none() is None:
            return {}

        def run() -> str:
            return "ran"

        run.__doc__ = self.command_doc
        param = type("RunParam", (UndescribedParam,), {"__doc__": self.param_doc})
        return {param: run}


class Nameless:
    """A described callable object, which has no ``__name__``."""

    def __call__(self) -> str:
        return "?"


def _with_doc(fn: Callable[..., Any], doc: str) -> Callable[..., Any]:
    fn.__doc__ = doc
    return fn


class OddTools(ToolCard):
    """Exposes, unbound, whatever ``kind`` names: a nameless object or a lambda."""

    kind: str = "nameless"

    def get_tools(self) -> list[Callable[..., Any]]:
        if self.kind == "nameless":
            return [Nameless()]
        return [_with_doc(lambda: "?", "A described lambda.")]

    def get_system_prompts(self) -> list[Callable[..., Any]]:
        return [Nameless()]


# -- conformance: round trip and bad calls ---------------------------------------------------


class OneWay(ToolCard):
    size: int = 3

    @field_serializer("size")
    def _as_words(self, size: int) -> str:
        return f"{size} words"


def test_a_card_allowing_arbitrary_types_fails() -> None:
    class Loose(ToolCard):
        pass

    # ToolCard refuses the setting when the class is made; the check still holds after.
    Loose.model_config = ConfigDict(**{**Loose.model_config, "arbitrary_types_allowed": True})
    with pytest.raises(AssertionError, match=r"^Loose allows arbitrary types$"):
        assert_card_conformance(Loose())


def test_a_card_that_cannot_be_read_back_from_json_fails() -> None:
    with pytest.raises(AssertionError, match=r"^OneWay does not round-trip through JSON: "):
        assert_card_conformance(OneWay())


def test_bad_calls_are_made_on_the_card_bound_to_the_observer(tool_agent: ToolTestAgent) -> None:
    assert_card_conformance(BoundWords(), observer=tool_agent, bad_calls={"lookup": [{"word": ""}]})


def test_a_bad_call_that_succeeds_is_named_with_its_card_and_result(
    tool_agent: ToolTestAgent,
) -> None:
    with pytest.raises(AssertionError) as failure:
        assert_card_conformance(
            BoundWords(), observer=tool_agent, bad_calls={"lookup": [{"word": "ok"}]}
        )
    message = str(failure.value)
    assert message.startswith("BoundWords.lookup({'word': 'ok'}) is listed as a bad call")
    assert "(returned 'found ok')" in message
    assert message.endswith("a bad call must raise RetriableError")


def test_the_observer_missing_for_bad_calls_is_named() -> None:
    with pytest.raises(AssertionError, match=r"^bad_calls needs an observer"):
        assert_card_conformance(BoundWords(), bad_calls={"lookup": [{"word": ""}]})


# -- exposed names --------------------------------------------------------------------------


def test_exposed_names_are_those_of_the_card_bound_to_the_observer(
    tool_agent: ToolTestAgent,
) -> None:
    assert exposed_names(BoundWords(), tool_agent) == {
        TOOL_CALL: ["lookup", "count"],
        SYSTEM_PROMPT: ["hint"],
        COMMAND: ["Lookup"],
    }
    assert exposed_names(BoundWords(), None) == {TOOL_CALL: [], SYSTEM_PROMPT: [], COMMAND: []}


def test_a_nameless_prompt_is_exposed_under_an_empty_name() -> None:
    assert exposed_names(OddTools(), None)[SYSTEM_PROMPT] == [""]


# -- callables described ----------------------------------------------------------------------


def test_a_described_bound_card_passes(tool_agent: ToolTestAgent) -> None:
    assert_callables_described(BoundWords(), tool_agent)


def test_an_undescribed_tool_of_the_bound_card_fails(tool_agent: ToolTestAgent) -> None:
    with pytest.raises(AssertionError, match=r"QuietWhenBound.quiet has no description"):
        assert_callables_described(QuietWhenBound(), tool_agent)


def test_a_tool_without_a_name_fails() -> None:
    with pytest.raises(AssertionError, match=r"^OddTools exposes a tool without a name: "):
        assert_callables_described(OddTools(), None)


def test_a_lambda_tool_fails_as_nameless_even_when_described() -> None:
    with pytest.raises(AssertionError, match=r"^OddTools exposes a tool without a name: "):
        assert_callables_described(OddTools(kind="lambda"), None)


def test_an_undescribed_command_of_the_bound_card_fails(tool_agent: ToolTestAgent) -> None:
    with pytest.raises(AssertionError, match=r"^CommandCard's command RunParam has no descr"):
        assert_callables_described(CommandCard(), tool_agent)


def test_a_command_described_by_its_function_or_its_param_passes(
    tool_agent: ToolTestAgent,
) -> None:
    assert_callables_described(CommandCard(command_doc="Run it."), tool_agent)
    assert_callables_described(CommandCard(param_doc="Run it."), tool_agent)
    assert_callables_described(CommandCard(command_doc="Run.", param_doc="Run it."), tool_agent)


# -- channels honoured ------------------------------------------------------------------------


def test_a_bound_card_keeping_its_channels_passes(tool_agent: ToolTestAgent) -> None:
    assert_channels_honoured(BoundWords(), tool_agent)


def test_a_capability_ignoring_its_expose_is_named_with_its_card(
    tool_agent: ToolTestAgent,
) -> None:
    with pytest.raises(AssertionError, match=r"^DeafHint.hint without 'system_prompt' in expose"):
        assert_channels_honoured(DeafHint(), tool_agent)


def test_a_capability_switched_off_does_not_stop_the_check_of_the_next(
    tool_agent: ToolTestAgent,
) -> None:
    with pytest.raises(AssertionError, match=r"DeafHint.hint without 'system_prompt'"):
        assert_channels_honoured(DeafHint(lookup=False), tool_agent)


def test_a_capability_that_cannot_be_switched_off_does_not_stop_the_check(
    tool_agent: ToolTestAgent,
) -> None:
    with pytest.raises(AssertionError, match=r"HintNeedsLookup.hint without 'system_prompt'"):
        assert_channels_honoured(HintNeedsLookup(), tool_agent)


def test_the_channels_checked_are_those_of_the_param_given(tool_agent: ToolTestAgent) -> None:
    wide = Count(expose={TOOL_CALL, COMMAND})
    with pytest.raises(AssertionError, match=r"DeafCountCommand.count without 'command'"):
        assert_channels_honoured(DeafCountCommand(count=wide), tool_agent)


def test_a_channel_dropped_with_another_is_named(tool_agent: ToolTestAgent) -> None:
    with pytest.raises(AssertionError) as failure:
        assert_channels_honoured(TiedCommand(), tool_agent)
    assert str(failure.value) == (
        "TiedCommand.lookup without 'tool_call' in expose changed the 'command' channel: "
        "[], expected ['Lookup']"
    )


# -- how values show in failure messages ---------------------------------------------------


def test_shorten_keeps_a_repr_up_to_the_limit_and_cuts_a_longer_one() -> None:
    fits = "x" * 198  # repr adds the two quotes: 200 characters
    assert shorten(fits) == repr(fits)
    longer = "x" * 199
    assert shorten(longer) == repr(longer)[:200] + "..."
    assert shorten("abcdef", 3) == "'ab..."


class Predicate:
    """A callable without ``__name__``, shown by its repr."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __call__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return self.text


def test_describe_shows_a_nameless_predicate_by_its_repr_cut_to_160() -> None:
    assert describe(Predicate("queue drained")) == "queue drained"
    assert describe(Predicate("r" * 160)) == "r" * 160
    assert describe(Predicate("r" * 161)) == "r" * 160 + "..."


def test_describe_shows_a_named_function_by_name() -> None:
    def ready() -> bool:
        return True

    assert describe(ready) == "ready"
    assert describe(functools.partial(ready)).startswith("functools.partial(")


def test_describe_says_when_a_lambdas_source_is_missing() -> None:
    hidden = eval("lambda: 1")
    assert describe(hidden) == "a lambda whose source is not available"


def test_describe_shows_a_long_lambda_by_its_source_cut_to_160(tmp_path: Path) -> None:
    body = " and ".join(f"flag_{i}" for i in range(40))
    source = f"flag_0 = True\nwaited = lambda: {body}\nshort = lambda: flag_0\n"
    path = tmp_path / "kit_long_lambda.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("kit_long_lambda", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kit_long_lambda"] = module
    try:
        spec.loader.exec_module(module)
        line = source.splitlines()[1]
        assert describe(module.waited) == repr(line)[:160] + "..."
        assert describe(module.short) == repr("short = lambda: flag_0")
    finally:
        del sys.modules["kit_long_lambda"]


# -- CardStandardTests ----------------------------------------------------------------------


class QuietCardChecks(CardStandardTests):
    __test__ = False

    def make_card(self) -> ToolCard:
        return QuietWhenBound()


class DeafCardChecks(CardStandardTests):
    __test__ = False

    def make_card(self) -> ToolCard:
        return DeafHint()


def test_the_card_class_checks_the_descriptions_of_the_bound_card(
    tool_agent: ToolTestAgent,
) -> None:
    with pytest.raises(AssertionError, match=r"QuietWhenBound.quiet has no description"):
        QuietCardChecks().test_every_callable_is_described_under_a_unique_name(tool_agent)


def test_the_card_class_checks_the_channels_of_the_bound_card(tool_agent: ToolTestAgent) -> None:
    with pytest.raises(AssertionError, match=r"DeafHint.hint without 'system_prompt'"):
        DeafCardChecks().test_each_capability_keeps_to_its_channels(tool_agent)


def test_the_card_class_skips_the_channels_when_told_and_says_why(
    tool_agent: ToolTestAgent,
) -> None:
    checks = DeafCardChecks()
    checks.check_channels = False
    with pytest.raises(pytest.skip.Exception) as skipped:
        checks.test_each_capability_keeps_to_its_channels(tool_agent)
    assert str(skipped.value.msg).startswith("this card's variants are not bound in tests")
    assert "(check_channels=False)" in str(skipped.value.msg)


# -- BadInputTests and RefusalTests ---------------------------------------------------------


class BoundShelf(ToolCard):
    """Keeps labels on the card; its tools exist only once bound."""

    careless: bool = False
    _labels: list[str] = PrivateAttr(default_factory=list)

    def get_tools(self) -> list[Callable[..., Any]]:
        if self.get_observer_or_none() is None:
            return []

        def put(label: str) -> str:
            """Put a label on the shelf."""
            if self.careless:
                self._labels.append(label)
            if not label.strip():
                raise RetriableError("label: give a non-empty text")
            self._labels.append(label)
            return "stored"

        def shelf() -> list[str]:
            """The labels."""
            return list(self._labels)

        return [put, shelf]


class ShelfRefusals(RefusalTests):
    __test__ = False
    careless: ClassVar[bool] = False
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {"put": [{"label": " "}]}
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {
        "put": [({"label": " "}, "give a non-empty text")]
    }

    def make_card(self) -> ToolCard:
        return BoundShelf(careless=self.careless)

    def seed(self, tools: Tools) -> None:
        tools["put"]("kept")

    def read_state(self, tools: Tools) -> Any:
        return tools["shelf"]()


class CarelessShelfRefusals(ShelfRefusals):
    careless: ClassVar[bool] = True


class MissingToolRefusals(ShelfRefusals):
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {"take": [{"label": ""}]}
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {"take": [({"label": ""}, "label")]}


def test_refusals_are_made_on_the_card_bound_to_the_agent(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    ShelfRefusals().test_refusals_say_what_to_fix(actor_system, orchestrator, tool_agent)
    ShelfRefusals().test_bad_calls_retry_and_change_nothing(actor_system, orchestrator, tool_agent)


def test_a_refusal_that_changes_the_state_is_named(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(AssertionError, match=r"^a refusal changed the state"):
        CarelessShelfRefusals().test_refusals_say_what_to_fix(
            actor_system, orchestrator, tool_agent
        )


def test_a_bad_call_that_changes_the_state_is_named_with_its_arguments(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(AssertionError, match=r"^put\(\{'label': ' '\}\) changed the state"):
        CarelessShelfRefusals().test_bad_calls_retry_and_change_nothing(
            actor_system, orchestrator, tool_agent
        )


def test_refusals_of_a_tool_the_card_lacks_name_the_tools_it_has(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(AssertionError, match=r"no tool named 'take': \['put', 'shelf'\]"):
        MissingToolRefusals().test_refusals_say_what_to_fix(actor_system, orchestrator, tool_agent)
    with pytest.raises(AssertionError, match=r"no tool named 'take': \['put', 'shelf'\]"):
        MissingToolRefusals().test_bad_calls_retry_and_change_nothing(
            actor_system, orchestrator, tool_agent
        )


# -- LoweredLimitsTests -------------------------------------------------------------------------

CEILING = 30


class ClampedLimits(LowerableLimits):
    """Takes a value over the ceiling by clamping it: a bound that goes higher, silently."""

    label_max_chars: int = lowerable(CEILING)

    @model_validator(mode="before")
    @classmethod
    def _clamp(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("label_max_chars", 0) > CEILING:
            return {**data, "label_max_chars": CEILING}
        return data


class LimitChecks(LoweredLimitsTests):
    __test__ = False
    lowered: ClassVar[LowerableLimits] = ClampedLimits(label_max_chars=5)
    ceilings: ClassVar[Mapping[str, int]] = {"label_max_chars": CEILING}
    described: ClassVar[Mapping[str, Sequence[str]]] = {}

    def card_with(self, limits: LowerableLimits) -> ToolCard:
        return BoundShelf()

    def read_state(self, tools: Tools) -> Any:
        return tools["shelf"]()


def test_a_bound_taking_a_value_over_its_ceiling_fails() -> None:
    with pytest.raises(pytest.fail.Exception, match="DID NOT RAISE"):
        LimitChecks().test_each_bound_defaults_to_its_ceiling_and_goes_no_higher()


class LabelLimits(LowerableLimits):
    label_max_chars: int = lowerable(CEILING)


class BoundLabels(ToolCard):
    """Its label tool, once bound, states the bound a team lowered."""

    limits: LabelLimits = LabelLimits()

    def get_tools(self) -> list[Callable[..., Any]]:
        if self.get_observer_or_none() is None:
            return []

        def label(text: str) -> str:
            return "added"

        stated = tighter_limits([("labels {} characters", self.limits.label_max_chars, CEILING)])
        label.__doc__ = f"Add a label. {stated or ''}"
        return [label]


class BoundLabelChecks(LimitChecks):
    lowered: ClassVar[LowerableLimits] = LabelLimits(label_max_chars=5)
    described: ClassVar[Mapping[str, Sequence[str]]] = {"label": ["labels 5 characters"]}

    def card_with(self, limits: LowerableLimits) -> ToolCard:
        assert isinstance(limits, LabelLimits)
        return BoundLabels(limits=limits)


def test_descriptions_are_read_from_the_cards_bound_to_the_agent(
    tool_agent: ToolTestAgent,
) -> None:
    BoundLabelChecks().test_descriptions_state_the_lowered_bounds_only(tool_agent)
    BoundLabelChecks().test_each_bound_defaults_to_its_ceiling_and_goes_no_higher()


# -- StoredFormTests ----------------------------------------------------------------------------


class Plain(BaseModel):
    size: int = 1


class Other(BaseModel):
    size: int = 1


class PlainForms(StoredFormTests):
    __test__ = False
    stored_models: ClassVar[Sequence[BaseModel]] = [Plain()]


class GrowingCard(ToolCard):
    """Appends to its text on every validation: a load differs from what was stored."""

    text: str = "a"

    def model_post_init(self, context: Any) -> None:
        self.text = self.text + "!"


class GrowingForms(StoredFormTests):
    __test__ = False
    stored_models: ClassVar[Sequence[BaseModel]] = [GrowingCard()]


class UnsampledForms(StoredFormTests):
    __test__ = False
    stored_models: ClassVar[Sequence[BaseModel]] = []
    model_paths: ClassVar[Mapping[type[BaseModel], str]] = {Plain: f"{__name__}.Plain"}


def test_same_model_needs_both_the_class_and_the_data_to_match() -> None:
    forms = PlainForms()
    assert forms.same_model(Plain(size=2), Plain(size=2))
    assert not forms.same_model(Plain(size=1), Plain(size=2))
    assert not forms.same_model(Plain(size=1), Other(size=1))


def test_a_stored_form_without_its_class_is_named() -> None:
    with pytest.raises(AssertionError, match=r"^Plain dump lacks __model__"):
        PlainForms().test_stored_form_names_its_class()


def test_a_model_that_loads_differently_is_named() -> None:
    with pytest.raises(AssertionError, match=r"^GrowingCard"):
        GrowingForms().test_stored_form_names_its_class()


def test_a_pinned_path_without_a_sample_asks_for_one() -> None:
    with pytest.raises(AssertionError, match=r"model_paths names Plain: add a sample"):
        UnsampledForms().test_pinned_model_paths_do_not_move()


# -- DeltaPersistenceTests ---------------------------------------------------------------------

TALLY = "#KitTally"


class TallyDelta(DeltaPayload):
    """One call's net change: counters set (name -> value)."""

    written: dict[str, int] = Field(default_factory=dict)

    def change_count(self) -> int:
        return len(self.written)

    def is_empty(self) -> bool:
        return not self.written


class TallyState(DeltaState):
    counts: dict[str, int] = Field(default_factory=dict)

    def size(self) -> int:
        return len(self.counts)

    def apply(self, delta: TallyDelta, seq: int | None = None) -> None:
        self.counts = {**self.counts, **delta.written}
        self.seq = self.seq if seq is None else seq
        self._touch()

    def serializable_copy(self) -> TallyState:
        return TallyState.model_construct(counts=dict(self.counts), seq=self.seq)


class TallyConfig(DeltaToolConfig):
    name: str = TALLY
    role: str = "TallyTool"


class TallyActor(DeltaToolActor[TallyConfig, TallyState]):
    delta_type = TallyDelta

    def on_start(self) -> None:
        self.state = TallyState().observer(self)
        super().on_start()

    def write(self, written: dict[str, int]) -> int | None:
        delta = TallyDelta(
            written={k: v for k, v in written.items() if self.state.counts.get(k) != v}
        )
        self.state.apply(delta)
        return self._emit(delta)

    def snapshot(self) -> TallyState:
        return self.state.serializable_copy()


class TallyTool(ToolCard):
    _actor: Any = PrivateAttr(default=None)

    def observer(self, observer: ToolObserver) -> Self:
        super().observer(observer)
        self._actor = bind_team_actor(observer, TallyActor, TallyConfig(), card="TallyTool")
        return self

    def get_tools(self) -> list[Callable[..., Any]]:
        def tally(counts: dict[str, int]) -> str:
            """Set counters (name -> value)."""
            seq = ask_shared_actor(lambda: self._actor.write(counts), what="The tally")
            return f"saved (change {seq})"

        def counts() -> dict[str, int]:
            """The counters."""
            return dict(self._actor.snapshot().counts)

        return [tally, counts]


class TallyPersistence(DeltaPersistenceTests):
    __test__ = False
    actor_class = TallyActor
    agent_name: ClassVar[str] = "@Counter"

    def make_card(self) -> ToolCard:
        return TallyTool()

    def actor_config(self) -> BaseConfig:
        return TallyConfig()

    def add_batch(self, tools: Tools, index: int, size: int) -> None:
        tools["tally"](counts={f"c{index}-{i}": i for i in range(size)})

    def edit(self, tools: Tools) -> None:
        tools["tally"](counts={"c0-1": 100})

    def restate(self, tools: Tools) -> None:
        tools["tally"](counts={"c0-1": 1})

    def calls_after_stop(self, tools: Tools) -> list[Callable[[], Any]]:
        return [lambda: tools["tally"](counts={"late": 1})]

    def live_state(self, actor: Any) -> TrackedState:
        state: TallyState = actor.snapshot()
        return state

    def empty_state(self) -> TrackedState:
        return TallyState()

    def same_state(self, left: TrackedState, right: TrackedState) -> bool:
        assert isinstance(left, TallyState)
        assert isinstance(right, TallyState)
        return left.counts == right.counts

    def check_resumed(self, tools: Tools, expected: TrackedState) -> None:
        assert isinstance(expected, TallyState)
        assert tools["counts"]() == expected.counts


class SilentAfterStop(TallyPersistence):
    def calls_after_stop(self, tools: Tools) -> list[Callable[[], Any]]:
        return []


def test_a_resume_is_checked_through_the_agent_named_and_the_state_expected(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    TallyPersistence().test_stop_then_resume_keeps_the_state_and_the_sequence(
        actor_system, orchestrator
    )


def test_an_abrupt_end_is_checked_against_the_state_expected(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    TallyPersistence().test_abrupt_end_restores_a_stale_snapshot_and_the_newer_deltas(
        actor_system, orchestrator
    )


def test_an_abrupt_end_without_a_snapshot_is_checked_against_the_state_expected(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    TallyPersistence().test_abrupt_end_without_a_snapshot_restores_from_the_history(
        actor_system, orchestrator
    )


def test_no_calls_after_the_stop_is_refused_saying_so(
    actor_system: ActorSystem, orchestrator: ActorAddress
) -> None:
    with pytest.raises(AssertionError, match=r"^list at least one call"):
        SilentAfterStop().test_calls_after_the_team_stopped_ask_for_a_retry(
            actor_system, orchestrator
        )


class LeakyTally(TallyTool):
    """Writes a call's counters before it refuses the negative ones."""

    def get_tools(self) -> list[Callable[..., Any]]:
        def tally(counts: dict[str, int]) -> str:
            """Set counters (name -> value)."""
            self._actor.write(counts)
            if any(value < 0 for value in counts.values()):
                raise RetriableError("counts: every value must be 0 or more")
            return "saved"

        return [tally]


class LeakyTallyRefusals(RefusalTests):
    """Reads no state: only the events the refusals emitted can show the leak."""

    __test__ = False
    bad_calls: ClassVar[Mapping[str, Sequence[Mapping[str, Any]]]] = {
        "tally": [{"counts": {"a": -1}}]
    }
    refusals: ClassVar[Mapping[str, Sequence[Refusal]]] = {
        "tally": [({"counts": {"b": -1}}, "0 or more")]
    }

    def make_card(self) -> ToolCard:
        return LeakyTally()

    def seed(self, tools: Tools) -> None:
        tools["tally"](counts={"seeded": 1})  # one event before the bad calls

    def read_state(self, tools: Tools) -> Any:
        return None


def test_state_events_emitted_by_refusals_are_counted(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(AssertionError, match=r"^refusals emitted 1 event\(s\)"):
        LeakyTallyRefusals().test_refusals_say_what_to_fix(actor_system, orchestrator, tool_agent)


def test_state_events_emitted_by_a_bad_call_are_counted(
    actor_system: ActorSystem, orchestrator: ActorAddress, tool_agent: ToolTestAgent
) -> None:
    with pytest.raises(
        AssertionError, match=r"^tally\(\{'counts': \{'a': -1\}\}\) emitted 1 state"
    ):
        LeakyTallyRefusals().test_bad_calls_retry_and_change_nothing(
            actor_system, orchestrator, tool_agent
        )
