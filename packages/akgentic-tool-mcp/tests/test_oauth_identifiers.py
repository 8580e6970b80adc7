"""Which URLs name the same OAuth identifier, and how a URL is shown with its secrets masked.

Pure functions: ``same_identifier`` decides whether metadata is the server's own (a
resource, an issuer), ``mask_url`` is how every error and log line shows a server's URL.
"""

from __future__ import annotations

import pytest

from akgentic.tool.mcp._oauth_urls import same_identifier
from akgentic.tool.mcp._redact import mask_url


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("HTTPS://Auth.Example/tenant", "https://auth.example:443/tenant/", True),
        ("http://auth.example/tenant", "http://auth.example:80/tenant", True),
        ("https://auth.example./tenant", "https://auth.example/tenant", True),  # FQDN dot
        ("http://[::1]:8080/x", "http://[0:0:0:0:0:0:0:1]:8080/x", True),
        ("http://[fe80::1%25eth0]/x", "http://[fe80::1]/x", True),  # the zone is not the host
        ("http://[::1]/x", "http://[::2]/x", False),
        ("https://a.example/x", "https://b.example/x", False),
        ("https://auth.example/tenantX", "https://auth.example/tenant", False),
        ("https://auth.example/x", "https://auth.example:8443/x", False),
        ("https://auth.example/x", "http://auth.example/x", False),
    ],
)
def test_which_identifiers_are_the_same(a: str, b: str, same: bool) -> None:
    assert same_identifier(a, b) is same
    assert same_identifier(b, a) is same


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("https://user:p@ss@h.example/mcp", "https://user:***@h.example/mcp"),
        ("https://user:pa:ss@h.example/mcp", "https://user:***@h.example/mcp"),
        ("https://h.example/mcp?flag=&token=T-1", "https://h.example/mcp?flag=&token=***"),
        ("https://h.example/mcp?x=1", "https://h.example/mcp?x=1"),
    ],
)
def test_a_url_is_shown_without_its_secrets(url: str, shown: str) -> None:
    assert mask_url(url) == shown
