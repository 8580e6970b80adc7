"""Checks on the name a new team member gets, so a hire cannot impersonate anyone.

A member's name is how teammates, humans and tool actors find it. A hire must therefore
not take a tool actor's name (``#...``, which would squat a team singleton and hide from
the roster), the orchestrator's or any existing member's name, nor one that merely *looks*
like one: names are NFC-normalised, format characters (zero-width joiners, bidi controls)
and control characters are refused, a name may not mix scripts (Latin with Cyrillic, say),
and a name whose confusable skeleton equals an existing one's is refused.

The skeleton is deliberately simple rather than Unicode's full confusables table:
compatibility folding (NFKC: full-width letters, ligatures), case folding, then a small
map of the Cyrillic and Greek letters that render like Latin ones, and of digits that pass
for letters. It errs on the side of refusing: ``@Ian`` and ``@lan`` collide, which costs a
model one retry with another name.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

__all__ = ["NameRules", "check_new_name", "normalise_name", "shown", "skeleton"]

# Letters that are drawn like a Latin letter in common fonts, folded to that letter.
_LOOKALIKES = str.maketrans(
    {
        # Cyrillic
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "һ": "h",
        "і": "l",
        "ї": "l",
        "ј": "j",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "ɡ": "g",
        # Greek
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "l",
        "κ": "k",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "γ": "y",
        "ζ": "z",
        # Latin letters and digits that pass for one another
        "i": "l",
        "1": "l",
        "|": "l",
        "0": "o",
        "5": "s",
        "ı": "l",
    }
)

# Scripts written together in one name by design (Japanese mixes all three with Han).
_CJK_SCRIPTS = frozenset({"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL", "BOPOMOFO"})

_SHOWN_CHARS = 40


class NameRules:
    """What a new name is checked against: the names already in use, and a length cap."""

    def __init__(self, in_use: Iterable[str], max_chars: int) -> None:
        self.max_chars = max_chars
        # Skeleton -> the name in use it came from, to say which one a new name resembles.
        self._skeletons: dict[str, str] = {}
        for name in in_use:
            self.reserve(name)

    def reserve(self, name: str) -> None:
        """Count ``name`` as in use (a member hired earlier in the same call, say)."""
        self._skeletons.setdefault(skeleton(name), name)

    def resembles(self, name: str) -> str | None:
        """The name in use that ``name`` equals or looks like, if any."""
        return self._skeletons.get(skeleton(name))


def shown(text: str) -> str:
    """``text`` quoted for an error message, cut so that a huge value is never echoed."""
    if len(text) <= _SHOWN_CHARS:
        return repr(text)
    return f"{text[:_SHOWN_CHARS]!r}... ({len(text)} characters)"


def normalise_name(name: str) -> str:
    """The name as it will be stored: NFC-normalised, surrounding whitespace removed."""
    return unicodedata.normalize("NFC", name).strip()


def skeleton(name: str) -> str:
    """A folded form of ``name``: two names with the same skeleton look alike."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", folded).translate(_LOOKALIKES)


def check_new_name(name: str, rules: NameRules) -> str | None:
    """Why ``name`` (already normalised) cannot be given to a new member; ``None`` if it can."""
    if not name:
        return "a member name cannot be empty"
    if len(name) > rules.max_chars:
        return (
            f"the name {shown(name)} is {len(name)} characters long, the most allowed is "
            f"{rules.max_chars}"
        )
    if name.startswith("#"):
        return (
            f"the name {shown(name)} starts with '#', which marks the team's tool actors; "
            "choose a name without it (for example '@Name')"
        )
    hidden = _hidden_character(name)
    if hidden is not None:
        return f"the name {shown(name)} contains the invisible or control character {hidden}"
    scripts = _scripts(name)
    if len(scripts) > 1:
        return (
            f"the name {shown(name)} mixes letters of several scripts "
            f"({', '.join(sorted(scripts))}); write it in one script"
        )
    existing = rules.resembles(name)
    if existing == name:
        return f"the name {shown(name)} is already taken"
    if existing is not None:
        return f"the name {shown(name)} looks like {existing!r}, which is already taken"
    return None


def _hidden_character(name: str) -> str | None:
    """The first format (Cf) or control (Cc) character of ``name``, as ``U+XXXX``."""
    for char in name:
        if unicodedata.category(char) in ("Cf", "Cc"):
            return f"U+{ord(char):04X}"
    return None


def _scripts(name: str) -> set[str]:
    """Scripts of the letters of ``name`` (first word of each letter's Unicode name).

    CJK scripts count as one, and Latin mixed with them is allowed, as in identifiers.
    """
    found: set[str] = set()
    for char in name:
        if not unicodedata.category(char).startswith("L"):
            continue
        script = unicodedata.name(char, "UNKNOWN").split(" ", 1)[0]
        found.add("CJK" if script in _CJK_SCRIPTS else script)
    if "CJK" in found:
        found.discard("LATIN")
    return found
