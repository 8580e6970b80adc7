"""Text surgery: the edit engine's public face, where the rest of the package imports from.

The engine is pure string work (no filesystem), so the tool layer can compute every new file
content in memory first and only then commit, which is how `workspace_multi_edit` and
`workspace_patch` stay all-or-nothing. Its parts live in modules named for what they are:

- `fuzzy_match`: `EditMatcher`, the find-and-replace cascade (exact to fuzzy), its results
  and errors;
- `unified_diff`: `parse_patch`, `FilePatch`, `Hunk` and `apply_file_patch`;
- `line_endings`: `detect_line_ending` and `normalise_endings`.

`EditItem`, one operation of `workspace_multi_edit`, is defined here.
"""

from __future__ import annotations

# The predecessor's module exposed TYPE_CHECKING from here; the explicit re-export keeps
# that name importable now that nothing in this module needs it.
from typing import TYPE_CHECKING as TYPE_CHECKING

from pydantic import BaseModel, Field

from akgentic.tool.workspace.fuzzy_match import (
    EDIT_STRATEGIES,
    FUZZY_WORK_BUDGET,
    AmbiguousEditError,
    EditError,
    EditMatcher,
    EditNotFoundError,
    EditResult,
    MatchResult,
)
from akgentic.tool.workspace.line_endings import detect_line_ending, normalise_endings
from akgentic.tool.workspace.unified_diff import (
    FilePatch,
    Hunk,
    PatchError,
    apply_file_patch,
    parse_patch,
)

__all__ = [
    "EDIT_STRATEGIES",
    "FUZZY_WORK_BUDGET",
    "AmbiguousEditError",
    "EditError",
    "EditItem",
    "EditMatcher",
    "EditNotFoundError",
    "EditResult",
    "FilePatch",
    "Hunk",
    "MatchResult",
    "PatchError",
    "apply_file_patch",
    "detect_line_ending",
    "normalise_endings",
    "parse_patch",
]


class EditItem(BaseModel):
    """One find-and-replace operation of `workspace_multi_edit`."""

    path: str = Field(description="File to edit, relative to the workspace root.")
    old_string: str = Field(description="Text to find (include enough context to be unique).")
    new_string: str = Field(description="Text to put in its place.")
    replace_all: bool = Field(default=False, description="Replace every occurrence.")
