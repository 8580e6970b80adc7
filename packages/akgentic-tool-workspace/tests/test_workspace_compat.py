"""The names akgentic-tool 1.6.4 code uses, working on real files through the confined root."""

from __future__ import annotations

import base64
import io
import json
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import docx
import pytest
from PIL import Image
from pydantic import ValidationError

from akgentic.tool.core.factory import ToolFactory
from akgentic.tool.core.testing import ToolTestAgent
from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import (
    ALL_TEXT_EXTENSIONS,
    TEXT_EXTENSIONS,
    DocumentReader,
    FileEntry,
    Filesystem,
    FileTypeReader,
    MediaContent,
    Resource,
    ResourceType,
    Workspace,
    WorkspaceGlob,
    WorkspaceGrep,
    WorkspaceList,
    WorkspaceRead,
    WorkspaceTool,
    get_workspace,
)

Tools = dict[str, Any]


def _tools(**fields: Any) -> Tools:
    return {fn.__name__: fn for fn in WorkspaceTool(workspace_id="team", **fields).get_tools()}


def _docx_bytes(text: str) -> bytes:
    document = docx.Document()
    document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def _png_bytes(size: tuple[int, int] = (8, 8)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color=(10, 200, 10)).save(buffer, format="PNG")
    return buffer.getvalue()


# -- constructor and get_workspace ------------------------------------------------------------


def test_filesystem_takes_base_path_and_workspace_name(tmp_path: Path) -> None:
    fs = Filesystem(tmp_path, "team-1")
    assert fs.root == (tmp_path / "team-1").resolve()
    assert fs.root.is_dir()
    assert Filesystem(base_path=tmp_path, workspace_name="team-1").root == fs.root
    assert Filesystem(tmp_path / "team-1").root == fs.root  # our form: the directory itself
    assert Filesystem(root=tmp_path / "team-1").root == fs.root
    for bad in ("../outside", "/etc", ".", ""):
        with pytest.raises(ValueError, match="workspace_name"):
            Filesystem(tmp_path, bad)
    assert not (tmp_path.parent / "outside").exists()


def test_get_workspace_accepts_workspace_name(roots: Path) -> None:
    assert get_workspace(workspace_name="named").root == (roots / "named").resolve()
    assert get_workspace("named").root == get_workspace(workspace_name="named").root
    with pytest.raises(TypeError):
        get_workspace()
    with pytest.raises(TypeError):
        get_workspace("a", workspace_name="b")


def test_card_workspace_property(roots: Path) -> None:
    card = WorkspaceTool(workspace_id="prop")
    assert isinstance(card.workspace, Filesystem)
    assert card.workspace.root == (roots / "prop").resolve()


# -- exists / list / read_bytes / write -------------------------------------------------------


def test_programmatic_file_access(roots: Path) -> None:
    fs = get_workspace("io")
    assert isinstance(fs, Workspace)
    assert fs.write("notes/a.txt", "alpha\n").startswith("Created notes/a.txt")
    assert fs.write(path="blob.bin", data=b"\x00\x01\xff").startswith("Created blob.bin: 3 bytes")
    assert fs.exists("notes/a.txt")
    assert fs.exists("notes")
    assert fs.exists("")
    assert not fs.exists("missing.txt")
    assert not fs.exists("missing/dir/x")
    assert fs.read_bytes("blob.bin") == b"\x00\x01\xff"
    assert fs.read_bytes("notes/a.txt") == b"alpha\n"
    assert fs.list() == [
        FileEntry(name="notes", is_dir=True, size=fs.list()[0].size),
        FileEntry(name="blob.bin", is_dir=False, size=3),
    ]
    assert fs.list("notes") == [FileEntry(name="a.txt", is_dir=False, size=6)]
    with pytest.raises(RetriableError, match="not a directory"):
        fs.list("blob.bin")
    with pytest.raises(TypeError):
        fs.write("x.txt")


