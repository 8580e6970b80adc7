"""CommandRegistry: the COMMAND channel, callable by name or by a `/`-command line.

Commands are what other agents, the orchestrator and humans call without going through the
model. A line such as ``/register_notification "check CI" 120`` or
``/pending_notification all=true`` is split like a shell line, positional tokens first and
``key=value`` tokens after, and each token is converted with the callable's annotation.
A command marked :func:`rest_of_line` takes its last argument verbatim instead (free text, or
JSON whose quotes a shell-like split would strip).
"""

from __future__ import annotations

import inspect
import json
import shlex
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

from akgentic.tool.core.event import CommandArg, CommandDescriptor
from akgentic.tool.core.output_cap import capped
from akgentic.tool.errors import CommandNotRecognized, RetriableError

__all__ = [
    "CommandEntry",
    "CommandRegistry",
    "describe_command",
    "render_result",
    "rest_of_line",
    "retry_wrapped",
]

_REST_OF_LINE = "__command_rest_of_line__"
_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


type CommandEntry = (
    Callable[..., Any]
    | tuple[str, Callable[..., Any]]
    | tuple[CommandDescriptor, Callable[..., Any]]
)
"""One item given to :class:`CommandRegistry`: a callable (named after ``__name__``), a
``(name, callable)`` pair, or a ``(CommandDescriptor, callable)`` pair whose descriptor supplies
the name and the tool card."""


