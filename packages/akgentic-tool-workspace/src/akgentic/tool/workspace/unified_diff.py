"""GNU unified diffs: `parse_patch` reads one, `apply_file_patch` applies it.

Applying to a text is pure string work, so `workspace_patch` can compute every new file
content before writing any (all or nothing); `apply_file_patch` called with a workspace (its
akgentic-tool 1.6.4 form) hands the patch to that workspace instead.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, overload

from pydantic import BaseModel, model_validator

if TYPE_CHECKING:
    from akgentic.tool.workspace.workspace import Workspace

__all__ = ["FilePatch", "Hunk", "PatchError", "apply_file_patch", "parse_patch"]


class PatchError(ValueError):
    """A patch that cannot be parsed or applied; the message names the file and the hunk."""


class Hunk(BaseModel):
    """One `@@ -a,b +c,d @@` section of a unified diff.

    `header` defaults to the `@@` line the counts describe (it names the hunk in errors).
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: list[str]  # each prefixed with ' ', '-' or '+'
    header: str = ""
    old_missing_newline: bool = False  # "\ No newline at end of file" after an old line
    new_missing_newline: bool = False

    @model_validator(mode="after")
    def _default_header(self) -> Hunk:
        if not self.header:
            self.header = (
                f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"
            )
        return self

    @property
    def old_lines(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " -"]

    @property
    def new_lines(self) -> list[str]:
        return [line[1:] for line in self.lines if line[0] in " +"]