def test_text_written_through_data_keeps_crlf(roots: Path) -> None:
    fs = get_workspace("crlf")
    (fs.root / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    fs.write("win.txt", "three\nfour\n")
    assert (fs.root / "win.txt").read_bytes() == b"three\r\nfour\r\n"
    fs.write("win.txt", b"raw\n")
    assert (fs.root / "win.txt").read_bytes() == b"raw\n"


def test_list_hides_internal_sidecars(roots: Path) -> None:
    fs = get_workspace("side")
    (fs.root / "report.pdf").write_bytes(b"%PDF-1.4")
    (fs.root / ".report.pdf.md").write_text("cached")
    (fs.root / ".config").write_text("hidden, but not ours")
    assert [entry.name for entry in fs.list()] == [".config", "report.pdf"]


def test_programmatic_access_stays_inside_the_root(roots: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    fs = get_workspace("jail")
    (fs.root / "out").symlink_to(outside)
    (fs.root / "leak.txt").symlink_to(outside / "secret.txt")
    for path in ("../jail-sibling.txt", "/etc/passwd", "out/secret.txt", "leak.txt"):
        with pytest.raises(RetriableError):
            fs.read_bytes(path)
        with pytest.raises(RetriableError):
            fs.write(path, b"x")
    for path in ("out", "out/secret.txt", "../outside"):
        with pytest.raises(RetriableError):
            fs.exists(path)
        with pytest.raises(RetriableError):
            fs.list(path)
    assert (outside / "secret.txt").read_text() == "secret"
    assert sorted(os.listdir(outside)) == ["secret.txt"]


def test_read_bytes_refuses_special_and_big_files(roots: Path) -> None:
    fs = Filesystem(get_workspace("limits").root, max_file_bytes=10)
    os.mkfifo(fs.root / "pipe")
    with pytest.raises(RetriableError, match="FIFO|not a regular file"):
        fs.read_bytes("pipe")
    (fs.root / "big.txt").write_text("x" * 11)
    with pytest.raises(RetriableError, match="max_file_bytes"):
        fs.read_bytes("big.txt")
    with pytest.raises(RetriableError, match="max_file_bytes"):
        fs.write("other.bin", b"y" * 11)


# -- params: the predecessor's field names ----------------------------------------------------


def test_read_default_limit_is_page_lines(ws: Path) -> None:
    assert WorkspaceRead(default_limit=3).page_lines == 3
    assert WorkspaceRead(page_lines=3).default_limit == 3
    again = WorkspaceRead.model_validate(WorkspaceRead(default_limit=3).model_dump())
    assert again.page_lines == again.default_limit == 3
    with pytest.raises(ValidationError, match="same setting"):
        WorkspaceRead(page_lines=3, default_limit=4)
    tools = _tools(workspace_read=WorkspaceRead(default_limit=2))
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "f.txt").write_text("a\nb\nc\nd\n")
    out = tools["workspace_read"]("f.txt")
    assert "     1\ta\n     2\tb" in out
    assert "\tc" not in out


def test_grep_max_results_and_line_length(ws: Path) -> None:
    assert WorkspaceGrep(max_results=2).max_matches == 2
    assert WorkspaceGrep().max_results == WorkspaceGrep().max_matches == 100
    assert WorkspaceGlob().max_results == 100
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "many.txt").write_text("hit " + "z" * 100 + "\n" + "hit\n" * 4)
    for engine in (True, False):
        grep = _tools(
            workspace_grep=WorkspaceGrep(max_results=2, max_line_length=30, use_ripgrep=engine)
        )["workspace_grep"]
        lines = grep("hit").splitlines()
        assert lines[0] == "many.txt:1:hit " + "z" * 26 + "…"
        assert lines[1] == "many.txt:2:hit"
        assert lines[2].startswith("[showing 2 of 5 matches")


def test_list_max_depth_is_the_default_depth(ws: Path) -> None:
    (ws / "a" / "b").mkdir(parents=True)
    (ws / "a" / "b" / "deep.txt").write_text("x")
    flat = _tools()["workspace_list"]()
    assert "deep.txt" not in flat
    tree = _tools(workspace_list=WorkspaceList(max_depth=3))["workspace_list"]
    assert "deep.txt" in tree()
    assert "deep.txt" not in tree(depth=1)


def test_text_extensions(roots: Path) -> None:
    assert {".py", ".md", ".json", ".csv"} <= TEXT_EXTENSIONS
    assert len(TEXT_EXTENSIONS) == 16
    assert TEXT_EXTENSIONS < ALL_TEXT_EXTENSIONS
    assert {".rs", ".go", ".tsx"} <= ALL_TEXT_EXTENSIONS


# -- documents: document_reader, force_document_regeneration, FileTypeReader ---------------


def test_document_reader_false_turns_conversion_off(ws: Path) -> None:
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "memo.docx").write_bytes(_docx_bytes("Memo text"))
    read = _tools(workspace_read=WorkspaceRead(document_reader=False))["workspace_read"]
    with pytest.raises(RetriableError, match="conversion is disabled"):
        read("memo.docx")
    reader = DocumentReader(use_sidecar=False, llm_client=None)
    custom = _tools(workspace_read=WorkspaceRead(document_reader=reader))["workspace_read"]
    assert "Memo text" in custom("memo.docx")
    assert not (ws / ".memo.docx.md").exists()  # the reader's own use_sidecar=False