class CommandRegistry:
    """Commands by name. Built by ``ToolFactory`` from every card's ``get_commands()``.

    Args:
        entries: The commands: callables, ``(name, callable)`` or ``(descriptor, callable)``
            pairs, or a mapping of name to callable.
        retry_exception: The agent framework's retry exception (pydantic-ai's ``ModelRetry``).
            :meth:`callable` hands out commands that raise it in place of a
            ``RetriableError``, like the tools ``ToolFactory`` wraps.
    """

    def __init__(
        self,
        entries: Iterable[CommandEntry] | Mapping[str, Callable[..., Any]] = (),
        *,
        retry_exception: type[Exception] | None = None,
    ) -> None:
        self._commands: dict[str, Callable[..., Any]] = {}
        self._cards: dict[str, str] = {}
        self.retry_exception = retry_exception
        items: Iterable[Any] = entries.items() if isinstance(entries, Mapping) else entries
        for entry in items:
            if isinstance(entry, tuple):
                head, fn = entry
                if isinstance(head, CommandDescriptor):
                    self.register(fn, head.name, tool_card=head.tool_card)
                else:
                    self.register(fn, head)
            else:
                self.register(entry)

    def register(
        self, fn: Callable[..., Any], name: str | None = None, *, tool_card: str | None = None
    ) -> None:
        """Add ``fn`` under ``name`` (default: its ``__name__``); a duplicate name is an error.

        ``tool_card`` is the name the command is announced under (see
        :meth:`descriptors`); by default the class ``fn`` is bound to, else its module.
        """
        key = (name or fn.__name__).lstrip("/")
        if key in self._commands:
            raise ValueError(f"command {key!r} is registered twice; give one of them another name")
        self._commands[key] = fn
        self._cards[key] = tool_card or _owner_name(fn)

    def names(self) -> list[str]:
        """Registered command names, in registration order."""
        return list(self._commands)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.has(name)

    def has(self, name: str) -> bool:
        """Whether a command is registered as ``name`` (a leading ``/`` is ignored)."""
        return name.lstrip("/") in self._commands

    def get(self, name: str) -> Callable[..., Any]:
        """The callable registered as ``name``; raises :class:`CommandNotRecognized`."""
        try:
            return self._commands[name.lstrip("/")]
        except KeyError:
            known = ", ".join(sorted(self._commands)) or "none"
            raise CommandNotRecognized(
                f"unknown command {name!r}; available commands: {known}"
            ) from None

    def callable(self, name: str) -> Callable[..., Any]:
        """The command ``name``, ready to call with typed arguments from agent code.

        With a ``retry_exception`` set, a ``RetriableError`` raised by the command comes out
        as that exception (the same conversion ``ToolFactory`` applies to tools). Raises
        :class:`CommandNotRecognized` for a name nobody registered.
        """
        return retry_wrapped(self.get(name), self.retry_exception)

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call the command ``name`` with already-typed arguments."""
        return self.get(name)(*args, **kwargs)

    def execute(self, line: str) -> Any:
        """Parse and run a `/`-command line; arguments are converted by annotation.

        Raises :class:`CommandNotRecognized` for an unknown command and
        :class:`RetriableError` for arguments that do not fit the command's signature.
        """
        head = line.split(maxsplit=1)
        if head and self.has(head[0]) and getattr(self.get(head[0]), _REST_OF_LINE, False):
            fn = self.get(head[0])
            return fn(*_bind_rest_of_line(fn, head[0].lstrip("/"), line))
        try:
            tokens = shlex.split(line.strip())
        except ValueError as exc:
            raise RetriableError(f"cannot parse command line {line!r}: {exc}") from exc
        if not tokens:
            raise CommandNotRecognized("empty command line")
        fn = self.get(tokens[0])
        args, kwargs = _bind_tokens(fn, tokens[0].lstrip("/"), tokens[1:])
        return fn(*args, **kwargs)

    def dispatch(self, text: str) -> str:
        """Run a line a human typed (``/name arg key=value``) and answer with text.

        The leading word decides: when it names no registered command,
        :class:`CommandNotRecognized` is raised and nothing runs, so the caller can hand the
        text to the model instead. Once the command is identified, every failure the user
        can fix (a line that does not parse, a missing or mistyped argument, a
        ``RetriableError`` or ``retry_exception`` raised by the command) comes back as the
        answer text. Other exceptions are bugs and propagate. A result that is not text is
        rendered: ``None`` as a short confirmation, models, lists and dicts as JSON.
        """
        words = text.split(maxsplit=1)
        if not words:
            raise CommandNotRecognized("empty command line")
        name = words[0].lstrip("/")
        if not name or name not in self._commands:
            known = ", ".join(sorted(self._commands)) or "none"
            raise CommandNotRecognized(f"unknown command {words[0]!r}; available commands: {known}")
        fixable: tuple[type[Exception], ...] = (RetriableError,)
        if self.retry_exception is not None:
            fixable = (RetriableError, self.retry_exception)
        try:
            result = self.execute(text)
        except fixable as exc:
            return f"/{name} failed: {exc}"
        return render_result(name, result)

    def descriptors(self) -> list[CommandDescriptor]:
        """A description of every command, for announcement to UIs and other agents."""
        return [
            describe_command(name, fn, tool_card=self._cards[name])
            for name, fn in self._commands.items()
        ]


def retry_wrapped(
    fn: Callable[..., Any], retry_exception: type[Exception] | None
) -> Callable[..., Any]:
    """``fn`` raising ``retry_exception`` where it raised ``RetriableError`` (sync or async).

    Without a ``retry_exception`` ``fn`` is returned as is. The wrapper keeps ``fn``'s name,
    docstring and signature, which is what an agent framework reads to build a tool schema.
    It is :func:`~akgentic.tool.core.output_cap.capped` without a limit: one wrapper does both
    jobs, so that a factory's tool is one layer deep whatever it needs.
    """
    return capped(fn, None, retry_exception)


def rest_of_line[F: Callable[..., Any]](fn: F) -> F:
    """Mark ``fn`` so that a command line hands its last parameter the rest of the line as is.

    The leading parameters take one whitespace-separated word each (converted by annotation,
    no quoting); the last one gets everything after them, unsplit and unquoted, or its
    default when nothing is left. ``/deny c1 not on a Friday`` gives ``reason`` the whole
    sentence; ``/approve c1 {"path": "a.md"}`` keeps the JSON's quotes.
    """
    setattr(fn, _REST_OF_LINE, True)
    return fn


def _bind_rest_of_line(fn: Callable[..., Any], name: str, line: str) -> list[Any]:
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    hints = _type_hints(fn)
    words = line.split(maxsplit=len(params))[1:]
    args: list[Any] = []
    for param, word in zip(params, words, strict=False):
        is_last = param is params[-1]
        value = word.strip() if is_last else word
        annotation = hints.get(param.name, param.annotation)
        args.append(value if is_last else _convert(value, annotation, name, param.name))
    missing = [p.name for p in params[len(args) :] if p.default is p.empty]
    if missing:
        raise RetriableError(f"/{name}: missing required argument(s): {', '.join(missing)}")
    return args


def render_result(name: str, result: Any) -> str:
    """A command's return value as the text answered to a human."""
    if isinstance(result, str):
        return result
    if result is None:
        return f"/{name} done."
    if isinstance(result, BaseModel | list | tuple | dict | set):
        return json.dumps(to_jsonable_python(result), indent=2, default=str)
    return str(result)


def _owner_name(fn: Callable[..., Any]) -> str:
    owner = getattr(fn, "__self__", None)
    if owner is not None and not isinstance(owner, types.ModuleType):
        return type(owner).__name__
    return str(getattr(fn, "__module__", None) or "commands")


def describe_command(name: str, fn: Callable[..., Any], tool_card: str = "") -> CommandDescriptor:
    """Describe ``fn`` from its signature and docstring (Google-style ``Args:`` section).

    ``tool_card`` names where the command comes from (a card class); empty means the
    class ``fn`` is bound to, else its module.
    """
    summary, arg_docs = _parse_docstring(inspect.getdoc(fn) or "")
    hints = _type_hints(fn)
    args: list[CommandArg] = []
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, param.annotation)
        required = param.default is inspect.Parameter.empty
        args.append(
            CommandArg(
                name=param.name,
                type=_type_name(annotation),
                required=required,
                default=None if required else param.default,
                description=arg_docs.get(param.name),
            )
        )
    return CommandDescriptor(
        name=name, description=summary, args=args, tool_card=tool_card or _owner_name(fn)
    )


