"""Stale-write protection: an agent cannot silently overwrite what a colleague changed.

Agents are real akgentic-core agents (the testing kit's `ToolTestAgent`) carrying the card
through `ToolFactory`, the way a team wires it; files are real, and the "sandbox" change is a
real shell process writing into the workspace directory.
"""

from __future__ import annotations

import gc
import re
import subprocess
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from akgentic.core.actor_address import ActorAddress
from akgentic.core.actor_system_impl import ActorSystem
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import Tools, ToolTestAgent, spawn_tool_agent
from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import EditItem, WorkspaceTool
from akgentic.tool.workspace._seen import stale_message
from akgentic.tool.workspace.tool import _CARD_TOKENS, _drop_token

STALE = "changed since you last read or wrote it"


def _agent_tools(agent: ToolTestAgent, **fields: Any) -> Tools:
    card = WorkspaceTool(workspace_id="shared", **fields)
    return {fn.__name__: fn for fn in ToolFactory([card], observer=agent).get_tools()}


@pytest.fixture
def team(
    roots: Path, actor_system: ActorSystem, orchestrator: ActorAddress
) -> Callable[..., list[Tools]]:
    """`team(n, **card_fields)`: the workspace tools of n real agents sharing `shared`."""

    def make(count: int, **fields: Any) -> list[Tools]:
        agents = [
            spawn_tool_agent(actor_system, orchestrator, name=f"@Agent{n}") for n in range(count)
        ]
        return [_agent_tools(agent, **fields) for agent in agents]

    return make


def _content(read_output: str) -> str:
    """The file text behind workspace_read's numbered lines (a file without a footer)."""
    return "".join(line.split("\t", 1)[1] + "\n" for line in read_output.split("\n"))


