"""How `codex-lsp exec` shows a task: to a person on the terminal, or as the engine's raw events.

Everything written for a person goes through `display.visible`: commands on one line (a
newline in a command shows as `\\n`), the rest with its lines kept, so an escape sequence,
a carriage return or a bidi override in a command, a path, a command's output or the
model's words is shown, never obeyed. As codex does, what the agent says and does goes to
stderr as it happens, and stdout gets only the final answer once the turn has succeeded:
the text of an attempt that failed and was retried never reaches a program reading stdout.
That answer is escaped the same way when stdout is a terminal; piped or redirected, it stays
exactly what the model wrote (a program reads it). `--raw-events` is for programs and stays
unchanged.
"""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any, Protocol, TextIO

from codex_lsp.cli.exec_text import failure_details, output_tail, patch_preview, session_header
from codex_lsp.display import visible
from codex_lsp.engine.review.render import render_review
from codex_lsp.engine.shell import shell_script
from codex_lsp.protocol.core.events import (
    AgentMessageEvent,
    ApplyPatchApprovalRequestEvent,
    ErrorEvent,
    Event,
    ExecApprovalRequestEvent,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
    ExitedReviewModeEvent,
    PatchApplyBeginEvent,
    PatchApplyEndEvent,
    PlanUpdateEvent,
    SessionConfiguredEvent,
    StreamErrorEvent,
    TaskCompleteEvent,
    TaskStartedEvent,
    TurnAbortedEvent,
    WarningEvent,
)
from codex_lsp.protocol.core.policy import SandboxPolicy

ANSWER_CHUNK = 16384


class Renderer(Protocol):
    final_message: str | None

    def show(self, event: Event) -> None: ...

    def prompt(self, text: str) -> None: ...


