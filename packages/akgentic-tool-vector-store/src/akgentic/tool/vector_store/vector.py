"""Vector primitives: the stored record, the embedding client and the numpy index.

Needs the ``vector-search`` extra (numpy, and openai for the hosted providers).

Design notes:

* :class:`VectorIndex` keeps every vector L2-normalised in one contiguous float32 matrix,
  so cosine similarity is a single matrix-vector product, and it picks the top ``k`` with
  ``argpartition`` (linear) before sorting only those ``k``. Rows are added in bulk from
  arrays; no per-vector Python object is created on the indexing or the query path.
* :class:`EmbeddingService` is a thin, thread-safe wrapper over the OpenAI (or Azure
  OpenAI) embeddings endpoint: it batches inputs, hands its timeout to every HTTP call and
  turns any provider problem into :class:`EmbeddingServiceError`. ``provider="local"``
  embeds with a model2vec model in this process instead (see ``local_embeddings``), and
  tests plug any local function with ``embed_fn``.
* Local vectors shorter than a collection's dimension are padded with zeros: cosine
  similarity is unchanged, and a consumer's collection keeps its configured dimension
  (1536 by default) whichever provider fills it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Self, overload

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, model_validator

from akgentic.tool.core.vector_store import MetadataValue
from akgentic.tool.vector_store._redact import redact
from akgentic.tool.vector_store.embedding_choice import ProviderSetting, choose_embedding
from akgentic.tool.vector_store.local_embeddings import LocalEmbedder

try:  # imported up front: it takes seconds, which a first embedding should not pay
    import openai
except ImportError:  # pragma: no cover - depends on the environment
    openai = None  # type: ignore[assignment]

if TYPE_CHECKING:
    from openai import OpenAI

__all__ = [
    "AZURE_DEFAULT_API_VERSION",
    "EmbedFunction",
    "EmbeddingError",
    "EmbeddingService",
    "EmbeddingServiceError",
    "VectorEntry",
    "VectorIndex",
]

logger = logging.getLogger(__name__)

FloatMatrix = npt.NDArray[np.float32]

EmbedFunction = Callable[[list[str]], Sequence[Sequence[float]] | FloatMatrix]
"""A local embedding function: a list of texts in, one vector per text out."""

AZURE_DEFAULT_API_VERSION = "2024-10-21"
"""Azure OpenAI API version used when ``OPENAI_API_VERSION`` is not set."""

# Queries are scored in chunks so the (queries x vectors) score matrix stays bounded.
_BATCH_QUERY_CHUNK = 256


class VectorEntry(BaseModel):
    """One stored document: its ``ref``, text, metadata and vector (``None`` while the
    embedding is pending or after it failed). Used to export and inspect a collection,
    and to add documents with ready vectors (``VectorStoreActor.add``); the index itself
    never builds these objects.

    The predecessor named the document ``ref_id`` and gave it a ``ref_type``: both are
    accepted and kept in step, ``ref_id`` always equal to ``ref`` and ``ref_type`` to the
    ``"ref_type"`` metadata value (``""`` when absent).
    """

    model_config = ConfigDict(extra="forbid")

    ref: str = ""
    ref_id: str = ""
    ref_type: str = ""
    text: str
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    vector: list[float] | None = None

    @model_validator(mode="after")
    def _same_ref(self) -> Self:
        if self.ref and self.ref_id and self.ref != self.ref_id:
            raise ValueError(f"ref {self.ref!r} and ref_id {self.ref_id!r} name two documents")
        ref = self.ref or self.ref_id
        if not ref:
            raise ValueError("a VectorEntry needs its ref (or, as formerly named, ref_id)")
        self.ref = self.ref_id = ref
        stated = self.metadata.get("ref_type")
        if self.ref_type and stated is not None and stated != self.ref_type:
            raise ValueError(f"ref_type {self.ref_type!r} disagrees with metadata {stated!r}")
        if self.ref_type:
            self.metadata["ref_type"] = self.ref_type
        elif isinstance(stated, str):
            self.ref_type = stated
        return self


class EmbeddingServiceError(RuntimeError):
    """The embedding provider could not embed the texts (network, HTTP status, timeout,
    missing credentials, wrong vector size, ...). The message says what happened, with
    any credential it carried masked.

    ``rejected_input`` is true when the provider refused the *texts* rather than failed
    (HTTP 400, 413 or 422, or a local ``embed_fn`` raising ``ValueError``): one bad text
    in a batch, typically too long for the model. The other texts can still be embedded.
    """

    def __init__(self, message: str, *, rejected_input: bool = False) -> None:
        super().__init__(redact(message))
        self.rejected_input = rejected_input


EmbeddingError = EmbeddingServiceError
"""The former name of :class:`EmbeddingServiceError` in this module, kept so that
``except EmbeddingError`` written against ``akgentic.tool.vector_store.vector`` still
catches it. Elsewhere (``akgentic.tool.vector_store`` and its ``embedding_actor``
module) ``EmbeddingError`` is the predecessor's message model, a worker's failure
report, and not an exception."""


class EmbeddingService:
    """Embeds texts with OpenAI, Azure OpenAI, a local model2vec model, or a function.

    Endpoints and credentials come from the environment, as the ``openai`` client reads
    them: ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` for ``provider="openai"``;
    ``AZURE_OPENAI_ENDPOINT``, ``AZURE_OPENAI_API_KEY`` and ``OPENAI_API_VERSION`` for
    ``provider="azure"`` (where ``model`` is the deployment name). ``provider="local"``
    needs no key: ``model`` is a model2vec folder or model name, loaded on first use.
    :meth:`from_setting` picks the provider the way a store does (see
    ``embedding_choice``).

    Args:
        model: Embedding model (OpenAI), deployment (Azure), or local model folder/name.
        provider: ``"openai"``, ``"azure"`` or ``"local"``; ignored when ``embed_fn`` is
            given.
        batch_size: Most inputs sent in one HTTP request.
        timeout_seconds: Budget of each HTTP request, handed to the client call itself.
        max_retries: Retries of the ``openai`` client per request (its own backoff).
        dimension: When set, a vector of another length is an :class:`EmbeddingServiceError`.
        embed_fn: Local embedding function used instead of any HTTP provider.
        unavailable: When set, nothing can embed: every call raises
            :class:`EmbeddingServiceError` with this reason (see :meth:`from_setting`).
    """

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        provider: Literal["openai", "azure", "local"] = "openai",
        *,
        batch_size: int = 256,
        timeout_seconds: float = 10.0,
        max_retries: int = 1,
        dimension: int | None = None,
        embed_fn: EmbedFunction | None = None,
        unavailable: str | None = None,
    ) -> None:
        if provider not in ("openai", "azure", "local"):
            raise ValueError(f"embedding provider {provider!r}: use 'openai', 'azure' or 'local'")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if timeout_seconds <= 0:
            raise ValueError(f"timeout_seconds must be positive, got {timeout_seconds}")
        self.model = model
        self.provider = provider
        self.batch_size = batch_size
        self.timeout_seconds = timeout_seconds
        self.max_retries = max_retries
        self.dimension = dimension
        self.unavailable = unavailable
        self.note: str | None = None
        """Why this provider was chosen when it is not the configured one (set by
        :meth:`from_setting`)."""
        if embed_fn is None and provider == "local":
            embed_fn = LocalEmbedder(model)
        self._embed_fn = embed_fn
        # A local model's vectors are padded to a longer collection dimension (see the
        # module notes); a hosted provider's or a test function's must match exactly.
        self._pads = provider == "local"
        self._client: OpenAI | None = None
        # Workers share one service (and its HTTP connection pool); the lock keeps two
        # of them from building two clients at once.
        self._client_lock = threading.Lock()

    @classmethod
    def from_setting(
        cls,
        model: str,
        provider: ProviderSetting,
        *,
        batch_size: int = 256,
        timeout_seconds: float = 10.0,
        max_retries: int = 1,
        dimension: int | None = None,
    ) -> EmbeddingService:
        """The service a store configured with ``provider`` and ``model`` embeds with.

        With the key of a hosted provider set, that provider; without it, the local model
        when model2vec is installed; else an ``unavailable`` service whose reason says
        what to install or set. Nothing is loaded here.
        """
        choice = choose_embedding(provider, model)
        service = cls(
            choice.model,
            choice.provider or "openai",
            batch_size=batch_size,
            timeout_seconds=timeout_seconds,
            max_retries=max_retries,
            dimension=dimension,
            unavailable=choice.note if choice.provider is None else None,
        )
        service.note = choice.note if choice.provider is not None else None
        return service

    def describe(self) -> str:
        """One line saying what embeds: provider and model, or why nothing does."""
        if self.unavailable is not None:
            return f"none, keyword search only: {self.unavailable}"
        source = self.provider if self._embed_fn is None or self._pads else "embed_fn"
        note = f"; {self.note}" if self.note else ""
        return f"{source} ({self.model}){note}"

    def embed(
        self,
        texts: Sequence[str],
        *,
        deadline: float | None = None,
        dimension: int | None = None,
    ) -> FloatMatrix:
        """Embed ``texts`` (in batches) into a ``(len(texts), dim)`` float32 matrix.

        Args:
            texts: The texts, in order.
            deadline: A ``time.monotonic()`` instant after which no HTTP request may still
                be running: each request's timeout is the smaller of ``timeout_seconds``
                and the time left. (A local ``embed_fn`` cannot be interrupted.)
            dimension: Expected vector length for this call (defaults to the service's).

        Raises:
            EmbeddingServiceError: on any provider failure; nothing is returned partially.
        """
        items = list(texts)
        expected = dimension if dimension is not None else self.dimension
        if not items:
            return np.zeros((0, expected or 0), dtype=np.float32)
        parts = [
            self._embed_batch(items[start : start + self.batch_size], deadline, expected)
            for start in range(0, len(items), self.batch_size)
        ]
        matrix = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)
        return matrix

    def embed_partial(
        self,
        texts: Sequence[str],
        *,
        deadline: float | None = None,
        dimension: int | None = None,
    ) -> tuple[FloatMatrix, dict[int, str]]:
        """Embed ``texts`` like :meth:`embed`, but a text the provider refuses is set apart
        instead of failing the whole call.

        A batch refused for its input (see :attr:`EmbeddingServiceError.rejected_input`)
        is split in halves until the refused texts are alone; a row of NaN, infinity or
        values too large for float32 is refused by itself. Returns the matrix, whose rows
        for refused texts are NaN, and the reason of each refused text by position.

        Raises:
            EmbeddingServiceError: when the provider fails for everyone (network, timeout,
                5xx, 401, ...): nothing is returned partially then.
        """
        items = list(texts)
        expected = dimension if dimension is not None else self.dimension
        refused: dict[int, str] = {}
        rows: list[FloatMatrix] = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            rows.append(self._embed_bisecting(batch, start, deadline, expected, refused))
        if not rows:
            return np.zeros((0, expected or 0), dtype=np.float32), refused
        width = max(row.shape[1] for row in rows)
        matrix = np.full((len(items), width), np.nan, dtype=np.float32)
        offset = 0
        for part in rows:
            if part.shape[1] == width:
                matrix[offset : offset + part.shape[0]] = part
            offset += part.shape[0]
        return matrix, refused

    def _embed_bisecting(
        self,
        batch: list[str],
        offset: int,
        deadline: float | None,
        expected: int | None,
        refused: dict[int, str],
    ) -> FloatMatrix:
        try:
            matrix = self._embed_batch(batch, deadline, expected, finite=False)
        except EmbeddingServiceError as exc:
            if not exc.rejected_input:
                raise
            if len(batch) == 1:
                refused[offset] = str(exc)
                return np.full((1, expected or 1), np.nan, dtype=np.float32)
            half = len(batch) // 2
            first = self._embed_bisecting(batch[:half], offset, deadline, expected, refused)
            second = self._embed_bisecting(batch[half:], offset + half, deadline, expected, refused)
            width = max(first.shape[1], second.shape[1])
            return np.concatenate([_widen(first, width), _widen(second, width)], axis=0)
        with np.errstate(over="ignore", invalid="ignore"):
            norms = np.linalg.norm(matrix, axis=1)
        for row in np.flatnonzero(~np.isfinite(norms)).tolist():
            refused[offset + row] = (
                f"{self._describe()} returned NaN, infinity or values too large for float32"
            )
            matrix[row] = np.nan
        return matrix

    def embed_one(self, text: str, *, deadline: float | None = None) -> npt.NDArray[np.float32]:
        """Embed a single text into a 1-D float32 vector."""
        row: npt.NDArray[np.float32] = self.embed([text], deadline=deadline)[0]
        return row

    def _embed_batch(
        self,
        batch: list[str],
        deadline: float | None,
        expected: int | None,
        *,
        finite: bool = True,
    ) -> FloatMatrix:
        if self.unavailable is not None:
            raise EmbeddingServiceError(f"no embedding provider: {self.unavailable}")
        try:
            if self._embed_fn is not None:
                raw: Any = self._embed_fn(batch)
            else:
                raw = self._call_http(batch, self._request_timeout(deadline))
            with np.errstate(over="ignore"):  # 1e39 becomes inf: checked below
                matrix = np.asarray(raw, dtype=np.float32)
        except EmbeddingServiceError:
            raise
        except Exception as exc:  # any provider/client failure becomes one error type
            raise EmbeddingServiceError(
                f"{self._describe()} failed: {type(exc).__name__}: {exc}",
                rejected_input=self._input_rejected(exc),
            ) from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(batch):
            raise EmbeddingServiceError(
                f"{self._describe()} returned {matrix.shape[0] if matrix.ndim else 0} vectors "
                f"for {len(batch)} texts"
            )
        if self._pads and expected is not None and matrix.shape[1] != expected:
            matrix = self._pad(matrix, expected)
        if expected is not None and matrix.shape[1] != expected:
            raise EmbeddingServiceError(
                f"{self._describe()} returned vectors of dimension {matrix.shape[1]}, "
                f"expected {expected}"
            )
        if finite and not np.all(np.isfinite(matrix)):
            raise EmbeddingServiceError(f"{self._describe()} returned non-finite values")
        return matrix

    def _pad(self, matrix: FloatMatrix, expected: int) -> FloatMatrix:
        """``matrix`` widened with zero columns to ``expected`` (cosine unchanged)."""
        if matrix.shape[1] > expected:
            raise EmbeddingServiceError(
                f"{self._describe()} gives {matrix.shape[1]}-dimensional vectors, longer "
                f"than the collection's dimension {expected}: set the consumer's "
                f"CollectionConfig(dimension={matrix.shape[1]}) (or larger)"
            )
        wide = np.zeros((matrix.shape[0], expected), dtype=np.float32)
        wide[:, : matrix.shape[1]] = matrix
        return wide

    def _input_rejected(self, exc: Exception) -> bool:
        """Whether ``exc`` refuses the texts (bad request) rather than the service failing."""
        if self._embed_fn is not None:
            return isinstance(exc, ValueError)
        status = getattr(exc, "status_code", None)
        return (
            openai is not None
            and isinstance(exc, openai.APIStatusError)
            and status
            in (
                400,
                413,
                422,
            )
        )

    def _request_timeout(self, deadline: float | None) -> float:
        if deadline is None:
            return self.timeout_seconds
        left = deadline - time.monotonic()
        if left <= 0:
            raise EmbeddingServiceError(
                f"{self._describe()}: time budget exhausted before the call"
            )
        # The client may retry the request; every attempt gets an equal share of the time
        # left, so all of them together stay within the deadline (backoff sleeps aside).
        return min(self.timeout_seconds, left / (self.max_retries + 1))

    def _call_http(self, batch: list[str], timeout: float) -> Any:
        client = self._openai_client()
        # The timeout is passed on the call itself: it is what bounds the worker thread
        # blocked in this request (a thread cannot be cancelled from outside).
        response = client.embeddings.create(model=self.model, input=batch, timeout=timeout)
        ordered = sorted(response.data, key=lambda item: item.index)
        return [item.embedding for item in ordered]

    def warm_up(self) -> None:
        """Open the HTTP client and load the client's embeddings module ahead of the first
        request (that first load takes seconds). No request is sent; errors (such as a
        missing key) are left for the first real call to report."""
        if self._embed_fn is not None:
            return
        try:
            self._openai_client().embeddings  # noqa: B018 - the attribute loads lazily
        except Exception as exc:
            logger.debug("embedding client warm-up skipped: %s", redact(str(exc)))

    def close(self) -> None:
        """Close the HTTP client, if one was opened (a later call opens a new one)."""
        with self._client_lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _openai_client(self) -> OpenAI:
        with self._client_lock:
            return self._client or self._open_client()

    def _open_client(self) -> OpenAI:
        if openai is None:  # pragma: no cover - depends on the environment
            raise EmbeddingServiceError(
                "the openai package is missing: "
                'pip install "akgentic-tool-vector-store[vector-search]"'
            )
        # The client reads its endpoint and key from the environment (see the class doc).
        if self.provider == "azure":
            client: OpenAI = openai.AzureOpenAI(
                api_version=os.environ.get("OPENAI_API_VERSION", AZURE_DEFAULT_API_VERSION),
                timeout=self.timeout_seconds,
                max_retries=self.max_retries,
            )
        else:
            client = openai.OpenAI(timeout=self.timeout_seconds, max_retries=self.max_retries)
        self._client = client
        return client

    def _describe(self) -> str:
        if self._pads:
            return f"local embeddings ({self.model})"
        source = "local embed_fn" if self._embed_fn else f"{self.provider} embeddings"
        return f"{source} ({self.model})"


def _widen(matrix: FloatMatrix, width: int) -> FloatMatrix:
    """``matrix`` padded with NaN columns to ``width`` (refused rows have no known width)."""
    if matrix.shape[1] == width:
        return matrix
    wide = np.full((matrix.shape[0], width), np.nan, dtype=np.float32)
    wide[:, : matrix.shape[1]] = matrix
    return wide


def _normalise_rows(matrix: FloatMatrix) -> FloatMatrix:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0.0] = 1.0  # a zero vector stays zero: cosine 0 with everything
    normalised: FloatMatrix = matrix / norms
    return normalised


class VectorIndex:
    """Cosine-similarity index over float32 vectors, keyed by string ``ref``.

    Vectors are normalised when added, stored in one growing float32 matrix, and looked up
    by ref through a dictionary. Removing a ref moves the last row into its slot, so the
    live rows stay contiguous and a query scans exactly ``len(index)`` rows.

    ``dimension`` may be left out (the predecessor's ``VectorIndex()``): the first vectors
    added then fix it, and every later vector must have the same length.

    The predecessor's calls work too: ``add(entry)`` with a :class:`VectorEntry`,
    ``remove(ref_ids=...)`` and ``search_cosine(query_vector, top_k)``.
    """

    def __init__(self, dimension: int | None = None, capacity: int = 0) -> None:
        if dimension is not None and dimension < 1:
            raise ValueError(f"dimension must be at least 1, got {dimension}")
        self.dimension: int | None = dimension
        self._capacity = max(capacity, 0)
        self._matrix: FloatMatrix = np.zeros((self._capacity, dimension or 0), dtype=np.float32)
        self._refs: list[str] = []
        self._rows: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._refs)

    def __contains__(self, ref: object) -> bool:
        return ref in self._rows

    @property
    def refs(self) -> list[str]:
        """The indexed refs, in row order."""
        return list(self._refs)

    @classmethod
    def from_arrays(cls, refs: Sequence[str], vectors: npt.ArrayLike) -> VectorIndex:
        """Build an index from refs and a ``(len(refs), dim)`` matrix in one step."""
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2:
            raise ValueError(f"vectors must be a 2-D matrix, got shape {matrix.shape}")
        index = cls(matrix.shape[1])
        index.add(refs, matrix)
        return index

    @overload
    def add(self, refs: Sequence[str], vectors: npt.ArrayLike) -> None: ...

    @overload
    def add(self, entry: VectorEntry, /) -> None: ...

    @overload
    def add(self, *, entry: VectorEntry) -> None: ...

    def add(
        self,
        refs: Sequence[str] | VectorEntry | None = None,
        vectors: npt.ArrayLike | None = None,
        *,
        entry: VectorEntry | None = None,
    ) -> None:
        """Insert or replace vectors by ref (a ref repeated in ``refs`` keeps its last row).

        The predecessor's form, ``add(entry)`` (positionally or as ``entry=``), adds one
        :class:`VectorEntry` under its ``ref_id``; the entry must carry its ``vector``.

        Raises:
            ValueError: when the shapes disagree with ``refs`` or the index dimension, or
                an entry has no vector.
        """
        if isinstance(refs, VectorEntry):
            if entry is not None:
                raise TypeError("pass the entry once, positionally or as entry=")
            entry, refs = refs, None
        if entry is not None:
            if refs is not None or vectors is not None:
                raise TypeError("pass either an entry or refs and vectors, not both")
            if entry.vector is None:
                raise ValueError(f"entry {entry.ref!r} has no vector to index")
            refs, vectors = [entry.ref], [entry.vector]
        if refs is None or vectors is None:
            raise TypeError("add needs refs and vectors, or a VectorEntry")
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim == 1:
            matrix = matrix.reshape(1, -1)
        if matrix.ndim != 2 or matrix.shape[0] != len(refs):
            raise ValueError(f"got {len(refs)} refs for vectors of shape {matrix.shape}")
        if self.dimension is None:
            if matrix.shape[1] < 1:
                raise ValueError("vectors must have at least one value")
            self.dimension = int(matrix.shape[1])
            self._matrix = np.zeros((self._capacity, self.dimension), dtype=np.float32)
        if matrix.shape[1] != self.dimension:
            raise ValueError(
                f"vectors have dimension {matrix.shape[1]}, the index holds {self.dimension}"
            )
        # The row norms are needed anyway; a NaN or infinity anywhere makes its row's norm
        # non-finite, so checking them avoids a full-size isfinite() pass.
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        if not np.all(np.isfinite(norms)):
            raise ValueError("vectors contain NaN or infinite values")
        norms[norms == 0.0] = 1.0  # a zero vector stays zero: cosine 0 with everything
        matrix = matrix / norms  # a new array: the caller's data is never aliased

        count = len(refs)
        start = len(self._refs)
        if len(set(refs)) == count and self._rows.keys().isdisjoint(refs):
            # Bulk path (new, distinct refs): one block copy, no per-row Python work
            # beyond the dictionary entries.
            if start == 0 and self._matrix.shape[0] < count:
                self._matrix = matrix
            else:
                self._reserve(start + count)
                self._matrix[start : start + count] = matrix
            self._rows.update(zip(refs, range(start, start + count), strict=True))
            self._refs.extend(refs)
            return

        # Mixed path: replacements are written in place; new refs appended in one block.
        new_positions: list[int] = []
        new_refs: list[str] = []
        pending_new: dict[str, int] = {}
        for position, ref in enumerate(refs):
            row = self._rows.get(ref)
            if row is not None:
                self._matrix[row] = matrix[position]
            elif ref in pending_new:
                new_positions[pending_new[ref]] = position
            else:
                pending_new[ref] = len(new_refs)
                new_refs.append(ref)
                new_positions.append(position)
        if not new_refs:
            return
        self._reserve(start + len(new_refs))
        self._matrix[start : start + len(new_refs)] = matrix[new_positions]
        for offset, ref in enumerate(new_refs):
            self._rows[ref] = start + offset
        self._refs.extend(new_refs)

    def remove(
        self, refs: Iterable[str] | None = None, ref_ids: Iterable[str] | None = None
    ) -> int:
        """Remove refs (unknown ones are ignored); returns how many were removed.

        ``ref_ids`` is the predecessor's name for ``refs``: pass one or the other.
        """
        if refs is not None and ref_ids is not None:
            raise TypeError("pass refs or ref_ids, not both")
        chosen = refs if refs is not None else ref_ids
        if chosen is None:
            raise TypeError("remove needs the refs to remove")
        removed = 0
        for ref in chosen:
            row = self._rows.pop(ref, None)
            if row is None:
                continue
            last = len(self._refs) - 1
            if row != last:
                moved = self._refs[last]
                self._matrix[row] = self._matrix[last]
                self._refs[row] = moved
                self._rows[moved] = row
            self._refs.pop()
            removed += 1
        return removed

    def clear(self) -> None:
        """Remove everything (capacity is kept)."""
        self._refs.clear()
        self._rows.clear()

    def get(self, ref: str) -> npt.NDArray[np.float32] | None:
        """A copy of the (normalised) vector of ``ref``, or ``None``."""
        row = self._rows.get(ref)
        return None if row is None else self._matrix[row].copy()

    def matrix(self) -> FloatMatrix:
        """A copy of the live ``(len, dim)`` matrix, rows in :attr:`refs` order."""
        return self._matrix[: len(self._refs)].copy()

    def search(
        self,
        query: npt.ArrayLike,
        top_k: int = 10,
        score_threshold: float | None = None,
        allowed: Iterable[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``top_k`` refs most similar to ``query``, as ``(ref, cosine)``, best first.

        Args:
            query: A vector of the index dimension (it need not be normalised).
            top_k: How many results at most.
            score_threshold: Drop results whose cosine is below it.
            allowed: When given, only these refs are candidates.
        """
        if self.dimension is None:  # nothing was ever added
            return []
        vector = self._query_vector(query)
        count = len(self._refs)
        if count == 0 or top_k < 1:
            return []
        scores = self._matrix[:count] @ vector
        if allowed is not None:
            rows = [self._rows[ref] for ref in allowed if ref in self._rows]
            if not rows:
                return []
            masked = np.full(count, -np.inf, dtype=np.float32)
            masked[rows] = scores[rows]
            scores = masked
        return self._top(scores, top_k, score_threshold)

    def search_batch(
        self,
        queries: npt.ArrayLike,
        top_k: int = 10,
        score_threshold: float | None = None,
    ) -> list[list[tuple[str, float]]]:
        """:meth:`search` for many queries at once, with one matrix product per chunk."""
        matrix = np.asarray(queries, dtype=np.float32)
        if self.dimension is None and matrix.ndim == 2:  # nothing was ever added
            return [[] for _ in range(matrix.shape[0])]
        if matrix.ndim != 2 or matrix.shape[1] != self.dimension:
            raise ValueError(f"queries must have shape (n, {self.dimension}), got {matrix.shape}")
        count = len(self._refs)
        if count == 0 or top_k < 1:
            return [[] for _ in range(matrix.shape[0])]
        matrix = _normalise_rows(matrix)
        k = min(top_k, count)
        live = self._matrix[:count]
        results: list[list[tuple[str, float]]] = []
        for start in range(0, matrix.shape[0], _BATCH_QUERY_CHUNK):
            scores = matrix[start : start + _BATCH_QUERY_CHUNK] @ live.T
            if k < count:
                top = np.argpartition(scores, count - k, axis=1)[:, count - k :]
            else:
                top = np.broadcast_to(np.arange(count), scores.shape)
            top_scores = np.take_along_axis(scores, top, axis=1)
            order = np.argsort(-top_scores, axis=1)
            rows = np.take_along_axis(top, order, axis=1).tolist()
            values = np.take_along_axis(top_scores, order, axis=1).tolist()
            refs = self._refs
            for row_ids, row_scores in zip(rows, values, strict=True):
                results.append(
                    [
                        (refs[row], score)
                        for row, score in zip(row_ids, row_scores, strict=True)
                        if score_threshold is None or score >= score_threshold
                    ]
                )
        return results

    def search_cosine(
        self, query_vector: npt.ArrayLike, top_k: int = 10
    ) -> list[tuple[str, float]]:
        """The predecessor's name for :meth:`search` without filters: the ``top_k`` refs
        (``ref_id``) nearest to ``query_vector`` by cosine similarity, as
        ``(ref_id, score)``, best first."""
        return self.search(query_vector, top_k)

    def _top(
        self, scores: FloatMatrix, top_k: int, score_threshold: float | None
    ) -> list[tuple[str, float]]:
        count = scores.shape[0]
        k = min(top_k, count)
        candidates = np.argpartition(scores, count - k)[count - k :] if k < count else None
        if candidates is None:
            order = np.argsort(-scores)
        else:
            order = candidates[np.argsort(-scores[candidates])]
        refs = self._refs
        hits: list[tuple[str, float]] = []
        for row, score in zip(order.tolist(), scores[order].tolist(), strict=True):
            if score == -np.inf or (score_threshold is not None and score < score_threshold):
                continue
            hits.append((refs[row], score))
        return hits

    def _query_vector(self, query: npt.ArrayLike) -> npt.NDArray[np.float32]:
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        if vector.shape[0] != self.dimension:
            raise ValueError(
                f"query has dimension {vector.shape[0]}, the index holds {self.dimension}"
            )
        norm = float(np.linalg.norm(vector))
        if norm == 0.0 or not np.isfinite(norm):
            raise ValueError("query vector is zero or not finite")
        normalised: npt.NDArray[np.float32] = vector / np.float32(norm)
        return normalised

    def _reserve(self, needed: int) -> None:
        capacity = self._matrix.shape[0]
        if needed <= capacity:
            return
        grown = np.zeros((max(needed, capacity * 2, 64), self._matrix.shape[1]), dtype=np.float32)
        grown[: len(self._refs)] = self._matrix[: len(self._refs)]
        self._matrix = grown