def test_force_document_regeneration_replaces_the_sidecar(ws: Path) -> None:
    ws.mkdir(parents=True, exist_ok=True)
    source = ws / "memo.docx"
    source.write_bytes(_docx_bytes("Real memo text"))
    read = _tools()["workspace_read"]
    assert "Real memo text" in read("memo.docx")
    sidecar = ws / ".memo.docx.md"
    stamp = sidecar.stat().st_mtime_ns
    sidecar.write_text("STALE CACHE")
    os.utime(sidecar, ns=(stamp, stamp))
    assert "STALE CACHE" in read("memo.docx")
    out = read("memo.docx", force_document_regeneration=True)
    assert "Real memo text" in out
    assert "STALE" not in out
    assert "Real memo text" in sidecar.read_text()
    # the param's field makes every read regenerate
    sidecar.write_text("STALE AGAIN")
    os.utime(sidecar, ns=(stamp, stamp))
    always = _tools(workspace_read=WorkspaceRead(force_document_regeneration=True))
    assert "Real memo text" in always["workspace_read"]("memo.docx")


def test_extract_text_and_custom_file_type_readers(ws: Path) -> None:
    reader = DocumentReader(llm_client=None)
    assert isinstance(reader, FileTypeReader)
    assert "Plain words" in reader.extract_text("a/memo.docx", _docx_bytes("Plain words"))
    with pytest.raises(ValueError, match="not a DOCX"):
        reader.extract_text("memo.docx", b"not a zip")

    class Upper:
        def extract_text(self, path: str | Path, content: bytes) -> str:
            return f"{path}: {len(content)} bytes"

    fs = get_workspace("team")
    (fs.root / "sub").mkdir()
    (fs.root / "sub" / "x.pdf").write_bytes(b"%PDF-whatever")
    assert isinstance(Upper(), FileTypeReader)
    assert "sub/x.pdf: 13 bytes" in fs.read("sub/x.pdf", reader=Upper())


class _CaptionServer(BaseHTTPRequestHandler):
    """A stand-in OpenAI endpoint: answers chat completions with a fixed caption."""

    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "body": body})
        reply = {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "A small green square."},
                }
            ],
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def _stand_in_openai(
    monkeypatch: pytest.MonkeyPatch, handler: type[BaseHTTPRequestHandler]
) -> Iterator[None]:
    """Serve ``handler`` on 127.0.0.1 and point the openai client's environment at it."""
    # captions need the `openai` client, which this package does not require: where it is
    # absent (the package alone), captioning is off and there is nothing to test here
    pytest.importorskip("openai", reason="image captions use the openai client")
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{server.server_port}/v1")
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def caption_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    _CaptionServer.requests = []
    with _stand_in_openai(monkeypatch, _CaptionServer):
        yield _CaptionServer.requests


def test_llm_model_captions_images(ws: Path, caption_server: list[dict[str, Any]]) -> None:
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "shot.png").write_bytes(_png_bytes())
    reader = DocumentReader(llm_model="vision-test", use_sidecar=False)
    read = _tools(workspace_read=WorkspaceRead(document_reader=reader))["workspace_read"]
    assert "A small green square." in read("shot.png")
    assert caption_server[0]["path"] == "/v1/chat/completions"
    assert caption_server[0]["body"]["model"] == "vision-test"
    # the image itself is what gets described
    picture = base64.b64encode(_png_bytes()).decode()
    assert f"data:image/png;base64,{picture}" in json.dumps(caption_server[0]["body"])
    # llm_client=None: nothing leaves the machine
    local = DocumentReader(llm_client=None, use_sidecar=False)
    read_local = _tools(workspace_read=WorkspaceRead(document_reader=local))["workspace_read"]
    assert "green square" not in read_local("shot.png")
    assert len(caption_server) == 1


def test_a_failing_caption_request_still_converts(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "shot.png").write_bytes(_png_bytes())
    reader = DocumentReader(use_sidecar=False, llm_timeout_seconds=2)
    read = _tools(workspace_read=WorkspaceRead(document_reader=reader))["workspace_read"]
    assert "shot.png converted to Markdown" in read("shot.png")


class _FailingCaptionServer(BaseHTTPRequestHandler):
    """A stand-in OpenAI endpoint that answers every request with a server error."""

    hits = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).hits += 1
        self._before_answering()
        self.send_response(500)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _before_answering(self) -> None:
        """Nothing: this server answers at once."""

    def log_message(self, *args: Any) -> None:
        pass