class RawEventRenderer:
    """Every engine event as JSON on stdout, for a program; what an approval asks on stderr,
    for the person who answers the prompt there."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self.final_message: str | None = None

    def show(self, event: Event) -> None:
        self._out.write(json.dumps(event.to_wire(), separators=(",", ":")) + "\n")
        self._out.flush()
        match event.msg:
            case ExecApprovalRequestEvent() | ApplyPatchApprovalRequestEvent():
                write_shown(sys.stderr, approval_text(event.msg))
            case ExitedReviewModeEvent(review_output=output) if output is not None:
                self.final_message = render_review(output)
            case TaskCompleteEvent(last_agent_message=last) if last is not None:
                self.final_message = last

    def prompt(self, text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()


class TerminalRenderer:
    """The final answer on stdout; commands, patches, messages and problems on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self._out, self._err = out, err
        # A terminal obeys escape sequences; a pipe hands the answer to a program as written.
        self._answer_shown = isatty(out)
        self._sandbox: SandboxPolicy | None = None
        self._patches: dict[str, dict[str, dict[str, Any]]] = {}
        self._failed = False
        self.final_message: str | None = None

    def prompt(self, text: str) -> None:
        self._err.write(text)
        self._err.flush()

    def show(self, event: Event) -> None:
        match event.msg:
            case SessionConfiguredEvent() as msg:
                self._sandbox = msg.sandbox_policy
                self._note(session_header(msg))
            case TaskStartedEvent():
                self._failed, self.final_message = False, None
            case AgentMessageEvent(message=message):
                self.final_message = message
                self._note(f"codex\n{message}")
            case ExitedReviewModeEvent(review_output=output) if output is not None:
                self.final_message = render_review(output)
                self._note(f"codex\n{self.final_message}")
            case ExecCommandBeginEvent(command=command, cwd=cwd):
                self._note(f"$ {command_text(command)}   (in {visible(cwd)})")
            case ExecCommandEndEvent() as msg:
                self._command_end(msg)
            case ExecApprovalRequestEvent() | ApplyPatchApprovalRequestEvent() as msg:
                self._note(approval_text(msg))
            case PatchApplyBeginEvent(call_id=call_id, changes=changes):
                self._patches[call_id] = changes
            case PatchApplyEndEvent() as msg:
                self._patch_end(msg)
            case PlanUpdateEvent(plan=plan):
                steps = "\n".join(f"  [{item.status}] {item.step}" for item in plan)
                self._note(f"plan:\n{steps}")
            case ErrorEvent() | StreamErrorEvent() | WarningEvent() as msg:
                self._failed = self._failed or isinstance(msg, ErrorEvent)
                self._note(f"{msg.type.replace('_', ' ')}: {msg.message}")
            case TurnAbortedEvent(reason=reason):
                self._note(f"turn aborted ({reason})")
            case TaskCompleteEvent(last_agent_message=last):
                self._turn_end(last)

    def _command_end(self, msg: ExecCommandEndEvent) -> None:
        seconds = msg.duration.secs + msg.duration.nanos / 1e9
        if msg.status == "declined":
            self._note("  declined: the command did not run")
            return
        self._note(f"  exit {msg.exit_code} in {seconds:.1f}s")
        if msg.exit_code != 0:
            self._note(failure_details(msg, self._sandbox))
        elif tail := output_tail(msg):
            self._note(tail)

    def _patch_end(self, msg: PatchApplyEndEvent) -> None:
        changes = self._patches.pop(msg.call_id, None) or msg.changes
        if msg.success:
            self._note(msg.stdout.rstrip())
            if changes:
                self._note(patch_preview(changes))
        elif msg.status == "declined":
            self._note("patch declined: no file was changed")
        else:
            self._note(f"patch failed: {msg.stderr.strip() or 'no reason given'}")

    def _turn_end(self, last: str | None) -> None:
        if self._failed:
            self.final_message = None
            return
        message = last if last is not None else self.final_message
        self.final_message = message
        if message is not None:
            text = self._answer(message) + "\n"
            # In pieces: one large write that a reader leaves halfway ends short, not with
            # the broken pipe that tells us to stop.
            for start in range(0, len(text), ANSWER_CHUNK):
                self._out.write(text[start : start + ANSWER_CHUNK])
                self._out.flush()

    def _answer(self, text: str) -> str:
        return visible(text, multiline=True) if self._answer_shown else text

    def _note(self, text: str) -> None:
        write_shown(self._err, text)


def write_shown(stream: TextIO, text: str) -> None:
    # Whatever part of `text` came from the model, a command or a file, none of it reaches
    # the terminal as a control sequence.
    stream.write(visible(text, multiline=True) + "\n")
    stream.flush()


def isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:
        return False


def approval_text(msg: ExecApprovalRequestEvent | ApplyPatchApprovalRequestEvent) -> str:
    if isinstance(msg, ExecApprovalRequestEvent):
        return _exec_request(msg)
    reason = f"\n  reason: {msg.reason}" if msg.reason else ""
    return f"The agent wants to change files:{reason}\n{patch_preview(msg.changes)}"


def _exec_request(msg: ExecApprovalRequestEvent) -> str:
    """The approval prompt's text: the whole command on one line, where, why, and whether a yes
    lets it out of the sandbox."""
    lines = [
        "The agent wants to run"
        + (" OUTSIDE the sandbox" if msg.run_unsandboxed else "")
        + f": {command_text(msg.command)}",
        f"  in: {visible(msg.cwd)}",
    ]
    if msg.reason:
        lines.append(f"  reason: {visible(msg.reason)}")
    if msg.run_unsandboxed:
        lines.append(
            "  Approving runs this command outside the sandbox: it can read, change and send "
            "anything you can."
        )
    return "\n".join(lines)


def command_text(argv: list[str]) -> str:
    """The command as one line, every control character in it shown by name."""
    # `bash -lc SCRIPT` reads better as just the script.
    script = shell_script(argv)
    return visible(shlex.join(argv) if script is None else script)
