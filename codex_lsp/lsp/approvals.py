"""Approvals and questions from a running turn, put to the editor.

Every editor can answer `window/showMessageRequest`, so that is the default: the message says
what the agent wants (the command, where, why; or the files and a short diff) and the actions
are Approve / Approve for session / Deny / Abort turn. A dismissed prompt is a Deny. A client
that renders approvals itself says so in `initialize`
(`capabilities.experimental.codex.richApprovals`) and gets the v2 request as
`codex/<method>` with the v2 params, its result going back unchanged; once it is settled
(answered, or dropped with its turn) `codex/serverRequest/resolved` names it, as the app-server
does for its requests.

An editor that cannot answer `window/showMessageRequest` says so in its initialize
(`experimental.codex.messageRequests: false`; leaving out `window.showMessage` is not enough,
as many clients that answer prompts do) and gets the same question as a `window/showMessage`
saying how to answer, and answers with a command or a code action (`pending_approvals`,
`approval_commands`).

Every prompt is text for a person made from untrusted parts (the command, paths, the model's
reason, a diff): each part goes through `display.visible`, a command and a path on one line
(a newline in them shows as `\\n`), so no escape sequence, carriage return or bidi override
reaches the editor's popup, and the whole command is in the message, never cut. A command that
approving lets out of the sandbox says so.

A prompt only ever blocks the turn that asked; if that turn is interrupted first, the editor
is told to drop the prompt with `$/cancelRequest`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shlex
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pydantic import BaseModel
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from codex_lsp.display import visible
from codex_lsp.engine.shell import shell_script
from codex_lsp.lsp.pending_approvals import Choice, EntryKind, PendingApprovals
from codex_lsp.protocol.approvals.models import (
    CommandExecutionRequestApprovalParams,
    FileChangeRequestApprovalParams,
    ServerRequestParams,
    ToolRequestUserInputParams,
)
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.core.decisions import ReviewDecision, V2Decision
from codex_lsp.protocol.jsonrpc import INTERNAL_ERROR
from codex_lsp.protocol.threads.notifications import ServerRequestResolvedNotification
from codex_lsp.protocol.turns.items import FileUpdateChange, UpdatePatchChangeKind

logger = logging.getLogger(__name__)

APPROVE = "Approve"
APPROVE_FOR_SESSION = "Approve for session"
DENY = "Deny"
ABORT_TURN = "Abort turn"
DECISIONS = {
    APPROVE: ReviewDecision.APPROVED,
    APPROVE_FOR_SESSION: ReviewDecision.APPROVED_FOR_SESSION,
    DENY: ReviewDecision.DENIED,
    ABORT_TURN: ReviewDecision.ABORT,
}
DISMISSED_DECISION = ReviewDecision.DENIED
# Offered after "Approve for session" for one simple command: its words become a saved rule.
ALWAYS_ALLOW = "Always allow"

# A prompt is a popup; past this it is a wall of text no one reads.
DIFF_PREVIEW_LINES = 20
KIND_LETTERS = {"add": "A", "delete": "D", "update": "M"}


class ClientRequestError(Exception):
    """The editor answered a forwarded request with a JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def _relative(path: str, cwd: Path | None) -> str:
    if cwd is None:
        return path
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def script_of(command: str) -> str:
    """`bash -lc 'SCRIPT'` as just SCRIPT, which is what the user recognises; else as is."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return command
    script = shell_script(argv)
    return command if script is None else script


def command_message(params: CommandExecutionRequestApprovalParams) -> str:
    """The prompt text for `item/commandExecution/requestApproval`."""
    outside = params.codex_lsp is not None and bool(params.codex_lsp.run_unsandboxed)
    lines = [
        "Codex wants to run a command OUTSIDE the sandbox:"
        if outside
        else "Codex wants to run a command:",
        f"$ {visible(params.command or '(unknown command)')}",
    ]
    if params.cwd:
        lines.append(f"in {visible(params.cwd)}")
    network = params.network_approval_context
    if network is not None and network.host:
        host = visible(network.host)
        lines.append(f"It needs network access to {host} ({network.protocol}).")
    if params.reason:
        lines.append(f"Reason: {visible(params.reason, multiline=True)}")
    if params.proposed_execpolicy_amendment:
        prefix = visible(shlex.join(params.proposed_execpolicy_amendment))
        lines.append(f"{ALWAYS_ALLOW}: run commands starting with `{prefix}` without asking.")
    if outside:
        lines.append(
            "Approving runs this command outside the sandbox: it can read, change and send "
            "anything you can."
        )
    return "\n".join(lines)


def file_change_message(
    params: FileChangeRequestApprovalParams,
    changes: list[FileUpdateChange] | None,
    cwd: Path | None,
) -> str:
    """The prompt text for `item/fileChange/requestApproval`: files, reason, a short diff."""
    changes = changes or []
    count = len(changes)
    if count:
        noun = "file" if count == 1 else "files"
        lines = [f"Codex wants to change {count} {noun}:"]
    else:
        lines = ["Codex wants to apply a patch."]
    for change in changes:
        shown = visible(_relative(change.path, cwd))
        if isinstance(change.kind, UpdatePatchChangeKind) and change.kind.move_path:
            shown += f" -> {visible(_relative(change.kind.move_path, cwd))}"
        lines.append(f"  {KIND_LETTERS[change.kind.type]} {shown}")
    if params.reason:
        lines.append(f"Reason: {visible(params.reason, multiline=True)}")
    if params.grant_root:
        lines.append(f"It also asks to write anywhere under {visible(params.grant_root)}.")
    # Lines end at newlines only: a CR or form feed inside a line is shown, not obeyed.
    diff_lines = [
        visible(line, multiline=True)
        for change in changes
        for line in change.diff.removesuffix("\n").split("\n")
        if change.diff
    ]
    if diff_lines:
        lines.append("")
        lines.extend(diff_lines[:DIFF_PREVIEW_LINES])
        hidden = len(diff_lines) - DIFF_PREVIEW_LINES
        if hidden > 0:
            lines.append(f"... {hidden} more diff lines")
    return "\n".join(lines)


def change_summary(changes: list[FileUpdateChange] | None, cwd: Path | None) -> str:
    """A short name for a file change: the files it touches."""
    names = [visible(_relative(change.path, cwd)) for change in changes or []]
    if not names:
        return "apply a patch"
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"change {shown}"


def decision_for(choice: types.MessageActionItem | None) -> V2Decision:
    """The v2 decision for the action the user picked; a dismissed prompt declines."""
    if choice is None:
        return DISMISSED_DECISION.v2
    return DECISIONS.get(choice.title, DISMISSED_DECISION).v2


class ApprovalBroker:
    """Answers the API's server requests by asking the editor.

    `rich` reports whether the client asked for the v2 requests; `thread_cwd` (when known)
    shortens paths in prompts; `file_changes` returns the pending `fileChange` item's changes
    for an approval whose params do not carry them; `notify` sends a v2 notification
    (`serverRequest/resolved`) to the client.

    `ask` returns the editor's result as JSON values; the client port reads it into the
    request's result model.
    """

    def __init__(
        self,
        server: LanguageServer,
        *,
        rich: Callable[[], bool],
        thread_cwd: Callable[[str], Path | None] = lambda _thread: None,
        file_changes: Callable[[str], list[FileUpdateChange] | None] = lambda _item: None,
        pending: PendingApprovals | None = None,
        notify: Callable[[str, BaseModel], None] = lambda _method, _params: None,
        message_requests: Callable[[], bool] = lambda: True,
    ) -> None:
        self._server = server
        self._message_requests = message_requests
        self._notify = notify
        self._rich = rich
        self._thread_cwd = thread_cwd
        self._file_changes = file_changes
        self.pending = pending or PendingApprovals()

    async def ask(self, method: str, params: ServerRequestParams) -> object:
        if self._rich():
            return await self._forward(method, params)
        if isinstance(params, ToolRequestUserInputParams):
            return await self._ask_questions(params)
        if isinstance(params, CommandExecutionRequestApprovalParams):
            message = command_message(params)
            summary = f"run `{visible(script_of(params.command or '(unknown command)'))}`"
        else:
            extras = params.codex_lsp
            changes = extras.changes if extras is not None else None
            if changes is None:
                changes = self._file_changes(params.item_id)
            cwd = self._thread_cwd(params.thread_id)
            message = file_change_message(params, changes, cwd)
            summary = change_summary(changes, cwd)
        if not self.message_requests():
            choices = [Choice(title, decision) for title, decision in DECISIONS.items()]
            answer = await self._wait_for_command("approval", summary, message, choices)
            return {"decision": answer}
        amendment = (
            params.proposed_execpolicy_amendment
            if isinstance(params, CommandExecutionRequestApprovalParams)
            else None
        )
        actions = list(DECISIONS)
        if amendment:
            actions.insert(actions.index(APPROVE_FOR_SESSION) + 1, ALWAYS_ALLOW)
        choice = await self._prompt(message, actions, types.MessageType.Warning)
        if amendment and choice is not None and choice.title == ALWAYS_ALLOW:
            rule = {"execpolicy_amendment": list(amendment)}
            return {"decision": {"acceptWithExecpolicyAmendment": rule}}
        return {"decision": decision_for(choice)}

    def message_requests(self) -> bool:
        """Whether the editor answers `window/showMessageRequest` (unless it opted out)."""
        return self._message_requests()

    async def _wait_for_command(
        self, kind: EntryKind, summary: str, message: str, choices: list[Choice]
    ) -> str:
        """Wait for a `codex.*` command (or its code action) to answer; say how to."""
        entry = self.pending.add(kind, summary, choices)
        if kind == "approval":
            how = (
                'answer with a code action ("Codex: approve …" or "Codex: deny …", offered in '
                "any file), or run the command codex.approve or codex.deny with "
                f'{{"id": "{entry.id}"}}.'
            )
        else:
            how = (
                'answer with a code action ("Codex: answer …", offered in any file), or run the '
                f'command codex.answer with {{"id": "{entry.id}", "answer": "<choice>"}}.'
            )
        self._server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Warning,
                message=visible(
                    f"{message}\n\nThis editor shows no prompts: {how}", multiline=True
                ),
            )
        )
        return await self.pending.wait(entry)

    async def _ask_questions(self, params: ToolRequestUserInputParams) -> dict[str, Any]:
        """One prompt per question, its options as the actions; free-text questions are skipped
        (a message prompt cannot take text) and a dismissal skips the rest."""
        answers: dict[str, dict[str, list[str]]] = {}
        for question in params.questions:
            labelled = [option for option in question.options or [] if option.label]
            # What the user sees of each option, and the option the model wrote.
            shown: dict[str, str] = {}
            for option in labelled:
                shown.setdefault(visible(option.label), option.label)
            if not shown:
                continue
            descriptions = [
                f"{visible(o.label)}: {visible(o.description, multiline=True)}"
                for o in labelled
                if o.description
            ]
            lines = [visible(text, multiline=True) for text in (question.header, question.question)]
            message = "\n".join([line for line in lines if line] + descriptions)
            if not self.message_requests():
                summary = visible(question.header or question.question or "a question")
                choices = [Choice(title, option) for title, option in shown.items()]
                answer = await self._wait_for_command("question", summary, message, choices)
                answers[question.id] = {"answers": [answer]}
                continue
            choice = await self._prompt(message, list(shown), types.MessageType.Info)
            if choice is None:
                break
            answers[question.id] = {"answers": [shown.get(choice.title, choice.title)]}
        return {"answers": answers}

    async def _prompt(
        self, message: str, actions: list[str], kind: types.MessageType
    ) -> types.MessageActionItem | None:
        # The parts are shown already; this holds for any text a caller forgets.
        params = types.ShowMessageRequestParams(
            type=kind,
            message=visible(message, multiline=True),
            actions=[types.MessageActionItem(title=visible(title)) for title in actions],
        )
        choice = await self._request(types.WINDOW_SHOW_MESSAGE_REQUEST, params)
        return choice if isinstance(choice, types.MessageActionItem) else None

    async def _forward(self, method: str, params: ServerRequestParams) -> dict[str, Any]:
        msg_id = f"codex-{uuid.uuid4().hex}"
        try:
            result = await self._request(f"codex/{method}", dump(params), msg_id)
        finally:
            resolved = ServerRequestResolvedNotification(
                thread_id=params.thread_id, request_id=msg_id
            )
            self._notify("serverRequest/resolved", resolved)
        if not isinstance(result, dict):
            raise ClientRequestError(
                INTERNAL_ERROR, f"the editor answered codex/{method} with {result!r}"
            )
        return result

    async def _request(self, method: str, params: Any, msg_id: str | None = None) -> Any:
        msg_id = msg_id or f"codex-{uuid.uuid4().hex}"
        protocol = self._server.protocol
        try:
            return await protocol.send_request_async(method, params, msg_id=msg_id)
        except asyncio.CancelledError:
            # The turn went away (interrupt, shutdown): take the prompt off the editor's screen.
            try:
                protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
            except Exception:
                logger.debug("could not cancel %s on the client", method, exc_info=True)
            raise
        except JsonRpcException as err:
            raise ClientRequestError(err.code, err.message, err.data) from None
