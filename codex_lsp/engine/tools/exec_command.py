"""`exec_command` and `write_stdin`: the model's unified exec tools.

`exec_command` runs a command line in the user's shell (on a PTY with `tty`), after the same
approval gate as `shell_command`, in the sandbox the policy asks for. It waits up to the yield
time: a command that finished returns its exit code; one still running stays open in the
session's `ProcessStore` and returns a session id. `write_stdin` types into such a process (a
PTY one) or, with no characters, just waits for more output. Either way the model reads the
output printed since its last look (see `unified_exec.model_output`).

The client sees one `commandExecution` item per process: it starts with the call, gathers the
output as it streams, notes each `write_stdin` as a terminal interaction, and completes when the
process exits, however many calls or turns later.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codex_lsp.engine.command_parse import parse_command
from codex_lsp.engine.history import user_message
from codex_lsp.engine.sandboxing import prepare_command
from codex_lsp.engine.shell import default_user_shell
from codex_lsp.engine.tools.base import ToolCall, ToolError, ToolOutput, object_arguments
from codex_lsp.engine.tools.command_approval import (
    RETRY_WITHOUT_SANDBOX,
    Refused,
    ask_exec_approval,
    gate_command,
    offer_rerun_without_sandbox,
)
from codex_lsp.engine.tools.exec_events import exec_env, report_interaction, report_process
from codex_lsp.engine.unified_exec import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    WARNING_PROCESSES,
    ExecChunk,
    ExecProcess,
    ProcessEntry,
    ProcessError,
    SpawnSpec,
    format_chunk,
    new_chunk_id,
    too_many_processes_warning,
)
from codex_lsp.sandbox import (
    RootMoved,
    SandboxUnavailable,
    is_likely_sandbox_denied,
)

__all__ = ["handle_exec_command", "handle_write_stdin"]

MIN_YIELD_MS = 250
MAX_YIELD_MS = 30_000
DEFAULT_EXEC_YIELD_MS = 10_000
DEFAULT_WRITE_YIELD_MS = 250
# A poll (no characters) waits at least this long, and at most the background timeout.
MIN_POLL_YIELD_MS = 5_000
MAX_POLL_YIELD_MS = 300_000
# After typing, give the program a moment to react before reading what it printed.
AFTER_WRITE_S = 0.1
SANDBOX_REFUSED = "command refused: the sandbox this policy needs is not available on this machine"
STDIN_CLOSED = (
    "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"
)


@dataclass(frozen=True, slots=True)
class ExecCommandArgs:
    cmd: str
    workdir: str | None
    shell: str | None
    tty: bool
    login: bool
    yield_time_ms: int
    max_output_tokens: int | None
    sandbox_permissions: str
    justification: str | None


@dataclass(frozen=True, slots=True)
class WriteStdinArgs:
    session_id: int
    chars: str
    yield_time_ms: int | None
    max_output_tokens: int | None


def _bad_type(key: str) -> ToolError:
    return ToolError(f"failed to parse function arguments: `{key}` has the wrong type")


def _opt_str(raw: dict[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is None or isinstance(value, str):
        return value
    raise _bad_type(key)


def _opt_bool(raw: dict[str, Any], key: str) -> bool | None:
    value = raw.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise _bad_type(key)


def _opt_number(raw: dict[str, Any], key: str) -> int | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _bad_type(key)
    return int(value)


def parse_exec_command_args(payload: str) -> ExecCommandArgs:
    raw = object_arguments(payload)
    cmd = raw.get("cmd")
    if not isinstance(cmd, str):
        raise ToolError("failed to parse function arguments: missing field `cmd`")
    yield_ms = _opt_number(raw, "yield_time_ms")
    login = _opt_bool(raw, "login")
    return ExecCommandArgs(
        cmd=cmd,
        workdir=_opt_str(raw, "workdir"),
        shell=_opt_str(raw, "shell"),
        tty=bool(_opt_bool(raw, "tty")),
        login=True if login is None else login,
        yield_time_ms=DEFAULT_EXEC_YIELD_MS if yield_ms is None else yield_ms,
        max_output_tokens=_opt_number(raw, "max_output_tokens"),
        sandbox_permissions=_opt_str(raw, "sandbox_permissions") or "use_default",
        justification=_opt_str(raw, "justification"),
    )


def parse_write_stdin_args(payload: str) -> WriteStdinArgs:
    raw = object_arguments(payload)
    session_id = _opt_number(raw, "session_id")
    if session_id is None:
        raise ToolError("failed to parse function arguments: missing field `session_id`")
    return WriteStdinArgs(
        session_id=session_id,
        chars=_opt_str(raw, "chars") or "",
        yield_time_ms=_opt_number(raw, "yield_time_ms"),
        max_output_tokens=_opt_number(raw, "max_output_tokens"),
    )


def _token_budget(call: ToolCall, requested: int | None) -> int:
    budget = call.tools.output_token_budget if call.tools is not None else DEFAULT_MAX_OUTPUT_TOKENS
    return min(requested if requested is not None else DEFAULT_MAX_OUTPUT_TOKENS, budget)


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


# -- exec_command --------------------------------------------------------------------------


async def handle_exec_command(call: ToolCall) -> ToolOutput:
    args = parse_exec_command_args(call.payload)
    cwd = (call.ctx.cwd / args.workdir).resolve() if args.workdir else call.ctx.cwd
    argv = [args.shell or default_user_shell(), "-lc" if args.login else "-c", args.cmd]
    from codex_lsp.engine.tools.apply_patch import patch_from_shell

    intercepted = patch_from_shell(call, argv, cwd)
    if intercepted is not None:
        return await intercepted
    gate = await gate_command(
        call,
        argv,
        cwd,
        sandbox_permissions=args.sandbox_permissions,
        justification=args.justification,
        tty=args.tty,
    )
    if isinstance(gate, Refused):
        if gate.forbidden is not None and gate.forbidden.rejected:
            # A command refused for what it is fails to start, in the reference server's words.
            inner = json.dumps(f"Rejected({json.dumps(gate.forbidden.reason)})")
            return ToolOutput(
                f"exec_command failed: CreateProcess {{ message: {inner} }}", success=False
            )
        return gate.output
    entry = await _start(call, argv, cwd, args, sandboxed=gate.sandboxed)
    if entry is None:
        return ToolOutput(SANDBOX_REFUSED, success=False)
    chunk = await _first_chunk(call, entry, args)
    if (
        chunk.session_id is None
        and gate.sandboxed
        and is_likely_sandbox_denied(chunk.exit_code or 0, chunk.output)
        and offer_rerun_without_sandbox(call, gate)
        and await ask_exec_approval(
            call, argv, cwd, RETRY_WITHOUT_SANDBOX, cache_key=None, run_unsandboxed=True
        )
    ):
        entry = await _start(call, argv, cwd, args, sandboxed=False)
        assert entry is not None
        chunk = await _first_chunk(call, entry, args)
    text = format_chunk(chunk, _token_budget(call, args.max_output_tokens))
    return ToolOutput(text, success=chunk.session_id is not None or chunk.exit_code == 0)


async def _start(
    call: ToolCall, argv: list[str], cwd: Path, args: ExecCommandArgs, *, sandboxed: bool
) -> ProcessEntry | None:
    """Spawn the process, keep it in the session's store and report it; None when the sandbox
    it needs is missing."""
    session, ctx = call.session, call.ctx
    config = session.services.config
    try:
        # The policy's roots come from the session's cwd, not the command's workdir.
        prepared = prepare_command(
            argv,
            policy=ctx.sandbox_policy,
            policy_cwd=ctx.cwd,
            config=config,
            codex_home=session.services.codex_home,
            sandboxed=sandboxed,
            roots=ctx.roots,
            env=exec_env(config),
        )
    except RootMoved as err:
        raise ToolError(f"command refused: {err}") from None
    except SandboxUnavailable as err:
        session.warn_once(call.sub_id, str(err))
        return None
    store = session.processes
    process_id = store.reserve_id()
    try:
        spec = SpawnSpec(
            argv=prepared.argv,
            cwd=cwd,
            env=prepared.env,
            tty=args.tty,
            sandboxed=prepared.sandboxed,
            pass_fds=prepared.pass_fds,
        )
        process = await ExecProcess.spawn(spec)
    except ProcessError as err:
        store.release(process_id)
        raise ToolError(f"exec_command failed: {err}") from err
    finally:
        prepared.close()
    entry = ProcessEntry(
        process=process,
        process_id=process_id,
        call_id=call.call_id,
        sub_id=call.sub_id,
        command=argv,
        cwd=str(cwd),
        tty=args.tty,
    )
    # Kept before the first wait: an interrupt then finds (and ends) it.
    store.add(entry)
    report_process(session, entry, parse_command(argv))
    return entry


async def _first_chunk(call: ToolCall, entry: ProcessEntry, args: ExecCommandArgs) -> ExecChunk:
    process = entry.process
    yield_ms = min(max(args.yield_time_ms, MIN_YIELD_MS), MAX_YIELD_MS)
    output = await process.collect(process.started_at + yield_ms / 1000)
    wall = time.monotonic() - process.started_at
    if process.has_exited:
        await entry.done.wait()
        return ExecChunk(_text(output), wall, process.exit_code, None, new_chunk_id())
    count = len(call.session.processes)
    if count >= WARNING_PROCESSES:
        warning = too_many_processes_warning(count)
        call.session.record_items([user_message(f"Warning: {warning}")])
    return ExecChunk(_text(output), wall, None, entry.process_id, new_chunk_id())


# -- write_stdin ---------------------------------------------------------------------------


async def _interact(call: ToolCall, entry: ProcessEntry, args: WriteStdinArgs) -> ExecChunk:
    """Type `args.chars` (if any), then gather the output until the yield time passes."""
    process = entry.process
    if args.chars:
        try:
            await process.write(args.chars.encode("utf-8"))
        except ProcessError:
            if not process.has_exited:
                raise ToolError(f"write_stdin failed: {STDIN_CLOSED}") from None
        await asyncio.sleep(AFTER_WRITE_S)
    requested = args.yield_time_ms if args.yield_time_ms is not None else DEFAULT_WRITE_YIELD_MS
    requested = max(requested, MIN_YIELD_MS)
    if args.chars:
        yield_ms = min(requested, MAX_YIELD_MS)
    else:
        yield_ms = min(max(requested, MIN_POLL_YIELD_MS), MAX_POLL_YIELD_MS)
    started = time.monotonic()
    output = await process.collect(started + yield_ms / 1000)
    wall = time.monotonic() - started
    if args.chars:
        report_interaction(call.session, call.sub_id, entry, args.chars)
    session_id = None if process.has_exited else entry.process_id
    return ExecChunk(_text(output), wall, process.exit_code, session_id, new_chunk_id())


async def handle_write_stdin(call: ToolCall) -> ToolOutput:
    args = parse_write_stdin_args(call.payload)
    store = call.session.processes
    entry = store.get(args.session_id)
    if entry is None:
        raise ToolError(f"write_stdin failed: Unknown process id {args.session_id}")
    entry.touch()
    if args.chars and not entry.tty:
        raise ToolError(f"write_stdin failed: {STDIN_CLOSED}")
    entry.quiet.clear()
    try:
        chunk = await _interact(call, entry, args)
    finally:
        entry.quiet.set()
    if chunk.session_id is None:
        await entry.done.wait()
    return ToolOutput(format_chunk(chunk, _token_budget(call, args.max_output_tokens)))
