"""run_process: the one place commands are started, limited, timed out and captured."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from akgentic.tool.core.testing import eventually
from akgentic.tool.sandbox._process import LaunchSpec, SandboxLaunchError, run_process
from akgentic.tool.sandbox._quota import disk_usage

BASH = "/bin/bash"


def spec(command: str, cwd: Path, **overrides: Any) -> LaunchSpec:
    fields: dict[str, Any] = {
        "argv": [BASH, "-c", command],
        "cwd": str(cwd),
        "env": {"PATH": "/usr/local/bin:/usr/bin:/bin"},
        "display_command": command,
        "timeout_seconds": 10,
        "max_output_bytes": 10_000,
    }
    fields.update(overrides)
    return LaunchSpec(**fields)


def wait_for(path: Path) -> str:
    deadline = time.monotonic() + 5
    while not path.exists() or not path.read_text().strip():
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.01)
    return path.read_text().strip()


def test_captures_stdout_stderr_and_exit_code(tmp_path: Path) -> None:
    outcome = run_process(spec("echo out; echo err >&2; exit 7", tmp_path))
    assert outcome.exit_code == 7
    assert outcome.stdout == "out\n"
    assert outcome.stderr == "err\n"
    assert not outcome.timed_out


def test_runs_in_the_given_directory_with_only_the_given_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AKGENTIC_TEST_SECRET", "do-not-leak")
    outcome = run_process(spec('pwd; echo "[$AKGENTIC_TEST_SECRET]"', tmp_path))
    assert outcome.stdout == f"{tmp_path}\n[]\n"


def test_timeout_kills_the_command_and_its_children(
    tmp_path: Path, alive: Callable[[int], bool]
) -> None:
    pid_file = tmp_path / "child.pid"
    outcome = run_process(
        spec(f"sleep 300 & echo $! > {pid_file}; sleep 300", tmp_path, timeout_seconds=1)
    )
    assert outcome.timed_out
    assert outcome.exit_code is None
    child = int(wait_for(pid_file))
    # SIGKILL is delivered asynchronously: give the kernel a moment to finish the kill.
    eventually(lambda: not alive(child))


def test_children_left_behind_die_when_the_command_exits(
    tmp_path: Path, alive: Callable[[int], bool]
) -> None:
    pid_file = tmp_path / "bg.pid"
    outcome = run_process(spec(f"sleep 300 >/dev/null 2>&1 & echo $! > {pid_file}", tmp_path))
    assert outcome.exit_code == 0
    assert not outcome.timed_out
    background = int(wait_for(pid_file))
    eventually(lambda: not alive(background))


def test_a_command_that_closes_its_pipes_is_still_timed_out(tmp_path: Path) -> None:
    outcome = run_process(spec("exec >/dev/null 2>&1; sleep 300", tmp_path, timeout_seconds=1))
    assert outcome.timed_out


def test_reaching_the_deadline_exactly_is_a_timeout(tmp_path: Path) -> None:
    """The deadline itself is past: a coarse clock can read exactly the deadline, then the
    same value again, and the command must not outlive it (here: one that closed its pipes,
    bounded by itself to 5 s)."""
    start = time.monotonic()

    def clock() -> float:
        # Whole tenths of a second, stopping at 1.0: the first reading (the start) is 0.0,
        # so the deadline is 1.0 exactly, which the clock reaches and then keeps reading.
        return min(round(time.monotonic() - start, 1), 1.0)

    command = "exec >/dev/null 2>&1; sleep 5"
    outcome = run_process(spec(command, tmp_path, timeout_seconds=1), clock=clock)
    assert outcome.timed_out
    assert outcome.exit_code is None
    assert outcome.duration_seconds == 1.0


def test_long_output_keeps_head_and_tail_with_a_marker(tmp_path: Path) -> None:
    command = "for i in $(seq 1 20000); do echo line-$i; done"
    outcome = run_process(spec(command, tmp_path, max_output_bytes=1000))
    assert outcome.stdout.startswith("line-1\nline-2\n")
    assert outcome.stdout.endswith("line-20000\n")
    total = sum(len(f"line-{i}\n") for i in range(1, 20001))
    assert outcome.stdout_omitted_bytes == total - 1000
    assert f"[... {total - 1000} bytes of output truncated ...]" in outcome.stdout
    assert len(outcome.stdout) < 1100


@pytest.mark.parametrize(
    "command",
    ["printf abcdefghijklmnop", "printf abcd; sleep 0.2; printf efghijklmnop"],
    ids=["one write past the head", "a write filling the head's last byte"],
)
def test_the_cap_keeps_exactly_its_head_and_tail_bytes(tmp_path: Path, command: str) -> None:
    # A cap of 10 keeps the first 5 bytes and the last 5, however the output is chunked.
    outcome = run_process(spec(command, tmp_path, max_output_bytes=10))
    assert outcome.stdout == "abcde\n[... 6 bytes of output truncated ...]\nlmnop"
    assert outcome.stdout_omitted_bytes == 6


def test_output_between_half_the_cap_and_the_cap_comes_back_whole(tmp_path: Path) -> None:
    # 8 bytes under a cap of 10: 5 land in the head, 3 in the tail, nothing is cut
    outcome = run_process(
        spec("printf abcdefgh; printf ABCDEFGH >&2", tmp_path, max_output_bytes=10)
    )
    assert (outcome.stdout, outcome.stdout_omitted_bytes) == ("abcdefgh", 0)
    assert (outcome.stderr, outcome.stderr_omitted_bytes) == ("ABCDEFGH", 0)


def test_long_error_output_is_cut_and_counted_on_its_own(tmp_path: Path) -> None:
    outcome = run_process(
        spec("printf ok; printf abcdefghijklmnop >&2", tmp_path, max_output_bytes=10)
    )
    assert (outcome.stdout, outcome.stdout_omitted_bytes) == ("ok", 0)
    assert outcome.stderr == "abcde\n[... 6 bytes of output truncated ...]\nlmnop"
    assert outcome.stderr_omitted_bytes == 6


def test_a_command_found_only_on_the_sandboxs_own_path_runs(tmp_path: Path) -> None:
    tools = tmp_path / "tools"
    tools.mkdir()
    script = tools / "only-here"
    script.write_text("#!/bin/sh\necho found on the sandbox PATH\n")
    script.chmod(0o755)
    path = f"{tools}:/usr/bin:/bin"
    outcome = run_process(spec("", tmp_path, argv=["only-here"], env={"PATH": path}))
    assert (outcome.exit_code, outcome.stdout) == (0, "found on the sandbox PATH\n")


def test_binary_output_is_made_printable(tmp_path: Path) -> None:
    outcome = run_process(spec(r"printf 'a\000b\033[31mc\377d\n'", tmp_path))
    assert "\x00" not in outcome.stdout
    assert "\x1b" not in outcome.stdout
    assert outcome.stdout == "a\ufffdb\ufffd[31mc\ufffdd\n"


def test_file_size_limit(tmp_path: Path) -> None:
    command = "head -c 2000000 /dev/zero > big.bin"
    outcome = run_process(spec(command, tmp_path, file_size_bytes=1_000_000))
    assert outcome.exit_code != 0
    assert (tmp_path / "big.bin").stat().st_size == 1_000_000


def test_cpu_time_limit(tmp_path: Path) -> None:
    # A minute of spinning at most, should the limit and the timeout both fail.
    spin = "end=$((SECONDS + 60)); while [ $SECONDS -lt $end ]; do :; done"
    outcome = run_process(spec(spin, tmp_path, cpu_seconds=1, timeout_seconds=20))
    assert not outcome.timed_out
    # Killed by SIGXCPU (soft limit) or SIGKILL (hard limit), well before the wall clock.
    assert outcome.exit_code in {128 + 24, 128 + 9, -24, -9}


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS is applied on Linux only")
def test_address_space_limit_on_linux(tmp_path: Path) -> None:
    command = f"{sys.executable} -c 'b = bytearray(600 * 1024 * 1024)'"
    limited = run_process(spec(command, tmp_path, address_space_bytes=512 * 1024 * 1024))
    assert limited.exit_code != 0
    assert "MemoryError" in limited.stderr


def test_missing_program_is_a_launch_error(tmp_path: Path) -> None:
    bad = spec("x", tmp_path).model_copy(update={"argv": ["/nonexistent/program"]})
    with pytest.raises(SandboxLaunchError, match="FileNotFoundError"):
        run_process(bad)


def test_missing_working_directory_is_a_launch_error(tmp_path: Path) -> None:
    with pytest.raises(SandboxLaunchError):
        run_process(spec("true", tmp_path / "absent"))


def test_preexec_fallback_applies_the_same_limits(tmp_path: Path) -> None:
    """Where prlimit is unavailable (macOS), limits are set between fork and exec."""
    import subprocess

    from akgentic.tool.sandbox._process import _limits, _limits_setter

    limits = _limits(spec("x", tmp_path, cpu_seconds=7, file_size_bytes=1024 * 512))
    done = subprocess.run(
        [BASH, "-c", "ulimit -t; ulimit -f; ulimit -c"],
        preexec_fn=_limits_setter(limits),
        capture_output=True,
        text=True,
        check=True,
    )
    # bash reports the file size in 1024-byte blocks.
    assert done.stdout.split() == ["7", "512", "0"]


# --- workspace quota -------------------------------------------------------------------

# Bounded (400 MB at most) although the quota should stop it after a few MB: when the code
# under test is broken (a mutation run breaks it on purpose) nothing else would stop the
# loop, and an unbounded one fills the disk.
_FILLER = "for i in $(seq 400); do head -c 1000000 /dev/zero > fill-$i; done"


@pytest.mark.parametrize("prelude", ["", "exec >/dev/null 2>&1; "], ids=["pipes", "closed"])
def test_quota_kills_a_command_that_keeps_filling_the_workspace(
    tmp_path: Path, prelude: str
) -> None:
    """Many files, each far below RLIMIT_FSIZE: only the growth of the workspace stops it,
    including after the command closed its pipes (the wait that follows is watched too)."""
    outcome = run_process(
        spec(prelude + _FILLER, tmp_path, timeout_seconds=10, workspace_quota_bytes=5_000_000)
    )
    assert not outcome.timed_out
    assert outcome.exit_code is None
    assert outcome.quota_breach is not None
    assert outcome.quota_breach.quota_bytes == 5_000_000
    assert outcome.quota_breach.growth_bytes > 5_000_000
    assert outcome.duration_seconds < 5
    written, _ = disk_usage(str(tmp_path))
    # Overshoot is what it writes between two checks: tens of MB here, not gigabytes.
    assert written < 500_000_000


def test_quota_counts_growth_not_what_was_already_there(tmp_path: Path) -> None:
    (tmp_path / "existing.bin").write_bytes(b"\1" * 8_000_000)
    command = "cat existing.bin > /dev/null; rm existing.bin; head -c 4000000 /dev/zero > new.bin"
    outcome = run_process(spec(command, tmp_path, workspace_quota_bytes=5_000_000))
    assert outcome.exit_code == 0
    assert outcome.quota_breach is None


def test_disk_usage_counts_allocated_blocks_once(tmp_path: Path) -> None:
    empty, complete = disk_usage(str(tmp_path))
    assert complete
    data = tmp_path / "data.bin"
    data.write_bytes(b"\1" * 1_000_000)
    (tmp_path / "hard").hardlink_to(data)
    (tmp_path / "to-root").symlink_to("/")
    with open(tmp_path / "sparse.bin", "wb") as sparse:
        sparse.truncate(10**10)  # 10 GB apparent, nothing allocated
    used, complete = disk_usage(str(tmp_path))
    assert complete
    assert 1_000_000 <= used - empty < 1_100_000
