"""Canonical entity names: one spelling per name the model can see.

An entity is identified by its name, so two names that render the same must not become
two entities. Every name (and type) entering the tool is normalised: Unicode NFC, so the
composed and decomposed forms of ``Café`` are one name, and without the invisible format
characters (category Cf: zero-width space and joiners, bidi marks, soft hyphen), so
``Acme`` followed by a zero-width space is ``Acme``.

Look-alike letters of another script (a Cyrillic ``А`` in ``Аcme``) survive
normalisation. A new name is refused when one of its words mixes letters of two of the
scripts whose letters are confused with each other (Latin, Cyrillic, Greek). A word
written wholly in one script, Cyrillic ``Москва`` or Greek ``Αθήνα``, is fine, and so is
any name in a script outside that group (``東京タワー``), whatever scripts it combines.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = ["check_single_script", "normalize_name"]

# Scripts whose letters look alike; mixing two of them inside a word is a spoofing pattern.
_CONFUSABLE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})
# A word: a run of letters (digits, spaces, punctuation separate words).
_WORD = re.compile(r"[^\W\d_]+")
# Longer than any bounded name, type or query: not worth normalising before refusal.
_LONGEST_CHECKED = 10_000


def normalize_name(value: Any) -> Any:
    """NFC ``value`` and drop its format characters; non-text is left for type checks."""
    if not isinstance(value, str):
        return value
    # ASCII (the common case) has nothing to compose and no format characters; a text far
    # past every name limit is left for the length check to refuse, unprocessed.
    if value.isascii() or len(value) > _LONGEST_CHECKED:
        return value
    composed = unicodedata.normalize("NFC", value)
    return "".join(ch for ch in composed if unicodedata.category(ch) != "Cf")


def check_single_script(name: str) -> str:
    """``name`` itself, or a ValueError naming the word that mixes look-alike scripts."""
    if name.isascii():
        return name
    for word in _WORD.findall(name):
        scripts = sorted({s for ch in word if (s := _script(ch)) in _CONFUSABLE_SCRIPTS})
        if len(scripts) > 1:
            shown = " and ".join(s.title() for s in scripts)
            raise ValueError(
                f"the word {word!r} mixes {shown} letters, which look alike; "
                "write each word in a single script"
                " (the entity's name is its identity)"
            )
    return name


def _script(ch: str) -> str:
    """The script of a letter, as the first word of its Unicode name (``LATIN``, ...)."""
    return unicodedata.name(ch, "").split(" ", 1)[0]
