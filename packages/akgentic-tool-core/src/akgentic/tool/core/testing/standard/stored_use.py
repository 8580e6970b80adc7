"""Stored models put to work: each entry of a package's stored-config fixture, loaded, does
its job on a real team.

:class:`~akgentic.tool.core.testing.standard.surface.StoredFormTests` checks that stored
models survive persistence; a model can round-trip and still no longer work (a card whose
stored field now configures nothing, a state the actor cannot restore). This class runs one
test per stored model, each on a fresh team, and leaves the use to the package.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar, NamedTuple

import pytest
from pydantic import BaseModel

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.testing.actors import ToolTestAgent

__all__ = ["LiveTeam", "StoredUseTests"]


class LiveTeam(NamedTuple):
    """The running team a stored model is put to work in: its actor system, the address of
    its orchestrator, and a member (the kit's test agent) to bind cards to."""

    system: ActorSystem
    orchestrator: ActorAddress
    agent: ToolTestAgent


class StoredUseTests(ABC):
    """One test per stored model, on a fresh team: :meth:`put_to_work` uses it.

    Supply :attr:`stored_models` (:meth:`StoredFormTests.models_of` reads them from the
    package's fixture) and :meth:`put_to_work`, which gets the model and the
    :class:`LiveTeam`: bind a stored card and call its tools, create the tool's actor from a
    stored configuration, restore one from a stored state, and check that each did what it
    should. The tests are named by the model's class and its position in
    :attr:`stored_models`.
    """

    stored_models: ClassVar[Sequence[BaseModel]]

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """pytest's hook, called for this class's tests: one run per stored model."""
        if "stored_model" in metafunc.fixturenames:
            models = list(self.stored_models)
            ids = [f"{type(model).__name__}-{index}" for index, model in enumerate(models)]
            metafunc.parametrize("stored_model", models, ids=ids)

    @abstractmethod
    def put_to_work(self, model: BaseModel, team: LiveTeam) -> None:
        """Use ``model`` in ``team`` and check the outcome."""

    def test_a_stored_model_works(
        self,
        stored_model: BaseModel,
        actor_system: ActorSystem,
        orchestrator: ActorAddress,
        tool_agent: ToolTestAgent,
    ) -> None:
        self.put_to_work(stored_model, LiveTeam(actor_system, orchestrator, tool_agent))
