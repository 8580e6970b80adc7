"""The kit's surface and stored-form classes: pins read from a file, models read from entries.

A package keeps its public names in a pin file and its stored forms in a fixture's
entries; these tests show each helper reading them as written, and each check failing on
a broken variant (a name missing or listed twice, an entry without its stored data).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import ClassVar

import pytest
from pydantic import BaseModel

from akgentic.core.agent_config import BaseConfig
from akgentic.tool.core.testing import PublicSurfaceTests, StoredFormTests

KIT_LIKE = ModuleType("kit_like")
KIT_LIKE.__all__ = ["ALPHA", "Beta"]  # type: ignore[attr-defined]
KIT_LIKE.ALPHA = 1  # type: ignore[attr-defined]
KIT_LIKE.Beta = object  # type: ignore[attr-defined]


def _pin(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "public_names.txt"
    path.write_text(text, encoding="utf-8")
    return path


def _surface(names: Sequence[str]) -> PublicSurfaceTests:
    class Surface(PublicSurfaceTests):
        module = KIT_LIKE
        public_names: ClassVar[Sequence[str]] = names

    return Surface()


def test_a_pin_file_is_read_one_name_a_line_without_comments(tmp_path: Path) -> None:
    path = _pin(tmp_path, "# the names of kit_like\n\nBeta\nALPHA  # a constant\n")
    names = PublicSurfaceTests.names_listed_in(path)
    assert names == ["Beta", "ALPHA"]
    _surface(names).test_public_names_are_pinned()


def test_an_empty_pin_file_is_refused_by_its_path(tmp_path: Path) -> None:
    path = _pin(tmp_path, "# nothing yet\n\n")
    with pytest.raises(ValueError, match=r"public_names\.txt lists no public name"):
        PublicSurfaceTests.names_listed_in(path)


def test_a_name_missing_from_the_pin_or_from_all_fails(tmp_path: Path) -> None:
    with pytest.raises(AssertionError):
        _surface(
            PublicSurfaceTests.names_listed_in(_pin(tmp_path, "ALPHA\n"))
        ).test_public_names_are_pinned()
    with pytest.raises(AssertionError):
        _surface(["ALPHA", "Beta", "Gamma"]).test_public_names_are_pinned()


def test_a_name_pinned_twice_fails_even_when_all_lists_it_twice() -> None:
    twice = ModuleType("twice")
    twice.__all__ = ["ALPHA", "ALPHA"]  # type: ignore[attr-defined]
    twice.ALPHA = 1  # type: ignore[attr-defined]

    class Surface(PublicSurfaceTests):
        module = twice
        public_names: ClassVar[Sequence[str]] = ["ALPHA", "ALPHA"]

    with pytest.raises(AssertionError, match=r"lists \['ALPHA'\] more than once"):
        Surface().test_public_names_are_pinned()
    with pytest.raises(AssertionError):
        _surface(["ALPHA", "ALPHA", "Beta"]).test_public_names_are_pinned()


ENTRIES = [
    {"card": "BaseConfig", "config": {"name": "@A", "role": "Dev"}},
    {"card": "Elsewhere", "config": {"checked": "by the package"}},
    {"state_model": "BaseConfig", "config": {"name": "@B", "role": "Ops"}},
    {"card": "BaseConfig", "config": {"name": "@C", "role": "QA"}},
]


def test_models_are_read_from_the_entries_naming_a_listed_class_in_order() -> None:
    models = StoredFormTests.models_of(ENTRIES, {"BaseConfig": BaseConfig})
    assert [(type(m), m.name) for m in models if isinstance(m, BaseConfig)] == [
        (BaseConfig, "@A"),
        (BaseConfig, "@C"),
    ]
    by_state = StoredFormTests.models_of(ENTRIES, {"BaseConfig": BaseConfig}, key="state_model")
    assert [m.model_dump()["name"] for m in by_state] == ["@B"]

    class Stored(StoredFormTests):
        stored_models: ClassVar[Sequence[BaseModel]] = models

    Stored().test_dump_and_validate_give_an_equal_model()
    Stored().test_stored_form_names_its_class()


def test_an_entry_without_its_stored_data_is_refused_by_its_index() -> None:
    broken = [ENTRIES[0], {"card": "BaseConfig", "data": {"name": "@X"}}]
    with pytest.raises(ValueError, match=r"stored entry 1 \(BaseConfig\) has no 'config'"):
        StoredFormTests.models_of(broken, {"BaseConfig": BaseConfig})


def test_an_entry_that_does_not_validate_fails() -> None:
    with pytest.raises(ValueError, match="name"):
        StoredFormTests.models_of(
            [{"card": "BaseConfig", "config": {"name": 3}}], {"BaseConfig": BaseConfig}
        )


def _fixture(tmp_path: Path, text: str) -> str:
    """A test module's path whose stored-config fixture holds ``text``."""
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "stored_config.yaml").write_text(text, encoding="utf-8")
    return str(tmp_path / "test_stored.py")


def test_the_fixture_beside_a_test_module_is_read_with_the_parser_it_passes(
    tmp_path: Path,
) -> None:
    entries = StoredFormTests.stored_entries(_fixture(tmp_path, json.dumps(ENTRIES)), json.loads)
    assert entries == ENTRIES
    assert len(StoredFormTests.models_of(entries, {"BaseConfig": BaseConfig})) == 2


@pytest.mark.parametrize(
    ("text", "refusal"),
    [
        ('{"card": "BaseConfig"}', "is a list of mappings"),
        ('[["BaseConfig"]]', "is a list of mappings"),
        ('[{"card": "A", "config": {}}, {"card": "B"}]', r"entries \[1\] have no 'config'"),
    ],
)
def test_a_malformed_fixture_is_refused_by_its_path(
    tmp_path: Path, text: str, refusal: str
) -> None:
    with pytest.raises(ValueError, match=rf"fixtures/stored_config\.yaml: .*{refusal}"):
        StoredFormTests.stored_entries(_fixture(tmp_path, text), json.loads)


def test_models_are_read_by_the_names_of_the_classes_listed() -> None:
    listed = StoredFormTests.models_of(ENTRIES, [BaseConfig])
    mapped = StoredFormTests.models_of(ENTRIES, {"BaseConfig": BaseConfig})
    assert [m.model_dump() for m in listed] == [m.model_dump() for m in mapped]
    assert len(listed) == 2
    assert StoredFormTests.models_of(ENTRIES, [Elsewhere]) == [Elsewhere(checked="by the package")]


class Elsewhere(BaseModel):
    checked: str


def test_two_listed_classes_of_one_name_are_refused() -> None:
    other = type("BaseConfig", (BaseModel,), {})
    with pytest.raises(ValueError, match="two stored classes are named BaseConfig"):
        StoredFormTests.models_of(ENTRIES, [BaseConfig, other])
