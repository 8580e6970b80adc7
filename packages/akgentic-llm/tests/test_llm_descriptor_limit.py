"""A process out of file descriptors gets an error that says what to change, and loses nothing.

Every agent that has run synchronously keeps an event loop of its own (three descriptors on
Linux) until it is closed, so a big team meets the open-files limit before any other. The
check runs in a child process whose soft limit is lowered just above what it already uses,
so the test process keeps its own limit.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

_CHILD = textwrap.dedent(
    """
    import errno, json, os, resource
    from pydantic_ai.models.test import TestModel
    from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig

    os.environ.setdefault("OPENAI_API_KEY", "not-used")
    config = ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))
    first = ReactAgent(config, model=TestModel(custom_output_text="first"))
    first.run_sync("warm up")  # imports and one-off set-up, before the limit is lowered
    in_use = len(os.listdir("/proc/self/fd"))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (in_use + 8, hard))

    agents, answers, failure = [], [], None
    for n in range(20):
        agent = ReactAgent(config, model=TestModel(custom_output_text=f"agent {n}"))
        agents.append(agent)
        try:
            answers.append(agent.run_sync("go"))
        except OSError as exc:
            failure = {"errno": exc.errno, "message": str(exc)}
            break
    agents[0].close()  # gives its loop back: the agent that failed can now run
    retried = agents[-1].run_sync("again")
    print(json.dumps({
        "limit": in_use + 8, "hard": hard, "answers": answers, "failure": failure,
        "retried": retried,
    }))
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")
def test_running_out_of_descriptors_names_the_limit_and_the_way_out() -> None:
    child = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=120, check=False
    )
    assert child.returncode == 0, child.stderr[-3000:]
    report = json.loads(child.stdout.strip().splitlines()[-1])

    failure = report["failure"]
    assert failure is not None, report
    assert failure["errno"] == 24  # EMFILE: callers that test for it still can
    assert failure["message"] == (
        "[Errno 24] cannot create this agent's event loop: the process has reached its limit of "
        f"{report['limit']} open files (RLIMIT_NOFILE, hard limit {report['hard']}). Each agent "
        "that has run synchronously holds 3 descriptors (its event loop) until close(), plus "
        "its connections: close agents you no longer need, or raise the limit before starting "
        "a big team (`ulimit -n`, or resource.setrlimit in the process)"
    )
    # The agents before the failing one answered; the failing one runs once a loop is free.
    assert report["answers"] == [f"agent {n}" for n in range(len(report["answers"]))]
    assert 1 <= len(report["answers"]) < 20
    assert report["retried"] == f"agent {len(report['answers'])}"


@pytest.mark.skipif(sys.platform == "win32", reason="reads the Unix open-files limit")
def test_an_agent_refused_its_event_loop_says_what_to_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The same refusal as above, in this process: the OS answer EMFILE stood in for, so
    # that the message is checked where the agent builds it.
    import asyncio
    import errno
    import resource

    from pydantic_ai.models.test import TestModel

    from akgentic.llm import ModelConfig, ReactAgent, ReactAgentConfig

    def out_of_descriptors() -> asyncio.AbstractEventLoop:
        raise OSError(errno.EMFILE, "Too many open files")

    config = ReactAgentConfig(model_cfg=ModelConfig(provider="openai", model="gpt-4o"))
    agent = ReactAgent(config, model=TestModel(custom_output_text="never"))
    monkeypatch.setattr(asyncio, "new_event_loop", out_of_descriptors)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)

    with pytest.raises(OSError) as refused:
        agent.run_sync("go")

    assert refused.value.errno == errno.EMFILE
    assert refused.value.strerror == (
        f"cannot create this agent's event loop: the process has reached its limit of {soft} "
        f"open files (RLIMIT_NOFILE, hard limit {hard}). Each agent that has run "
        "synchronously holds 3 descriptors (its event loop) until close(), plus its "
        "connections: close agents you no longer need, or raise the limit before starting a "
        "big team (`ulimit -n`, or resource.setrlimit in the process)"
    )
