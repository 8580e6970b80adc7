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
import contextlib
import errno
import os
import re
import resource
import shutil
import stat
import subprocess
import time
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

import regex as regex_module

from akgentic.tool.workspace._wording import counted

#: Longest line text shown in a grep result; longer lines are cut with an ellipsis.
MAX_LINE_CHARS = 2000

# Sidecars written by this package: `.report.pdf.md` (converted document) and
# `.photo.png.1568px.png` (resized image); they belong to their source, not to the listing.
_SIDECAR_RE = re.compile(r"^\.(?P<source>.+?)(?:\.md|\.\d+px\.(?:png|jpeg|webp|gif))$")
_TEMP_RE = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


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
                body = pattern[start + 1 : index]
                options = _split_top_level(body)
                if len(options) < 2:
                    # One option: the braces stay literal, as in a shell, but the groups
                    # inside still expand (`a{b{c,d}}` -> `a{bc}`, `a{bd}`).
                    inner = expand_braces(body)
                    if inner == [body]:
                        continue
                    options = ["{" + option + "}" for option in inner]
                # The text after the group is expanded once, not once per option: with
                # options that expand alike (`{,}{,}...`) that made the work exponential while
                # the distinct results, all the cap counts, stayed one.
                head, rests = pattern[:start], expand_braces(pattern[index + 1 :])
                expanded: dict[str, None] = {}
                for option in options:
                    for middle in expand_braces(option):
                        for rest in rests:
                            expanded[head + middle + rest] = None
                        if len(expanded) > MAX_EXPANSIONS:
                            raise BraceExpansionError(
                                f"{pattern!r} expands to more than {MAX_EXPANSIONS} patterns"
                            )
                return list(expanded)
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


#: Deepest directory level a walk descends to (each level holds one open descriptor).
MAX_WALK_DEPTH = 256

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY


def is_internal_at(dir_fd: int, name: str) -> bool:
    """`is_internal` for an entry of the directory open as `dir_fd`."""
    if not name.startswith("."):
        return False
    if _TEMP_RE.match(name):
        return True
    match = _SIDECAR_RE.match(name)
    if match is None:
        return False
    try:
        os.stat(match.group("source"), dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return True


# A folder or file removed, replaced or swapped for a link (O_NOFOLLOW refuses it with
# ELOOP) since its parent was listed: skipped without a word, as if the walk came later.
GONE_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP})


def walk_files(
    dir_fd: int,
    prefix: str,
    *,
    hidden: bool = False,
    max_depth: int | None = None,
    unread: list[str] | None = None,
    shown: str | None = None,
) -> Iterator[tuple[str, int, os.DirEntry[str]]]:
    """Regular files under the directory `dir_fd`, as (relative path, parent fd, entry).

    `prefix` is the directory's path relative to the workspace root ("." for the root).
    Every directory is opened by descriptor from its parent with `O_NOFOLLOW`, so a symlink
    (even one swapped in during the walk) is never entered; the parent descriptor yielded
    with a file stays open until the caller asks for the next one. A folder that is there
    but cannot be read (no permission, out of descriptors) is added to `unread` as
    ``"<path>/: <reason>"``, so a caller can say what its answer does not cover; `<path>`
    starts with `shown` (by default `prefix`) when the yielded paths are not the ones to show.
    """
    limit = MAX_WALK_DEPTH if max_depth is None else min(max_depth, MAX_WALK_DEPTH)
    walked = _as_prefix(prefix)
    label = walked if shown is None else _as_prefix(shown)
    notes = _Unread([] if unread is None else unread, label, walked)
    yield from _walk(dir_fd, walked, hidden, 0, limit, notes)


def _as_prefix(path: str) -> str:
    return "" if path in ("", ".") else path + "/"


@dataclass(frozen=True)
class _Unread:
    """Where a walk notes what it could not read: each path noted starts with `shown` in place
    of the `walked` prefix the walk's own paths start with."""

    found: list[str]
    shown: str
    walked: str = ""

    def note(self, relative: str, exc: OSError) -> None:
        if exc.errno not in GONE_ERRNOS:
            path = self.shown + relative.removeprefix(self.walked)
            self.found.append(f"{path or './'}: {exc.strerror or exc}")


