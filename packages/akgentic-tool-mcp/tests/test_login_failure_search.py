"""``find_login_failure``: the login error found inside what a failed connection raised.

The provider runs inside the HTTP client inside the MCP session's task group, so the error
that reaches the caller wraps the login error: as a cause, a context, or one member of an
exception group next to the other tasks' errors. The exceptions here are raised for real,
the way those layers raise them.
"""

from __future__ import annotations

from akgentic.tool.mcp.oauth_login import find_login_failure, login_expired


def _raised_from_what_it_handled() -> RuntimeError:
    """An error raised ``from`` the one being handled: it is both its cause and its context."""
    try:
        try:
            raise ConnectionResetError("the peer closed the stream")
        except ConnectionResetError as closed:
            raise RuntimeError("the stream broke") from closed
    except RuntimeError as error:
        return error


def test_a_login_error_next_to_a_task_error_seen_twice_is_found() -> None:
    refused = login_expired("http://127.0.0.1:9/mcp")
    group = ExceptionGroup("the session's tasks", [refused, _raised_from_what_it_handled()])
    assert find_login_failure(group) is refused


def _causes_that_loop() -> OSError:
    """``raise handled from later``, ``later`` raised while handling ``handled``: each is the
    other's cause or context."""
    try:
        try:
            raise OSError("the first failure")
        except OSError as handled:
            try:
                raise TimeoutError("the second failure")
            except TimeoutError as later:
                looped = later
            raise handled from looped
    except OSError as error:
        return error


def test_an_error_whose_causes_loop_is_searched_to_the_end() -> None:
    error = _causes_that_loop()
    assert error.__cause__ is not None
    assert error.__cause__.__context__ is error
    assert find_login_failure(error) is None
