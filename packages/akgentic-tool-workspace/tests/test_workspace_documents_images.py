"""Documents through MarkItDown (real PDF and DOCX) and images through Pillow."""

from __future__ import annotations

import io
import os
import sys
import warnings
from pathlib import Path
from typing import Any

import docx
import openpyxl
import pptx
import pytest
from PIL import Image
from pydantic_ai.messages import BinaryContent
from reportlab.pdfgen import canvas

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace import (
    DocumentReader,
    DocumentReaderUnavailable,
    WorkspaceRead,
    WorkspaceTool,
    WorkspaceView,
)
from akgentic.tool.workspace import _images as images_module

Tools = dict[str, Any]


def _tools(**fields: Any) -> Tools:
    return {fn.__name__: fn for fn in WorkspaceTool(workspace_id="team", **fields).get_tools()}


def _make_pdf(path: Path, *lines: str) -> None:
    pdf = canvas.Canvas(str(path))
    y = 800
    for line in lines:
        pdf.drawString(72, y, line)
        y -= 20
    pdf.save()


def _make_docx(path: Path, heading: str, *paragraphs: str) -> None:
    document = docx.Document()
    document.add_heading(heading, level=1)
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    document.save(str(path))


def _make_image(path: Path, size: tuple[int, int], fmt: str, mode: str = "RGB") -> None:
    Image.new(mode, size, color=(200, 30, 30) if mode == "RGB" else 128).save(path, format=fmt)


# -- documents ----------------------------------------------------------------------------------


def test_pdf_is_read_as_markdown_and_cached_in_a_sidecar(tools: Tools, ws: Path) -> None:
    _make_pdf(ws / "report.pdf", "Quarterly revenue grew by 12 percent", "Costs stayed flat")
    out = tools["workspace_read"]("report.pdf")
    assert "Quarterly revenue grew by 12 percent" in out
    assert "Costs stayed flat" in out
    assert "report.pdf converted to Markdown" in out
    sidecar = ws / ".report.pdf.md"
    assert "Quarterly revenue" in sidecar.read_text()
    assert sidecar.stat().st_mtime_ns == (ws / "report.pdf").stat().st_mtime_ns


def test_a_fresh_sidecar_is_used_and_a_changed_source_invalidates_it(
    tools: Tools, ws: Path
) -> None:
    source = ws / "report.pdf"
    _make_pdf(source, "First version of the report")
    tools["workspace_read"]("report.pdf")
    sidecar = ws / ".report.pdf.md"
    # Prove the cache is what answers: tamper with it, keeping the stamp.
    stamp = sidecar.stat().st_mtime_ns
    sidecar.write_text("from the cache\n")
    os.utime(sidecar, ns=(stamp, stamp))
    assert "from the cache" in tools["workspace_read"]("report.pdf")
    _make_pdf(source, "Second version of the report")
    os.utime(source, ns=(stamp + 1_000_000_000, stamp + 1_000_000_000))
    out = tools["workspace_read"]("report.pdf")
    assert "Second version of the report" in out
    assert "from the cache" not in out


def test_a_symlink_planted_as_sidecar_is_never_followed(
    tools: Tools, ws: Path, tmp_path: Path
) -> None:
    _make_pdf(ws / "report.pdf", "The real report")
    outside = tmp_path / "outside.md"
    outside.write_text("OUTSIDE SECRET\n")
    stamp = (ws / "report.pdf").stat().st_mtime_ns
    os.utime(outside, ns=(stamp, stamp))  # the stamp a fresh sidecar would carry
    (ws / ".report.pdf.md").symlink_to(outside)
    out = tools["workspace_read"]("report.pdf")
    assert "The real report" in out
    assert "OUTSIDE SECRET" not in out
    assert not (ws / ".report.pdf.md").is_symlink()  # replaced by a real cache file
    assert outside.read_text() == "OUTSIDE SECRET\n"


def test_docx_is_read_as_markdown(tools: Tools, ws: Path) -> None:
    _make_docx(ws / "plan.docx", "Launch plan", "Ship the beta in March.", "Gather feedback.")
    out = tools["workspace_read"]("plan.docx")
    assert "Launch plan" in out
    assert "Ship the beta in March." in out
    assert (ws / ".plan.docx.md").exists()
    # the sidecar is not listed, globbed or grepped
    assert ".plan.docx.md" not in tools["workspace_list"]()
    assert tools["workspace_glob"]("**/*.md").startswith("No files match")