def test_second_agent_is_refused_with_the_diff_then_succeeds_after_reading(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    alice, bob = team(2)
    alice["workspace_write"]("plan.md", "- design\n- build\n- ship\n")
    bob["workspace_read"]("plan.md")
    alice["workspace_edit"]("plan.md", "- build", "- build the parser")

    with pytest.raises(RetriableError, match=STALE) as refusal:
        bob["workspace_edit"]("plan.md", "- ship", "- ship on Friday")
    message = str(refusal.value)
    assert "-- build\n+- build the parser" in message  # what Alice changed, as a diff
    assert "workspace_read" in message  # and what to do about it
    target = roots / "shared" / "plan.md"
    assert target.read_text() == "- design\n- build the parser\n- ship\n"  # nothing changed

    with pytest.raises(RetriableError, match=STALE):  # a refusal does not count as seeing
        bob["workspace_edit"]("plan.md", "- ship", "- ship on Friday")
    bob["workspace_read"]("plan.md")
    bob["workspace_edit"]("plan.md", "- ship", "- ship on Friday")
    assert target.read_text() == "- design\n- build the parser\n- ship on Friday\n"


def test_a_whole_file_write_over_a_colleagues_change_is_refused(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    alice, bob = team(2)
    alice["workspace_write"]("notes.txt", "one\n")
    bob["workspace_read"]("notes.txt")
    alice["workspace_write"]("notes.txt", "one\ntwo (alice)\n")
    with pytest.raises(RetriableError, match=STALE) as refusal:
        bob["workspace_write"]("notes.txt", "one\nthree (bob)\n")
    assert "+two (alice)" in str(refusal.value)
    assert (roots / "shared" / "notes.txt").read_text() == "one\ntwo (alice)\n"


def test_concurrent_agents_appending_lose_no_line(team: Callable[..., list[Tools]]) -> None:
    """Each agent reads, appends its own line and writes the whole file back, retrying when
    refused: the pattern that loses updates when the last writer wins."""
    agents = team(4)
    agents[0]["workspace_write"]("log.txt", "start\n")
    per_agent = 6
    refusals: list[str] = []

    def work(index: int) -> None:
        tools = agents[index]
        for step in range(per_agent):
            while True:
                text = _content(tools["workspace_read"]("log.txt"))
                try:
                    tools["workspace_write"]("log.txt", f"{text}agent{index} line{step}\n")
                    break
                except RetriableError as exc:
                    refusals.append(str(exc))

    with ThreadPoolExecutor(max_workers=len(agents)) as pool:
        list(pool.map(work, range(len(agents))))
    final = _content(agents[0]["workspace_read"]("log.txt")).splitlines()
    expected = {f"agent{a} line{s}" for a in range(len(agents)) for s in range(per_agent)}
    assert set(final[1:]) == expected
    assert len(final) == 1 + len(expected)
    assert all(STALE in message for message in refusals)


def test_concurrent_agents_editing_lose_no_edit(team: Callable[..., list[Tools]]) -> None:
    agents = team(3)
    agents[0]["workspace_write"]("list.md", "# items\n")
    refusals: list[str] = []

    def work(index: int) -> None:
        tools = agents[index]
        for step in range(5):
            while True:
                last = _content(tools["workspace_read"]("list.md")).splitlines()[-1]
                try:
                    tools["workspace_edit"]("list.md", last, f"{last}\n- a{index}s{step}")
                    break
                except RetriableError as exc:
                    refusals.append(str(exc))

    with ThreadPoolExecutor(max_workers=3) as pool:
        list(pool.map(work, range(3)))
    lines = _content(agents[1]["workspace_read"]("list.md")).splitlines()
    assert sorted(lines[1:]) == sorted(f"- a{i}s{s}" for i in range(3) for s in range(5))
    assert all(STALE in message for message in refusals)


def test_creating_a_new_file_is_never_blocked(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    alice, bob = team(2)
    alice["workspace_write"]("fresh.txt", "alice\n")
    assert (roots / "shared" / "fresh.txt").read_text() == "alice\n"
    # Bob saw a file that was deleted since: writing it again creates it.
    bob["workspace_read"]("fresh.txt")
    alice["workspace_delete"]("fresh.txt")
    bob["workspace_write"]("fresh.txt", "bob\n")
    assert (roots / "shared" / "fresh.txt").read_text() == "bob\n"
    bob["workspace_patch"]("--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1 @@\n+by patch\n")
    assert (roots / "shared" / "made.txt").read_text() == "by patch\n"


def test_a_file_never_seen_can_be_written_and_edited(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    """The manual's workspace_write overwrites: without a version to compare, it proceeds."""
    alice, bob = team(2)
    alice["workspace_write"]("cfg.ini", "a=1\n")
    bob["workspace_edit"]("cfg.ini", "a=1", "a=2")  # old_string proves what Bob expects
    bob["workspace_write"]("cfg.ini", "a=3\n")
    assert (roots / "shared" / "cfg.ini").read_text() == "a=3\n"


def test_turning_it_off_restores_last_writer_wins(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    alice, bob = team(2, stale_write_protection=False)
    alice["workspace_write"]("notes.txt", "one\n")
    bob["workspace_read"]("notes.txt")
    alice["workspace_write"]("notes.txt", "one\ntwo (alice)\n")
    bob["workspace_write"]("notes.txt", "one\nthree (bob)\n")
    assert (roots / "shared" / "notes.txt").read_text() == "one\nthree (bob)\n"
    assert WorkspaceTool(stale_write_protection=False).seen_files() is None


def test_memory_is_bounded_and_an_evicted_file_counts_as_never_seen(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    alice, bob = team(2, max_seen_files=2)
    for name in ("f1", "f2", "f3"):
        alice["workspace_write"](name, f"{name}\n")
    bob["workspace_read"]("f1")
    bob["workspace_read"]("f2")
    bob["workspace_read"]("f3")  # the third file pushes f1 out of Bob's memory
    for name in ("f1", "f3"):
        alice["workspace_write"](name, f"{name} by alice\n")
    bob["workspace_write"]("f1", "f1 by bob\n")  # forgotten: treated as never seen
    with pytest.raises(RetriableError, match=STALE):
        bob["workspace_write"]("f3", "f3 by bob\n")
    assert (roots / "shared" / "f1").read_text() == "f1 by bob\n"
    assert (roots / "shared" / "f3").read_text() == "f3 by alice\n"


def test_the_memory_is_per_agent_and_shared_by_that_agents_cards(
    roots: Path, tool_agent: ToolTestAgent
) -> None:
    first = WorkspaceTool(workspace_id="shared", max_seen_files=3)
    second = WorkspaceTool(workspace_id="shared")
    ToolFactory([first], observer=tool_agent)
    ToolFactory([second], observer=tool_agent)
    assert first.seen_files() is second.seen_files()
    assert first.agent_identity() == f"agent:{tool_agent.myAddress.agent_id}"
    assert WorkspaceTool().seen_files() is not WorkspaceTool().seen_files()


def test_a_cards_own_identity_is_forgotten_with_the_card() -> None:
    card = WorkspaceTool()
    identity = card.agent_identity()
    assert identity.startswith("card:")
    assert card.agent_identity() == identity
    key = id(card)
    assert key in _CARD_TOKENS
    del card
    gc.collect()
    assert key not in _CARD_TOKENS


def test_a_dead_cards_token_does_not_take_a_newer_cards_entry_with_it() -> None:
    # ids are reused: the entry under a dead card's id may already belong to a new card
    newer = WorkspaceTool()
    newer.agent_identity()
    key = id(newer)
    _drop_token(key, "the token of a card gone before")
    assert key in _CARD_TOKENS
    assert newer.agent_identity() == f"card:{_CARD_TOKENS[key][1]}"


def test_a_sandbox_command_changing_the_file_is_detected(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    (alice,) = team(1)
    alice["workspace_write"]("build.sh", "echo one\n")
    subprocess.run(["sh", "-c", "echo 'echo two' >> build.sh"], cwd=roots / "shared", check=True)
    with pytest.raises(RetriableError, match=STALE) as refusal:
        alice["workspace_edit"]("build.sh", "echo one", "echo uno")
    assert "+echo two" in str(refusal.value)


def test_reading_any_page_counts_as_seeing_the_whole_file(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    alice, bob = team(2)
    alice["workspace_write"]("long.txt", "".join(f"line {n}\n" for n in range(50)))
    bob["workspace_read"]("long.txt", offset=40, limit=2)
    bob["workspace_edit"]("long.txt", "line 3\n", "line three\n")
    with pytest.raises(RetriableError, match=STALE):  # Alice has not seen Bob's edit
        alice["workspace_edit"]("long.txt", "line 45", "line forty-five")
    alice["workspace_read"]("long.txt", limit=1)
    alice["workspace_edit"]("long.txt", "line 45", "line forty-five")
    with pytest.raises(RetriableError, match=STALE):
        bob["workspace_edit"]("long.txt", "line 4\n", "line four\n")


def test_multi_edit_and_patch_are_refused_whole(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    alice, bob = team(2)
    alice["workspace_write"]("a.txt", "alpha\n")
    alice["workspace_write"]("b.txt", "beta\n")
    bob["workspace_read"]("a.txt")
    bob["workspace_read"]("b.txt")
    alice["workspace_write"]("b.txt", "beta\ngamma\n")
    edits = [
        EditItem(path="a.txt", old_string="alpha", new_string="ALPHA"),
        EditItem(path="b.txt", old_string="beta", new_string="BETA"),
    ]
    with pytest.raises(RetriableError, match=STALE):
        bob["workspace_multi_edit"](edits)
    patch = "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-beta\n+BETA\n"
    with pytest.raises(RetriableError, match=STALE):
        bob["workspace_patch"](patch)
    ws = roots / "shared"
    assert (ws / "a.txt").read_text() == "alpha\n"
    assert (ws / "b.txt").read_text() == "beta\ngamma\n"
    bob["workspace_read"]("b.txt")
    bob["workspace_multi_edit"](edits)
    assert (ws / "a.txt").read_text() == "ALPHA\n"
    assert (ws / "b.txt").read_text() == "BETA\ngamma\n"


def test_own_changes_and_a_patch_deleting_a_seen_file(
    team: Callable[..., list[Tools]], roots: Path
) -> None:
    alice, bob = team(2)
    alice["workspace_write"]("x.txt", "x\n")
    alice["workspace_edit"]("x.txt", "x", "y")  # its own writes never make it stale
    alice["workspace_patch"]("--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-y\n+z\n")
    alice["workspace_multi_edit"]([EditItem(path="x.txt", old_string="z", new_string="w")])
    bob["workspace_read"]("x.txt")
    alice["workspace_write"]("x.txt", "v\n")
    with pytest.raises(RetriableError, match=STALE):
        bob["workspace_patch"]("--- a/x.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-v\n")
    assert (roots / "shared" / "x.txt").read_text() == "v\n"


def test_the_diff_is_bounded(team: Callable[..., list[Tools]]) -> None:
    alice, bob = team(2)
    alice["workspace_write"]("big.txt", "".join(f"row {n}\n" for n in range(300)))
    bob["workspace_read"]("big.txt")
    alice["workspace_write"]("big.txt", "".join(f"row {n} changed\n" for n in range(300)))
    with pytest.raises(RetriableError, match=STALE) as refusal:
        bob["workspace_write"]("big.txt", "mine\n")
    message = str(refusal.value)
    more = re.search(r"\[\.\.\. (\d+) more lines of diff not shown\]", message)
    assert more is not None
    assert int(more.group(1)) > 500
    assert len(message.splitlines()) < 50


def test_without_the_old_version_the_refusal_says_so() -> None:
    message = stale_message("a.txt", None, b"1\n2\n")
    assert "no diff can be shown" in message
    assert "2 lines" in message
    assert "workspace_read" in message
