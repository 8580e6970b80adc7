"""Standard test classes a tool package subclasses to inherit the checks every tool needs.

A package writes, in ``tests/test_standard.py``, one subclass per class that applies to it
and supplies what the base asks for (the card to test, bad calls, how to read its state).
The test methods come from the base; pytest collects them in the subclass. The base classes
are not named ``Test...`` so that importing one into a test module does not collect it.

- :class:`CardStandardTests`: the card round-trips, describes every callable it exposes
  under a unique name, keeps each capability on the channels its ``expose`` names, and
  answers its bad calls with a retry.
- :class:`StoredFormTests`: stored forms (cards, actor configs, states) load, round-trip
  unchanged and keep the ``__model__`` path they were persisted with.
- :class:`StoredUseTests`: each stored model, loaded, works on a fresh team (the package
  says how it is used).
- :class:`PublicSurfaceTests`: the package's public names are pinned and resolve.
- :class:`BadInputTests`: each bad call asks for a retry through a ``RetriableError`` and
  leaves the tool's state as it was.
- :class:`RefusalTests`: :class:`BadInputTests`, plus bad calls whose refusal must say what
  to fix (a text it must contain).
- :class:`LoweredLimitsTests`: a card's lowered ``input_limits``: ceilings as defaults and
  no higher, stated in the tool descriptions, refused with the setting named.
- :class:`PartialBatchTests`: a batch-update call mixing valid and invalid changes applies
  the valid ones in one event and names the rejected ones.
- :class:`DeltaPersistenceTests`: for a ``DeltaToolActor``: one event per change,
  snapshot cadence, stop and resume, restore after an abrupt end, replay of the events,
  retries once the team stopped.
- :class:`VectorSearchTests`: for a consumer of the team's vector store: mirroring,
  keyword-then-meaning answers, and each way the store can be missing or failing.
- :class:`LocalEmbeddingTests`: the same consumer on the real ``#VectorStore`` and a local
  model, with no API key: a query found by meaning alone.
"""

from akgentic.tool.core.testing.standard.bad_input import BadCalls, BadInputTests
from akgentic.tool.core.testing.standard.card import CardStandardTests
from akgentic.tool.core.testing.standard.delta import DeltaPersistenceTests
from akgentic.tool.core.testing.standard.local_embeddings import LocalEmbeddingTests
from akgentic.tool.core.testing.standard.lowered_limits import LoweredLimitsTests
from akgentic.tool.core.testing.standard.partial_batch import PartialBatchTests
from akgentic.tool.core.testing.standard.refusals import Refusal, RefusalTests
from akgentic.tool.core.testing.standard.stored_use import LiveTeam, StoredUseTests
from akgentic.tool.core.testing.standard.surface import PublicSurfaceTests, StoredFormTests
from akgentic.tool.core.testing.standard.vector_search import VectorSearchTests

__all__ = [
    "BadCalls",
    "BadInputTests",
    "CardStandardTests",
    "DeltaPersistenceTests",
    "LiveTeam",
    "LocalEmbeddingTests",
    "LoweredLimitsTests",
    "PartialBatchTests",
    "PublicSurfaceTests",
    "Refusal",
    "RefusalTests",
    "StoredFormTests",
    "StoredUseTests",
    "VectorSearchTests",
]
