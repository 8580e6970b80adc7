"""`!!pattern` references in a user's message, expanded into the workspace images they name.

The rules (the `_expand_media_refs` command of `WorkspaceTool`):

- A reference is `!!` at the start of the message, after whitespace or after an opening
  bracket or quote, followed by a glob (`!!screens/*.png`, `!!**/*.{png,jpg}`) or by a
  double-quoted name for paths with spaces (`!!"mock ups/home page.png"`). Punctuation
  ending a sentence (`.,;:!?` and closing brackets or quotes) is not part of an unquoted
  pattern. `wow!!` is not a reference.
- Patterns are globs from the workspace root, with `workspace_glob`'s rules: they cannot
  leave the workspace (no leading `/`, no `..`), and hidden files match only when the
  pattern names them. Only images (PNG, JPEG, WebP, GIF, BMP) are attached, newest first.
- The text is kept as written. After each reference come the attached images, each
  preceded by a short label naming its path; a reference that attaches nothing is followed
  by a bracketed note saying why (nothing matches, no image among the matches, an image
  that cannot be read or is too big, the per-message limit reached).
- A message without any reference comes back as `[text]`, unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from akgentic.tool.errors import RetriableError
from akgentic.tool.workspace._files import printable
from akgentic.tool.workspace.readers import MediaContent

Part = str | MediaContent

# `!!` then a quoted name or a run of non-space characters.
_REFERENCE = re.compile(r'(?<![^\s(\[{"\'])!!(?:"(?P<quoted>[^"\n]+)"|(?P<bare>[^\s"]\S*))')
_TRAILING = ".,;:!?)]}>'\""


def find_references(text: str) -> list[tuple[int, int, str]]:
    """(start, end, pattern) of every reference in `text`; `end` excludes stripped punctuation."""
    found: list[tuple[int, int, str]] = []
    for match in _REFERENCE.finditer(text):
        quoted = match.group("quoted")
        if quoted is not None:
            found.append((match.start(), match.end(), quoted))
            continue
        bare = match.group("bare")
        pattern = bare.rstrip(_TRAILING) or bare
        found.append((match.start(), match.start() + 2 + len(pattern), pattern))
    return found


class MediaExpander:
    """Expands the references of one message, within per-message bounds.

    `find(pattern, limit)` returns (image paths, images matched, other files matched);
    `load(path)` returns (bytes, media type). Both raise `RetriableError` for what the
    user can fix; the message is put in the note.
    """

    def __init__(
        self,
        find: Callable[[str, int], tuple[list[str], int, int]],
        load: Callable[[str], tuple[bytes, str]],
        *,
        max_images: int,
        max_image_bytes: int,
    ) -> None:
        self._find = find
        self._load = load
        self._max_images = max_images
        self._max_image_bytes = max_image_bytes

    def expand(self, text: str) -> list[Part]:
        references = find_references(text)
        if not references:
            return [text]
        parts: list[Part] = []
        attached = 0
        position = 0
        for _start, end, pattern in references:
            _add_text(parts, text[position:end])
            position = end
            added, notes = self._expand_one(pattern, self._max_images - attached)
            attached += sum(isinstance(part, MediaContent) for part in added)
            for part in added:
                if isinstance(part, str):
                    _add_text(parts, part)
                else:
                    parts.append(part)
            if notes:
                _add_text(parts, " [" + "; ".join(notes) + "]")
        _add_text(parts, text[position:])
        return parts

    def _expand_one(self, pattern: str, room: int) -> tuple[list[Part], list[str]]:
        shown = printable(pattern)
        if room <= 0:
            return [], [f"not attached: at most {self._max_images} images per message"]
        try:
            paths, images, others = self._find(pattern, room)
        except RetriableError as exc:
            return [], [f"not attached: {printable(str(exc))}"]
        if not images:
            if others:
                kinds = "png, jpeg, webp, gif, bmp"
                return [], [
                    f"not attached: {shown!r} matches {others} file(s) but no image ({kinds})"
                ]
            return [], [f"not attached: no file in the workspace matches {shown!r}"]
        added: list[Part] = []
        notes: list[str] = []
        for path in paths:
            label = printable(path)
            try:
                data, media_type = self._load(path)
            except (RetriableError, OSError) as exc:
                notes.append(f"{label} not attached: {printable(str(exc))}")
                continue
            if len(data) > self._max_image_bytes:
                notes.append(
                    f"{label} not attached: {len(data):,} bytes, above the limit of "
                    f"{self._max_image_bytes:,} bytes per image"
                )
                continue
            added += [f" [image: {label}]", MediaContent(data=data, media_type=media_type)]
        if images > len(paths):
            notes.append(
                f"{images - len(paths)} more matching image(s) not attached: at most "
                f"{self._max_images} images per message"
            )
        return added, notes


def _add_text(parts: list[Part], text: str) -> None:
    """Append `text`, merged with a text part already at the end (empty text is dropped)."""
    if not text:
        return
    if parts and isinstance(parts[-1], str):
        parts[-1] += text
    else:
        parts.append(text)
