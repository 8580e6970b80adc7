"""Finding files and lines: brace-expanding globs, and grep through ripgrep or pure Python.

The two grep engines are held to one contract so their output is byte-for-byte the same:
hidden entries (a name starting with ".") are skipped unless named explicitly, symlinks are
not followed, ignore files (.gitignore, .ignore) are not consulted, a file holding a NUL byte
is binary and skipped (even when the NUL comes late in a big file), a pattern is matched
against each line separately (the line without its "\\n"), and results are sorted by path,
then line number.
"""

from __future__ import annotations

import codecs
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

#: Longest line text shown in a grep result; longer lines are cut with an ellipsis.
MAX_LINE_CHARS = 400

# Sidecars written by this package: `.report.pdf.md` (converted document) and
# `.photo.png.1568px.png` (resized image); they belong to their source, not to the listing.
_SIDECAR_RE = re.compile(r"^\.(?P<source>.+?)(?:\.md|\.\d+px\.(?:png|jpeg|webp|gif))$")
_TEMP_RE = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


def is_internal(directory: str, name: str) -> bool:
    """Whether `name` is a sidecar or a temporary file this package wrote (hidden from tools)."""
    if not name.startswith("."):
        return False
    if _TEMP_RE.match(name):
        return True
    match = _SIDECAR_RE.match(name)
    return match is not None and os.path.exists(os.path.join(directory, match.group("source")))


# -- brace expansion and glob patterns --------------------------------------------------------


#: Most patterns one brace expression may expand to (`{a,b}{c,d}...` grows exponentially).
MAX_EXPANSIONS = 256


class BraceExpansionError(ValueError):
    """A brace expression expanding to more than `MAX_EXPANSIONS` patterns."""


def expand_braces(pattern: str) -> list[str]:
    """`src/*.{py,ts}` -> [`src/*.py`, `src/*.ts`]; nested groups are expanded too.

    Raises `BraceExpansionError` past `MAX_EXPANSIONS` alternatives, or past 64 groups
    (nesting recurses once per level).
    """
    if pattern.count("{") > 64:
        raise BraceExpansionError(f"{pattern[:40]!r}... has more than 64 brace groups")
    depth = 0
    start = -1
    for index, char in enumerate(pattern):
        if char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                options = _split_top_level(pattern[start + 1 : index])
                if len(options) < 2:
                    continue
                head, tail = pattern[:start], pattern[index + 1 :]
                expanded: list[str] = []
                for option in options:
                    for result in expand_braces(head + option + tail):
                        if result not in expanded:
                            expanded.append(result)
                    if len(expanded) > MAX_EXPANSIONS:
                        raise BraceExpansionError(
                            f"{pattern!r} expands to more than {MAX_EXPANSIONS} patterns"
                        )
                return expanded
    return [pattern]


