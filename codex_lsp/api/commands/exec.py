"""`command/exec` and its follow-ups, commands a client runs outside any thread; and
`thread/shellCommand`, a command line the user runs in a thread (see `engine.user_shell`).

A command runs in the sandbox its params ask for (the configured one by default), in the
server's working directory unless told otherwise, with a timeout (10 s by default). Its output
is buffered up to a cap (the first `outputBytesCap` bytes of each stream, 1 MiB by default) and
returned when it exits; with `streamStdoutStderr` (or `tty`) it streams as
`command/exec/outputDelta` instead, and the final response comes after the last delta. A
command with a client-chosen `processId` can take input (`command/exec/write`, with
`streamStdin` or `tty`), be resized (`tty`) and be terminated. The commands of a connection end
with it.
"""

from __future__ import annotations

import base64
import binascii
import errno
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from codex_lsp.api.convert import invalid
from codex_lsp.api.family import ApiContext, Routes
from codex_lsp.api.port import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, ApiError, ClientPort
from codex_lsp.api.threads.loaded import LoadedThread
from codex_lsp.engine.sandboxing import prepare_command
from codex_lsp.engine.services import EngineServices
from codex_lsp.engine.tools.shell import command_env
from codex_lsp.engine.unified_exec import (
    ExecProcess,
    ProcessError,
    SpawnSpec,
    Stream,
    TerminalSize,
)
from codex_lsp.protocol.commands.models import (
    COMMAND_EXEC,
    COMMAND_EXEC_RESIZE,
    COMMAND_EXEC_TERMINATE,
    COMMAND_EXEC_WRITE,
    THREAD_SHELL_COMMAND,
    CommandExecOutputDeltaNotification,
    CommandExecParams,
    CommandExecResizeParams,
    CommandExecResponse,
    CommandExecTerminateParams,
    CommandExecWriteParams,
    ThreadShellCommandParams,
)
from codex_lsp.protocol.common import CoreSandboxPolicy, sandbox_policy_from_v2
from codex_lsp.protocol.core.ops import RunUserShellCommand
from codex_lsp.sandbox import RootMoved, SandboxUnavailable
from codex_lsp.store.config import Config
from codex_lsp.store.home import new_thread_id

__all__ = [
    "DEFAULT_OUTPUT_BYTES_CAP",
    "DEFAULT_TIMEOUT_MS",
    "CommandExecutor",
    "handlers",
    "thread_shell_command",
]

DEFAULT_TIMEOUT_MS = 10_000
DEFAULT_OUTPUT_BYTES_CAP = 1024 * 1024
TIMEOUT_EXIT_CODE = 124


@dataclass
class _Capped:
    """The first `cap` bytes of one stream (None: no cap)."""

    cap: int | None
    data: bytearray = field(default_factory=bytearray)
    reached: bool = False

    def take(self, chunk: bytes) -> bytes:
        """The part of `chunk` within the cap (recording it), empty once the cap is reached."""
        if self.cap is not None:
            room = max(self.cap - len(self.data), 0)
            if len(chunk) > room:
                self.reached = True
                chunk = chunk[:room]
        self.data += chunk
        return chunk


@dataclass
class _Command:
    """A command known by its client-chosen id from before it starts: follow-ups that arrive
    while it is starting wait for it."""

    streams_stdin: bool
    ready: anyio.Event = field(default_factory=anyio.Event)
    process: ExecProcess | None = None

    async def started(self, process_id: str) -> ExecProcess:
        await self.ready.wait()
        if self.process is None:
            raise ApiError(INVALID_REQUEST, f'no active command/exec for process id "{process_id}"')
        return self.process


def _spawn_error(err: ProcessError) -> ApiError:
    cause = err.__cause__
    if isinstance(cause, OSError) and cause.errno is not None:
        return ApiError(
            INTERNAL_ERROR, f"failed to spawn command: {cause.strerror} (os error {cause.errno})"
        )
    return ApiError(INTERNAL_ERROR, f"failed to spawn command: {err}")


