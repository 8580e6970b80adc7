"""Credentials out of provider error messages before they reach a log, an event or the model.

An embedding endpoint (or a proxy in front of it) may echo the request's headers in its
error body: a 401 answer can carry ``Authorization: Bearer sk-...`` verbatim, and the
``openai`` client puts that body in the exception text. Masking is by shape (a bearer or
basic credential, an ``sk-`` key, a value named like a key, token, secret or password)
and by value (the keys this process was given through the environment).
"""

from __future__ import annotations

import os
import re

__all__ = ["MASK", "redact"]

MASK = "***"

_SCHEME = re.compile(r"\b(Bearer|Basic|Token)(\s+)[^\s\"',;}\]]+", re.IGNORECASE)
_SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")
_NAMED = re.compile(
    r"(?P<name>[\w.-]*(?:authorization|api[-_]?key|token|secret|passw(?:or)?d)[\w.-]*)"
    r"(?P<sep>[\"']?\s*[:=]\s*[\"']?)(?P<value>[^\s\"',;}&\]]+)",
    re.IGNORECASE,
)
_ENV_KEYS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN")
_MIN_LITERAL = 6  # shorter "keys" would mask ordinary words


def redact(text: str) -> str:
    """``text`` with credentials replaced by ``***``."""
    for variable in _ENV_KEYS:
        secret = os.environ.get(variable, "")
        if len(secret) >= _MIN_LITERAL:
            text = text.replace(secret, MASK)
    text = _SCHEME.sub(lambda m: f"{m[1]}{m[2]}{MASK}", text)
    text = _SK_KEY.sub(f"sk-{MASK}", text)
    return _NAMED.sub(
        lambda m: (
            m[0]
            if m["value"] in (MASK, "Bearer", "Basic", "Token")
            else f"{m['name']}{m['sep']}{MASK}"
        ),
        text,
    )
