"""`thread/list`'s `projectId` filter.

A project (the reference's `project/*` methods: a name, root folders, and the threads filed in
it by `project/import` or `thread/start`'s `projectId`) is not kept by this server, so no
thread is in one: `projectId: null` (the threads in no project) lists every thread, and a
project id names no project. The errors are the reference's for an id it does not know.
"""

from __future__ import annotations

from codex_lsp.api.port import INVALID_PARAMS, ApiError
from codex_lsp.protocol.threads.models import ThreadListParams


def check_project_filter(params: ThreadListParams) -> None:
    """Raise the reference's invalid-params error for a `projectId` that names no project."""
    if params.project_id is None:
        return
    if not params.project_id:
        raise ApiError(INVALID_PARAMS, "projectId must not be empty")
    raise ApiError(INVALID_PARAMS, f"project not found: {params.project_id}")