class CommandExecutor:
    """The `command/exec` commands of one client connection."""

    def __init__(self, client: ClientPort, services: Callable[[], EngineServices]) -> None:
        self._client = client
        self._services = services
        self._running: dict[str, _Command] = {}
        self._closed = False

    # -- command/exec -----------------------------------------------------------------------

    async def execute(self, params: CommandExecParams) -> CommandExecResponse:
        _check(params)
        process_id = params.process_id
        if process_id is not None and process_id in self._running:
            raise ApiError(
                INVALID_REQUEST, f'duplicate active command/exec process id: "{process_id}"'
            )
        cwd = Path.cwd() / params.cwd if params.cwd else Path.cwd()
        services = self._services()
        env = exec_env_for(params.env, services.config)
        argv = list(params.command)
        # Said before the sandbox wraps the command, which would otherwise start fine and
        # only then fail to run it.
        _check_spawnable(argv[0], cwd, env)
        try:
            prepared = prepare_command(
                argv,
                policy=self._policy(params, cwd),
                policy_cwd=cwd,
                config=services.config,
                codex_home=services.codex_home,
                sandboxed=True,
                env=env,
            )
        except (SandboxUnavailable, RootMoved) as err:
            raise ApiError(INVALID_REQUEST, str(err)) from None
        sandboxed, argv, env = prepared.sandboxed, prepared.argv, prepared.env
        streaming = params.stream_stdout_stderr or params.tty
        cap = None if params.disable_output_cap else params.output_bytes_cap
        if cap is None and not params.disable_output_cap:
            cap = DEFAULT_OUTPUT_BYTES_CAP
        outputs: dict[Stream, _Capped] = {"stdout": _Capped(cap), "stderr": _Capped(cap)}
        spec = SpawnSpec(
            argv=argv,
            cwd=cwd,
            env=env,
            tty=params.tty,
            size=_size(params),
            stdin="pipe" if params.stream_stdin and not params.tty else "none",
            sandboxed=sandboxed,
            pass_fds=prepared.pass_fds,
        )
        command = _Command(params.stream_stdin or params.tty)
        if process_id is not None:
            self._running[process_id] = command
        try:
            process = await ExecProcess.spawn(spec)
        except ProcessError as err:
            if process_id is not None:
                self._running.pop(process_id, None)
            raise _spawn_error(err) from None
        finally:
            prepared.close()
            command.ready.set()
        command.process = process
        if self._closed:
            process.terminate()

        def on_output(stream: Stream, chunk: bytes) -> None:
            capped = outputs[stream]
            was_reached = capped.reached
            kept = capped.take(chunk)
            newly_capped = capped.reached and not was_reached
            if streaming and process_id is not None and (kept or newly_capped):
                self._client.notify(
                    "command/exec/outputDelta",
                    CommandExecOutputDeltaNotification(
                        process_id=process_id,
                        stream=stream,
                        delta_base64=base64.b64encode(kept).decode("ascii"),
                        cap_reached=capped.reached,
                    ),
                )

        process.add_listener(on_output)
        limit_ms = None if params.disable_timeout else (params.timeout_ms or DEFAULT_TIMEOUT_MS)
        if params.timeout_ms == 0:
            limit_ms = 0
        try:
            exit_code = await _wait(process, limit_ms)
        finally:
            if process_id is not None:
                self._running.pop(process_id, None)
            process.terminate()
            with anyio.CancelScope(shield=True):
                await process.wait()
        if streaming:
            return CommandExecResponse(exit_code=exit_code, stdout="", stderr="")
        return CommandExecResponse(
            exit_code=exit_code,
            stdout=outputs["stdout"].data.decode("utf-8", errors="replace"),
            stderr=outputs["stderr"].data.decode("utf-8", errors="replace"),
        )

    def _policy(self, params: CommandExecParams, cwd: Path) -> CoreSandboxPolicy:
        if params.sandbox_policy is not None:
            return sandbox_policy_from_v2(params.sandbox_policy)
        policy: CoreSandboxPolicy = self._services().config.sandbox_policy(cwd)
        return policy

    # -- follow-ups -------------------------------------------------------------------------

    def _command(self, process_id: str) -> _Command:
        command = self._running.get(process_id)
        if command is None:
            raise ApiError(INVALID_REQUEST, f'no active command/exec for process id "{process_id}"')
        return command

    async def write(self, params: CommandExecWriteParams) -> None:
        command = self._command(params.process_id)
        process = await command.started(params.process_id)
        if not command.streams_stdin:
            raise ApiError(INVALID_REQUEST, "stdin streaming is not enabled for this command/exec")
        data = b""
        if params.delta_base64:
            try:
                data = base64.b64decode(params.delta_base64, validate=True)
            except (binascii.Error, ValueError) as err:
                raise ApiError(INVALID_PARAMS, f"invalid deltaBase64: {err}") from None
        try:
            if data:
                await process.write(data)
            if params.close_stdin:
                if process.tty:
                    await process.write(b"\x04")  # a terminal's end of input: ^D
                else:
                    process.close_stdin()
        except ProcessError as err:
            raise ApiError(INVALID_REQUEST, f"failed to write stdin: {err}") from None

    async def resize(self, params: CommandExecResizeParams) -> None:
        process = await self._command(params.process_id).started(params.process_id)
        if not process.tty:
            raise ApiError(
                INVALID_REQUEST, "failed to resize PTY: process is not attached to a PTY"
            )
        try:
            process.resize(TerminalSize(rows=params.size.rows, cols=params.size.cols))
        except (ProcessError, OSError) as err:
            raise ApiError(INVALID_REQUEST, f"failed to resize PTY: {err}") from None

    async def terminate(self, params: CommandExecTerminateParams) -> None:
        process = await self._command(params.process_id).started(params.process_id)
        process.terminate()

    async def close(self) -> None:
        """The connection is gone: its commands end (each `execute` then returns)."""
        self._closed = True
        for command in list(self._running.values()):
            if command.process is not None:
                command.process.terminate()


