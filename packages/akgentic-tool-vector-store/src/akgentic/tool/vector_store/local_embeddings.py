"""Local embeddings: a model2vec static model running in this process, no key needed.

Needs the ``local-embeddings`` extra (numpy and model2vec: tokenizers and safetensors, no
torch). A static model maps each token to a row of a matrix and averages the rows of a
text's tokens, so embedding is a table lookup: fast on a laptop CPU, and a model of a few
tens of megabytes.

``model`` is either a folder holding a model2vec model (``config.json``,
``model.safetensors``, ``tokenizer.json``) or a Hugging Face model name such as
:data:`DEFAULT_LOCAL_MODEL`. A name is looked up in the Hugging Face cache and, when it is
not there, downloaded into it once, with one log line saying what goes where. With
downloads off (``HF_HUB_OFFLINE=1``) a name missing from the cache is a clear error: an
offline machine points ``model`` at a folder instead.

Design notes:

* A model is loaded at most once per process (per model), on first use, by whichever
  embedding worker needs it first; the others wait for that load instead of repeating it.
  Nothing is loaded when a store starts: only an actual embedding does.
* model2vec's ``encode`` adjusts the tokenizer's truncation while it runs, so one model is
  not used by two threads at once (a lock per model; encoding is a lookup, the wait short).
* The cache directory is read from the environment at call time (``HF_HUB_CACHE``, else
  ``HF_HOME/hub``, else ``~/.cache/huggingface/hub``), the same rule Hugging Face uses, so a
  process that changes it after start-up is followed.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Final

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from model2vec import StaticModel

__all__ = [
    "DEFAULT_LOCAL_MODEL",
    "LOCAL_MODEL_ENV",
    "LocalEmbedder",
    "LocalModelError",
    "downloads_off",
    "hub_cache_dir",
    "load_local_model",
    "local_embeddings_installed",
    "local_model_name",
]

logger = logging.getLogger(__name__)

DEFAULT_LOCAL_MODEL: Final = "minishlab/potion-base-8M"
"""The model used when none is named: MIT licensed, about 30 MB, 256-dimensional."""

LOCAL_MODEL_ENV: Final = "AKGENTIC_LOCAL_EMBEDDING_MODEL"
"""Environment variable naming the local model (a folder or a model name) used when the
configuration names none (or names a hosted model, as the default configuration does)."""

MODEL_FILES: Final = ("config.json", "model.safetensors", "tokenizer.json")
"""The files a model2vec model folder holds."""

_HOSTED_PREFIX = "text-embedding-"
_TRUE = frozenset({"1", "true", "yes", "on"})


class LocalModelError(RuntimeError):
    """The local model cannot be used (missing folder, not cached while downloads are off,
    download failed, unreadable files). The message names the model and what to do.

    Not a ``ValueError`` on purpose: the embedding service reads a ``ValueError`` from a
    local function as "this text was refused", while this concerns every text.
    """


@dataclass
class _Loaded:
    """One loaded model and the lock serialising its use."""

    model: StaticModel
    lock: threading.Lock = field(default_factory=threading.Lock)


_loaded: dict[str, _Loaded] = {}
_loading: dict[str, threading.Lock] = {}
_registry = threading.Lock()


def local_embeddings_installed() -> bool:
    """Whether model2vec can be imported (checked without importing it)."""
    try:
        return find_spec("model2vec") is not None
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return False


def local_model_name(configured: str | None = None) -> str:
    """The local model to use for a configured ``embedding_model``.

    A folder or a model name is used as given; nothing, or the name of a hosted OpenAI
    model (the configuration's default, ``text-embedding-3-small``), means
    :data:`LOCAL_MODEL_ENV` when it is set, else :data:`DEFAULT_LOCAL_MODEL`.
    """
    if configured and not configured.startswith(_HOSTED_PREFIX):
        return configured
    return os.environ.get(LOCAL_MODEL_ENV, "").strip() or DEFAULT_LOCAL_MODEL


def hub_cache_dir() -> Path:
    """The Hugging Face cache directory, from the environment as it is now."""
    explicit = os.environ.get("HF_HUB_CACHE", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    home = os.environ.get("HF_HOME", "").strip()
    base = Path(home).expanduser() if home else Path("~/.cache/huggingface").expanduser()
    return base / "hub"


def downloads_off() -> bool:
    """Whether Hugging Face downloads are forbidden (``HF_HUB_OFFLINE``)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def load_local_model(model: str) -> StaticModel:
    """The loaded model for ``model`` (a folder or a model name), loading it on first use.

    Raises:
        LocalModelError: the model cannot be found, downloaded or read.
    """
    return _load_once(model).model


class LocalEmbedder:
    """An embedding function (texts in, float32 matrix out) backed by a local model.

    Plug it into ``EmbeddingService(embed_fn=...)``; the service does it itself for
    ``provider="local"``. The model is loaded on the first call, not here.
    """

    def __init__(self, model: str) -> None:
        self.model = model

    def __call__(self, texts: list[str]) -> npt.NDArray[np.float32]:
        loaded = _load_once(self.model)
        with loaded.lock:
            encoded = loaded.model.encode(
                texts, batch_size=max(len(texts), 1), use_multiprocessing=False
            )
        matrix: npt.NDArray[np.float32] = np.asarray(encoded, dtype=np.float32)
        return matrix.reshape(len(texts), -1)

    @property
    def dimension(self) -> int:
        """The model's vector length (loads the model)."""
        return int(_load_once(self.model).model.dim)

    def __repr__(self) -> str:
        return f"LocalEmbedder({self.model!r})"


def _load_once(model: str) -> _Loaded:
    loaded = _loaded.get(model)
    if loaded is not None:
        return loaded
    with _registry:
        gate = _loading.setdefault(model, threading.Lock())
    with gate:  # a second worker waits for the first one's load instead of repeating it
        loaded = _loaded.get(model)
        if loaded is None:
            loaded = _Loaded(_load(model))
            _loaded[model] = loaded
        return loaded


def _load(model: str) -> StaticModel:
    folder = Path(model).expanduser()
    if folder.exists():
        if not folder.is_dir():
            raise LocalModelError(
                f"local embedding model {model!r} is a file; point model at the folder "
                f"holding {', '.join(MODEL_FILES)}"
            )
        return _from_folder(folder, model)
    if _looks_like_path(model):
        raise LocalModelError(
            f"local embedding model folder {model!r} does not exist; point model at a folder "
            f"holding {', '.join(MODEL_FILES)}, or at a model name such as "
            f"{DEFAULT_LOCAL_MODEL!r}"
        )
    cache = hub_cache_dir()
    cached = _cached_snapshot(model, cache)
    if cached is not None:
        return _from_folder(cached, model)
    if downloads_off():
        raise LocalModelError(
            f"local embedding model {model!r} is not in the cache ({cache}) and downloads "
            f"are off (HF_HUB_OFFLINE); point model at a folder holding "
            f"{', '.join(MODEL_FILES)}, or allow one download"
        )
    return _from_folder(_download(model, cache), model)


def _looks_like_path(model: str) -> bool:
    """A name that can only be a path: a model name is ``owner/name``, nothing more."""
    return model.startswith((".", "/", "~")) or "\\" in model or model.count("/") != 1


def _cached_snapshot(model: str, cache: Path) -> Path | None:
    """The cached snapshot folder of ``model`` holding every model file, or ``None``."""
    repo = cache / f"models--{model.replace('/', '--')}"
    snapshots = repo / "snapshots"
    if not snapshots.is_dir():
        return None
    candidates: list[Path] = []
    ref = repo / "refs" / "main"
    if ref.is_file():
        candidates.append(snapshots / ref.read_text(encoding="utf-8").strip())
    candidates.extend(
        sorted(
            (path for path in snapshots.iterdir() if path.is_dir()),
            key=lambda path: path.stat().st_mtime,
            reverse=True,
        )
    )
    for candidate in candidates:
        if all((candidate / name).is_file() for name in MODEL_FILES):
            return candidate
    return None


def _download(model: str, cache: Path) -> Path:
    """Fetch the model files into the cache (once: the next load finds them there)."""
    logger.warning(
        "downloading local embedding model %s into %s (once; later runs read it from there)",
        model,
        cache,
    )
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(
            repo_id=model, cache_dir=str(cache), allow_patterns=[*MODEL_FILES, "README.md"]
        )
    except Exception as exc:
        raise LocalModelError(
            f"could not download local embedding model {model!r} into {cache}: "
            f"{type(exc).__name__}: {exc}; on a machine without internet, point model at a "
            f"folder holding {', '.join(MODEL_FILES)}"
        ) from exc
    return Path(folder)


def _from_folder(folder: Path, model: str) -> StaticModel:
    missing = [name for name in MODEL_FILES if not (folder / name).is_file()]
    if missing:
        raise LocalModelError(
            f"local embedding model {model!r}: folder {folder} lacks {', '.join(missing)}"
        )
    try:
        from model2vec import StaticModel

        # force_download=False: a folder is read as it is, never refreshed from the hub.
        loaded = StaticModel.from_pretrained(folder, force_download=False)
    except ImportError as exc:
        raise LocalModelError(
            "local embeddings need model2vec: "
            'pip install "akgentic-tool-vector-store[local-embeddings]"'
        ) from exc
    except Exception as exc:
        raise LocalModelError(
            f"local embedding model {model!r} could not be read from {folder}: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    logger.info("local embedding model %s loaded from %s (dimension %d)", model, folder, loaded.dim)
    return loaded
