"""How the ``akgentic.tool`` root and the ``akgentic.tool.event`` façade resolve a name.

A name already read once is cached in the module, so each test drops the cached entry
first: what is checked is the lookup itself, not a value some earlier import left behind.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import pytest

import akgentic.tool
import akgentic.tool.core
from akgentic.tool.core import ToolCard, registry


def _fresh(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
    monkeypatch.delitem(vars(module), name, raising=False)


@pytest.fixture
def fake_exports(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    table: dict[str, str] = {}
    monkeypatch.setattr(registry, "exported_names", lambda: table)
    yield table
    for name in list(table):
        vars(akgentic.tool).pop(name, None)


@pytest.mark.parametrize("name", sorted(akgentic.tool.core.__all__))
def test_each_core_name_is_looked_up_in_core_and_kept(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    _fresh(monkeypatch, akgentic.tool, name)
    value = getattr(akgentic.tool, name)
    assert value is getattr(akgentic.tool.core, name)
    assert vars(akgentic.tool)[name] is value  # the next read costs nothing


def test_an_exported_name_is_kept_after_its_first_lookup(fake_exports: dict[str, str]) -> None:
    fake_exports["ShelfCard"] = "akgentic.tool.core.card:ToolCard"
    assert akgentic.tool.ShelfCard is ToolCard
    assert vars(akgentic.tool)["ShelfCard"] is ToolCard


def test_dunder_names_never_go_to_the_export_registry(fake_exports: dict[str, str]) -> None:
    # copy, pickle and inspect probe names such as __wrapped__: they must fail at once.
    fake_exports["__shelf__"] = "akgentic.tool.core.card:ToolCard"
    with pytest.raises(AttributeError) as caught:
        akgentic.tool.__shelf__  # noqa: B018
    assert caught.value.args == ("__shelf__",)
    assert "__shelf__" not in vars(akgentic.tool)


@pytest.mark.parametrize(
    "name", ["ToolStateEvent", "CommandArg", "CommandDescriptor", "CommandsAnnouncedEvent"]
)
def test_the_facade_warning_names_both_new_homes(name: str) -> None:
    facade = importlib.import_module("akgentic.tool.event")
    with pytest.warns(DeprecationWarning, match="is deprecated") as caught:
        getattr(facade, name)
    (warning,) = caught.list
    message = str(warning.message)
    assert "import it from akgentic.tool.core.event" in message
    assert "(or from the akgentic.tool root)" in message


@pytest.mark.parametrize("name", ["ToolObserver", "TeamManagementToolObserver"])
def test_a_withdrawn_facade_name_is_named_on_its_import_error(name: str) -> None:
    facade = importlib.import_module("akgentic.tool.event")
    with pytest.raises(ImportError) as caught:
        getattr(facade, name)
    assert caught.value.name == name
    assert f"akgentic.tool.event.{name} was withdrawn" in str(caught.value)
