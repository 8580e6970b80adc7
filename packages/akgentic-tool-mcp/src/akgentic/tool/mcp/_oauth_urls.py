"""URL rules of the OAuth flow: which identifiers are "the same", which endpoints are safe.

Pure functions, no I/O: ``oauth_handler`` calls them and turns a ``False`` into an
``OAuthFlowError`` that says which document or endpoint was refused.

- Identifiers (an MCP server's resource URL, an authorization server's issuer) are compared
  by scheme, host, port and path, case-insensitively where URLs are (scheme and host), with
  the default port spelled or not and a trailing slash ignored. Userinfo, query and fragment
  play no part: RFC 9728 and RFC 8414 identifiers have none worth comparing.
- An endpoint is acceptable over ``https``, or over plain ``http`` only on a loopback host
  (``localhost``, 127.0.0.0/8, ``::1``), where no network sees the traffic.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}

RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource"


def canonical_url(url: str) -> str:
    """``scheme://host:port/path`` in one spelling, so equal identifiers compare equal.

    >>> canonical_url("HTTPS://Auth.Example:443/tenant/")
    'https://auth.example:443/tenant'
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: compare the raw text
        return url.strip()
    port = port if port is not None else _DEFAULT_PORTS.get(scheme)
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:  # an IPv6 literal: one spelling of it, back in brackets
        host = f"[{ipaddress.ip_address(host.partition('%')[0]).compressed}]"
    return f"{scheme}://{host}:{port}{parts.path.rstrip('/')}"


def same_identifier(a: str, b: str) -> bool:
    """Whether two resource or issuer identifiers name the same thing."""
    return canonical_url(a) == canonical_url(b)


def origin(url: str) -> str:
    """``scheme://netloc`` of ``url``, as written."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def resource_identifiers(server_url: str, metadata_url: str) -> list[str]:
    """The ``resource`` values that metadata found at ``metadata_url`` may name.

    Always the MCP server's own URL: that is where the token will be sent, so a token for
    any other audience must not be asked for. In addition the server's origin, when the
    document came from the origin's root well-known location, which by RFC 9728 §3.1
    describes the resource identified by the origin alone (the whole host).
    """
    allowed = [server_url]
    root_document = origin(server_url) + RESOURCE_METADATA_PATH
    if same_identifier(metadata_url, root_document):
        allowed.append(origin(server_url))
    return allowed


def is_secure_endpoint(url: str) -> bool:
    """Whether ``url`` may be used by the flow: https, or http to a loopback host."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "https":
        return bool(parts.hostname)
    return scheme == "http" and is_loopback_host(parts.hostname or "")


def is_loopback_host(host: str) -> bool:
    """``localhost``, 127.0.0.0/8 or ``::1``; never a name that merely starts like one.

    >>> [is_loopback_host(h) for h in ("localhost", "127.9.9.9", "::1", "127.0.0.1.evil.example")]
    [True, True, True, False]
    """
    name = host.lower().rstrip(".")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name.partition("%")[0]).is_loopback
    except ValueError:
        return False