def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    lines = doc.splitlines()
    summary_lines: list[str] = []
    arg_docs: dict[str, str] = {}
    in_args = False
    summary_done = False
    current: str | None = None
    for raw in lines:
        stripped = raw.strip()
        if stripped.lower() in ("args:", "arguments:", "parameters:"):
            in_args = True
            continue
        if in_args:
            if stripped.endswith(":") and " " not in stripped:  # next section header
                in_args = False
                continue
            if ":" in stripped and (raw.startswith("    ") or raw.startswith("\t")):
                head, _, text = stripped.partition(":")
                arg_name = head.split("(")[0].strip()
                if arg_name.isidentifier():
                    current = arg_name
                    arg_docs[current] = text.strip()
                    continue
            if current and stripped:
                arg_docs[current] = f"{arg_docs[current]} {stripped}".strip()
            continue
        if not stripped and summary_lines:
            summary_done = True
        elif stripped and not summary_done:
            summary_lines.append(stripped)
    return " ".join(summary_lines), arg_docs


def _type_hints(fn: Callable[..., Any]) -> dict[str, Any]:
    # A callable object keeps its annotations on its class's __call__ (a partial or a
    # builtin has none there: it is looked up as itself).
    call = None if inspect.isroutine(fn) else type(fn).__call__
    target = call if inspect.isfunction(call) else fn
    try:
        return typing.get_type_hints(target)
    except Exception:
        # One name imported only for type checkers fails the whole lookup: resolve the
        # annotations one by one instead. One that stays unresolved keeps its text, which
        # describes the argument and takes the value as text.
        return {
            name: _resolved(annotation, getattr(inspect.unwrap(target), "__globals__", {}))
            for name, annotation in getattr(target, "__annotations__", {}).items()
        }


def _resolved(annotation: Any, namespace: dict[str, Any]) -> Any:
    if not isinstance(annotation, str):
        return annotation
    try:
        # What typing.get_type_hints does to each string annotation, one at a time.
        return eval(annotation, dict(namespace))
    except Exception:
        return annotation


def _type_name(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return "Any"
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _bind_tokens(
    fn: Callable[..., Any], name: str, tokens: list[str]
) -> tuple[list[Any], dict[str, Any]]:
    params = [
        p
        for p in inspect.signature(fn).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    by_name = {p.name: p for p in params}
    hints = _type_hints(fn)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for token in tokens:
        key, sep, raw = token.partition("=")
        if sep and key in by_name:
            kwargs[key] = _convert(raw, hints.get(key, by_name[key].annotation), name, key)
            continue
        if kwargs:
            raise RetriableError(
                f"/{name}: positional argument {token!r} after keyword arguments; "
                "put positional values first"
            )
        if len(args) >= len(params):
            raise RetriableError(
                f"/{name} takes at most {len(params)} argument(s): "
                + ", ".join(p.name for p in params)
            )
        param = params[len(args)]
        args.append(_convert(token, hints.get(param.name, param.annotation), name, param.name))
    bound = {p.name for p in params[: len(args)]} | set(kwargs)
    missing = [p.name for p in params if p.default is p.empty and p.name not in bound]
    if missing:
        raise RetriableError(f"/{name}: missing required argument(s): {', '.join(missing)}")
    return args, kwargs


def _convert(raw: str, annotation: Any, command: str, arg: str) -> Any:
    options = _annotation_options(annotation)
    if raw.lower() in ("none", "null") and type(None) in options:
        return None
    errors: list[str] = []
    for option in options:
        if option is type(None):
            continue
        try:
            return _convert_one(raw, option)
        except (TypeError, ValueError) as exc:
            errors.append(str(exc))
    raise RetriableError(f"/{command}: argument {arg}={raw!r} is invalid: {'; '.join(errors)}")


def _annotation_options(annotation: Any) -> list[Any]:
    if annotation is inspect.Parameter.empty or annotation is Any or isinstance(annotation, str):
        return [str]
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return list(typing.get_args(annotation))
    return [annotation]


def _convert_one(raw: str, option: Any) -> Any:
    if option is bool:
        lowered = raw.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValueError(f"expected true or false, got {raw!r}")
    if option in (int, float, str):
        return option(raw)
    # A bare `list` has no typing origin; it takes comma-separated text like `list[str]`.
    origin = option if option in (list, set, tuple) else typing.get_origin(option)
    if origin is typing.Literal:
        for choice in typing.get_args(option):
            if str(choice) == raw:
                return choice
        raise ValueError(f"expected one of {typing.get_args(option)}")
    if origin in (list, set, tuple):
        (item_type, *_) = typing.get_args(option) or (str,)
        items = [_convert_one(part.strip(), item_type) for part in raw.split(",") if part.strip()]
        return origin(items)
    if isinstance(option, type):
        return option(raw)
    raise TypeError(f"cannot convert text to {option!r}")