_UNREAD_SHOWN = 5  # places a note names before it only counts the rest


def unread_note(unread: list[str], what: str) -> str:
    """The footer naming what a search could not read; `what` is what it left out."""
    unread = sorted(unread)  # walk order is the filesystem's: sorted, the note reads the same
    shown = "; ".join(unread[:_UNREAD_SHOWN])
    if len(unread) > _UNREAD_SHOWN:
        shown += f"; and {len(unread) - _UNREAD_SHOWN} more"
    return f"[could not read {shown}; {what}]"


def _walk(
    dir_fd: int, prefix: str, hidden: bool, depth: int, max_depth: int, unread: _Unread
) -> Iterator[tuple[str, int, os.DirEntry[str]]]:
    try:
        with os.scandir(dir_fd) as scan:
            entries = list(scan)
    except OSError as exc:
        unread.note(prefix, exc)
        return
    subdirs: list[str] = []
    for entry in entries:
        name = entry.name
        if name.startswith(".") and (not hidden or is_internal_at(dir_fd, name)):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                if depth + 1 < max_depth:
                    subdirs.append(name)
            elif entry.is_file(follow_symlinks=False):
                yield prefix + name, dir_fd, entry
        except OSError:
            continue
    for name in subdirs:
        try:
            child = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        except OSError as exc:
            unread.note(f"{prefix}{name}/", exc)
            continue
        try:
            yield from _walk(child, prefix + name + "/", hidden, depth + 1, max_depth, unread)
        finally:
            os.close(child)


def glob_files(
    start_fd: int, start_rel: str, pattern: str, *, limit: int, unread: list[str] | None = None
) -> tuple[list[FoundFile], int]:
    """Files under the directory `start_fd` matching `pattern` (relative to it), newest first.

    `start_rel` is that directory's path from the workspace root; returned paths are from the
    root. Returns at most `limit` files and the total number that matched. Folders that are
    there but could not be read are added to `unread` (see `walk_files`).
    """
    patterns = expand_braces(pattern)
    regexes = [glob_to_regex(each) for each in patterns]
    hidden = any(part.startswith(".") for each in patterns for part in each.split("/"))
    prefixes = {literal_prefix(each) for each in patterns}
    # Start at the deepest directory all patterns share literally, and stop descending where
    # no pattern could match any deeper (no `**`). The literal part is opened component by
    # component without following links, like every other directory of the walk.
    common = os.path.commonpath(list(prefixes)) if all(prefixes) else ""
    depths = [None if "**" in each else len(each.strip("/").split("/")) for each in patterns]
    max_depth = None if None in depths else max(d for d in depths if d is not None)
    common_parts = [part for part in common.split("/") if part not in ("", ".")]
    if max_depth is not None:
        max_depth -= len(common_parts)
    base = _as_prefix(start_rel)
    inner_prefix = "/".join(common_parts)
    walk_fd = _open_below(start_fd, common_parts, _Unread([] if unread is None else unread, base))
    if walk_fd is None:
        return [], 0
    found: list[FoundFile] = []
    try:
        for inner, _, entry in walk_files(
            walk_fd,
            inner_prefix,
            hidden=hidden,
            max_depth=max_depth,
            unread=unread,
            shown=base + inner_prefix if inner_prefix else start_rel,
        ):
            if any(regex.match(inner) for regex in regexes):
                try:
                    found.append(
                        FoundFile(base + inner, entry.stat(follow_symlinks=False).st_mtime)
                    )
                except OSError:
                    continue
    finally:
        os.close(walk_fd)
    found.sort(key=lambda item: (-item.mtime, item.relative))
    return found[:limit], len(found)


