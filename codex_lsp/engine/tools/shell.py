"""`shell_command`: decide whether to ask, run in the sandbox, offer escalation on denial."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_lsp.engine.approvals import TurnAbortRequested
from codex_lsp.engine.command_parse import parse_command
from codex_lsp.engine.exec import ExecOutput, ExecParams, format_for_model, run_exec
from codex_lsp.engine.safety import (
    Forbidden,
    Prompt,
    assess_command,
    session_approval_key,
    should_escalate_on_sandbox_denial,
)
from codex_lsp.engine.sandboxing import prepare_command
from codex_lsp.engine.shell import shell_command_argv
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.protocol.events import (
    Duration,
    ExecApprovalRequestEvent,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
    ExecCommandOutputDeltaEvent,
)
from codex_lsp.protocol.policy import DangerFullAccess
from codex_lsp.sandbox import SandboxUnavailable, is_likely_sandbox_denied

DEFAULT_TIMEOUT_MS = 10_000
REJECTED_BY_USER = "exec command rejected by user"
# Live output is dropped while the UI is this many events behind, so a command printing
# hundreds of megabytes cannot pile them up in memory; the end event has the whole output.
MAX_EVENT_BACKLOG = 256
RETRY_WITHOUT_SANDBOX = "command failed; retry without sandbox?"


@dataclass(slots=True)
class ShellArgs:
    command: str
    workdir: str | None
    timeout_ms: int | None
    sandbox_permissions: str
    justification: str | None


def parse_shell_args(payload: str) -> ShellArgs:
    try:
        raw = json.loads(payload or "{}")
    except json.JSONDecodeError as err:
        raise ToolError(f"failed to parse function arguments: {err}") from err
    if not isinstance(raw, dict) or not isinstance(raw.get("command"), str):
        raise ToolError("failed to parse function arguments: `command` must be a string")
    timeout = raw.get("timeout_ms", raw.get("timeout"))
    if timeout is not None and not isinstance(timeout, int | float):
        raise ToolError("failed to parse function arguments: `timeout_ms` must be a number")
    return ShellArgs(
        command=raw["command"],
        workdir=raw.get("workdir") if isinstance(raw.get("workdir"), str) else None,
        timeout_ms=int(timeout) if timeout is not None else None,
        sandbox_permissions=str(raw.get("sandbox_permissions") or "use_default"),
        justification=raw.get("justification"),
    )


async def handle_shell_command(call: ToolCall) -> ToolOutput:
    args = parse_shell_args(call.payload)
    # A relative workdir is relative to the turn's cwd; an absolute one joins as itself.
    cwd = (call.ctx.cwd / args.workdir).resolve() if args.workdir else call.ctx.cwd
    argv = shell_command_argv(args.command)
    from codex_lsp.engine.tools.apply_patch import patch_from_shell

    intercepted = patch_from_shell(call, argv, cwd)
    if intercepted is not None:
        return await intercepted
    return await run_command(call, argv, cwd, args)


async def run_command(call: ToolCall, argv: list[str], cwd: Path, args: ShellArgs) -> ToolOutput:
    session, ctx = call.session, call.ctx
    assessment = assess_command(
        argv,
        approval_policy=ctx.approval_policy,
        sandbox_policy=ctx.sandbox_policy,
        sandbox_permissions=args.sandbox_permissions,
    )
    if isinstance(assessment, Forbidden):
        return ToolOutput(assessment.reason, success=False)
    unsandboxed = getattr(assessment, "bypass_sandbox", False)
    approved_by_user = False
    if isinstance(assessment, Prompt):
        key = session_approval_key(argv, str(cwd), args.sandbox_permissions)
        if not session.approval_cache.command_approved(key):
            reason = args.justification or assessment.reason
            if not await ask_exec_approval(call, argv, cwd, reason, cache_key=key):
                return _declined(call, argv, cwd)
        approved_by_user = True
        unsandboxed = unsandboxed or assessment.run_unsandboxed

    sandboxed = not unsandboxed and not isinstance(ctx.sandbox_policy, DangerFullAccess)
    output = await _run(call, argv, cwd, args.timeout_ms, sandboxed=sandboxed)
    if output is None:
        return ToolOutput(
            "command refused: the sandbox this policy needs is not available on this machine",
            success=False,
        )
    # Without a sandbox a "permission denied" is the command's own: rerunning it
    # "without the sandbox" would ask the user to approve the same run again.
    denied = sandboxed and is_likely_sandbox_denied(output.exit_code, output.aggregated_output)
    escalate = (
        denied and not approved_by_user and should_escalate_on_sandbox_denial(ctx.approval_policy)
    )
    if escalate and await ask_exec_approval(call, argv, cwd, RETRY_WITHOUT_SANDBOX, cache_key=None):
        output = await _run(call, argv, cwd, args.timeout_ms, sandboxed=False)
        assert output is not None
    text = format_for_model(output)
    return ToolOutput(text, success=output.exit_code == 0)


async def ask_exec_approval(
    call: ToolCall, argv: list[str], cwd: Path, reason: str | None, *, cache_key: str | None
) -> bool:
    """Ask the user; True to run. `abort` ends the whole turn."""
    session = call.session
    session.emit(
        call.sub_id,
        ExecApprovalRequestEvent(
            call_id=call.call_id,
            turn_id=call.sub_id,
            command=argv,
            cwd=str(cwd),
            reason=reason,
            parsed_cmd=parse_command(argv),
        ),
    )
    decision = await session.approvals.ask(call.call_id)
    if decision == "abort":
        raise TurnAbortRequested
    if decision == "approved_for_session" and cache_key is not None:
        session.approval_cache.approve_command(cache_key)
    return decision in ("approved", "approved_for_session")


def _declined(call: ToolCall, argv: list[str], cwd: Path) -> ToolOutput:
    call.session.emit(
        call.sub_id,
        ExecCommandEndEvent(
            call_id=call.call_id,
            turn_id=call.sub_id,
            command=argv,
            cwd=str(cwd),
            parsed_cmd=parse_command(argv),
            exit_code=-1,
            duration=Duration(secs=0, nanos=0),
            formatted_output=REJECTED_BY_USER,
            status="declined",
        ),
    )
    return ToolOutput(REJECTED_BY_USER, success=False)


async def _run(
    call: ToolCall, argv: list[str], cwd: Path, timeout_ms: int | None, *, sandboxed: bool
) -> ExecOutput | None:
    session, ctx = call.session, call.ctx
    try:
        # The policy's roots come from the session's cwd, not the command's workdir.
        prepared = prepare_command(
            argv,
            policy=ctx.sandbox_policy,
            policy_cwd=ctx.cwd,
            config=getattr(session.services, "config", None),
            codex_home=getattr(session.services, "codex_home", None),
            sandboxed=sandboxed,
        )
    except SandboxUnavailable as err:
        session.warn_once(call.sub_id, str(err))
        return None
    parsed = parse_command(argv)
    begin: dict[str, Any] = {
        "call_id": call.call_id,
        "turn_id": call.sub_id,
        "command": argv,
        "cwd": str(cwd),
        "parsed_cmd": parsed,
    }
    session.emit(call.sub_id, ExecCommandBeginEvent(**begin))

    skipped = 0

    # run_exec stops calling back after Codex's cap of deltas per call.
    def on_output(stream: str, chunk: bytes) -> None:
        nonlocal skipped
        if session.event_backlog() > MAX_EVENT_BACKLOG:
            skipped += len(chunk)
            return
        if skipped:
            chunk = f"\n[… {skipped} bytes of output not shown …]\n".encode() + chunk
            skipped = 0
        session.emit(
            call.sub_id,
            ExecCommandOutputDeltaEvent(
                call_id=call.call_id,
                stream=stream,  # type: ignore[arg-type]
                chunk=base64.b64encode(chunk).decode("ascii"),
            ),
        )

    params = ExecParams(
        argv=prepared.argv,
        cwd=cwd,
        env=prepared.env,
        timeout_ms=timeout_ms or DEFAULT_TIMEOUT_MS,
    )
    output = await run_exec(params, on_output=on_output)
    formatted = format_for_model(output)
    secs = int(output.duration_s)
    session.emit(
        call.sub_id,
        ExecCommandEndEvent(
            **begin,
            stdout=output.stdout.text(),
            stderr=output.stderr.text(),
            aggregated_output=output.aggregated_output,
            exit_code=output.exit_code,
            duration=Duration(secs=secs, nanos=int((output.duration_s - secs) * 1e9)),
            formatted_output=formatted,
            status="completed" if output.exit_code == 0 else "failed",
        ),
    )
    return output
