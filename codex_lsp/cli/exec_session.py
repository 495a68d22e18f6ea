"""The body of `codex-lsp exec`: one session, one turn (a task, a resumed thread's next turn or
a review), shown on the terminal or as JSON lines.

Approvals are asked on the terminal: stdin when it is one, else the controlling terminal
(stdin may have carried the prompt or piped data); with neither, nothing is approved. After a
successful turn, `-o FILE` gets the agent's last message.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any, TextIO

import anyio

from codex_lsp.cli.exec_jsonl import ThreadEventWriter
from codex_lsp.cli.exec_options import image_paths
from codex_lsp.cli.exec_render import RawEventRenderer, Renderer, TerminalRenderer
from codex_lsp.engine.services import EngineServices
from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.events import (
    ApplyPatchApprovalRequestEvent,
    ErrorEvent,
    ExecApprovalRequestEvent,
    SessionConfiguredEvent,
    TaskCompleteEvent,
    TurnAbortedEvent,
)
from codex_lsp.protocol.core.inputs import LocalImageInput, ReviewRequest, TextInput, UserInput
from codex_lsp.protocol.core.ops import (
    ConfigureSession,
    ExecApproval,
    PatchApproval,
    Review,
    UserInputOp,
)
from codex_lsp.protocol.core.policy import AskForApproval, SandboxPolicy, WorkspaceWrite
from codex_lsp.store.config import Config

ANSWERS = {
    "y": ReviewDecision.APPROVED,
    "a": ReviewDecision.APPROVED_FOR_SESSION,
    "n": ReviewDecision.DENIED,
    "q": ReviewDecision.ABORT,
}


class ExecInputError(Exception):
    """Something on the command line cannot be used (a schema file, an image, a session)."""


def _policy(args: argparse.Namespace, config: Config, cwd: Path) -> SandboxPolicy | None:
    sandbox = args.sandbox
    if args.bypass:
        sandbox = "danger-full-access"
    elif args.full_auto:
        sandbox = sandbox or "workspace-write"
    if sandbox is None and not args.add_dirs:
        return None
    # `-s MODE` keeps the config's [sandbox_workspace_write] settings (network, extra roots).
    chosen = config.model_copy(update={"sandbox_mode": sandbox}) if sandbox else config
    policy = chosen.sandbox_policy(cwd)
    if isinstance(policy, WorkspaceWrite) and args.add_dirs:
        extra = [str(path.resolve()) for path in args.add_dirs]
        roots = [*policy.writable_roots, *(r for r in extra if r not in policy.writable_roots)]
        policy = policy.model_copy(update={"writable_roots": roots})
    return policy


def configure_op(args: argparse.Namespace, config: Config) -> ConfigureSession:
    approval = args.ask_for_approval
    if args.bypass:
        approval = "never"
    elif args.full_auto:
        approval = approval or "on-request"
    cwd = (args.cd or Path.cwd()).resolve()
    return ConfigureSession(
        model=args.model,
        approval_policy=AskForApproval(approval) if approval else None,
        sandbox_policy=_policy(args, config, cwd),
        cwd=str(cwd),
        resume_path=_str_or_none(getattr(args, "resume_path", None)),
        fork_path=_str_or_none(getattr(args, "fork_path", None)),
        ephemeral=args.ephemeral,
        source="exec",
    )


def _str_or_none(path: Path | None) -> str | None:
    return str(path) if path is not None else None


def user_items(args: argparse.Namespace, prompt: str) -> list[UserInput]:
    items: list[UserInput] = []
    for path in image_paths(args):
        if not path.is_file():
            raise ExecInputError(f"image {path} does not exist or is not a file")
        items.append(LocalImageInput(path=str(path.resolve())))
    items.append(TextInput(text=prompt))
    return items


def output_schema(args: argparse.Namespace) -> dict[str, Any] | None:
    import json

    if args.output_schema is None:
        return None
    try:
        schema = json.loads(Path(args.output_schema).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ExecInputError(f"cannot read the output schema {args.output_schema}: {err}") from err
    if not isinstance(schema, dict):
        raise ExecInputError(f"the output schema {args.output_schema} is not a JSON object")
    return schema


async def run_task(
    args: argparse.Namespace, services: EngineServices, prompt: str, turn: Any
) -> int:
    """Run the session; `turn` is the op that starts its one turn (None: only resume)."""
    try:
        return await _run_task(args, services, turn)
    finally:
        if services.http is not None:
            await services.http.aclose()


def _renderer(args: argparse.Namespace) -> Renderer:
    if args.raw_events:
        return RawEventRenderer(sys.stdout)
    if args.json:
        return ThreadEventWriter(sys.stdout)
    return TerminalRenderer(sys.stdout, sys.stderr)


async def _run_task(args: argparse.Namespace, services: EngineServices, turn: Any) -> int:
    from codex_lsp.engine.codex import Codex

    renderer = _renderer(args)
    async with Codex(services) as codex:
        await codex.submit(configure_op(args, services.config))
        # Warnings (an MCP server that did not start, no sandbox) may come first.
        while True:
            first = await codex.next_event()
            renderer.show(first)
            if isinstance(first.msg, SessionConfiguredEvent):
                break
            if isinstance(first.msg, ErrorEvent):
                return 1
        turn_id = await codex.submit(turn)
        failed = False
        with _answers() as answers:
            while True:
                event = await codex.next_event()
                renderer.show(event)
                match event.msg:
                    case ErrorEvent():
                        failed = True
                    case ExecApprovalRequestEvent(call_id=call_id, run_unsandboxed=outside):
                        question = (
                            "Run this command OUTSIDE the sandbox?"
                            if outside
                            else "Run this command?"
                        )
                        decision = await _ask(renderer, answers, question)
                        await codex.submit(ExecApproval(id=call_id, decision=decision))
                    case ApplyPatchApprovalRequestEvent(call_id=call_id):
                        decision = await _ask(renderer, answers, "Apply this patch?")
                        await codex.submit(PatchApproval(id=call_id, decision=decision))
                    case TurnAbortedEvent() if event.id == turn_id:
                        return 1
                    case TaskCompleteEvent() if event.id == turn_id:
                        break
    # As codex: the file is written whatever the outcome, empty when there is no answer.
    if args.last_message_file is not None:
        _write_last_message(args.last_message_file, None if failed else renderer.final_message)
    return 1 if failed else 0


def _write_last_message(path: Path, message: str | None) -> None:
    if message is None:
        print(f"warning: no last agent message; wrote empty content to {path}", file=sys.stderr)
    try:
        path.write_text(message or "", encoding="utf-8")
    except OSError as err:
        print(f"error: cannot write the last message to {path}: {err}", file=sys.stderr)


@contextlib.contextmanager
def _answers() -> Any:
    """Where answers to approval prompts are read: stdin when it is a terminal, else the
    controlling terminal; None when there is no terminal to ask."""
    if sys.stdin is not None and not sys.stdin.closed and sys.stdin.isatty():
        yield sys.stdin
        return
    try:
        tty: TextIO | None = open("/dev/tty", encoding="utf-8")  # noqa: SIM115
    except OSError:
        tty = None
    try:
        yield tty
    finally:
        if tty is not None:
            tty.close()


async def _ask(renderer: Renderer, answers: TextIO | None, question: str) -> ReviewDecision:
    renderer.prompt(f"{question} [y]es / [a]lways this session / [n]o / [q]uit turn: ")
    if answers is None:
        renderer.prompt("\nno terminal to answer on: not approved\n")
        return ReviewDecision.DENIED
    line = await anyio.to_thread.run_sync(answers.readline, abandon_on_cancel=True)
    # No terminal to ask (stdin closed) means no approval.
    return ANSWERS.get(line.strip().lower()[:1], ReviewDecision.DENIED)


def review_op(args: argparse.Namespace, prompt: str) -> Review:
    target: dict[str, Any]
    if args.commit:
        target = {"type": "commit", "sha": args.commit, "title": args.title}
    elif args.base:
        target = {"type": "baseBranch", "branch": args.base}
    elif prompt.strip():
        target = {"type": "custom", "instructions": prompt}
    else:
        target = {"type": "uncommittedChanges"}
    return Review(review_request=ReviewRequest.model_validate({"target": target}))


def turn_op(args: argparse.Namespace, prompt: str) -> Review | UserInputOp:
    if args.mode == "review":
        return review_op(args, prompt)
    return UserInputOp(items=user_items(args, prompt), final_output_json_schema=output_schema(args))
