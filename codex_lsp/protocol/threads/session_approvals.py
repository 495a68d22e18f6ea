"""What a thread allows without asking for the rest of its session, on the v2 wire (ours).

`thread/sessionApprovals/list` names each `acceptForSession` answer of a loaded thread, and each
"always allow commands starting with …" rule it goes by (saved in `rules/default.rules`);
`thread/sessionApprovals/revoke` takes one back by its id, after which the agent asks again (a
revoked rule also leaves the rules file).
The reference protocol has neither: its clients cannot see or take back such answers.
"""

from __future__ import annotations

from typing import Literal

from codex_lsp.protocol.common import V2Model
from codex_lsp.protocol.methods import MethodTable


class SessionApproval(V2Model):
    """One answer remembered for the session: a command as the user saw it, or a file."""

    id: str
    kind: Literal["command", "file"]
    description: str


class ThreadSessionApprovalsListParams(V2Model):
    thread_id: str


class ThreadSessionApprovalsListResponse(V2Model):
    approvals: list[SessionApproval]


class ThreadSessionApprovalsRevokeParams(V2Model):
    thread_id: str
    id: str


class ThreadSessionApprovalsRevokeResponse(V2Model):
    revoked: SessionApproval | None
    """What was taken back; null when the thread remembered nothing by that id."""


METHODS = MethodTable()
THREAD_SESSION_APPROVALS_LIST = METHODS.request(
    "thread/sessionApprovals/list",
    ThreadSessionApprovalsListParams,
    ThreadSessionApprovalsListResponse,
    extension=True,
)
THREAD_SESSION_APPROVALS_REVOKE = METHODS.request(
    "thread/sessionApprovals/revoke",
    ThreadSessionApprovalsRevokeParams,
    ThreadSessionApprovalsRevokeResponse,
    extension=True,
)
