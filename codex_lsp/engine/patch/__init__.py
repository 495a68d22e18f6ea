"""apply_patch: the file-editing tool of the Codex engine.

`plan_patch` parses and verifies a patch against a `FileReader` (the disk, or an editor's unsaved
buffers) and returns a `PatchPlan` holding every file's old and new text; `apply_plan` writes a
plan through a `FileWriter`. `detect_apply_patch` finds patches sent through the shell tool.
"""

from .apply import (
    NO_FILES_MODIFIED,
    apply_patch_to_disk,
    apply_plan,
    plan_patch,
    resolve_patch_path,
)
from .diff import LineEdit, unified_diff, unified_diff_of_edits
from .errors import VERIFICATION_PREFIX, PatchApplyError, PatchParseError, PatchWriteError
from .grammar import (
    APPLY_PATCH_FREEFORM_DESCRIPTION,
    APPLY_PATCH_FUNCTION_DESCRIPTION,
    APPLY_PATCH_LARK_GRAMMAR,
)
from .heredoc import (
    RAW_PATCH_MESSAGE,
    ApplyPatchInvocation,
    detect_apply_patch,
    is_raw_patch,
    parse_heredoc_script,
)
from .parser import AddFile, DeleteFile, Hunk, UpdateChunk, UpdateFile, parse_patch
from .plan import FileOperation, OperationKind, PatchPlan
from .seek import seek_sequence
from .workspace import (
    DiskFiles,
    DiskTransaction,
    FileReader,
    FileWriter,
    RollbackError,
    TransactionalWriter,
)

__all__ = [
    "APPLY_PATCH_FREEFORM_DESCRIPTION",
    "APPLY_PATCH_FUNCTION_DESCRIPTION",
    "APPLY_PATCH_LARK_GRAMMAR",
    "NO_FILES_MODIFIED",
    "RAW_PATCH_MESSAGE",
    "VERIFICATION_PREFIX",
    "AddFile",
    "ApplyPatchInvocation",
    "DeleteFile",
    "DiskFiles",
    "DiskTransaction",
    "FileOperation",
    "FileReader",
    "FileWriter",
    "Hunk",
    "LineEdit",
    "OperationKind",
    "PatchApplyError",
    "PatchParseError",
    "PatchPlan",
    "PatchWriteError",
    "RollbackError",
    "TransactionalWriter",
    "UpdateChunk",
    "UpdateFile",
    "apply_patch_to_disk",
    "apply_plan",
    "detect_apply_patch",
    "is_raw_patch",
    "parse_heredoc_script",
    "parse_patch",
    "plan_patch",
    "resolve_patch_path",
    "seek_sequence",
    "unified_diff",
    "unified_diff_of_edits",
]
