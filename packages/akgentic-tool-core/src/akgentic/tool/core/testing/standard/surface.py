"""What a package promises to keep: its public names and the stored form of its models."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from pydantic import BaseModel

from akgentic.core.utils.deserializer import deserialize_object

__all__ = ["PublicSurfaceTests", "StoredFormTests"]


class PublicSurfaceTests:
    """The package's ``__all__`` is pinned, and every name in it resolves.

    Supply :attr:`module` (the package), :attr:`public_names` (its ``__all__``, in any
    order; :meth:`names_listed_in` reads them from a file) and optionally
    :attr:`aliases`: ``"dotted.module:Name"`` -> the public object it must be (older
    import paths that must keep working).
    """

    module: ClassVar[ModuleType]
    public_names: ClassVar[Sequence[str]]
    aliases: ClassVar[Mapping[str, object]] = {}

    @staticmethod
    def names_listed_in(path: Path) -> list[str]:
        """The names of a pin file: one a line; blank lines and ``#`` comments are skipped.

        A package's pin is data, like its stored-config fixture: kept in a file, it is
        written once rather than restated as code beside the ``__all__`` it pins.
        """
        lines = (line.partition("#")[0].strip() for line in path.read_text("utf-8").splitlines())
        names = [line for line in lines if line]
        if not names:
            raise ValueError(f"{path} lists no public name")
        return names

    def test_public_names_are_pinned(self) -> None:
        # Adding a name is deliberate and removing one breaks users: both show here. A
        # name listed twice in ``__all__`` shows too, as long as the pin lists it once.
        assert sorted(self.module.__all__) == sorted(self.public_names)
        twice = sorted({name for name in self.public_names if self.public_names.count(name) > 1})
        assert twice == [], f"public_names lists {twice} more than once"

    def test_every_public_name_resolves(self) -> None:
        missing = [name for name in self.module.__all__ if getattr(self.module, name) is None]
        assert missing == [], f"{self.module.__name__} exports None for {missing}"

    def test_older_import_paths_still_resolve(self) -> None:
        for path, expected in self.aliases.items():
            module_name, _, name = path.partition(":")
            found = getattr(importlib.import_module(module_name), name)
            assert found is expected, f"{path} is {found!r}, not {expected!r}"


class StoredFormTests:
    """Stored models (cards, actor configs, states) survive persistence unchanged.

    Supply :attr:`stored_models`: instances as a deployment stores them (:meth:`models_of`
    validates them from the entries :meth:`stored_entries` reads from the package's
    stored-config fixture). Each must come back equal from ``model_dump`` ->
    ``model_validate`` and from JSON, its dump must carry ``__model__``, and loading that
    dump by its ``__model__`` path (what a store does) must give back an equal instance of
    the same class. :attr:`model_paths` pins the ``__model__`` of a class whose persisted
    path must never move (class -> path). :meth:`same_model` compares two loads (by type
    and dump, which leaves out runtime handles a card keeps in private attributes).
    """

    stored_models: ClassVar[Sequence[BaseModel]]
    model_paths: ClassVar[Mapping[type[BaseModel], str]] = {}

    @staticmethod
    def stored_entries(
        test_module: str | Path, parse: Callable[[str], Any]
    ) -> list[dict[str, Any]]:
        """The entries of the stored-config fixture beside a test module (its ``__file__``).

        Every package keeps it at ``fixtures/stored_config.yaml`` next to its tests: a list
        of mappings, each naming its model and holding the stored data under ``config``.
        ``parse`` reads the file's text: the package passes its parser (``yaml.safe_load``),
        so the kit depends on no file format.
        """
        path = Path(test_module).parent / "fixtures" / "stored_config.yaml"
        entries = parse(path.read_text("utf-8"))
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ValueError(f"{path}: a stored-config fixture is a list of mappings")
        missing = [index for index, entry in enumerate(entries) if "config" not in entry]
        if missing:
            raise ValueError(f"{path}: entries {missing} have no 'config'")
        return entries

    @staticmethod
    def models_of(
        entries: Iterable[Mapping[str, Any]],
        classes: Mapping[str, type[BaseModel]] | Iterable[type[BaseModel]],
        key: str = "card",
    ) -> list[BaseModel]:
        """The stored models of a stored-config fixture, in its order.

        Each entry names its model under ``key`` and holds the stored data under
        ``config``. ``classes`` maps those names to classes, or lists the classes, each
        named by its ``__name__`` (how fixtures name them). An entry whose name is not
        among them is left out (a package checks those models elsewhere, e.g. one that
        needs a test's environment).
        """
        by_name = dict(classes) if isinstance(classes, Mapping) else _by_name(classes)
        models: list[BaseModel] = []
        for index, entry in enumerate(entries):
            cls = by_name.get(entry.get(key, ""))
            if cls is None:
                continue
            if "config" not in entry:
                raise ValueError(f"stored entry {index} ({cls.__name__}) has no 'config'")
            models.append(cls.model_validate(entry["config"]))
        return models

    def same_model(self, left: BaseModel, right: BaseModel) -> bool:
        """Whether two loads of a stored model hold the same data."""
        return type(left) is type(right) and left.model_dump() == right.model_dump()

    def test_dump_and_validate_give_an_equal_model(self) -> None:
        for model in self.stored_models:
            cls = type(model)
            assert self.same_model(cls.model_validate(model.model_dump()), model), cls.__name__
            again = cls.model_validate_json(model.model_dump_json())
            assert self.same_model(again, model), cls.__name__

    def test_stored_form_names_its_class(self) -> None:
        for model in self.stored_models:
            data: dict[str, Any] = model.model_dump()
            assert "__model__" in data, f"{type(model).__name__} dump lacks __model__"
            restored = deserialize_object(data)
            assert type(restored) is type(model), data["__model__"]
            assert self.same_model(restored, model), type(model).__name__

    def test_pinned_model_paths_do_not_move(self) -> None:
        for cls, path in self.model_paths.items():
            sample = next((m for m in self.stored_models if type(m) is cls), None)
            assert sample is not None, f"model_paths names {cls.__name__}: add a sample"
            assert sample.model_dump()["__model__"] == path


def _by_name(classes: Iterable[type[BaseModel]]) -> dict[str, type[BaseModel]]:
    by_name: dict[str, type[BaseModel]] = {}
    for cls in classes:
        # Two classes of one name would make a fixture's entries ambiguous.
        if by_name.setdefault(cls.__name__, cls) is not cls:
            raise ValueError(f"two stored classes are named {cls.__name__}: pass a mapping")
    return by_name
