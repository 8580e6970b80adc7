"""Output caps, more: a result exactly at the limit passes whole, a result holding an
object JSON cannot encode is still cut (as text), and a callable without a name is
called "tool" in the notice the model reads."""

from __future__ import annotations

from akgentic.tool.core.output_cap import cap_result, capped


class Opaque:
    def __str__(self) -> str:
        return "opaque-thing"


class Lister:
    """A callable object: it has no ``__name__``."""

    def __call__(self) -> str:
        return "x" * 50


def test_a_result_exactly_at_the_limit_is_returned_whole() -> None:
    assert cap_result("abcde", 5, "t") == "abcde"
    assert cap_result("abcdef", 5, "t").startswith("abcde\n[t: output cut at 5 of 6")


def test_an_object_json_cannot_encode_is_written_as_its_text() -> None:
    result = cap_result({"item": Opaque(), "pad": "y" * 40}, 30, "t")
    assert result.startswith('{"item":"opaque-thing"')
    assert "narrower query or fewer results" in result


def test_a_callable_without_a_name_is_called_tool_in_the_notice() -> None:
    result = capped(Lister(), 10)()
    assert result.startswith("x" * 10 + "\n[tool: output cut at 10 of 50 characters")
