"""Hide secret-looking values in text meant for people: reprs, log lines, error messages.

Only the *displayed* form is masked; the values that are actually used (the command line
a stdio server is started with, the URL a transport connects to) are never touched.

The rule is by name, not by value: an argument, query parameter or ``name=value`` pair whose
name mentions a key, token, secret or password is shown as ``***``. Over-masking a harmless
``--keyword=x`` in a repr costs nothing; under-masking leaks a credential into a log.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"

# Names that announce a secret: api-key, apikey, access_token, client-secret, password...
_SECRET_NAME = re.compile(r"key|token|secret|passw(?:or)?d|credential", re.IGNORECASE)

# `--api-key=v`, `-token=v`, `API_KEY=v`: a name, an `=`, a value.
_NAMED_VALUE = re.compile(r"^(?P<name>-{0,2}[A-Za-z_][\w.-]*)=(?P<value>.*)$", re.DOTALL)

# `--api-key` or `-password` alone: the *next* argument is its value.
_FLAG = re.compile(r"^-{1,2}[A-Za-z][\w.-]*$")

# `name=value`, `name: value` or `"name": "value"` inside free text (an HTTP error body).
_TEXT_PAIR = re.compile(
    r"""(?P<name>[\w.-]*(?:key|token|secret|passw(?:or)?d|credential|verifier)[\w.-]*)"""
    r"""(?P<sep>["']?\s*[:=]\s*["']?)(?P<value>[^\s"'&,;}]+)""",
    re.IGNORECASE,
)


def is_secret_name(name: str) -> bool:
    """Whether a flag, parameter or variable name announces a secret value."""
    return _SECRET_NAME.search(name) is not None


def mask_args(args: list[str]) -> list[str]:
    """``args`` with the values of secret-named flags replaced by ``***``.

    >>> mask_args(["server", "--api-key=sk-1", "--token", "t-2", "--port", "80"])
    ['server', '--api-key=***', '--token', '***', '--port', '80']
    """
    shown: list[str] = []
    hide_next = False
    for arg in args:
        if hide_next:
            shown.append(MASK)
            hide_next = False
            continue
        pair = _NAMED_VALUE.match(arg)
        if pair is not None and is_secret_name(pair["name"]):
            shown.append(f"{pair['name']}={MASK}")
            continue
        hide_next = _FLAG.match(arg) is not None and is_secret_name(arg)
        shown.append(arg)
    return shown


def mask_url(url: str) -> str:
    """``url`` without a userinfo password and with secret-named query values masked.

    >>> mask_url("https://u:pw@h.example/mcp?api_key=k&x=1")
    'https://u:***@h.example/mcp?api_key=***&x=1'
    """
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        userinfo, _, host = netloc.rpartition("@")
        netloc = f"{userinfo.partition(':')[0]}:{MASK}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(is_secret_name(name) for name, _ in pairs):
            shown = [(n, MASK if is_secret_name(n) else v) for n, v in pairs]
            query = urlencode(shown, safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """Free text with the values of secret-named ``name=value`` / ``"name": "value"`` masked.

    >>> redact_text('{"access_token": "at-1", "error": "x"}')
    '{"access_token": "***", "error": "x"}'
    """
    return _TEXT_PAIR.sub(lambda m: f"{m['name']}{m['sep']}{MASK}", text)
