"""The akgentic demo: a small team works through a short task, printing what it does.

    python scripts/demo.py                       # scripted model: no key, no service, no network
    python scripts/demo.py --model openai:gpt-4o # the same team on a real provider (needs its key)
    python scripts/demo.py --semantic            # plus a vector store: search by meaning

Three ReactAgents join a real akgentic-core team. Their tools come from a ToolFactory over
WorkspaceTool, PlanningTool, KnowledgeGraphTool, NotificationTool and ExecTool (local mode),
so the plan, the graph, the notifications and the sandbox are real team tool actors. The
driver hands the tasks to the members in turn; the reviewer schedules a notification to
itself and handles it when it arrives. Everything the team does is printed as it happens;
the run ends with the files in the workspace and the usage and cost summary.

Two scenes show the team's safety rails:

- running a command in the sandbox needs a person's approval (``exec_command`` is gated):
  the writer's run pauses, the pending call is printed with its exact arguments, and the
  demo, standing in for the person, sends ``/approve <id>`` through the member's command
  registry; the run resumes and runs the command;
- the reviewer edits fib.py after the writer wrote it, so the writer's next edit is refused
  with a diff of what changed (stale-write protection); the writer reads the file again and
  its edit then goes through.

One line says what embeds for each vector store of the team. By default there is none
(planning and the graph search by keyword). ``--semantic`` adds the team's ``#VectorStore``:
with the scripted model it embeds with the local model2vec model (``minishlab/potion-base-8M``,
downloaded once into the Hugging Face cache, or the folder named by
``AKGENTIC_LOCAL_EMBEDDING_MODEL``); with a real model, with OpenAI or Azure when their key
is set, else locally.

Failures a newcomer meets end with one line on stderr saying what to do, and an exit code:
2 for a bad ``--model`` or a missing key, 3 for an endpoint that cannot be reached, 1 when a
member's model call fails or a member does not answer in time, 130 on Ctrl-C. The team's
files go to a temporary ``akgentic-demo-*`` folder removed on exit (``--keep`` keeps it,
``--workspaces`` writes to a folder of yours instead).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import ValidationError

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.core.agent_config import BaseConfig
from akgentic.core.orchestrator import Orchestrator
from akgentic.llm import (
    HttpClientConfig,
    ModelConfig,
    RuntimeConfig,
    aggregate_usage,
    create_model,
)
from akgentic.tool import ToolCard
from akgentic.tool.core.workspace_dir import WORKSPACES_ROOT_ENV, resolve_workspace_dir
from akgentic.tool.knowledge_graph import KnowledgeGraphTool
from akgentic.tool.notification import NotificationTool
from akgentic.tool.planning import PlanningTool
from akgentic.tool.sandbox import ExecTool
from akgentic.tool.workspace import WorkspaceTool
from akgentic_examples.demo_team import (
    CommandLine,
    LivePrinter,
    LlmMember,
    Script,
    Step,
    TaskMessage,
)

WORKSPACE_ID = "demo"
TASK_MESSAGE = f"{TaskMessage.__module__}.{TaskMessage.__qualname__}"
"""The dotted path a NotificationTool card names the members' message class by."""
PROVIDERS = ("openai", "azure", "anthropic", "nvidia", "google-gla", "mistral")

# Exit codes (also listed by --help).
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_INTERRUPTED = 130

CONNECT_TIMEOUT = 5.0
"""Seconds the demo gives a real provider's endpoint to accept a connection."""

# A real provider gets short HTTP timeouts and few retries: a demo should fail in seconds,
# not after the library's patient defaults (120 s per operation, five retries).
DEMO_HTTP = HttpClientConfig(timeout=60.0, max_retries=2, attempt_deadline=180.0)
SCRIPTED_TIMEOUT = 30.0
REAL_TIMEOUT = 180.0
STOP_WAIT = 8.0
"""Seconds the demo waits for its team to stop before leaving a stuck member behind."""
PROGRESS_EVERY = 20.0
"""While a real model thinks, a line says what the demo waits for this often (seconds)."""

