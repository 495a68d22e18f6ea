"""`apply_patch`: verify the whole patch, decide on approval, land it through the Workspace."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Literal

import anyio

from codex_lsp.engine.approvals import TurnAbortRequested
from codex_lsp.engine.patch import (
    PatchApplyError,
    PatchPlan,
    detect_apply_patch,
    plan_patch,
)
from codex_lsp.engine.patch.confined import WriteConfinement
from codex_lsp.engine.patch.hunks import ChangeHunk, plan_hunks, without_hunks
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.engine.turn_context import TurnContext
from codex_lsp.engine.workspace import WorkspaceEditError
from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.events import (
    ApplyPatchApprovalRequestEvent,
    PatchApplyBeginEvent,
    PatchApplyEndEvent,
    TurnDiffEvent,
)
from codex_lsp.protocol.core.policy import AskForApproval, DangerFullAccess, ReadOnly
from codex_lsp.sandbox import RootMoved, paths_outside_writable_roots

REJECTED_BY_USER = "patch rejected by user"


def patch_text_from_call(call: ToolCall) -> str:
    if call.kind == "custom":
        return call.payload
    try:
        args = json.loads(call.payload or "{}")
    except json.JSONDecodeError as err:
        raise ToolError(f"failed to parse function arguments: {err}") from err
    text = args.get("input") if isinstance(args, dict) else None
    if not isinstance(text, str):
        raise ToolError("failed to parse function arguments: `input` must be a string")
    return text


async def handle_apply_patch(call: ToolCall) -> ToolOutput:
    return await apply_patch(call, patch_text_from_call(call), call.ctx.cwd)


def patch_from_shell(call: ToolCall, argv: list[str], cwd: Path) -> Awaitable[ToolOutput] | None:
    """A shell command that is really `apply_patch <<'EOF' ... EOF` runs as apply_patch."""
    found = detect_apply_patch(argv)
    if found is None:
        return None
    return apply_patch(call, found.patch, cwd / found.workdir if found.workdir else cwd)


PLAN_MODE_EDITS = (
    "Plan mode is read-only: no file can be changed. Put this change in your plan; the user "
    "leaves Plan mode to carry it out"
)


def assess_patch(plan: PatchPlan, ctx: TurnContext) -> tuple[str, str | None]:
    """("auto" | "ask" | "reject", reason) following the writable roots and the policy.

    The roots come from the session's cwd, never the patch's own directory: a patch
    sent through `shell_command` with `workdir: "/etc"` must not make `/etc` a root.
    Codex auto-approves an out-of-roots patch under `on-failure` because it applies
    patches inside the sandbox and escalates when that fails; patches here land through
    the Workspace unsandboxed, so that case asks up front instead.
    """
    if ctx.collaboration_mode == "plan":
        return "reject", PLAN_MODE_EDITS
    if ctx.approval_policy == AskForApproval.UNTRUSTED:
        return "ask", None
    if isinstance(ctx.sandbox_policy, DangerFullAccess):
        return "auto", None
    outside = paths_outside_writable_roots(plan.touched_paths(), ctx.sandbox_policy, ctx.cwd)
    if not outside:
        return "auto", None
    listed = ", ".join(str(path) for path in outside)
    if ctx.approval_policy == AskForApproval.NEVER:
        if isinstance(ctx.sandbox_policy, ReadOnly):
            return (
                "reject",
                "writing is blocked by read-only sandbox; rejected by user approval settings: "
                + listed,
            )
        return (
            "reject",
            f"writing outside of the project; rejected by user approval settings: {listed}",
        )
    if isinstance(ctx.sandbox_policy, ReadOnly):
        # Nothing is writable: a file inside the project is no more "outside" than any other.
        return "ask", f"the sandbox is read-only; the patch writes {listed}"
    return "ask", f"the patch writes outside the writable roots: {listed}"


def _moved_root(ctx: TurnContext) -> RootMoved | None:
    """Why the patch cannot be written: a writable root whose path leads elsewhere now
    (decided before anything is assessed, asked or handed to an editor)."""
    if isinstance(ctx.sandbox_policy, DangerFullAccess) or ctx.roots is None:
        return None
    try:
        ctx.roots.verify()
    except RootMoved as err:
        return err
    return None


def confine_patch(plan: PatchPlan, ctx: TurnContext) -> WriteConfinement | None:
    """Where the disk writer may put the patch's files: the writable roots, plus the
    paths outside them that are about to be put to the user, resolved now, at the
    check, so that whatever changes before the write cannot move them."""
    if isinstance(ctx.sandbox_policy, DangerFullAccess):
        return None
    outside = paths_outside_writable_roots(plan.touched_paths(), ctx.sandbox_policy, ctx.cwd)
    return WriteConfinement.for_patch(ctx.sandbox_policy, ctx.cwd, outside, roots=ctx.roots)


async def apply_patch(call: ToolCall, text: str, cwd: Path) -> ToolOutput:
    session = call.session
    started = time.monotonic()
    try:
        # Planning and diffing are linear in the files' size, but for a long file that is
        # still long enough to keep the event loop (and every other request) waiting. They
        # only read, so an interrupt need not wait for them: the turn ends at once.
        plan = await anyio.to_thread.run_sync(
            plan_patch, text, cwd, session.workspace, abandon_on_cancel=True
        )
    except PatchApplyError as err:
        return ToolOutput(err.model_message, success=False)
    original = plan
    moved = _moved_root(call.ctx)
    if moved is not None:
        return ToolOutput(f"patch rejected: {moved}", success=False)
    changes = await anyio.to_thread.run_sync(plan.changes, abandon_on_cancel=True)
    verdict, reason = assess_patch(plan, call.ctx)
    if verdict == "reject":
        # Shown to the user as a declined change with its reason, not only told to the model.
        session.emit(
            call.sub_id,
            PatchApplyBeginEvent(
                call_id=call.call_id, turn_id=call.sub_id, auto_approved=False, changes=changes
            ),
        )
        refusal = f"patch rejected: {reason}"
        session.emit(
            call.sub_id, _end(call, changes, success=False, status="declined", stderr=refusal)
        )
        return ToolOutput(refusal, success=False)
    plan = dataclasses.replace(plan, confinement=confine_patch(plan, call.ctx))
    paths = [str(path) for path in plan.touched_paths()]
    auto_approved = verdict == "auto" or session.approval_cache.paths_approved(paths)
    # An editor that shows each hunk for confirmation as it applies the change is the approval.
    review = not auto_approved and session.workspace.reviews_hunks(plan)
    declined: tuple[ChangeHunk, ...] = ()
    if not auto_approved and not review:
        session.emit(
            call.sub_id,
            ApplyPatchApprovalRequestEvent(
                call_id=call.call_id, turn_id=call.sub_id, changes=changes, reason=reason
            ),
        )
        decision = await session.approvals.ask(call.call_id)
        refused = session.declined_hunks.pop(call.call_id, [])
        if decision is ReviewDecision.ABORT:
            raise TurnAbortRequested
        if not decision.approves:
            session.emit(call.sub_id, _end(call, changes, success=False, status="declined"))
            return ToolOutput(REJECTED_BY_USER, success=False)
        if decision is ReviewDecision.APPROVED_FOR_SESSION:
            session.approval_cache.approve_paths(paths)
        if refused:
            plan, declined = await anyio.to_thread.run_sync(_leave_out, plan, refused)
            if not plan.operations:
                total = await _hunk_count(original)
                return _all_declined(call, changes, declined, total=total)

    session.emit(
        call.sub_id,
        PatchApplyBeginEvent(
            call_id=call.call_id, turn_id=call.sub_id, auto_approved=auto_approved, changes=changes
        ),
    )
    try:
        applied = await session.workspace.apply(plan, review=review)
    except WorkspaceEditError as err:
        session.emit(
            call.sub_id, _end(call, changes, success=False, status="failed", stderr=str(err))
        )
        return ToolOutput(f"apply_patch failed: {err}", success=False)
    if applied.declined:
        keys = [hunk.key for hunk in applied.declined]
        plan = await anyio.to_thread.run_sync(without_hunks, plan, keys)
        declined += applied.declined
        if not plan.operations:
            total = await _hunk_count(original)
            return _all_declined(call, changes, declined, total=total)
    summary = plan.summary()
    landed = changes
    if declined:
        summary += declined_note(declined, total=await _hunk_count(original))
        landed = await anyio.to_thread.run_sync(plan.changes)
    session.emit(call.sub_id, _end(call, landed, success=True, status="completed", stdout=summary))
    tracker = call.task.diff
    for op in plan.operations:
        tracker.on_change(op.path, op.old_content, None if op.move_path else op.new_content)
        if op.move_path is not None:
            tracker.on_change(op.move_path, None, op.new_content)
    turn_diff = await anyio.to_thread.run_sync(tracker.unified_diff)
    session.emit(call.sub_id, TurnDiffEvent(unified_diff=turn_diff))
    wall = round(time.monotonic() - started, 1)
    return ToolOutput(f"Exit code: 0\nWall time: {wall} seconds\nOutput:\n{summary}")


async def _hunk_count(plan: PatchPlan) -> int:
    # Diffing is linear in the files' size: off the event loop, as planning is.
    return len(await anyio.to_thread.run_sync(plan_hunks, plan))


def _leave_out(
    plan: PatchPlan, refused: list[tuple[str, int]]
) -> tuple[PatchPlan, tuple[ChangeHunk, ...]]:
    """The plan without the hunks the user declined, and those hunks."""
    wanted = set(refused)
    declined = tuple(hunk for hunk in plan_hunks(plan) if hunk.key in wanted)
    return without_hunks(plan, [hunk.key for hunk in declined]), declined


def declined_note(declined: tuple[ChangeHunk, ...], *, total: int) -> str:
    """What the model is told about hunks the user declined: which, and that they are not in."""
    if not declined:
        return ""
    count = len(declined)
    noun = "hunk" if total == 1 else "hunks"
    lines = [
        "",
        f"The user declined {count} of {total} {noun}; "
        f"{'it was' if count == 1 else 'they were'} not applied:",
    ]
    lines += [hunk.describe() for hunk in declined]
    return "\n".join(lines) + "\n"


def _all_declined(
    call: ToolCall,
    changes: dict[str, dict[str, Any]],
    declined: tuple[ChangeHunk, ...],
    *,
    total: int,
) -> ToolOutput:
    call.session.emit(call.sub_id, _end(call, changes, success=False, status="declined"))
    note = declined_note(declined, total=total)
    return ToolOutput(f"{REJECTED_BY_USER}\n{note}".rstrip("\n"), success=False)


def _end(
    call: ToolCall,
    changes: dict[str, dict[str, Any]],
    *,
    success: bool,
    status: Literal["completed", "failed", "declined"],
    stdout: str = "",
    stderr: str = "",
) -> PatchApplyEndEvent:
    return PatchApplyEndEvent(
        call_id=call.call_id,
        turn_id=call.sub_id,
        stdout=stdout,
        stderr=stderr,
        success=success,
        changes=changes,
        status=status,
    )
