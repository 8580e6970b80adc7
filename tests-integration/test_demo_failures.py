"""The demo's rough edges, smoothed: what a newcomer sees when something is missing.

A missing key, an endpoint nobody listens at, a provider that refuses the call, one that
never answers, Ctrl-C: each ends with one line saying what to do and an exit code, in
bounded time, and no ``akgentic-demo-*`` folder is left behind unless ``--keep`` asks.
The command-line cases run the demo as a reader does (a subprocess of ``scripts/demo.py``
with its own ``TMPDIR``); the provider cases run it in-process against real HTTP servers
on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from akgentic_examples import demo

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = ROOT / "scripts" / "demo.py"  # the command the top README shows

PROVIDER_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT",
    "AZURE_OPENAI_AD_TOKEN",
    "ANTHROPIC_API_KEY",
    "NVIDIA_BASE_URL",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "MISTRAL_API_KEY",
)


def _demo_folders(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("akgentic-demo-*"))


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    """The demo's TMPDIR, where its temporary folders are counted."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    return folder


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARIABLES}
    env.update(TMPDIR=str(tmp), HF_HUB_OFFLINE="1", PYTHONUNBUFFERED="1", **extra)
    return env


def _demo(tmp: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(LAUNCHER), *args],
        env=_env(tmp, **extra),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ----------------------------------------------------------------- command line


def test_a_missing_key_is_one_line_naming_the_variable_and_exit_2(tmp: Path) -> None:
    done = _demo(tmp, "--model", "openai:gpt-4o-mini")
    assert done.returncode == demo.EXIT_USAGE == 2
    assert done.stdout == ""  # refused before the team is built
    (line,) = done.stderr.strip().splitlines()
    assert "OPENAI_API_KEY" in line
    assert "--model provider:model" in line
    assert "drop --model" in line
    assert _demo_folders(tmp) == []


def test_an_unreachable_endpoint_is_one_line_with_the_url_and_the_fix(tmp: Path) -> None:
    port = _closed_port()
    url = f"http://127.0.0.1:{port}/v1"
    started = time.monotonic()
    done = _demo(
        tmp, "--model", "openai:gpt-4o-mini", OPENAI_API_KEY="sk-fake", OPENAI_BASE_URL=url
    )
    elapsed = time.monotonic() - started
    assert done.returncode == demo.EXIT_UNREACHABLE == 3
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"demo: cannot reach {url}")
    assert "correct OPENAI_BASE_URL" in line
    assert "Traceback" not in done.stderr
    # Interpreter start and imports included; the connection attempt itself is refused at once.
    assert elapsed < 30
    assert _demo_folders(tmp) == []