# Where each provider's endpoint comes from, for the "cannot reach" line.
_ENDPOINT_VARIABLE = {
    "openai": "OPENAI_BASE_URL",
    "azure": "AZURE_OPENAI_ENDPOINT",
    "nvidia": "NVIDIA_BASE_URL",
}


class DemoError(Exception):
    """A failure the demo reports in one line (no traceback), with its exit code."""

    def __init__(self, message: str, code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.code = code


FIB_PY = '''"""Fibonacci numbers, iteratively."""


def fib(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


if __name__ == "__main__":
    assert [fib(i) for i in range(8)] == [0, 1, 1, 2, 3, 5, 8, 13]
    print(f"fib(10) = {fib(10)}: self-check passed")
'''

REVIEWED_DOCSTRING = '"""Fibonacci numbers, iteratively: O(n) time, O(1) space (reviewed)."""'
FIB_LIST = '''def fib_list(n: int) -> list[int]:
    """The first n Fibonacci numbers."""
    return [fib(i) for i in range(n)]


if __name__ == "__main__":'''
ADD_FIB_LIST = {
    "path": "fib.py",
    "old_string": 'if __name__ == "__main__":',
    "new_string": FIB_LIST,
}
RUN_FIB_CALL = "call-run-fib"
"""The id of the writer's gated sandbox call (the scripted model names its calls)."""

TASKS: list[tuple[str, str]] = [
    (
        "@Lead",
        "Plan a tiny project: a fib.py module with a self-check. Create the tasks for "
        "@Writer and @Reviewer and record the project in the knowledge graph.",
    ),
    (
        "@Writer",
        "Do your first two tasks in the plan: write fib.py in the workspace, run it in the "
        "sandbox (a person approves commands), and mark them completed with their outcome.",
    ),
    (
        "@Reviewer",
        "Review fib.py, note your review in its docstring and in the knowledge graph, "
        "schedule a follow-up check for yourself in one second, and mark your review task "
        "started.",
    ),
    (
        "@Writer",
        "Do your last task in the plan: add fib_list(n) to fib.py, then mark it completed.",
    ),
]
"""The driver's tasks, in order; the reviewer's notification comes back before the last."""

NOTIFICATION_AFTER = 3
"""The reviewer's notification is awaited after this many tasks."""

SCRIPTS = {
    "@Lead": [
        Step(
            "update_planning",
            {
                "create_tasks": [
                    {
                        "description": "Write fib.py with fib(n) and a self-check",
                        "owner": "@Writer",
                    },
                    {"description": "Run fib.py in the sandbox", "owner": "@Writer"},
                    {"description": "Review fib.py and follow up", "owner": "@Reviewer"},
                    {"description": "Add fib_list(n) to fib.py", "owner": "@Writer"},
                ]
            },
        ),
        Step(
            "update_graph",
            {
                "create_entities": [
                    {
                        "name": "fib-project",
                        "entity_type": "Project",
                        "is_root": True,
                        "description": "A Fibonacci module with a self-check",
                    },
                    {"name": "fib.py", "entity_type": "File"},
                    {"name": "@Writer", "entity_type": "Agent"},
                    {"name": "@Reviewer", "entity_type": "Agent"},
                ],
                "create_relations": [
                    {
                        "from_entity": "fib-project",
                        "to_entity": "fib.py",
                        "relation_type": "contains",
                    },
                    {"from_entity": "@Writer", "to_entity": "fib.py", "relation_type": "writes"},
                    {"from_entity": "@Reviewer", "to_entity": "fib.py", "relation_type": "reviews"},
                ],
            },
        ),
        Step(text="Plan ready: four tasks assigned, project recorded in the graph."),
    ],
    "@Writer": [
        Step("workspace_write", {"path": "fib.py", "content": FIB_PY}),
        # Gated: the run pauses here until the person (the demo) approves this call.
        Step("exec_command", {"cmd": "python fib.py"}, call_id=RUN_FIB_CALL),
        Step(
            "update_planning",
            {
                "update_tasks": [
                    {"id": 1, "status": "completed", "output": "fib.py written"},
                    {"id": 2, "status": "completed", "output": "self-check passed"},
                ]
            },
        ),
        Step(text="fib.py is written and its self-check passes in the sandbox."),
        # Second task. The reviewer has edited fib.py since: this edit is refused with a diff.
        Step("workspace_edit", ADD_FIB_LIST),
        Step("workspace_read", {"path": "fib.py"}),
        Step("workspace_edit", ADD_FIB_LIST),
        Step(
            "update_planning",
            {"update_tasks": [{"id": 4, "status": "completed", "output": "fib_list added"}]},
        ),
        Step(text="fib_list(n) added to fib.py, on top of the reviewer's docstring."),
    ],
    "@Reviewer": [
        Step("workspace_read", {"path": "fib.py"}),
        Step("workspace_grep", {"pattern": r"def fib\("}),
        Step(
            "workspace_edit",
            {
                "path": "fib.py",
                "old_string": '"""Fibonacci numbers, iteratively."""',
                "new_string": REVIEWED_DOCSTRING,
            },
        ),
        Step(
            "update_graph",
            {
                "create_entities": [{"name": "review-1", "entity_type": "Review"}],
                "update_entities": [
                    {"name": "fib.py", "add_observations": ["iterative, O(n), self-checked"]}
                ],
                "create_relations": [
                    {"from_entity": "review-1", "to_entity": "fib.py", "relation_type": "covers"}
                ],
            },
        ),
        Step(
            "register_notification",
            {"content": "Follow up on the fib.py review", "delay_seconds": 1},
        ),
        Step("update_planning", {"update_tasks": [{"id": 3, "status": "started"}]}),
        Step(text="Review recorded; a follow-up is scheduled in one second."),
        # The notification arrives: a new run picks the script up here.
        Step("search_planning", {"owner": "@Reviewer"}),
        Step(
            "update_planning",
            {
                "update_tasks": [
                    {"id": 3, "status": "completed", "output": "reviewed, follow-up done"}
                ]
            },
        ),
        Step(text="Follow-up done: the review task is completed."),
    ],
}


# ------------------------------------------------------------------------------ the team


def _store_cards(semantic: bool, scripted: bool) -> list[ToolCard]:
    """The vector store card (for every member: binding it twice finds the same store)."""
    if not semantic:
        return []
    from akgentic.tool.vector_store import VectorStoreTool

    # The scripted run asks for local embeddings outright: it needs no key, and an OpenAI
    # key set in the environment must not turn a token-free run into a paid one.
    return [VectorStoreTool(embedding_provider="local" if scripted else "auto")]


def _cards(member: str, semantic: bool = False, scripted: bool = True) -> list[ToolCard]:
    planning = PlanningTool(vector_store=semantic)
    graph = KnowledgeGraphTool(vector_store=semantic)
    stores = _store_cards(semantic, scripted)
    if member == "@Lead":
        return [*stores, planning, graph]
    if member == "@Writer":
        return [
            *stores,
            WorkspaceTool(workspace_id=WORKSPACE_ID),
            # A command in the sandbox waits for a person's /approve.
            ExecTool(mode="local", workspace_id=WORKSPACE_ID, approval_required={"exec_command"}),
            planning,
        ]
    return [
        *stores,
        WorkspaceTool(workspace_id=WORKSPACE_ID),
        planning,
        graph,
        NotificationTool(message_class=TASK_MESSAGE, max_delay_seconds=60),
    ]


def _embedding_line(system: ActorSystem, orchestrator: Any) -> str:
    """One line: what each vector store of the team embeds with (or that there is none)."""
    team = system.proxy_ask(orchestrator, Orchestrator).get_team()
    stores = [member for member in team if member.name.startswith("#VectorStore")]
    if not stores:
        return "vector stores: none (plan and graph search by keyword; --semantic adds one)"
    from akgentic.tool.vector_store.actor import VectorStoreActor

    described = [
        f"{store.name} embeds with "
        + system.proxy_ask(store, VectorStoreActor).embedding_description()
        for store in stores
    ]
    return "vector stores: " + "; ".join(described)


def _join(
    system: ActorSystem,
    orchestrator: ActorAddress,
    model: _Model,
    semantic: bool,
    write: Callable[[str], None],
) -> dict[str, ActorAddress]:
    """Create the members and equip them; their addresses by name."""
    members: dict[str, ActorAddress] = {}
    for name, steps in SCRIPTS.items():
        address = system.proxy_ask(orchestrator, Orchestrator).createActor(
            LlmMember, config=BaseConfig(name=name, role=name.strip("@"))
        )
        tools = system.proxy_ask(address, LlmMember).equip(
            _cards(name, semantic, model.scripted),
            model.config,
            f"You are {name} in a small software team.",
            Script(name, steps) if model.scripted else None,
            None if model.scripted else RuntimeConfig(http_client_config=DEMO_HTTP),
        )
        write(f"{name} joins with tools: {', '.join(tools)}")
        members[name] = address
    return members


# ------------------------------------------------------------------- the model, checked


class _Model:
    """The model the team runs on: the script, or a real provider's (checked before use)."""

    def __init__(self, config: ModelConfig, scripted: bool, endpoint: str | None) -> None:
        self.config = config
        self.scripted = scripted
        self.endpoint = endpoint

    @property
    def label(self) -> str:
        return "the scripted model" if self.scripted else self.config_label

    @property
    def config_label(self) -> str:
        return f"{self.config.provider}:{self.config.model}"


def _model_config(spec: str) -> tuple[ModelConfig, bool]:
    """``--model``'s value as a configuration, and whether it is the scripted model."""
    if spec == "scripted":
        # The scripted model replaces the provider's (see LlmMember.equip): nothing of this
        # configuration is ever contacted.
        return ModelConfig(provider="openai", model="gpt-4o"), True
    provider, sep, model = spec.partition(":")
    if not sep or not model or provider not in PROVIDERS:
        raise DemoError(
            f"--model takes 'scripted' or provider:model with a provider among "
            f"{', '.join(PROVIDERS)} (e.g. openai:gpt-4o-mini), got {spec!r}",
            EXIT_USAGE,
        )
    try:
        return ModelConfig(provider=provider, model=model), False  # type: ignore[arg-type]
    except ValidationError as exc:
        raise DemoError(
            f"--model {spec!r} is not usable: {exc.errors()[0]['msg']}", EXIT_USAGE
        ) from None


def _checked_model(spec: str, connect_timeout: float = CONNECT_TIMEOUT) -> _Model:
    """The model of ``--model``, with its key present and its endpoint reachable."""
    config, scripted = _model_config(spec)
    if scripted:
        return _Model(config, True, None)
    try:
        # Builds the client only (no request): this is where a missing key is detected.
        endpoint = str(create_model(config).base_url or "")
    except ValueError as exc:
        raise DemoError(
            f"{exc}: set it and run again, pick another provider with --model provider:model "
            f"({', '.join(PROVIDERS)}), or drop --model to run the scripted team",
            EXIT_USAGE,
        ) from None
    if endpoint:
        _check_reachable(endpoint, config.provider, connect_timeout)
    return _Model(config, False, endpoint or None)


def _check_reachable(url: str, provider: str, timeout: float) -> None:
    """Refuse in one line, within ``timeout`` seconds, an endpoint nobody answers at.

    Only a TCP connection is tried (to the proxy when one applies, as httpx would): no
    request is sent, so nothing is spent.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy and not urllib.request.proxy_bypass(host):
        via = urlsplit(proxy)
        host, port = via.hostname or host, via.port or 80
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
    variable = _ENDPOINT_VARIABLE.get(provider)
    fix = (
        f"start the server or correct {variable}"
        if variable and os.environ.get(variable)
        else "check your network or proxy"
    )
    raise DemoError(
        f"cannot reach {url} ({host}:{port}: {reason}, waited at most {timeout:g} s): "
        f"{fix}, or drop --model to run the scripted team",
        EXIT_UNREACHABLE,
    )


# ------------------------------------------------------------------------ the driver


@dataclass
class _Driver:
    """Hands out the tasks and waits for the answers, deciding approvals as a person would."""

    system: ActorSystem
    members: dict[str, ActorAddress]
    printer: LivePrinter
    model: _Model
    timeout: float
    write: Callable[[str], None]
    _decided: int = field(default=0, init=False)  # approval requests answered so far

    def task(self, name: str, text: str, replies: int) -> None:
        self.write(f"\n▶ task for {name}: {text}")
        self.system.tell(self.members[name], TaskMessage(content=text))
        self.wait(replies, f"{name}'s answer")

    def wait(self, replies: int, what: str) -> None:
        """Until ``replies`` replies arrived and every command answered; raise on failure."""
        started = time.monotonic()
        next_note = started + PROGRESS_EVERY
        while not self._done(replies):
            self._decide_new_approvals()
            now = time.monotonic()
            if now - started > self.timeout:
                where = f" at {self.model.endpoint}" if self.model.endpoint else ""
                raise DemoError(
                    f"no answer within {self.timeout:g} s: waited for {what} from "
                    f"{self.model.label}{where}; a slow provider may need a longer --timeout"
                )
            if not self.model.scripted and now >= next_note:
                next_note = now + PROGRESS_EVERY
                self.write(
                    f"  … still waiting for {what} from {self.model.label} "
                    f"({now - started:.0f} s of at most {self.timeout:g} s)"
                )
            time.sleep(0.05)

    def _done(self, replies: int) -> bool:
        if self.printer.failures:
            failure = self.printer.failures[0]
            where = f" at {self.model.endpoint}" if self.model.endpoint else ""
            raise DemoError(
                f"{failure.member}'s model call failed ({failure.error}); model "
                f"{self.model.label}{where}: check the key, the endpoint and your network, "
                "or drop --model to run the scripted team"
            )
        answered = len(self.printer.answers) >= self._decided
        return answered and len(self.printer.replies) >= replies

    def _decide_new_approvals(self) -> None:
        """The scripted decision: approve each new request through the member's commands."""
        while self._decided < len(self.printer.approvals):
            who, request = self.printer.approvals[self._decided]
            line = f"/approve {request.call_id}"
            self.write(f"  [person] {line}  (the demo's scripted decision, sent to {who})")
            self.system.tell(self.members[who], CommandLine(line=line))
            self._decided += 1


# ---------------------------------------------------------------------------- a run


@contextlib.contextmanager
def _workspaces_root(
    workspaces: Path | None, keep: bool, write: Callable[[str], None]
) -> Iterator[Path]:
    """Where the team's files go, as WORKSPACES_ROOT for the run (restored afterwards).

    Without ``workspaces`` a temporary ``akgentic-demo-*`` folder, removed on the way out
    whatever happens (an error, Ctrl-C) unless ``keep``.
    """
    previous = os.environ.get(WORKSPACES_ROOT_ENV)
    with contextlib.ExitStack() as stack:
        if workspaces is not None:
            root = workspaces
        elif keep:
            root = Path(tempfile.mkdtemp(prefix="akgentic-demo-"))
            stack.callback(write, f"\nKept the team's files in {root} (--keep).")
        else:
            temporary = tempfile.TemporaryDirectory(
                prefix="akgentic-demo-", ignore_cleanup_errors=True
            )
            root = Path(stack.enter_context(temporary))
        os.environ[WORKSPACES_ROOT_ENV] = str(root)
        try:
            yield root
        finally:
            if previous is None:
                os.environ.pop(WORKSPACES_ROOT_ENV, None)
            else:
                os.environ[WORKSPACES_ROOT_ENV] = previous


def run(
    model: str = "scripted",
    workspaces: Path | None = None,
    write: Callable[[str], None] = print,
    semantic: bool = False,
    keep: bool = False,
    timeout: float | None = None,
) -> LivePrinter:
    """Run the demo team once; return the printer holding what happened.

    ``semantic`` adds the team's vector store (see the module notes); ``keep`` keeps the
    temporary folder used when no ``workspaces`` is given; ``timeout`` bounds each wait for
    an answer (30 s with the scripted model, 180 s with a real one by default). Failures
    the reader can fix raise :class:`DemoError`.
    """
    checked = _checked_model(model)
    wait = (
        timeout if timeout is not None else (SCRIPTED_TIMEOUT if checked.scripted else REAL_TIMEOUT)
    )
    printer = LivePrinter(write)
    with _workspaces_root(workspaces, keep, write) as root:
        system = ActorSystem()
        try:
            orchestrator = system.createActor(
                Orchestrator, config=BaseConfig(name="@Orchestrator", role="Orchestrator")
            )
            system.proxy_ask(orchestrator, Orchestrator).subscribe(printer)
            members = _join(system, orchestrator, checked, semantic, write)
            write(_embedding_line(system, orchestrator))
            if not checked.scripted:
                write(f"Each answer comes from {checked.label}; the demo waits up to {wait:g} s.")
            _drive(_Driver(system, members, printer, checked, wait, write))
            _report(root, printer, write, temporary=workspaces is None and not keep)
        finally:
            _stop(system, write)
    return printer


def _stop(system: ActorSystem, write: Callable[[str], None]) -> None:
    """Shut the team down, giving up after STOP_WAIT seconds.

    A member stuck in a model call (a silent endpoint) cannot be stopped before the call
    returns, and the actor system's last resort waits for it without a bound; the demo
    does not: it says so and moves on (``main`` then exits without waiting for it).
    """
    # The actor layer's own warnings about a wedged member would say the same in more
    # lines; the demo's line below replaces them.
    core_log = logging.getLogger("akgentic.core")
    level = core_log.level
    core_log.setLevel(logging.ERROR)
    stopper = threading.Thread(
        target=system.shutdown, kwargs={"timeout": 3}, name="demo-shutdown", daemon=True
    )
    stopper.start()
    stopper.join(STOP_WAIT)
    if stopper.is_alive():
        write(f"(a member still waits for its model after {STOP_WAIT:g} s; the demo leaves it)")
    else:
        core_log.setLevel(level)


def _drive(driver: _Driver) -> None:
    for index, (name, task) in enumerate(TASKS, start=1):
        replies = index if index <= NOTIFICATION_AFTER else index + 1
        driver.task(name, task, replies)
        if index == NOTIFICATION_AFTER:
            driver.write("\n… waiting for the reviewer's notification (due in one second)")
            driver.wait(index + 1, "reply to the reviewer's notification")


def _report(
    root: Path, printer: LivePrinter, write: Callable[[str], None], *, temporary: bool
) -> None:
    workspace = resolve_workspace_dir(WORKSPACE_ID)
    note = " (temporary, removed on exit; --keep keeps it)" if temporary else ""
    write(f"\nWorkspace {workspace}{note}:")
    for path in sorted(workspace.rglob("*")):
        if path.is_file():
            write(f"  {path.relative_to(root / WORKSPACE_ID)} ({path.stat().st_size} bytes)")
    summary = aggregate_usage(printer.usage, by_run=True)
    write("\nUsage and cost (aggregate_usage):")
    for model_name, usage in summary.by_model.items():
        write(
            f"  {model_name}: {usage.requests} requests, {usage.input_tokens} in / "
            f"{usage.output_tokens} out tokens, ${usage.estimated_cost_usd:.6f}"
        )
    write(
        f"  total: {summary.total_input_tokens + summary.total_output_tokens} tokens, "
        f"{summary.total_requests} requests over {len(summary.runs or [])} runs, "
        f"${summary.total_cost_usd:.6f}"
    )


# ------------------------------------------------------------------------ command line

_EPILOG = f"""\
providers and their variables (--model PROVIDER:MODEL):
  openai      OPENAI_API_KEY (endpoint: OPENAI_BASE_URL)
  azure       AZURE_OPENAI_API_KEY and AZURE_OPENAI_ENDPOINT
  anthropic   ANTHROPIC_API_KEY
  nvidia      OPENAI_API_KEY (endpoint: NVIDIA_BASE_URL)
  google-gla  GOOGLE_API_KEY or GEMINI_API_KEY
  mistral     MISTRAL_API_KEY

exit codes:
  0           done
  {EXIT_FAILED}           a member's model call failed, or an answer did not come in time
  {EXIT_USAGE}           a bad --model, or a missing key
  {EXIT_UNREACHABLE}           the provider's endpoint cannot be reached
  {EXIT_INTERRUPTED}         interrupted (Ctrl-C)
"""


def _parser() -> argparse.ArgumentParser:
    def formatter(prog: str) -> argparse.HelpFormatter:
        # Wide enough for "--model PROVIDER:MODEL" and its help on one line.
        return argparse.RawDescriptionHelpFormatter(prog, max_help_position=27, width=84)

    parser = argparse.ArgumentParser(
        prog="demo",
        description="A small akgentic team works through a short task, printing what it does.",
        epilog=_EPILOG,
        formatter_class=formatter,
    )
    # One line of help per option: the details are in the epilog and the module notes.
    parser.add_argument(
        "--model",
        default="scripted",
        metavar="PROVIDER:MODEL",
        help="'scripted' (default, no key) or e.g. openai:gpt-4o-mini",
    )
    parser.add_argument(
        "--workspaces",
        type=Path,
        default=None,
        metavar="DIR",
        help="write the team's files to DIR (kept), not a temp folder",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the temporary akgentic-demo-* folder on exit"
    )
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="add a vector store: plan and graph search by meaning",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help=f"longest wait for one answer ({SCRIPTED_TIMEOUT:g} s; "
        f"{REAL_TIMEOUT:g} s with --model)",
    )
    return parser


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM unwinds like Ctrl-C, so the temporary folder is removed."""
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.timeout is not None and args.timeout <= 0:
        print("demo: --timeout takes a positive number of seconds", file=sys.stderr)
        return EXIT_USAGE
    signal.signal(signal.SIGTERM, _terminate)
    try:
        run(
            args.model,
            args.workspaces,
            semantic=args.semantic,
            keep=args.keep,
            timeout=args.timeout,
        )
    except DemoError as exc:
        print(f"demo: {exc}", file=sys.stderr)
        return _exit(exc.code)
    except KeyboardInterrupt:
        print("demo: interrupted; the team was stopped", file=sys.stderr)
        return _exit(EXIT_INTERRUPTED)
    return _exit(0)


def _exit(code: int) -> int:
    """``code``, or leave at once when a stuck member's thread would block the exit.

    The interpreter joins every non-daemon thread before it exits; an actor thread held by
    a silent endpoint would hold the demo for as long as its HTTP timeouts allow. Everything
    the demo owns (the temporary folder included) is cleaned up by now.
    """
    main_thread = threading.main_thread()
    stuck = [t for t in threading.enumerate() if t is not main_thread and not t.daemon]
    if stuck:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


if __name__ == "__main__":
    sys.exit(main())
