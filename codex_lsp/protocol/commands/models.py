"""The commands family of the v2 API: `command/exec` and its follow-ups, `thread/shellCommand`,
and the terminal interactions of the model's own processes.

`command/exec` runs an argv for the client (not the model) in the sandbox, buffered or streamed
(`command/exec/outputDelta`, base64), optionally on a PTY the client types into and resizes.
`thread/shellCommand` runs a command line the user typed, recorded in the thread.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from codex_lsp.protocol.common import Opt, SandboxPolicy, V2Model
from codex_lsp.protocol.methods import MethodTable

__all__ = [
    "CommandExecOutputDeltaNotification",
    "CommandExecParams",
    "CommandExecResizeParams",
    "CommandExecResizeResponse",
    "CommandExecResponse",
    "CommandExecTerminalSize",
    "CommandExecTerminateParams",
    "CommandExecTerminateResponse",
    "CommandExecWriteParams",
    "CommandExecWriteResponse",
    "TerminalInteractionNotification",
    "ThreadBackgroundTerminalsCleanParams",
    "ThreadBackgroundTerminalsCleanResponse",
    "ThreadShellCommandParams",
    "ThreadShellCommandResponse",
]


class CommandExecTerminalSize(V2Model):
    """PTY size in character cells."""

    rows: int = Field(ge=0, le=0xFFFF)
    cols: int = Field(ge=0, le=0xFFFF)


class CommandExecParams(V2Model):
    command: list[str]
    process_id: Opt[str] = None
    tty: bool = False
    stream_stdin: bool = False
    stream_stdout_stderr: bool = False
    output_bytes_cap: Opt[int] = Field(default=None, ge=0)
    disable_output_cap: bool = False
    disable_timeout: bool = False
    timeout_ms: Opt[int] = None
    cwd: Opt[str] = None
    # A null value unsets an inherited variable.
    env: Opt[dict[str, str | None]] = None
    size: Opt[CommandExecTerminalSize] = None
    sandbox_policy: Opt[SandboxPolicy] = None


class CommandExecResponse(V2Model):
    """The buffered result; a streamed stream is empty here (its bytes went as deltas)."""

    exit_code: int
    stdout: str
    stderr: str


class CommandExecWriteParams(V2Model):
    process_id: str
    delta_base64: Opt[str] = None
    close_stdin: bool = False


class CommandExecWriteResponse(V2Model):
    pass


class CommandExecResizeParams(V2Model):
    process_id: str
    size: CommandExecTerminalSize


class CommandExecResizeResponse(V2Model):
    pass


class CommandExecTerminateParams(V2Model):
    process_id: str


class CommandExecTerminateResponse(V2Model):
    pass


class ThreadShellCommandParams(V2Model):
    thread_id: str
    command: str
    # Zero times out at once; absent or null means one hour.
    timeout_ms: Opt[int] = Field(default=None, ge=0)


class ThreadShellCommandResponse(V2Model):
    pass


class ThreadBackgroundTerminalsCleanParams(V2Model):
    thread_id: str


class ThreadBackgroundTerminalsCleanResponse(V2Model):
    pass


class ThreadBackgroundTerminal(V2Model):
    """A process the model started and left running."""

    item_id: str
    process_id: str
    command: str
    cwd: str
    os_pid: int | None = None
    cpu_percent: float | None = None
    rss_kb: int | None = None


class ThreadBackgroundTerminalsListParams(V2Model):
    thread_id: str
    cursor: Opt[str] = None
    limit: Opt[int] = Field(default=None, ge=0)


class ThreadBackgroundTerminalsListResponse(V2Model):
    data: list[ThreadBackgroundTerminal]
    next_cursor: str | None = None


class ThreadBackgroundTerminalsTerminateParams(V2Model):
    thread_id: str
    process_id: str


class ThreadBackgroundTerminalsTerminateResponse(V2Model):
    terminated: bool


class CommandExecOutputDeltaNotification(V2Model):
    process_id: str
    stream: Literal["stdout", "stderr"]
    delta_base64: str
    # True on the last chunk of a stream that `outputBytesCap` cut short.
    cap_reached: bool


class TerminalInteractionNotification(V2Model):
    """The model typed `stdin` into the running process of item `itemId`."""

    thread_id: str
    turn_id: str
    item_id: str
    process_id: str
    stdin: str


METHODS = MethodTable()
COMMAND_EXEC = METHODS.request("command/exec", CommandExecParams, CommandExecResponse)
COMMAND_EXEC_WRITE = METHODS.request(
    "command/exec/write", CommandExecWriteParams, CommandExecWriteResponse
)
COMMAND_EXEC_RESIZE = METHODS.request(
    "command/exec/resize", CommandExecResizeParams, CommandExecResizeResponse
)
COMMAND_EXEC_TERMINATE = METHODS.request(
    "command/exec/terminate", CommandExecTerminateParams, CommandExecTerminateResponse
)
THREAD_SHELL_COMMAND = METHODS.request(
    "thread/shellCommand", ThreadShellCommandParams, ThreadShellCommandResponse
)
THREAD_BACKGROUND_TERMINALS_CLEAN = METHODS.request(
    "thread/backgroundTerminals/clean",
    ThreadBackgroundTerminalsCleanParams,
    ThreadBackgroundTerminalsCleanResponse,
    experimental=True,
)
THREAD_BACKGROUND_TERMINALS_LIST = METHODS.request(
    "thread/backgroundTerminals/list",
    ThreadBackgroundTerminalsListParams,
    ThreadBackgroundTerminalsListResponse,
    experimental=True,
)
THREAD_BACKGROUND_TERMINALS_TERMINATE = METHODS.request(
    "thread/backgroundTerminals/terminate",
    ThreadBackgroundTerminalsTerminateParams,
    ThreadBackgroundTerminalsTerminateResponse,
    experimental=True,
)
METHODS.notification("command/exec/outputDelta", CommandExecOutputDeltaNotification)
METHODS.notification("item/commandExecution/terminalInteraction", TerminalInteractionNotification)
