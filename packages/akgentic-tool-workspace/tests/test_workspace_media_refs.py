"""`_expand_media_refs`: `!!pattern` in a message attaches the workspace images it names."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pydantic_ai import Agent
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelResponse,
    TextPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from akgentic.tool.core.channels import COMMAND, TOOL_CALL
from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.workspace import ExpandMediaRefs, MediaContent, WorkspaceTool
from akgentic.tool.workspace._media import find_references


def _png(size: tuple[int, int] = (8, 8), color: tuple[int, int, int] = (1, 2, 3)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color=color).save(buffer, format="PNG")
    return buffer.getvalue()


def _expand(**fields: Any) -> Any:
    factory = ToolFactory([WorkspaceTool(workspace_id="team", **fields)])
    return factory.commands.get("_expand_media_refs")


@pytest.fixture
def shots(ws: Path) -> Path:
    (ws / "shots").mkdir(parents=True)
    (ws / "shots" / "home.png").write_bytes(_png(color=(255, 0, 0)))
    (ws / "shots" / "cart.png").write_bytes(_png(color=(0, 255, 0)))
    (ws / "shots" / "notes.txt").write_text("not an image")
    (ws / "mock ups").mkdir()
    (ws / "mock ups" / "page one.png").write_bytes(_png(color=(0, 0, 255)))
    os.utime(ws / "shots" / "home.png", (1_000, 1_000))  # cart.png is the newest
    return ws


def test_the_command_is_registered_under_the_agents_name(roots: Path) -> None:
    card = WorkspaceTool(workspace_id="team")
    assert ExpandMediaRefs in card.get_commands()
    assert "_expand_media_refs" in ToolFactory([card]).commands
    assert "_expand_media_refs" not in {fn.__name__ for fn in card.get_tools()}
    off = WorkspaceTool(workspace_id="team", expand_media_refs=False)
    assert ExpandMediaRefs not in off.get_commands()
    assert ExpandMediaRefs in WorkspaceTool(workspace_id="t", read_only=True).get_commands()
    both = WorkspaceTool(
        workspace_id="team", expand_media_refs=ExpandMediaRefs(expose={COMMAND, TOOL_CALL})
    )
    assert "_expand_media_refs" in {fn.__name__ for fn in both.get_tools()}


def test_a_message_without_reference_comes_back_unchanged(shots: Path) -> None:
    expand = _expand()
    for text in ("hello", "", "wow!! great", "a!!b", "!! spaced", "look at shots/home.png"):
        assert expand(text) == [text]


def test_an_image_reference_attaches_the_image(shots: Path) -> None:
    parts = _expand()("Compare !!shots/home.png, please.")
    assert parts == [
        "Compare !!shots/home.png [image: shots/home.png]",
        MediaContent(data=(shots / "shots/home.png").read_bytes(), media_type="image/png"),
        ", please.",
    ]


def test_a_glob_attaches_every_matching_image_newest_first(shots: Path) -> None:
    parts = _expand()("!!shots/* what changed?")
    assert parts[0] == "!!shots/* [image: shots/cart.png]"
    assert isinstance(parts[1], MediaContent)
    assert parts[2] == " [image: shots/home.png]"
    assert isinstance(parts[3], MediaContent)
    assert parts[4] == " what changed?"
    assert parts[1].data == (shots / "shots/cart.png").read_bytes()


def test_quoted_names_and_several_references(shots: Path) -> None:
    parts = _expand()('See !!"mock ups/page one.png" and !!**/home.png')
    texts = [part for part in parts if isinstance(part, str)]
    assert texts == [
        'See !!"mock ups/page one.png" [image: mock ups/page one.png]',
        " and !!**/home.png [image: shots/home.png]",
    ]
    assert sum(isinstance(part, MediaContent) for part in parts) == 2


def test_references_that_attach_nothing_say_why(shots: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.png").write_bytes(_png())
    (shots / "out").symlink_to(outside)
    expand = _expand()
    assert expand("!!nothing*.png") == [
        "!!nothing*.png [not attached: no file in the workspace matches 'nothing*.png']"
    ]
    (only_text,) = expand("!!shots/*.txt")
    assert "matches 1 file(s) but no image" in only_text
    for pattern in ("../outside/secret.png", "/etc/*.png"):
        (note,) = expand(f"!!{pattern}")
        assert "must stay inside" in note
    (note,) = expand("!!out/secret.png")  # a symlink leading out is not entered
    assert "no file in the workspace matches" in note
    (shots / "broken.png").write_bytes(b"not a png")
    parts = expand("!!broken.png")
    assert parts == [
        "!!broken.png [broken.png not attached: broken.png does not contain PNG image data; "
        "check the file (workspace_read shows what it holds)]"
    ]


def test_bounds_on_count_and_size(shots: Path) -> None:
    few = _expand(expand_media_refs=ExpandMediaRefs(max_images=1))
    parts = few("!!shots/*.png and !!mock*/*")
    assert sum(isinstance(part, MediaContent) for part in parts) == 1
    text = "".join(part for part in parts if isinstance(part, str))
    assert "1 more matching image(s) not attached: at most 1 images per message" in text
    assert "!!mock*/* [not attached: at most 1 images per message]" in text
    small = _expand(expand_media_refs=ExpandMediaRefs(max_image_bytes=10))
    (note,) = small("!!shots/home.png")
    assert "above the limit of 10 bytes per image" in note


def test_images_are_shrunk_to_max_dimension(shots: Path) -> None:
    (shots / "big.png").write_bytes(_png(size=(400, 200)))
    parts = _expand(expand_media_refs=ExpandMediaRefs(max_dimension=100))("!!big.png")
    with Image.open(io.BytesIO(parts[1].data)) as image:
        assert image.size == (100, 50)


def test_find_references_strips_sentence_punctuation() -> None:
    found = find_references('see (!!a.png). then !!b/*.jpg; "!!c.gif"! x!!d.png')
    assert [pattern for _, _, pattern in found] == ["a.png", "b/*.jpg", "c.gif"]


async def test_the_parts_reach_a_model_as_binary_content(
    shots: Path, tool_agent: ToolTestAgent
) -> None:
    """What akgentic-agent does with the parts: MediaContent becomes BinaryContent."""
    factory = ToolFactory([WorkspaceTool(workspace_id="team")], observer=tool_agent)
    parts = factory.commands.call("_expand_media_refs", "what is in !!shots/home.png?")
    prompt = [
        BinaryContent(data=p.data, media_type=p.media_type) if isinstance(p, MediaContent) else p
        for p in parts
    ]
    seen: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        request = messages[-1].parts[0]
        assert isinstance(request, UserPromptPart)
        seen.extend(request.content)
        return ModelResponse(parts=[TextPart("a red square")])

    agent: Agent[None, str] = Agent(FunctionModel(model))
    assert (await agent.run(prompt)).output == "a red square"
    assert seen[0] == "what is in !!shots/home.png [image: shots/home.png]"
    assert isinstance(seen[1], BinaryContent)
    assert seen[1].media_type == "image/png"
    assert seen[2] == "?"


def test_the_image_count_adds_up_across_references(shots: Path) -> None:
    two = _expand(expand_media_refs=ExpandMediaRefs(max_images=2))
    parts = two("!!shots/home.png !!shots/cart.png !!mock*/*")
    assert sum(isinstance(part, MediaContent) for part in parts) == 2
    assert parts[-1] == " !!mock*/* [not attached: at most 2 images per message]"


def test_a_match_without_image_names_the_image_kinds(shots: Path) -> None:
    assert _expand()("!!shots/*.txt") == [
        "!!shots/*.txt [not attached: 'shots/*.txt' matches 1 file(s) but no image "
        "(png, jpeg, webp, gif, bmp)]"
    ]


def test_an_image_that_cannot_be_attached_does_not_stop_the_older_ones(shots: Path) -> None:
    (shots / "shots" / "a-broken.png").write_bytes(b"not a png")
    (shots / "shots" / "b-broken.png").write_bytes(b"not a png either")
    os.utime(shots / "shots" / "a-broken.png", (3_000_000_000, 3_000_000_000))
    os.utime(shots / "shots" / "b-broken.png", (2_900_000_000, 2_900_000_000))
    parts = _expand()("!!shots/*.png")
    assert sum(isinstance(part, MediaContent) for part in parts) == 2
    assert parts[-1] == (
        " [shots/a-broken.png not attached: a-broken.png does not contain PNG image data; "
        "check the file (workspace_read shows what it holds); shots/b-broken.png not attached: "
        "b-broken.png does not contain PNG image data; check the file (workspace_read shows "
        "what it holds)]"
    )


def test_an_image_too_big_is_noted_and_the_next_one_still_attached(shots: Path) -> None:
    small = (shots / "shots" / "home.png").read_bytes()
    (shots / "shots" / "big.png").write_bytes(_png(size=(64, 64)))
    os.utime(shots / "shots" / "big.png", (3_000_000_000, 3_000_000_000))
    (shots / "shots" / "cart.png").unlink()
    exact = _expand(expand_media_refs=ExpandMediaRefs(max_image_bytes=len(small)))
    parts = exact("!!shots/*.png")
    assert parts[1] == MediaContent(data=small, media_type="image/png")
    assert parts[0] == "!!shots/*.png [image: shots/home.png]"
    assert parts[2].startswith(" [shots/big.png not attached: ")
    assert parts[2].endswith(f"above the limit of {len(small):,} bytes per image]")