def test_xlsx_and_pptx_are_read_as_markdown(tools: Tools, ws: Path) -> None:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["region", "revenue"])
    sheet.append(["north", 1200])
    book.save(ws / "sales.xlsx")
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Roadmap 2027"
    slide.placeholders[1].text = "Ship the workspace tool"
    deck.save(str(ws / "deck.pptx"))
    table = tools["workspace_read"]("sales.xlsx")
    assert "| region | revenue |" in table
    assert "| north | 1200 |" in table
    slides = tools["workspace_read"]("deck.pptx")
    assert "# Roadmap 2027" in slides
    assert "Ship the workspace tool" in slides


def test_converted_documents_page_like_text_and_caching_can_be_off(roots: Path) -> None:
    tools = _tools(workspace_read=WorkspaceRead(page_lines=1, cache_conversions=False))
    _make_docx(roots / "team" / "plan.docx", "Uncached title", "Body one.", "Body two.")
    out = tools["workspace_read"]("plan.docx")
    assert out.splitlines()[0].startswith("     1\t# Uncached title")
    assert "call again with offset=1" in out
    assert not (roots / "team" / ".plan.docx.md").exists()


def test_conversion_can_be_turned_off(roots: Path) -> None:
    tools = _tools(workspace_read=WorkspaceRead(convert_documents=False))
    _make_docx(roots / "team" / "plan.docx", "Title")
    with pytest.raises(RetriableError, match="conversion is disabled"):
        tools["workspace_read"]("plan.docx")


