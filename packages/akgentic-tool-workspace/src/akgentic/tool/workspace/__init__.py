"""WorkspaceTool: a shared, sandboxed team directory for akgentic agents.

The card is `WorkspaceTool`; its capabilities are configured with the `Workspace*` params.
The storage (`Filesystem`, `get_workspace`), the edit engine (`EditMatcher`, `parse_patch`)
and the document reader (`DocumentReader`) are public for callers that want them directly.
"""

from akgentic.tool.workspace.edit import (
    EDIT_STRATEGIES,
    AmbiguousEditError,
    EditError,
    EditItem,
    EditMatcher,
    EditNotFoundError,
    EditResult,
    FilePatch,
    Hunk,
    PatchError,
    apply_file_patch,
    parse_patch,
)
from akgentic.tool.workspace.readers import (
    DOCUMENT_EXTENSIONS,
    IMAGE_EXTENSIONS,
    TEXT_EXTENSIONS,
    DocumentReader,
    DocumentReaderUnavailable,
)
from akgentic.tool.workspace.tool import (
    WorkspaceDelete,
    WorkspaceEdit,
    WorkspaceGlob,
    WorkspaceGrep,
    WorkspaceList,
    WorkspaceMkdir,
    WorkspaceMultiEdit,
    WorkspacePatch,
    WorkspaceRead,
    WorkspaceTool,
    WorkspaceView,
    WorkspaceWrite,
)
from akgentic.tool.workspace.workspace import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_WORKSPACE_ID,
    Filesystem,
    Workspace,
    get_workspace,
)

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_WORKSPACE_ID",
    "DOCUMENT_EXTENSIONS",
    "EDIT_STRATEGIES",
    "IMAGE_EXTENSIONS",
    "TEXT_EXTENSIONS",
    "AmbiguousEditError",
    "DocumentReader",
    "DocumentReaderUnavailable",
    "EditError",
    "EditItem",
    "EditMatcher",
    "EditNotFoundError",
    "EditResult",
    "FilePatch",
    "Filesystem",
    "Hunk",
    "PatchError",
    "Workspace",
    "WorkspaceDelete",
    "WorkspaceEdit",
    "WorkspaceGlob",
    "WorkspaceGrep",
    "WorkspaceList",
    "WorkspaceMkdir",
    "WorkspaceMultiEdit",
    "WorkspacePatch",
    "WorkspaceRead",
    "WorkspaceTool",
    "WorkspaceView",
    "WorkspaceWrite",
    "apply_file_patch",
    "get_workspace",
    "parse_patch",
]
