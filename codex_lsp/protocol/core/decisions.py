"""The user's answer to an approval request: one vocabulary from the editor to the exec.

`ReviewDecision`'s values are the core protocol's wire strings (the `exec_approval` and
`patch_approval` ops); the app-server v2 protocol spells the same four answers `accept`,
`acceptForSession`, `decline` and `cancel`. Each door turns what its client said into a
`ReviewDecision` once, and the engine acts on nothing else.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

V2Decision = Literal["accept", "acceptForSession", "decline", "cancel"]


class ReviewDecision(StrEnum):
    APPROVED = "approved"
    # Approved, and the same request is not asked again in this thread.
    APPROVED_FOR_SESSION = "approved_for_session"
    # Not run; the model is told and the turn goes on.
    DENIED = "denied"
    # Nobody answered in time: as denied.
    TIMED_OUT = "timed_out"
    # Not run, and the whole turn stops.
    ABORT = "abort"

    @property
    def approves(self) -> bool:
        return self in (ReviewDecision.APPROVED, ReviewDecision.APPROVED_FOR_SESSION)

    @property
    def v2(self) -> V2Decision:
        """The answer as the v2 protocol says it."""
        return _TO_V2[self]

    @classmethod
    def from_v2(cls, decision: V2Decision) -> ReviewDecision:
        return _FROM_V2[decision]


_TO_V2: dict[ReviewDecision, V2Decision] = {
    ReviewDecision.APPROVED: "accept",
    ReviewDecision.APPROVED_FOR_SESSION: "acceptForSession",
    ReviewDecision.DENIED: "decline",
    ReviewDecision.TIMED_OUT: "decline",
    ReviewDecision.ABORT: "cancel",
}
_FROM_V2: dict[V2Decision, ReviewDecision] = {
    "accept": ReviewDecision.APPROVED,
    "acceptForSession": ReviewDecision.APPROVED_FOR_SESSION,
    "decline": ReviewDecision.DENIED,
    "cancel": ReviewDecision.ABORT,
}