class FilePatch(BaseModel):
    """The changes a unified diff makes to one file.

    `old_path` and `new_path` are the `---` and `+++` names (`None`: `/dev/null`, so the
    patch creates or deletes the file); `path` is the file the patch writes (or deletes),
    derived from them. `FilePatch(path=..., hunks=...)` (the akgentic-tool 1.6.4 form)
    changes `path` in place.
    """

    path: str
    hunks: list[Hunk]
    old_path: str | None = None
    new_path: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _paths(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        if "old_path" not in data and "new_path" not in data:
            if data.get("path") is None:
                raise ValueError("a FilePatch needs path (or old_path / new_path)")
            return {**data, "old_path": data["path"], "new_path": data["path"]}
        old, new = data.get("old_path"), data.get("new_path")
        if old is None and new is None:
            raise ValueError("old_path and new_path cannot both be /dev/null (None)")
        derived = new if new is not None else old
        if data.get("path") not in (None, derived):
            raise ValueError(
                f"path {data['path']!r} is not the file the patch writes ({derived!r})"
            )
        return {**data, "old_path": old, "new_path": new, "path": derived}

    @property
    def creates(self) -> bool:
        return self.old_path is None

    @property
    def deletes(self) -> bool:
        return self.new_path is None


_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _patch_path(raw: str) -> str | None:
    name = raw.split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"') and len(name) >= 2:
        name = name[1:-1]
    return None if name == "/dev/null" else name


def parse_patch(patch_text: str) -> list[FilePatch]:
    """Parse a GNU unified diff (one or more files, one or more hunks each).

    `a/` and `b/` prefixes (git style) are removed. Raises `PatchError` on malformed input.
    """
    lines = patch_text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the text's final newline ends the last line; it starts no empty one
    patches: list[FilePatch] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if not (line.startswith("--- ") and index + 1 < len(lines)):
            index += 1
            continue
        if not lines[index + 1].startswith("+++ "):
            index += 1
            continue
        old_path = _patch_path(line[4:])
        new_path = _patch_path(lines[index + 1][4:])
        if old_path is None and new_path is None:
            raise PatchError("a file header names /dev/null on both sides (--- and +++)")
        old_path, new_path = _strip_git_prefixes(old_path, new_path)
        written = new_path if new_path is not None else old_path
        assert written is not None  # both /dev/null was refused above
        patch = FilePatch(path=written, old_path=old_path, new_path=new_path, hunks=[])
        index += 2
        while index < len(lines) and lines[index].startswith("@@"):
            hunk, index = _parse_hunk(lines, index, patch.path, len(patch.hunks) + 1)
            patch.hunks.append(hunk)
        if not patch.hunks:
            raise PatchError(f"the patch for {patch.path} has a file header but no @@ hunk")
        patches.append(patch)
    if not patches:
        raise PatchError(
            "no file changes found; a unified diff needs '--- old' and '+++ new' header lines "
            "followed by '@@ -start,count +start,count @@' hunks"
        )
    return patches


def _strip_git_prefixes(old: str | None, new: str | None) -> tuple[str | None, str | None]:
    old_ok = old is None or old.startswith("a/")
    new_ok = new is None or new.startswith("b/")
    if old_ok and new_ok:
        return (old[2:] if old else None), (new[2:] if new else None)
    return old, new


def _parse_hunk(lines: list[str], index: int, path: str, number: int) -> tuple[Hunk, int]:
    header = lines[index]
    match = _HUNK_RE.match(header)
    if match is None:
        raise PatchError(f"hunk {number} of {path}: malformed header {header!r}")
    # an omitted count means one line, as in GNU diff's output for single-line hunks
    old_start = int(match.group(1))
    old_count = int(match.group(2)) if match.group(2) is not None else 1
    new_start = int(match.group(3))
    new_count = int(match.group(4)) if match.group(4) is not None else 1
    hunk = Hunk(
        old_start=old_start,
        old_count=old_count,
        new_start=new_start,
        new_count=new_count,
        lines=[],
        header=header,
    )
    index += 1
    seen_old = seen_new = 0
    last_kind = ""
    while index < len(lines) and (seen_old < old_count or seen_new < new_count):
        line = lines[index]
        kind = line[:1]
        if kind == "\\":
            _mark_missing_newline(hunk, last_kind)
            index += 1
            continue
        if line == "":
            # editors and chat UIs drop the lone space of an empty context line
            line, kind = " ", " "
        if kind not in " -+":
            break
        if kind in " -":
            seen_old += 1
        if kind in " +":
            seen_new += 1
        hunk.lines.append(line)
        last_kind = kind
        index += 1
    if index < len(lines) and lines[index].startswith("\\"):
        _mark_missing_newline(hunk, last_kind)
        index += 1
    if seen_old != old_count or seen_new != new_count:
        raise PatchError(
            f"hunk {number} of {path} ({header}) promises {old_count} old and {new_count} new "
            f"lines but its body has {seen_old} old and {seen_new} new lines; "
            "fix the counts in the @@ header"
        )
    return hunk, index


def _mark_missing_newline(hunk: Hunk, last_kind: str) -> None:
    if last_kind in (" ", "-"):
        hunk.old_missing_newline = True
    if last_kind in (" ", "+"):
        hunk.new_missing_newline = True


@overload
def apply_file_patch(content: str | None, patch: FilePatch) -> str | None: ...


@overload
def apply_file_patch(content: FilePatch, patch: Workspace) -> str: ...


@overload
def apply_file_patch(*, file_patch: FilePatch, workspace: Workspace) -> str: ...


def apply_file_patch(
    content: str | FilePatch | None = None,
    patch: FilePatch | Workspace | None = None,
    *,
    file_patch: FilePatch | None = None,
    workspace: Workspace | None = None,
) -> str | None:
    """Apply a parsed patch to a text, or (1.6.4 form) to the files of a workspace.

    `apply_file_patch(content, patch)`: every hunk of `patch` applied to `content` (`None`
    stands for a missing / deleted file); returns the new text, or `None` when the patch
    deletes the file. Each hunk is looked for at its stated line first, then progressively
    further away (as GNU patch does), then once more ignoring trailing whitespace.

    `apply_file_patch(file_patch, workspace)`: the patch applied to the workspace's file,
    all or nothing, as `workspace_patch` does; returns its report.

    Raises `PatchError` naming the first hunk that does not apply (a `RetriableError` in
    the workspace form).
    """
    if isinstance(content, FilePatch) or file_patch is not None or workspace is not None:
        target = file_patch if file_patch is not None else content
        where = workspace if workspace is not None else patch
        if not isinstance(target, FilePatch) or where is None or isinstance(where, FilePatch):
            raise TypeError("apply_file_patch(file_patch, workspace) needs both of them")
        return where.apply_patches([target])
    if not isinstance(patch, FilePatch):
        raise TypeError("apply_file_patch(content, patch) needs the FilePatch to apply")
    return _apply_to_text(content, patch)


def _apply_to_text(content: str | None, patch: FilePatch) -> str | None:
    if patch.creates:
        if content is not None:
            raise PatchError(
                f"{patch.path} already exists but the patch creates it (--- /dev/null)"
            )
        content = ""
    elif content is None:
        raise PatchError(f"{patch.path}: file not found, so the patch cannot be applied")
    lines = content.split("\n")
    final_newline = content.endswith("\n") or content == ""
    if final_newline:
        lines.pop()
    offset = 0
    floor = 0
    for number, hunk in enumerate(patch.hunks, start=1):
        old = hunk.old_lines
        new = hunk.new_lines
        expected = hunk.old_start - 1 + offset if hunk.old_count else hunk.old_start + offset
        position = _locate(lines, old, max(expected, floor), floor)
        if position is None:
            preview = old[0] if old else ""
            raise PatchError(
                f"hunk {number} of {patch.path} ({hunk.header}) does not apply: its "
                f"{len(old)} context/removed lines were not found near line {hunk.old_start} "
                f"(first expected line: {preview!r}); re-read the file and rebuild the hunk"
            )
        lines[position : position + len(old)] = new
        offset += len(new) - len(old) + (position - expected)
        floor = position + len(new)
        at_end = position + len(new) == len(lines)
        if (hunk.old_missing_newline or hunk.new_missing_newline) and at_end:
            final_newline = not hunk.new_missing_newline
    if patch.deletes:
        if any(line for line in lines):
            raise PatchError(
                f"the patch deletes {patch.path} (+++ /dev/null) but lines would remain; "
                "its hunk must remove the whole file"
            )
        return None
    if not lines:
        return ""
    return "\n".join(lines) + ("\n" if final_newline else "")


def _locate(lines: list[str], old: list[str], expected: int, floor: int) -> int | None:
    if not old:
        return min(max(expected, floor), len(lines))
    size = len(old)
    last = len(lines) - size
    for compare in (_equal, _equal_rstrip):
        for distance in range(max(last - floor, expected - floor, 0) + 1):
            for candidate in (
                (expected - distance, expected + distance) if distance else (expected,)
            ):
                if floor <= candidate <= last and compare(lines, candidate, old):
                    return candidate
    return None


def _equal(lines: list[str], start: int, old: list[str]) -> bool:
    return lines[start : start + len(old)] == old


def _equal_rstrip(lines: list[str], start: int, old: list[str]) -> bool:
    window = lines[start : start + len(old)]
    return all(a.rstrip() == b.rstrip() for a, b in zip(window, old, strict=True))