def test_a_caption_request_that_fails_is_retried_once(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _FailingCaptionServer.hits = 0
    with _stand_in_openai(monkeypatch, _FailingCaptionServer):
        ws.mkdir(parents=True, exist_ok=True)
        (ws / "shot.png").write_bytes(_png_bytes())
        reader = DocumentReader(use_sidecar=False)
        read = _tools(workspace_read=WorkspaceRead(document_reader=reader))["workspace_read"]
        assert "shot.png converted to Markdown" in read("shot.png")
        assert _FailingCaptionServer.hits == 2  # the request and one retry, no more


class _SlowCaptionServer(_FailingCaptionServer):
    """The failing endpoint, answering only once the test lets it (`release`)."""

    release = threading.Event()
    hits = 0

    def _before_answering(self) -> None:
        type(self).release.wait(10)


def test_a_caption_request_gives_up_after_its_timeout_and_says_so(
    ws: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _SlowCaptionServer.release.clear()
    _SlowCaptionServer.hits = 0
    ws.mkdir(parents=True, exist_ok=True)
    (ws / "shot.png").write_bytes(_png_bytes())
    reader = DocumentReader(use_sidecar=False, llm_timeout_seconds=0.2)
    read = _tools(workspace_read=WorkspaceRead(document_reader=reader))["workspace_read"]
    with _stand_in_openai(monkeypatch, _SlowCaptionServer):
        try:
            with caplog.at_level(logging.WARNING, logger="akgentic.tool.workspace.readers"):
                assert "shot.png converted to Markdown" in read("shot.png")
        finally:
            _SlowCaptionServer.release.set()  # the held handlers answer before the shutdown
    assert _SlowCaptionServer.hits == 2  # timed out, retried once, timed out again
    assert [r.getMessage() for r in caplog.records] == [
        "image caption for shot.png failed (ImageConverter: APITimeoutError: Request timed out.); "
        "converting without it"
    ]


# -- resources --------------------------------------------------------------------------------


def test_resources_are_placed_once_and_never_overwrite(
    roots: Path, tool_agent: ToolTestAgent
) -> None:
    png = _png_bytes()
    card = WorkspaceTool(
        resources=[
            Resource(file_name="brief/README.md", content="# Brief\n"),
            Resource(
                file_name="img/logo.png",
                content=base64.b64encode(png).decode(),
                file_type=ResourceType.IMAGE,
            ),
        ]
    )
    factory = ToolFactory([card], observer=tool_agent)
    root = roots / str(tool_agent.team_id)
    assert (root / "brief" / "README.md").read_text() == "# Brief\n"
    assert (root / "img" / "logo.png").read_bytes() == png
    read = next(fn for fn in factory.get_tools() if fn.__name__ == "workspace_read")
    assert read("brief/README.md") == "     1\t# Brief"
    # the team changes it; a new card (a restarted agent) keeps the change
    (root / "brief" / "README.md").write_text("changed\n")
    ToolFactory([WorkspaceTool.model_validate(card.model_dump())], observer=tool_agent)
    assert (root / "brief" / "README.md").read_text() == "changed\n"


def test_resources_are_validated() -> None:
    assert Resource(file_name="a.txt", content="é").to_bytes() == "é".encode()
    with pytest.raises(ValidationError, match="base64"):
        Resource(file_name="a.png", content="not base64!", file_type="image")
    for name in ("../x.txt", "/etc/x", "", "a/../../b", "."):
        with pytest.raises(ValidationError, match="file_name"):
            Resource(file_name=name, content="x")
    stored = {"file_name": "a.txt", "content": "x", "file_type": "text"}
    assert Resource.model_validate(stored).model_dump()["file_type"] == ResourceType.TEXT


def test_resources_cannot_escape_through_a_symlink(roots: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (roots / "esc").mkdir()
    (roots / "esc" / "docs").symlink_to(outside)
    card = WorkspaceTool(
        workspace_id="esc", resources=[Resource(file_name="docs/x.txt", content="x")]
    )
    with pytest.raises(RetriableError):
        card.get_tools()
    assert list(outside.iterdir()) == []


# -- MediaContent -----------------------------------------------------------------------------


def test_media_content_round_trips_through_json() -> None:
    media = MediaContent(data=b"\x89PNG\x00\xff", media_type="image/png")
    assert MediaContent.model_validate_json(media.model_dump_json()) == media
    assert MediaContent(data=b"x", media_type="image/gif").model_dump() == {
        "data": b"x",
        "media_type": "image/gif",
    }