def _answer_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _interrupt_after_the_first_task(tmp: Path, *args: str) -> tuple[int, str, str, list[Path]]:
    """Run the scripted demo, Ctrl-C it while the writer works; (code, out, err, folders)."""
    process = subprocess.Popen(
        [sys.executable, str(LAUNCHER), *args],
        env=_env(tmp),
        # A shell starts background jobs with SIGINT ignored, and the demo would inherit that
        # (a CI run launched with `&`): give it the Ctrl-C a user's terminal sends.
        preexec_fn=_answer_ctrl_c,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        if line.startswith("▶ task for @Writer"):
            break
    during = _demo_folders(tmp)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    return process.returncode, "".join(seen) + out, err, during


def test_ctrl_c_stops_the_team_and_removes_the_temporary_folder(tmp: Path) -> None:
    code, _, err, during = _interrupt_after_the_first_task(tmp)
    assert len(during) == 1  # the folder existed while the team worked
    assert code == demo.EXIT_INTERRUPTED
    assert err.strip().splitlines() == ["demo: interrupted; the team was stopped"]
    assert _demo_folders(tmp) == []


def test_keep_keeps_the_temporary_folder_and_says_where(tmp: Path) -> None:
    code, out, _, during = _interrupt_after_the_first_task(tmp, "--keep")
    assert code == demo.EXIT_INTERRUPTED
    assert _demo_folders(tmp) == during
    assert f"Kept the team's files in {during[0]} (--keep)." in out


def test_help_lists_every_option_with_a_description(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        demo.main(["--help"])
    assert exit_info.value.code == 0
    shown = capsys.readouterr().out
    options = [a for a in demo._parser()._actions if a.option_strings]
    assert {o.option_strings[-1] for o in options} == {
        "--help",
        "--model",
        "--workspaces",
        "--keep",
        "--semantic",
        "--timeout",
    }
    lines = shown.splitlines()
    for option in options:
        # The option and its whole description share one line.
        flag = option.option_strings[-1]
        (line,) = [line for line in lines if line.lstrip().startswith(("-h, " + flag, flag))]
        assert option.help
        assert line.rstrip().endswith(option.help), line
    assert "exit codes:" in shown
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "MISTRAL_API_KEY"):
        assert variable in shown


# --------------------------------------------------------------------- in-process


@pytest.fixture
def in_tmp(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``tmp`` as this process's temporary directory, provider variables cleared."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    for name in PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return tmp


def test_a_finished_run_removes_its_temporary_folder(in_tmp: Path) -> None:
    lines: list[str] = []
    demo.run("scripted", write=lines.append)
    workspace = next(line for line in lines if "Workspace " in line).strip()
    assert workspace.startswith(f"Workspace {in_tmp}/akgentic-demo-")
    assert workspace.endswith("(temporary, removed on exit; --keep keeps it):")
    assert _demo_folders(in_tmp) == []


class _Provider(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint that waits ``delay`` seconds, then refuses the key."""

    delay = 0.0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        time.sleep(self.delay)
        body = json.dumps(
            {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}
        ).encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return None


def _serve(delay: float) -> Iterator[str]:
    handler = type("Provider", (_Provider,), {"delay": delay})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def refusing(in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for url in _serve(0.0):
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        yield url


@pytest.fixture
def silent(in_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for url in _serve(2.0):
        monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        yield url


def test_a_refused_model_call_is_one_line_and_the_folder_goes(refusing: str, in_tmp: Path) -> None:
    lines: list[str] = []
    with pytest.raises(demo.DemoError) as failure:
        demo.run("openai:gpt-4o-mini", write=lines.append)
    message = str(failure.value)
    assert failure.value.code == demo.EXIT_FAILED
    assert "\n" not in message
    assert message.startswith("@Lead's model call failed (")
    assert "401" in message
    assert f"at {refusing}/" in message
    assert "drop --model" in message
    assert _demo_folders(in_tmp) == []


def test_a_silent_endpoint_ends_in_bounded_time_saying_what_it_waited_for(
    silent: str, in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(demo, "PROGRESS_EVERY", 0.3)  # the progress line, without a long wait
    lines: list[str] = []
    started = time.monotonic()
    with pytest.raises(demo.DemoError) as failure:
        demo.run("openai:gpt-4o-mini", write=lines.append, timeout=1)
    assert time.monotonic() - started < demo.STOP_WAIT + 5
    assert "Each answer comes from openai:gpt-4o-mini; the demo waits up to 1 s." in lines
    assert any(
        line.startswith("  … still waiting for @Lead's answer from openai:gpt-4o-mini (")
        for line in lines
    )
    assert str(failure.value) == (
        f"no answer within 1 s: waited for @Lead's answer from openai:gpt-4o-mini at "
        f"{silent}/; a slow provider may need a longer --timeout"
    )
    assert _demo_folders(in_tmp) == []


def test_the_top_readme_shows_the_help_as_it_is(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # argparse wraps to the terminal's width
    with pytest.raises(SystemExit):
        demo.main(["--help"])
    shown = capsys.readouterr().out.strip()
    readme = (ROOT / "README.md").read_text()
    start = readme.index("$ bash scripts/demo --help\n") + len("$ bash scripts/demo --help\n")
    documented = readme[start : readme.index("```", start)].strip()
    assert documented == shown