def _split_top_level(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        current.append(char)
    parts.append("".join(current))
    return parts


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Translate one brace-free glob to a regex over "/"-separated relative paths.

    `**` spans any number of directories (zero included), `*` and `?` stay within one name,
    `[...]` is a character class. Wildcards never match a leading "." (as in a shell), so
    hidden entries are only found by a pattern that spells the dot out.
    """
    parts: list[str] = []
    segments = pattern.strip("/").split("/")
    for position, segment in enumerate(segments):
        last = position == len(segments) - 1
        if segment == "**":
            parts.append(r"(?:[^/.][^/]*/)*" if not last else r"(?:[^/.][^/]*(?:/|$))*")
            continue
        body = _translate_segment(segment)
        if segment[:1] in ("*", "?", "["):
            body = r"(?!\.)" + body
        parts.append(body + ("" if last else "/"))
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def _translate_segment(segment: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
            out.append(r"[^/]*")
        elif char == "?":
            out.append(r"[^/]")
        elif char == "[":
            end = segment.find("]", index + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = segment[index + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def literal_prefix(pattern: str) -> str:
    """The leading directories of a glob that hold no wildcard (where a walk can start)."""
    prefix: list[str] = []
    segments = pattern.strip("/").split("/")
    for segment in segments[:-1]:
        if any(char in segment for char in "*?[{"):
            break
        prefix.append(segment)
    return "/".join(prefix)


@dataclass(frozen=True)
class FoundFile:
    relative: str
    mtime: float


def walk_files(
    root: Path, start: Path, *, hidden: bool = False, max_depth: int | None = None
) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Regular files under `start` as (path relative to `root`, entry); symlinks not followed."""
    # entries under `root` all start with this prefix: slicing it off is much cheaper than
    # os.path.relpath, which normalises both paths on every call
    cut = len(os.path.join(os.fspath(root), ""))
    stack: list[tuple[str, int]] = [(os.fspath(start), 0)]
    while stack:
        directory, depth = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.startswith(".") and (not hidden or is_internal(directory, name)):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if max_depth is None or depth + 1 < max_depth:
                        stack.append((entry.path, depth + 1))
                elif entry.is_file(follow_symlinks=False):
                    yield entry.path[cut:], entry
            except OSError:
                continue


def glob_files(root: Path, start: Path, pattern: str, *, limit: int) -> tuple[list[FoundFile], int]:
    """Files under `start` matching `pattern` (relative to `start`), newest first.

    Returns at most `limit` files and the total number that matched.
    """
    patterns = expand_braces(pattern)
    regexes = [glob_to_regex(each) for each in patterns]
    hidden = any(part.startswith(".") for each in patterns for part in each.split("/"))
    found: list[FoundFile] = []
    start_rel = os.path.relpath(start, root)
    prefixes = {literal_prefix(each) for each in patterns}
    # Start at the deepest directory all patterns share literally, and stop descending where
    # no pattern could match any deeper (no `**`).
    common = os.path.commonpath(list(prefixes)) if all(prefixes) else ""
    walk_start = start / common if common else start
    depths = [None if "**" in each else len(each.strip("/").split("/")) for each in patterns]
    max_depth = None if None in depths else max(d for d in depths if d is not None)
    if max_depth is not None and common:
        max_depth -= len(common.split("/"))
    if not walk_start.is_dir():
        return [], 0
    for relative, entry in walk_files(root, walk_start, hidden=hidden, max_depth=max_depth):
        inner = relative if start_rel == "." else relative[len(start_rel) + 1 :]
        inner = inner.replace(os.sep, "/")
        if any(regex.match(inner) for regex in regexes):
            try:
                found.append(FoundFile(relative.replace(os.sep, "/"), entry.stat().st_mtime))
            except OSError:
                continue
    found.sort(key=lambda item: (-item.mtime, item.relative))
    return found[:limit], len(found)


# -- grep -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GrepHit:
    path: str
    line: int
    text: str


@dataclass(frozen=True)
class GrepResult:
    """The first `limit` hits in (path, line) order, and how many there were in all."""

    hits: list[GrepHit]
    total: int
    files: int


def _cut(hits: list[GrepHit], limit: int) -> GrepResult:
    # ordered by the path's bytes, as ripgrep's output is (differs from str order only for
    # names that are not valid UTF-8, which os.scandir hands over with escape surrogates)
    hits.sort(key=lambda hit: (os.fsencode(hit.path), hit.line))
    files = len({hit.path for hit in hits}) if len(hits) > limit else 0
    return GrepResult(hits[:limit], len(hits), files)


# Constructs that can match on a lone line yet not inside the whole text: start/end of string
# anchors, negative look-arounds, and atomic groups / possessive quantifiers (which may swallow
# a newline and never give it back). With any of them, every line is matched on its own.
_NO_PREFILTER = re.compile(r"\\A|\\Z|\(\?<?!|\(\?>|[*+?}]\+")


def grep_python(
    root: Path,
    start: Path,
    regex: re.Pattern[str],
    *,
    include: str | None,
    limit: int,
    timeout: float,
) -> GrepResult:
    """Pure-Python grep with the ripgrep contract described in the module docstring.

    The time limit is checked between files (one file's regex run cannot be interrupted),
    and raises `GrepTimeout` like the ripgrep engine.
    """
    deadline = time.monotonic() + timeout
    includes = expand_braces(include) if include else None
    prefilter = None
    if not _NO_PREFILTER.search(regex.pattern):
        prefilter = re.compile(regex.pattern, regex.flags | re.MULTILINE)
    hits: list[GrepHit] = []
    if start.is_file():
        files: Iterator[tuple[str, str]] = iter([(os.path.relpath(start, root), str(start))])
    else:
        files = (
            (relative, entry.path)
            for relative, entry in walk_files(root, start)
            if includes is None or any(fnmatchcase(entry.name, each) for each in includes)
        )
    for relative, full in files:
        if time.monotonic() > deadline:
            raise GrepTimeout(f"the search took longer than {timeout:g} s")
        try:
            with open(full, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        text = _decode_like_ripgrep(data)
        if text is None:
            continue
        display = relative.replace(os.sep, "/")
        if prefilter is None:
            hits += _grep_lines(text, regex, display)
        else:
            hits += _grep_jumping(text, regex, prefilter, display)
    return _cut(hits, limit)


def _grep_lines(text: str, regex: re.Pattern[str], display: str) -> list[GrepHit]:
    """Every line of `text` through `regex`: the reference semantics."""
    lines = text.split("\n") if text else []  # an empty file has no line at all
    if text.endswith("\n"):
        lines.pop()  # the empty string after the final "\n" is not a line
    search = regex.search
    return [
        GrepHit(display, number, line)
        for number, line in enumerate(lines, start=1)
        if search(line) is not None
    ]


def _grep_jumping(
    text: str, regex: re.Pattern[str], multiline: re.Pattern[str], display: str
) -> list[GrepHit]:
    """Same result as `_grep_lines`, visiting only the lines the whole-text search lands on.

    `multiline` (the pattern with re.MULTILINE) run over the whole text finds every line the
    pattern matches on its own, possibly plus a few more (a match may span a newline), never
    fewer: the constructs for which that fails are excluded by `_NO_PREFILTER`. So: search the
    whole text (in C), check the line the match starts on against the per-line semantics, and
    search again from the start of the next line. Files without a match cost one C pass.
    """
    hits: list[GrepHit] = []
    size = len(text)
    number = 1
    counted_to = 0
    position = 0
    search = multiline.search
    while position < size:
        found = search(text, position)
        if found is None:
            break
        line_start = text.rfind("\n", 0, found.start()) + 1
        if line_start >= size:
            break  # only the empty string after the final "\n" is left: not a line
        number += text.count("\n", counted_to, line_start)
        counted_to = line_start
        line_end = text.find("\n", line_start)
        if line_end == -1:
            line_end = size
        line = text[line_start:line_end]
        if regex.search(line) is not None:
            hits.append(GrepHit(display, number, line))
        position = line_end + 1
    return hits


def _decode_like_ripgrep(data: bytes) -> str | None:
    """The text ripgrep would search in `data`, or None for a binary file.

    ripgrep sniffs a byte-order mark: UTF-16 (either order) is transcoded before searching and
    a UTF-8 BOM is dropped; a NUL byte in what remains makes the file binary.
    """
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        text = data.decode("utf-16", errors="replace")
        return None if "\x00" in text else text
    if b"\x00" in data:
        return None
    text = data.decode("utf-8", errors="replace")
    return text[1:] if text.startswith("\ufeff") else text


class RipgrepUnusable(Exception):  # noqa: N818 - a signal, not an error for the caller
    """ripgrep refused the pattern (a Python-only construct): use the Python engine."""


_BINARY_WARNING = b": WARNING: stopped searching binary file"


class GrepTimeout(Exception):  # noqa: N818 - reported to the model as a retriable error
    """ripgrep ran past its time limit (a Python rerun would only take longer)."""


def ripgrep_path() -> str | None:
    return shutil.which("rg")


def grep_ripgrep(
    rg: str,
    root: Path,
    start: Path,
    regex: re.Pattern[str],
    *,
    include: str | None,
    timeout: float,
    limit: int,
) -> GrepResult:
    """Run ripgrep with flags matching `grep_python`; raise `RipgrepUnusable` if it refuses."""
    args = [
        rg,
        "--no-config",
        "--no-ignore",
        "--no-messages",
        "--color=never",
        "--line-number",
        "--with-filename",
        "--no-heading",
        "--null",
    ]
    if regex.flags & re.IGNORECASE:
        args.append("--ignore-case")
    if include:
        args += ["--glob", include]
    args += ["--regexp", regex.pattern]
    if start != root:
        args += ["--", os.path.relpath(start, root)]
    try:
        done = subprocess.run(args, cwd=root, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise GrepTimeout(f"the search took longer than {timeout:g} s") from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise RipgrepUnusable(str(exc)) from exc
    if done.returncode not in (0, 1):
        raise RipgrepUnusable(done.stderr.decode("utf-8", errors="replace"))
    # rg prints each file's matches together and in line order, so a stable sort of the
    # records on their path alone gives (path, line) order; only the records shown are
    # then parsed, which keeps a broad pattern's thousands of matches cheap.
    records = [record for record in done.stdout.split(b"\n") if b"\x00" in record]
    paths = [record.partition(b"\x00")[0] for record in records]
    if _BINARY_WARNING in done.stdout:
        # rg met a NUL byte after printing some matches of a big file (it reads in chunks);
        # the file is binary by our contract, so its matches are dropped, as Python does
        binary = {
            record.partition(_BINARY_WARNING)[0]
            for record in done.stdout.split(b"\n")
            if _BINARY_WARNING in record and b"\x00" not in record
        }
        kept = [index for index, path in enumerate(paths) if path not in binary]
        records = [records[index] for index in kept]
        paths = [paths[index] for index in kept]
    order = sorted(range(len(records)), key=paths.__getitem__)
    # every record holding a NUL is a match ("path\0line:text"): only the shown ones are parsed
    total = len(records)
    hits: list[GrepHit] = []
    for index in order[:limit]:
        number, _, text = records[index].partition(b"\x00")[2].partition(b":")
        path = os.fsdecode(paths[index])  # the same str os.scandir gives the Python engine
        hits.append(GrepHit(path, int(number), text.decode("utf-8", errors="replace")))
    files = len(set(paths)) if total > limit else 0
    return GrepResult(hits, total, files)


def format_hits(result: GrepResult, *, pattern: str, where: str) -> str:
    """The text both engines return: `path:line:text`, then a footer when cut."""
    if not result.total:
        place = "the workspace" if where == "." else where
        return f"No matches for /{pattern}/ in {place}."
    lines = []
    for hit in result.hits:
        text = hit.text.rstrip("\r")
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + "…"
        lines.append(f"{hit.path}:{hit.line}:{text}")
    if result.total > len(result.hits):
        lines.append(
            f"[showing {len(result.hits)} of {result.total} matches in {result.files} files; "
            "narrow the pattern, the path or the include filter to see the rest]"
        )
    return "\n".join(lines)
