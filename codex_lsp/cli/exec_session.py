"""The body of `codex-lsp exec`: one session, one task, rendered on the terminal.

Everything written for a person goes through `display.visible`: commands on one line (a
newline in a command shows as `\\n`), the rest with its lines kept, so an escape sequence,
a carriage return or a bidi override in a command, a path, a command's output or the
model's words is shown, never obeyed. The model's answer on stdout is escaped the same way
when stdout is a terminal; piped or redirected, it stays exactly what the model wrote (a
program reads it). `--json` is for programs and stays unchanged.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path
from typing import Protocol, TextIO

import anyio

from codex_lsp.cli.exec_text import failure_details, patch_preview, session_header
from codex_lsp.display import visible
from codex_lsp.engine.services import EngineServices
from codex_lsp.engine.shell import shell_script
from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.events import (
    AgentMessageDeltaEvent,
    AgentMessageEvent,
    ApplyPatchApprovalRequestEvent,
    ErrorEvent,
    Event,
    ExecApprovalRequestEvent,
    ExecCommandBeginEvent,
    ExecCommandEndEvent,
    PatchApplyEndEvent,
    PlanUpdateEvent,
    SessionConfiguredEvent,
    StreamErrorEvent,
    TaskCompleteEvent,
    TurnAbortedEvent,
    WarningEvent,
)
from codex_lsp.protocol.core.inputs import TextInput
from codex_lsp.protocol.core.ops import ConfigureSession, ExecApproval, PatchApproval, UserInputOp
from codex_lsp.protocol.core.policy import AskForApproval, SandboxPolicy
from codex_lsp.store.config import Config

ANSWERS = {
    "y": ReviewDecision.APPROVED,
    "a": ReviewDecision.APPROVED_FOR_SESSION,
    "n": ReviewDecision.DENIED,
    "q": ReviewDecision.ABORT,
}


def _configure_op(args: argparse.Namespace, config: Config) -> ConfigureSession:
    approval = args.ask_for_approval
    sandbox = args.sandbox
    if args.full_auto:
        approval, sandbox = approval or "on-request", sandbox or "workspace-write"
    cwd = (args.cd or Path.cwd()).resolve()
    # `-s MODE` keeps the config's [sandbox_workspace_write] settings (network, extra roots).
    policy = (
        config.model_copy(update={"sandbox_mode": sandbox}).sandbox_policy(cwd) if sandbox else None
    )
    return ConfigureSession(
        model=args.model,
        approval_policy=AskForApproval(approval) if approval else None,
        sandbox_policy=policy,
        cwd=str(cwd),
        source="exec",
    )


async def run_task(args: argparse.Namespace, services: EngineServices, prompt: str) -> int:
    try:
        return await _run_task(args, services, prompt)
    finally:
        if services.http is not None:
            await services.http.aclose()


async def _run_task(args: argparse.Namespace, services: EngineServices, prompt: str) -> int:
    from codex_lsp.engine.codex import Codex

    renderer: Renderer = (
        JsonRenderer(sys.stdout) if args.json else TerminalRenderer(sys.stdout, sys.stderr)
    )
    async with Codex(services) as codex:
        await codex.submit(_configure_op(args, services.config))
        # Warnings (an MCP server that did not start, no sandbox) may come first.
        while True:
            first = await codex.next_event()
            renderer.show(first)
            if isinstance(first.msg, SessionConfiguredEvent):
                break
            if isinstance(first.msg, ErrorEvent):
                return 1
        turn = await codex.submit(UserInputOp(items=[TextInput(text=prompt)]))
        failed = False
        while True:
            event = await codex.next_event()
            renderer.show(event)
            match event.msg:
                case ErrorEvent():
                    failed = True
                case ExecApprovalRequestEvent(call_id=call_id, run_unsandboxed=outside):
                    question = (
                        "Run this command OUTSIDE the sandbox?" if outside else "Run this command?"
                    )
                    decision = await _ask(renderer, question)
                    await codex.submit(ExecApproval(id=call_id, decision=decision))
                case ApplyPatchApprovalRequestEvent(call_id=call_id):
                    decision = await _ask(renderer, "Apply this patch?")
                    await codex.submit(PatchApproval(id=call_id, decision=decision))
                case TurnAbortedEvent() if event.id == turn:
                    return 1
                case TaskCompleteEvent() if event.id == turn:
                    return 1 if failed else 0


async def _ask(renderer: Renderer, question: str) -> ReviewDecision:
    renderer.prompt(f"{question} [y]es / [a]lways this session / [n]o / [q]uit turn: ")
    line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
    # No terminal to ask (stdin closed) means no approval.
    return ANSWERS.get(line.strip().lower()[:1], ReviewDecision.DENIED)


class Renderer(Protocol):
    def show(self, event: Event) -> None: ...

    def prompt(self, text: str) -> None: ...


class JsonRenderer:
    """Every event as JSON on stdout, for a program; what an approval asks on stderr, for the
    person who answers the prompt there."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def show(self, event: Event) -> None:
        self._out.write(json.dumps(event.to_wire(), separators=(",", ":")) + "\n")
        self._out.flush()
        match event.msg:
            case ExecApprovalRequestEvent() as msg:
                _write_shown(sys.stderr, _exec_request(msg))
            case ApplyPatchApprovalRequestEvent() as msg:
                _write_shown(sys.stderr, _patch_request(msg))

    def prompt(self, text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()


class TerminalRenderer:
    """Answer text on stdout; commands, patches and problems on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self._out, self._err = out, err
        # A terminal obeys escape sequences; a pipe hands the answer to a program as written.
        self._answer_shown = _isatty(out)
        self._streamed = False
        self._sandbox: SandboxPolicy | None = None

    def prompt(self, text: str) -> None:
        self._err.write(text)
        self._err.flush()

    def show(self, event: Event) -> None:
        match event.msg:
            case SessionConfiguredEvent() as msg:
                self._sandbox = msg.sandbox_policy
                self._note(session_header(msg))
            case AgentMessageDeltaEvent(delta=delta):
                self._out.write(self._answer(delta))
                self._out.flush()
                self._streamed = True
            case AgentMessageEvent(message=message):
                if not self._streamed:
                    self._out.write(self._answer(message))
                self._out.write("\n")
                self._out.flush()
                self._streamed = False
            case ExecCommandBeginEvent(command=command, cwd=cwd):
                self._note(f"$ {_command_text(command)}   (in {visible(cwd)})")
            case ExecCommandEndEvent() as msg:
                seconds = msg.duration.secs + msg.duration.nanos / 1e9
                if msg.status == "declined":
                    self._note("  declined: the command did not run")
                else:
                    self._note(f"  exit {msg.exit_code} in {seconds:.1f}s")
                if msg.exit_code != 0 and msg.status != "declined":
                    self._note(failure_details(msg, self._sandbox))
            case ExecApprovalRequestEvent() as msg:
                self._note(_exec_request(msg))
            case ApplyPatchApprovalRequestEvent() as msg:
                self._note(_patch_request(msg))
            case PatchApplyEndEvent() as msg:
                if msg.success:
                    self._note(msg.stdout.rstrip())
                elif msg.status == "declined":
                    self._note("patch declined: no file was changed")
                else:
                    self._note(f"patch failed: {msg.stderr.strip() or 'no reason given'}")
            case PlanUpdateEvent(plan=plan):
                steps = "\n".join(f"  [{item.status}] {item.step}" for item in plan)
                self._note(f"plan:\n{steps}")
            case ErrorEvent() | StreamErrorEvent() | WarningEvent() as msg:
                self._note(f"{msg.type.replace('_', ' ')}: {msg.message}")
            case TurnAbortedEvent(reason=reason):
                self._note(f"turn aborted ({reason})")

    def _answer(self, text: str) -> str:
        return visible(text, multiline=True) if self._answer_shown else text

    def _note(self, text: str) -> None:
        _write_shown(self._err, text)


def _write_shown(stream: TextIO, text: str) -> None:
    # Whatever part of `text` came from the model, a command or a file, none of it reaches
    # the terminal as a control sequence.
    stream.write(visible(text, multiline=True) + "\n")
    stream.flush()


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:
        return False


def _exec_request(msg: ExecApprovalRequestEvent) -> str:
    """The approval prompt's text: the whole command on one line, where, why, and whether a yes
    lets it out of the sandbox."""
    lines = [
        "The agent wants to run"
        + (" OUTSIDE the sandbox" if msg.run_unsandboxed else "")
        + f": {_command_text(msg.command)}",
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


def _patch_request(msg: ApplyPatchApprovalRequestEvent) -> str:
    reason = f"\n  reason: {msg.reason}" if msg.reason else ""
    return f"The agent wants to change files:{reason}\n{patch_preview(msg.changes)}"


def _command_text(argv: list[str]) -> str:
    """The command as one line, every control character in it shown by name."""
    # `bash -lc SCRIPT` reads better as just the script.
    script = shell_script(argv)
    return visible(shlex.join(argv) if script is None else script)
