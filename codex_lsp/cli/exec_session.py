"""The body of `codex-lsp exec`: one session, one task, rendered on the terminal."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

import anyio

from codex_lsp.cli.exec_text import failure_details, patch_preview, session_header
from codex_lsp.protocol.events import Event
from codex_lsp.protocol.inputs import TextInput
from codex_lsp.protocol.ops import ConfigureSession, ExecApproval, PatchApproval, UserInputOp
from codex_lsp.protocol.policy import AskForApproval, SandboxPolicy

ANSWERS = {"y": "approved", "a": "approved_for_session", "n": "denied", "q": "abort"}


def _configure_op(args: argparse.Namespace, config: Any) -> ConfigureSession:
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


async def run_task(args: argparse.Namespace, services: Any, prompt: str) -> int:
    try:
        return await _run_task(args, services, prompt)
    finally:
        if services.http is not None:
            await services.http.aclose()


async def _run_task(args: argparse.Namespace, services: Any, prompt: str) -> int:
    from codex_lsp.engine.codex import Codex

    renderer = JsonRenderer(sys.stdout) if args.json else TerminalRenderer(sys.stdout, sys.stderr)
    async with Codex(services) as codex:
        await codex.submit(_configure_op(args, services.config))
        # Warnings (an MCP server that did not start, no sandbox) may come first.
        while True:
            first = await codex.next_event()
            renderer.show(first)
            if first.msg.type == "session_configured":
                break
            if first.msg.type == "error":
                return 1
        turn = await codex.submit(UserInputOp(items=[TextInput(text=prompt)]))
        failed = False
        while True:
            event = await codex.next_event()
            renderer.show(event)
            kind = event.msg.type
            if kind == "error":
                failed = True
            elif kind == "exec_approval_request":
                decision = await _ask(renderer, "Run this command?")
                await codex.submit(ExecApproval(id=event.msg.call_id, decision=decision))
            elif kind == "apply_patch_approval_request":
                decision = await _ask(renderer, "Apply this patch?")
                await codex.submit(PatchApproval(id=event.msg.call_id, decision=decision))
            elif kind == "turn_aborted" and event.id == turn:
                return 1
            elif kind == "task_complete" and event.id == turn:
                return 1 if failed else 0


async def _ask(renderer: Any, question: str) -> str:
    renderer.prompt(f"{question} [y]es / [a]lways this session / [n]o / [q]uit turn: ")
    line = await anyio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
    # No terminal to ask (stdin closed) means no approval.
    return ANSWERS.get(line.strip().lower()[:1], "denied")


class JsonRenderer:
    def __init__(self, out: TextIO) -> None:
        self._out = out

    def show(self, event: Event) -> None:
        self._out.write(json.dumps(event.to_wire(), separators=(",", ":")) + "\n")
        self._out.flush()

    def prompt(self, text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()


class TerminalRenderer:
    """Answer text on stdout; commands, patches and problems on stderr."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self._out, self._err = out, err
        self._streamed = False
        self._sandbox: SandboxPolicy | None = None

    def prompt(self, text: str) -> None:
        self._err.write(text)
        self._err.flush()

    def show(self, event: Event) -> None:
        msg = event.msg
        kind = msg.type
        if kind == "session_configured":
            self._sandbox = msg.sandbox_policy
            self._note(session_header(msg))
        elif kind == "agent_message_delta":
            self._out.write(msg.delta)
            self._out.flush()
            self._streamed = True
        elif kind == "agent_message":
            if not self._streamed:
                self._out.write(msg.message)
            self._out.write("\n")
            self._out.flush()
            self._streamed = False
        elif kind == "exec_command_begin":
            self._note(f"$ {_command_text(msg.command)}   (in {msg.cwd})")
        elif kind == "exec_command_end":
            seconds = msg.duration.secs + msg.duration.nanos / 1e9
            if msg.status == "declined":
                self._note("  declined: the command did not run")
            else:
                self._note(f"  exit {msg.exit_code} in {seconds:.1f}s")
            if msg.exit_code != 0 and msg.status != "declined":
                self._note(failure_details(msg, self._sandbox))
        elif kind == "exec_approval_request":
            reason = f"\n  reason: {msg.reason}" if msg.reason else ""
            self._note(
                f"The agent wants to run: {_command_text(msg.command)}\n  in: {msg.cwd}{reason}"
            )
        elif kind == "apply_patch_approval_request":
            reason = f"\n  reason: {msg.reason}" if msg.reason else ""
            self._note(f"The agent wants to change files:{reason}\n{patch_preview(msg.changes)}")
        elif kind == "patch_apply_end":
            if msg.success:
                self._note(msg.stdout.rstrip())
            elif msg.status == "declined":
                self._note("patch declined: no file was changed")
            else:
                self._note(f"patch failed: {msg.stderr.strip() or 'no reason given'}")
        elif kind == "plan_update":
            steps = "\n".join(f"  [{item.status}] {item.step}" for item in msg.plan)
            self._note(f"plan:\n{steps}")
        elif kind in ("error", "stream_error", "warning"):
            self._note(f"{kind.replace('_', ' ')}: {msg.message}")
        elif kind == "turn_aborted":
            self._note(f"turn aborted ({msg.reason})")

    def _note(self, text: str) -> None:
        self._err.write(text + "\n")
        self._err.flush()


def _command_text(argv: list[str]) -> str:
    # `bash -lc SCRIPT` reads better as just the script.
    if len(argv) == 3 and argv[1] in ("-lc", "-c"):
        return argv[2]
    return " ".join(argv)
