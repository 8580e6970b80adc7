"""Publishing classes a test defines under a module name that dotted paths can reach.

Profiles, cards and stored teams name agent and message classes by dotted path
(``"my_kit.WorkerAgent"``), and a resumed team loads them back by that path. A class
defined in a ``conftest.py`` or a benchmark script lives in a module no import can reach
(pytest's importlib mode puts no test directory on ``sys.path``; a script is
``__main__``). :func:`publish_module` registers a module for them in ``sys.modules``.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["publish_module"]


def publish_module(
    name: str, members: Mapping[str, Any], *, rehome: Iterable[type] = ()
) -> types.ModuleType:
    """Register a module called ``name`` holding ``members``, and return it.

    Args:
        name: The module's dotted name; an earlier module of that name is replaced.
        members: Its attributes. Names starting with ``__`` are skipped, so a module's
            ``globals()`` can be passed as they are.
        rehome: Classes whose ``__module__`` becomes ``name``: those named by dotted path,
            so that ``f"{name}.{cls.__name__}"`` is what they record and what finds them.

    Raises ``ValueError`` naming a class of ``rehome`` that ``members`` does not hold
    under its own name (its dotted path would lead nowhere).
    """
    module = types.ModuleType(name)
    module.__dict__.update({key: value for key, value in members.items() if key[:2] != "__"})
    classes = list(rehome)
    # Checked before any class moves, so that a refused call changes nothing.
    for cls in classes:
        if module.__dict__.get(cls.__name__) is not cls:
            raise ValueError(
                f"publish_module({name!r}): rehome names {cls.__name__}, which members do "
                f"not hold as {cls.__name__!r}; {name}.{cls.__name__} would not find it"
            )
    for cls in classes:
        cls.__module__ = name
    sys.modules[name] = module
    return module