def test_without_markitdown_reading_a_document_gives_the_install_hint(
    tools: Tools, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make_pdf(ws / "report.pdf", "Hidden text")
    monkeypatch.setitem(sys.modules, "markitdown", None)  # `import markitdown` now fails
    with pytest.raises(RetriableError) as caught:
        tools["workspace_read"]("report.pdf")
    assert 'pip install "akgentic-tool-workspace[docs]"' in str(caught.value)
    assert not (ws / ".report.pdf.md").exists()
    # plain text still reads without the extra
    (ws / "notes.txt").write_text("plain\n")
    assert tools["workspace_read"]("notes.txt") == "     1\tplain"


def test_document_reader_raises_value_error_with_the_hint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make_pdf(tmp_path / "report.pdf", "Text")
    monkeypatch.setitem(sys.modules, "markitdown", None)
    with pytest.raises(ValueError, match=r"akgentic-tool-workspace\[docs\]") as caught:
        DocumentReader().read(tmp_path / "report.pdf")
    assert isinstance(caught.value, DocumentReaderUnavailable)


def test_a_damaged_document_is_a_retriable_error(tools: Tools, ws: Path) -> None:
    (ws / "broken.docx").write_bytes(b"this is not a zip archive")
    with pytest.raises(RetriableError, match="could not convert broken.docx"):
        tools["workspace_read"]("broken.docx")


# -- images -----------------------------------------------------------------------------------


def test_view_returns_binary_content_resized_and_cached(tools: Tools, ws: Path) -> None:
    _make_image(ws / "big.png", (3000, 1500), "PNG")
    result = tools["workspace_view"]("big.png")
    assert isinstance(result, BinaryContent)
    assert result.media_type == "image/png"
    assert result.identifier == "big.png"  # the name the model can refer to it by
    with Image.open(io.BytesIO(result.data)) as shown:
        assert shown.size == (1568, 784)
    sidecar = ws / ".big.png.1568px.png"
    assert sidecar.read_bytes() == result.data
    # served from the sidecar the second time, refreshed when the source changes
    stamp = sidecar.stat().st_mtime_ns
    assert tools["workspace_view"]("big.png").data == result.data
    _make_image(ws / "big.png", (2000, 2000), "PNG")
    os.utime(ws / "big.png", ns=(stamp + 10**9, stamp + 10**9))
    with Image.open(io.BytesIO(tools["workspace_view"]("big.png").data)) as shown:
        assert shown.size == (1568, 1568)


def test_view_max_dimension_comes_from_the_param(roots: Path) -> None:
    tools = _tools(workspace_view=WorkspaceView(max_dimension=100))
    _make_image(roots / "team" / "photo.jpg", (400, 200), "JPEG")
    result = tools["workspace_view"]("photo.jpg")
    assert result.media_type == "image/jpeg"
    with Image.open(io.BytesIO(result.data)) as shown:
        assert shown.size == (100, 50)
    assert (roots / "team" / ".photo.jpg.100px.jpeg").exists()


def test_exif_rotation_is_applied_when_resizing(roots: Path) -> None:
    tools = _tools(workspace_view=WorkspaceView(max_dimension=100))
    exif = Image.Exif()
    exif[0x0112] = 6  # orientation: rotate 90° clockwise to display
    Image.new("RGB", (400, 200)).save(roots / "team" / "phone.jpg", format="JPEG", exif=exif)
    with Image.open(io.BytesIO(tools["workspace_view"]("phone.jpg").data)) as shown:
        assert shown.size == (50, 100)  # stored landscape, shown portrait


def test_small_images_are_sent_unchanged(tools: Tools, ws: Path) -> None:
    for name, fmt, media in [
        ("a.png", "PNG", "image/png"),
        ("b.webp", "WEBP", "image/webp"),
        ("c.gif", "GIF", "image/gif"),
    ]:
        _make_image(ws / name, (64, 32), fmt, mode="RGB" if fmt != "GIF" else "L")
        result = tools["workspace_view"](name)
        assert result.media_type == media
        assert result.data == (ws / name).read_bytes()


def test_bmp_is_sent_as_png(tools: Tools, ws: Path) -> None:
    _make_image(ws / "scan.bmp", (50, 40), "BMP")
    result = tools["workspace_view"]("scan.bmp")
    assert result.media_type == "image/png"
    with Image.open(io.BytesIO(result.data)) as shown:
        assert (shown.format, shown.size) == ("PNG", (50, 40))


def test_view_refuses_non_images_and_fake_images(tools: Tools, ws: Path) -> None:
    (ws / "notes.txt").write_text("hi")
    with pytest.raises(RetriableError, match="not an image"):
        tools["workspace_view"]("notes.txt")
    (ws / "fake.png").write_text("not really a png")
    with pytest.raises(RetriableError, match="does not contain PNG image data"):
        tools["workspace_view"]("fake.png")
    (ws / "truncated.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)
    with pytest.raises(RetriableError, match="could not be decoded"):
        tools["workspace_view"]("truncated.png")


def test_without_pillow_images_are_sent_as_is_after_one_warning(
    tools: Tools, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make_image(ws / "big.png", (2000, 1000), "PNG")
    original = (ws / "big.png").read_bytes()
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setattr(images_module, "_warned", False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = tools["workspace_view"]("big.png")
        second = tools["workspace_view"]("big.png")
    messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1
    assert messages[0] == (
        "Pillow is not installed: workspace_view sends images at their original size. "
        'Install it with: pip install "akgentic-tool-workspace[vision]"'
    )
    assert first.data == original
    assert second.data == original
    assert not list(ws.glob(".big.png.*"))


def test_document_reader_read_uses_a_fresh_sidecar_unless_told_to_convert_again(
    tmp_path: Path,
) -> None:
    source = tmp_path / "report.pdf"
    _make_pdf(source, "The report itself")
    reader = DocumentReader(llm_client=None)
    assert "The report itself" in reader.read(source)
    sidecar = tmp_path / ".report.pdf.md"
    stamp = sidecar.stat().st_mtime_ns
    sidecar.write_text("from the cache\n")
    os.utime(sidecar, ns=(stamp, stamp))
    assert reader.read(source) == "from the cache\n"
    assert "The report itself" in reader.read(source, regenerate=True)
    assert "The report itself" in sidecar.read_text()


def test_extract_text_names_the_file_it_cannot_convert() -> None:
    with pytest.raises(ValueError, match=r"^could not convert report\.pdf: its content is not"):
        DocumentReader(llm_client=None).extract_text("docs/report.pdf", b"not a pdf")


def test_a_damaged_office_file_that_still_opens_with_the_zip_mark_is_refused(
    tools: Tools, ws: Path
) -> None:
    # without the archive check, its bytes came back "converted" as plain text
    (ws / "broken.docx").write_bytes(b"PK\x03\x04 not a real zip archive at all")
    with pytest.raises(RetriableError) as refusal:
        tools["workspace_read"]("broken.docx")
    assert "could not convert broken.docx: its content is not a DOCX file" in str(refusal.value)


# -- what view keeps of an image ---------------------------------------------------------------


def test_a_shrunk_png_keeps_its_transparency(tools: Tools, ws: Path) -> None:
    Image.new("RGBA", (3000, 1000), (10, 20, 30, 40)).save(ws / "clear.png", format="PNG")
    with Image.open(io.BytesIO(tools["workspace_view"]("clear.png").data)) as shown:
        assert (shown.format, shown.mode, shown.size) == ("PNG", "RGBA", (1568, 523))
        assert shown.getpixel((0, 0))[3] == 40


def test_a_shrunk_cmyk_jpeg_is_sent_as_rgb(tools: Tools, ws: Path) -> None:
    Image.new("CMYK", (3000, 1000), (0, 255, 255, 0)).save(ws / "print.jpg", format="JPEG")
    with Image.open(io.BytesIO(tools["workspace_view"]("print.jpg").data)) as shown:
        assert (shown.format, shown.mode, shown.size) == ("JPEG", "RGB", (1568, 523))


def test_an_image_exactly_at_the_limit_is_sent_unchanged(tools: Tools, ws: Path) -> None:
    _make_image(ws / "edge.png", (1568, 100), "PNG")
    assert tools["workspace_view"]("edge.png").data == (ws / "edge.png").read_bytes()
    assert not list(ws.glob(".edge.png.*"))


def test_a_fresh_sidecar_is_served_without_converting_again(tools: Tools, ws: Path) -> None:
    _make_image(ws / "big.png", (3000, 1500), "PNG")
    tools["workspace_view"]("big.png")
    sidecar = ws / ".big.png.1568px.png"
    stamp = sidecar.stat().st_mtime_ns
    marked = io.BytesIO()
    Image.new("RGB", (7, 7)).save(marked, format="PNG")
    sidecar.write_bytes(marked.getvalue())
    os.utime(sidecar, ns=(stamp, stamp))  # still stamped with the source's time: fresh
    assert tools["workspace_view"]("big.png").data == marked.getvalue()


def test_a_riff_file_that_is_not_webp_is_refused(tools: Tools, ws: Path) -> None:
    (ws / "sound.webp").write_bytes(b"RIFF\x24\x00\x00\x00WAVEfmt " + b"\x00" * 40)
    with pytest.raises(RetriableError) as refusal:
        tools["workspace_view"]("sound.webp")
    assert str(refusal.value) == (
        "sound.webp does not contain WEBP image data; check the file "
        "(workspace_read shows what it holds)"
    )


def test_a_given_reader_caches_nothing_when_the_param_says_not_to(ws: Path) -> None:
    ws.mkdir(parents=True, exist_ok=True)
    _make_docx(ws / "memo.docx", "Memo", "Nothing cached")
    reader = DocumentReader(llm_client=None)
    uncached = WorkspaceRead(document_reader=reader, cache_conversions=False)
    assert "Nothing cached" in _tools(workspace_read=uncached)["workspace_read"]("memo.docx")
    assert not (ws / ".memo.docx.md").exists()
    cached = WorkspaceRead(document_reader=reader)
    assert "Nothing cached" in _tools(workspace_read=cached)["workspace_read"]("memo.docx")
    assert (ws / ".memo.docx.md").exists()


# -- conversion failures and the sidecar cache, word for word ----------------------------------


def test_a_truncated_pdf_is_refused_with_the_converters_reason(tools: Tools, ws: Path) -> None:
    _make_pdf(ws / "whole.pdf", "Hello there")
    (ws / "half.pdf").write_bytes((ws / "whole.pdf").read_bytes()[:200])
    with pytest.raises(RetriableError) as refusal:
        tools["workspace_read"]("half.pdf")
    message = str(refusal.value)
    assert message.startswith("could not convert half.pdf to text (PdfConverter: PDFSyntaxError: ")
    assert "\n" not in message
    assert message.endswith("); the file may be damaged or not what its extension says")
    assert not (ws / ".half.pdf.md").exists()  # a failure is not cached


def test_a_fresh_sidecar_with_undecodable_bytes_is_still_read(tools: Tools, ws: Path) -> None:
    _make_pdf(ws / "report.pdf", "The report itself")
    tools["workspace_read"]("report.pdf")
    sidecar = ws / ".report.pdf.md"
    stamp = sidecar.stat().st_mtime_ns
    sidecar.write_bytes(b"caf\xe9 from the cache\n")  # not UTF-8, e.g. edited by another tool
    os.utime(sidecar, ns=(stamp, stamp))
    assert "caf\ufffd from the cache" in tools["workspace_read"]("report.pdf")


def test_read_data_answers_from_a_fresh_sidecar_by_default(tmp_path: Path) -> None:
    source = tmp_path / "report.pdf"
    _make_pdf(source, "The report itself")
    reader = DocumentReader(llm_client=None)
    data = source.read_bytes()
    assert "The report itself" in reader.read_data(data, source, os.stat(source))
    sidecar = tmp_path / ".report.pdf.md"
    stamp = sidecar.stat().st_mtime_ns
    sidecar.write_text("from the cache\n")
    os.utime(sidecar, ns=(stamp, stamp))
    assert reader.read_data(data, source, os.stat(source)) == "from the cache\n"


def test_a_large_grayscale_jpeg_stays_grayscale_when_resized(tools: Tools, ws: Path) -> None:
    _make_image(ws / "scan.jpg", (3000, 1500), "JPEG", mode="L")
    result = tools["workspace_view"]("scan.jpg")
    assert isinstance(result, BinaryContent)
    shown = Image.open(io.BytesIO(result.data))
    assert (shown.format, shown.mode, shown.size) == ("JPEG", "L", (1568, 784))