def _check(params: CommandExecParams) -> None:
    if not params.command:
        raise ApiError(INVALID_REQUEST, "command must not be empty")
    if params.timeout_ms is not None and params.disable_timeout:
        raise ApiError(INVALID_PARAMS, "command/exec cannot set both timeoutMs and disableTimeout")
    if params.output_bytes_cap is not None and params.disable_output_cap:
        raise ApiError(
            INVALID_PARAMS, "command/exec cannot set both outputBytesCap and disableOutputCap"
        )
    if params.size is not None and not params.tty:
        raise ApiError(INVALID_PARAMS, "command/exec size requires tty: true")
    wants_id = params.tty or params.stream_stdin or params.stream_stdout_stderr
    if wants_id and params.process_id is None:
        raise ApiError(
            INVALID_REQUEST, "command/exec tty or streaming requires a client-supplied processId"
        )
    if params.timeout_ms is not None and params.timeout_ms < 0:
        raise ApiError(INVALID_PARAMS, "command/exec timeoutMs must not be negative")


def _check_spawnable(program: str, cwd: Path, env: dict[str, str]) -> None:
    missing = ApiError(
        INTERNAL_ERROR,
        f"failed to spawn command: {os.strerror(errno.ENOENT)} (os error {errno.ENOENT})",
    )
    if not cwd.is_dir():
        raise missing
    if "/" in program:
        if not (cwd / program).exists():
            raise missing
        return
    if shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        raise missing


def _size(params: CommandExecParams) -> TerminalSize:
    if params.size is None:
        return TerminalSize(rows=24, cols=80)
    return TerminalSize(rows=params.size.rows, cols=params.size.cols)


def exec_env_for(
    overrides: dict[str, str | None] | None, config: Config | None = None
) -> dict[str, str]:
    """Our environment as the shell environment policy shapes it, with the client's
    overrides (None unsets)."""
    env = command_env(config)
    for name, value in (overrides or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


async def _wait(process: ExecProcess, limit_ms: int | None) -> int:
    """The exit code, or 124 when the time limit (None: none) ends the command first."""
    if limit_ms is None:
        return await process.wait()
    with anyio.move_on_after(max(limit_ms, 0) / 1000):
        return await process.wait()
    process.terminate()
    await process.wait()
    return TIMEOUT_EXIT_CODE


async def thread_shell_command(thread: LoadedThread, params: ThreadShellCommandParams) -> None:
    """Run a command line the user typed in the thread; its item and turn follow the answer."""
    if not params.command.strip():
        raise ApiError(INVALID_REQUEST, "command must not be empty")
    if thread.codex.session is None:
        raise invalid("threadId", f"thread {params.thread_id} has no running session")
    op = RunUserShellCommand(command=params.command, timeout_ms=params.timeout_ms)
    # A UUIDv7 like a turn's: the command runs as a turn of its own when none is running.
    await thread.submit(op, sub_id=new_thread_id())


def handlers(ctx: ApiContext) -> Routes:
    commands = CommandExecutor(ctx.client, ctx.services)
    ctx.closers.append(commands.close)

    async def shell_command(params: ThreadShellCommandParams, _raw: dict[str, Any]) -> None:
        await thread_shell_command(ctx.threads.get(params.thread_id), params)

    return (
        Routes()
        .on(COMMAND_EXEC, lambda params, _raw: commands.execute(params))
        .on(COMMAND_EXEC_WRITE, lambda params, _raw: commands.write(params))
        .on(COMMAND_EXEC_RESIZE, lambda params, _raw: commands.resize(params))
        .on(COMMAND_EXEC_TERMINATE, lambda params, _raw: commands.terminate(params))
        .on(THREAD_SHELL_COMMAND, shell_command)
    )
