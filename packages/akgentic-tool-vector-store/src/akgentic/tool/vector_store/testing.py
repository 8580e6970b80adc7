"""Test helper: write a tiny model2vec model to a folder, so tests run the real local
embedding code (loading, tokenising, encoding) without any download.

Needs what the ``local-embeddings`` extra brings (numpy, tokenizers, safetensors); the
imports are inside the function, so importing this module costs nothing.

The model is word-level: each known word (case-insensitive, split on whitespace and
punctuation) has one row, and a text's vector is the mean of its words' rows; unknown
words are skipped. Words are grouped into *concepts* and every word of a concept shares
one one-hot row, so synonyms (``car``, ``automobile``) embed identically while words of
different concepts are orthogonal. Short function words are left out of the vocabulary,
so "repair the automobile" and "car" score a cosine of 1/sqrt(2).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Final

__all__ = ["TINY_CONCEPTS", "write_static_model"]

TINY_CONCEPTS: Final[Mapping[str, str]] = {
    "car": "vehicle",
    "automobile": "vehicle",
    "vehicle": "vehicle",
    "truck": "vehicle",
    "dog": "canine",
    "puppy": "canine",
    "hound": "canine",
    "invoice": "billing",
    "bill": "billing",
    "payment": "billing",
    "repair": "repair",
    "fix": "repair",
    "mend": "repair",
    "bake": "bake",
    "bread": "bread",
    "write": "write",
    "report": "report",
    "paint": "paint",
    "fence": "fence",
    "garden": "garden",
    "walk": "walk",
    "customer": "customer",
    "client": "customer",
}
"""The default vocabulary: word -> concept."""


def write_static_model(folder: Path, concepts: Mapping[str, str] = TINY_CONCEPTS) -> Path:
    """Write a model2vec model for ``concepts`` (word -> concept) into ``folder``.

    Files written: ``tokenizer.json`` (a ``tokenizers`` WordLevel model with a lowercase
    normaliser and a whitespace pre-tokeniser), ``model.safetensors`` (the ``embeddings``
    matrix, float32, one row per vocabulary entry) and ``config.json``. The dimension is
    the number of distinct concepts. Returns ``folder``.
    """
    import numpy as np
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    names = sorted(set(concepts.values()))
    words = sorted(concepts)
    vocab = {"[UNK]": 0} | {word: index + 1 for index, word in enumerate(words)}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()

    matrix = np.zeros((len(vocab), len(names)), dtype=np.float32)
    for word, row in vocab.items():
        if word in concepts:
            matrix[row, names.index(concepts[word])] = 1.0

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    save_file({"embeddings": matrix}, str(folder / "model.safetensors"))
    config = {"model_type": "model2vec", "normalize": True, "hidden_dim": len(names)}
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return folder
