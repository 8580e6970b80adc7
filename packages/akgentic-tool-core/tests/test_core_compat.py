"""The migration surface: the akgentic.tool.event façade and the withdrawn paths."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

import akgentic.tool.core.event as new_home


def test_importing_the_facade_does_not_warn() -> None:
    code = (
        "import warnings; warnings.simplefilter('error');import akgentic.tool.event; print('quiet')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "quiet"


@pytest.mark.parametrize(
    "name", ["ToolStateEvent", "CommandArg", "CommandDescriptor", "CommandsAnnouncedEvent"]
)
def test_shimmed_names_resolve_with_a_deprecation_warning(name: str) -> None:
    facade = importlib.import_module("akgentic.tool.event")
    with pytest.warns(DeprecationWarning, match=f"akgentic.tool.event.{name} is deprecated"):
        value = getattr(facade, name)
    assert value is getattr(new_home, name)


@pytest.mark.parametrize(
    ("name", "hint"),
    [
        ("ToolObserver", "akgentic.tool.core.observer"),
        ("ActorToolObserver", "akgentic.tool.core.observer"),
        ("TeamManagementToolObserver", "akgentic.tool.team.observer"),
    ],
)
def test_withdrawn_observers_raise_import_error_with_new_path(name: str, hint: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ImportError, match=hint):
            exec(f"from akgentic.tool.event import {name}", {})


def test_unknown_name_on_the_facade_is_an_attribute_error() -> None:
    facade = importlib.import_module("akgentic.tool.event")
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        facade.Nope  # noqa: B018


def test_withdrawn_vector_module_names_its_replacement() -> None:
    sys.modules.pop("akgentic.tool.vector", None)
    with pytest.raises(ImportError, match="akgentic.tool.vector_store.vector"):
        importlib.import_module("akgentic.tool.vector")
