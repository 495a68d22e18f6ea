"""`shell_command`: decide whether to ask, run in the sandbox, offer escalation on denial."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_lsp.engine.command_parse import parse_command
from codex_lsp.engine.exec import ExecOutput, ExecParams, format_for_model, run_exec
from codex_lsp.engine.sandboxing import command_environment, prepare_command
from codex_lsp.engine.shell import shell_command_argv
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput
from codex_lsp.engine.tools.command_approval import (
    RETRY_WITHOUT_SANDBOX,
    Refused,
    ask_exec_approval,
    gate_command,
    offer_rerun_without_sandbox,
)
from codex_lsp.protocol.core.events import (
    Duration,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
    ExecCommandOutputDeltaEvent,
)
from codex_lsp.sandbox import RootMoved, SandboxUnavailable, is_likely_sandbox_denied
from codex_lsp.store.config import Config

DEFAULT_TIMEOUT_MS = 10_000
# Live output is dropped while the UI is this many events behind, so a command printing
# hundreds of megabytes cannot pile them up in memory; the end event has the whole output.
MAX_EVENT_BACKLOG = 256
SANDBOX_REFUSED = "command refused: the sandbox this policy needs is not available on this machine"


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


def command_env(config: Config | None = None) -> dict[str, str]:
    """The environment of a command the model or the user runs: ours as the config's
    `[shell_environment_policy]` shapes it (its defaults without a config)."""
    return command_environment(config)


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
    gate = await gate_command(
        call,
        argv,
        cwd,
        sandbox_permissions=args.sandbox_permissions,
        justification=args.justification,
    )
    if isinstance(gate, Refused):
        return gate.output
    output = await _run(call, argv, cwd, args.timeout_ms, sandboxed=gate.sandboxed)
    if output is None:
        return ToolOutput(SANDBOX_REFUSED, success=False)
    # Without a sandbox a "permission denied" is the command's own: rerunning it
    # "without the sandbox" would ask the user to approve the same run again.
    denied = gate.sandboxed and is_likely_sandbox_denied(output.exit_code, output.aggregated_output)
    if (
        denied
        and offer_rerun_without_sandbox(call, gate)
        and await ask_exec_approval(
            call, argv, cwd, RETRY_WITHOUT_SANDBOX, cache_key=None, run_unsandboxed=True
        )
    ):
        output = await _run(call, argv, cwd, args.timeout_ms, sandboxed=False)
        assert output is not None
    text = format_for_model(output)
    return ToolOutput(text, success=output.exit_code == 0)


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
            config=session.services.config,
            codex_home=session.services.codex_home,
            sandboxed=sandboxed,
            roots=ctx.roots,
        )
    except RootMoved as err:
        raise ToolError(f"command refused: {err}") from None
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
                # run_exec names its streams "stdout" and "stderr", as the event's type says.
                stream=stream,  # type: ignore[arg-type]
                chunk=base64.b64encode(chunk).decode("ascii"),
            ),
        )

    params = ExecParams(
        argv=prepared.argv,
        cwd=cwd,
        env=prepared.env,
        timeout_ms=timeout_ms or DEFAULT_TIMEOUT_MS,
        pass_fds=prepared.pass_fds,
    )
    try:
        output = await run_exec(params, on_output=on_output)
    finally:
        prepared.close()
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