def _open_below(dir_fd: int, parts: list[str], unread: _Unread) -> int | None:
    """A new descriptor of `parts` under `dir_fd`, every step without following a link;
    ``None`` when one step is missing or cannot be opened (then noted in `unread`)."""
    current = os.dup(dir_fd)
    for depth, part in enumerate(parts):
        try:
            child = os.open(part, _DIR_FLAGS, dir_fd=current)
        except OSError as exc:
            os.close(current)
            unread.note("/".join(parts[: depth + 1]) + "/", exc)
            return None
        os.close(current)
        current = child
    return current


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

#: A grep source: (path shown for the file, open descriptor of a regular file). The consumer
#: closes each descriptor.
GrepSources = Generator[tuple[str, int], None, None]

# Files handed to one ripgrep run by descriptor (each stays open until that run ends): as
# many as half the descriptor limit allows, since every extra run costs a process start.
_RG_BATCH = max(64, min(8192, resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 2))
# How much of a file the Python engine holds at a time; lines are never split across blocks.
_BLOCK = 1 << 20
# The Python engine gives up on a file whose single line outgrows this (ripgrep does not).
_MAX_LINE_BYTES = 16 << 20


def tree_sources(dir_fd: int, prefix: str, include: str | None, unread: list[str]) -> GrepSources:
    """Every regular file under the directory `dir_fd` (which this closes), opened safely.

    Files are opened by name from their directory's descriptor with `O_NOFOLLOW` and
    `O_NONBLOCK`, and checked on the descriptor: a symlink or FIFO swapped in after the
    listing is skipped, never followed or waited on. A file with several hard links is
    skipped too (it may be shared with a place outside the workspace). Folders and files
    that are there but cannot be read are added to `unread` (see `walk_files`).
    """
    includes = expand_braces(include) if include else None
    notes = _Unread(unread, "")
    try:
        for relative, parent, entry in walk_files(dir_fd, prefix, unread=notes.found):
            if includes is not None and not any(fnmatchcase(entry.name, g) for g in includes):
                continue
            try:
                fd = os.open(entry.name, _FILE_FLAGS, dir_fd=parent)
            except OSError as exc:
                notes.note(relative, exc)
                continue
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
                os.close(fd)
                continue
            yield relative, fd  # O_NONBLOCK is meaningless for a regular file: left set
    finally:
        os.close(dir_fd)


def single_file_source(fd: int, display: str) -> GrepSources:
    """One already opened and checked file as a grep source."""
    yield display, fd


class _Deadline:
    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.at = time.monotonic() + timeout

    def left(self) -> float:
        remaining = self.at - time.monotonic()
        if remaining <= 0:
            raise GrepTimeout(f"the search took longer than {self.timeout:g} s")
        return remaining


def run_grep(
    rg: str | None,
    sources: GrepSources,
    regex: re.Pattern[str],
    *,
    limit: int,
    timeout: float,
    max_line_chars: int = MAX_LINE_CHARS,
    unread: list[str] | None = None,
) -> GrepResult:
    """Search `sources` with ripgrep when given and usable, else with the Python engine.

    Both engines get the files as descriptors opened by the walk, never as paths to look up
    again; every descriptor is closed before this returns, and the walk stops at a timeout.
    A file that fails to read (an I/O error) is added to `unread` and the search goes on.
    """
    deadline = _Deadline(timeout)
    python = _PythonGrep(regex, deadline)
    use_rg = rg is not None and _PINNED_FDS
    hits: list[GrepHit] = []
    try:
        for batch in _batches(sources, _RG_BATCH if use_rg else 1):
            try:
                if use_rg:
                    assert rg is not None
                    try:
                        hits += _ripgrep_batch(rg, batch, regex, deadline, max_line_chars)
                        continue
                    except RipgrepUnusable:
                        use_rg = False  # a pattern only Python understands: rerun in Python
                for display, fd in batch:
                    try:
                        hits += python.search(display, fd)
                    except OSError as exc:
                        if unread is not None:
                            unread.append(f"{display}: {exc.strerror or exc}")
            finally:
                for _, fd in batch:
                    _close(fd)
    finally:
        sources.close()
    return _cut(hits, limit)


def _close(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)


def _batches(sources: GrepSources, size: int) -> Iterator[list[tuple[str, int]]]:
    batch: list[tuple[str, int]] = []
    for item in sources:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


# ripgrep is handed "/proc/self/fd/N": the kernel opens exactly the file the descriptor holds
_PINNED_FDS = os.path.isdir("/proc/self/fd")


class _PythonGrep:
    """The pure-Python engine: the `regex` module, bounded in time, a block at a time.

    `regex` (a drop-in for `re` syntax) takes a timeout and releases the GIL while it
    matches, so a catastrophic pattern ends at the deadline instead of freezing every
    thread of the process, as `re` would.
    """

    def __init__(self, regex: re.Pattern[str], deadline: _Deadline) -> None:
        self.deadline = deadline
        self.line = _compile(regex.pattern, regex.flags)
        self.whole = None
        if not _NO_PREFILTER.search(regex.pattern):
            self.whole = _compile(regex.pattern, regex.flags | re.MULTILINE)

    def search(self, display: str, fd: int) -> list[GrepHit]:
        self.deadline.left()
        display = display.replace(os.sep, "/")
        hits: list[GrepHit] = []
        number = 0
        for text, lines in _text_blocks(fd):
            if text is None:
                return []  # binary: nothing from this file, as ripgrep does
            found = (
                _grep_lines(text, self.line, display, self.deadline)
                if self.whole is None
                else _grep_jumping(text, self.line, self.whole, display, self.deadline)
            )
            hits += [GrepHit(h.path, h.line + number, h.text) for h in found] if number else found
            number += lines
        return hits


def _compile(pattern: str, flags: int) -> Any:
    try:
        return regex_module.compile(pattern, flags)
    except (regex_module.error, ValueError, TypeError):
        return re.compile(pattern, flags)  # a construct only `re` accepts: unbounded, but rare


def _text_blocks(fd: int) -> Iterator[tuple[str | None, int]]:
    """Decoded blocks of whole lines and the newlines each holds; (None, 0) once binary."""
    # closefd=False rather than a dup: reading needs no spare descriptor (run_grep closes fd)
    with os.fdopen(fd, "rb", closefd=False) as handle:
        carry = handle.read(_BLOCK)
        if carry[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            text = (carry + handle.read(_MAX_LINE_BYTES)).decode("utf-16", errors="replace")
            yield (None, 0) if "\x00" in text else (text, text.count("\n"))
            return
        if carry.startswith(b"\xef\xbb\xbf"):
            carry = carry[3:]
        while carry:
            if b"\x00" in carry:
                yield None, 0
                return
            more = handle.read(_BLOCK)
            cut = carry.rfind(b"\n") + 1 if more else len(carry)
            if cut == 0:
                if len(carry) < _MAX_LINE_BYTES:
                    carry += more  # no whole line yet: read on
                    continue
                cut = len(carry)  # an absurdly long line: searched in pieces
            block, carry = carry[:cut], carry[cut:] + more
            yield block.decode("utf-8", errors="replace"), block.count(b"\n")


def _timed(search: Any, text: str, position: int, deadline: _Deadline) -> Any:
    try:
        return search(text, position, concurrent=True, timeout=deadline.left())
    except TypeError:  # the `re` fallback takes neither argument
        return search(text, position)
    except TimeoutError:
        raise GrepTimeout(f"the search took longer than {deadline.timeout:g} s") from None


def _grep_lines(text: str, regex: Any, display: str, deadline: _Deadline) -> list[GrepHit]:
    """Every line of `text` through `regex`: the reference semantics."""
    lines = text.split("\n") if text else []  # an empty file has no line at all
    if text.endswith("\n"):
        lines.pop()  # the empty string after the final "\n" is not a line
    return [
        GrepHit(display, number, line)
        for number, line in enumerate(lines, start=1)
        if _timed(regex.search, line, 0, deadline) is not None
    ]


def _grep_jumping(
    text: str, regex: Any, multiline: Any, display: str, deadline: _Deadline
) -> list[GrepHit]:
    """Same result as `_grep_lines`, visiting only the lines the whole-text search lands on.

    `multiline` (the pattern with MULTILINE) run over the whole text finds every line the
    pattern matches on its own, possibly plus a few more (a match may span a newline), never
    fewer: the constructs for which that fails are excluded by `_NO_PREFILTER`. So: search the
    whole text, check the line the match starts on against the per-line semantics, and search
    again from the start of the next line. Blocks without a match cost one C pass.
    """
    hits: list[GrepHit] = []
    size = len(text)
    number = 1
    counted_to = 0
    position = 0
    while position < size:
        found = _timed(multiline.search, text, position, deadline)
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
        if _timed(regex.search, line, 0, deadline) is not None:
            hits.append(GrepHit(display, number, line))
        position = line_end + 1
    return hits


class RipgrepUnusable(Exception):  # noqa: N818 - a signal, not an error for the caller
    """ripgrep refused the pattern (a Python-only construct): use the Python engine."""


# What ripgrep prints instead of (or after) the matches of a file holding a NUL byte: the
# first for a file it found itself, the second for a file named on its command line.
_BINARY_MARKERS = (b": WARNING: stopped searching binary file", b": binary file matches (")


class GrepTimeout(Exception):  # noqa: N818 - reported to the model as a retriable error
    """A search ran past its time limit."""


def ripgrep_path() -> str | None:
    return shutil.which("rg")


def _ripgrep_batch(
    rg: str,
    batch: list[tuple[str, int]],
    regex: re.Pattern[str],
    deadline: _Deadline,
    max_line_chars: int = MAX_LINE_CHARS,
) -> list[GrepHit]:
    """Run ripgrep over the files of `batch`, each named by its /proc/self/fd path."""
    args = [
        rg,
        "--no-config",
        "--no-messages",
        "--color=never",
        "--line-number",
        "--with-filename",
        "--no-heading",
        "--null",
        # a line is shown cut to max_line_chars anyway: this bounds what a huge line costs
        # (in bytes: up to 4 per character, so the cut always falls inside the preview)
        f"--max-columns={max(4096, 4 * max_line_chars + 4)}",
        "--max-columns-preview",
    ]
    if regex.flags & re.IGNORECASE:
        args.append("--ignore-case")
    names = {f"/proc/self/fd/{fd}".encode(): display for display, fd in batch}
    args += ["--regexp", regex.pattern, "--", *(name.decode() for name in names)]
    try:
        done = subprocess.run(
            args,
            capture_output=True,
            timeout=deadline.left(),
            check=False,
            pass_fds=[fd for _, fd in batch],
        )
    except subprocess.TimeoutExpired as exc:
        raise GrepTimeout(f"the search took longer than {deadline.timeout:g} s") from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise RipgrepUnusable(str(exc)) from exc
    if done.returncode not in (0, 1):
        raise RipgrepUnusable(done.stderr.decode("utf-8", errors="replace"))
    output = done.stdout.split(b"\n")
    binary = {
        record.partition(marker)[0]
        for record in output
        if b"\x00" not in record
        for marker in _BINARY_MARKERS
        if marker in record
    }
    hits: list[GrepHit] = []
    for record in output:
        path, nul, rest = record.partition(b"\x00")
        if not nul or path in binary or path not in names:
            continue
        number, _, text = rest.partition(b":")
        hits.append(GrepHit(names[path], int(number), text.decode("utf-8", errors="replace")))
    return hits


def format_hits(
    result: GrepResult, *, pattern: str, where: str, max_line_chars: int = MAX_LINE_CHARS
) -> str:
    """The text both engines return: `path:line:text`, then a footer when cut."""
    if not result.total:
        place = "the workspace" if where == "." else where
        return f"No matches for /{pattern}/ in {place}."
    lines = []
    for hit in result.hits:
        text = hit.text.rstrip("\r")
        if len(text) > max_line_chars:
            text = text[:max_line_chars] + "…"
        lines.append(f"{hit.path}:{hit.line}:{text}")
    if result.total > len(result.hits):
        lines.append(
            f"[showing {len(result.hits)} of {result.total} matches in "
            f"{counted(result.files, 'file')}; "
            "narrow the pattern, the path or the include filter to see the rest]"
        )
    return "\n".join(lines)
