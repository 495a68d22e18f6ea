"""Answering approvals by command, and the decisions remembered for the session.

For editors that cannot show a prompt, a waiting approval or question (`PendingApprovals`) is
answered with:

* `codex.approve` `[{id?, forSession?}]`: run the command / apply the change (`forSession`:
  and do not ask again in this thread); returns `{id, decision}`;
* `codex.deny` `[{id?, stopTurn?}]`: do not (`stopTurn`: and end the turn);
* `codex.answer` `[{id?, answer}]`: pick one of a question's choices.

Without an `id` the only one waiting is meant. The same answers are offered as code actions in
every file while something waits, so an editor whose commands take no arguments can use them.

Decisions made "for this session" are listed with `codex.sessionApprovals` `[{threadId?}]`
(returned, and shown as a message) and taken back with `codex.revokeApproval` `[{id?}]`, after
which the agent asks again.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from codex_lsp.lsp.commands import command_options, string_option
from codex_lsp.lsp.pending_approvals import (
    EntryKind,
    PendingApprovals,
    PendingEntry,
    UnknownEntryError,
)
from codex_lsp.lsp.protocol import plain_handler
from codex_lsp.protocol.core.decisions import ReviewDecision

if TYPE_CHECKING:
    from codex_lsp.engine.approvals import RememberedApproval
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.server import CodexLanguageServer

APPROVE = "codex.approve"
DENY = "codex.deny"
ANSWER = "codex.answer"
SESSION_APPROVALS = "codex.sessionApprovals"
REVOKE_APPROVAL = "codex.revokeApproval"

KIND = types.CodeActionKind.QuickFix


def remembered_id(thread_id: str, entry: RememberedApproval) -> str:
    """A short id that names one remembered decision for as long as it is remembered."""
    digest = hashlib.sha256(f"{thread_id}\0{entry.kind}\0{entry.key}".encode()).hexdigest()
    return digest[:8]


def _flag(options: dict[str, Any], key: str, command: str) -> bool:
    value = options.get(key, False)
    if not isinstance(value, bool):
        raise JsonRpcInvalidParams(f"{command}: '{key}' must be true or false")
    return value


class ApprovalCommands:
    def __init__(
        self, server: CodexLanguageServer, host: EngineHost, pending: PendingApprovals
    ) -> None:
        self._server = server
        self._host = host
        self._pending = pending

    def register(self, server: CodexLanguageServer) -> None:
        server.command(APPROVE)(plain_handler(self.approve))
        server.command(DENY)(plain_handler(self.deny))
        server.command(ANSWER)(plain_handler(self.answer))
        server.command(SESSION_APPROVALS)(plain_handler(self.session_approvals))
        server.command(REVOKE_APPROVAL)(plain_handler(self.revoke_approval))

    # -- answering ---------------------------------------------------------------------------

    def _entry(self, command: str, options: dict[str, Any], kind: EntryKind) -> PendingEntry:
        entry_id = string_option(options, "id", command, required=False)
        try:
            return self._pending.find(entry_id, kind)
        except UnknownEntryError as err:
            raise JsonRpcInvalidParams(f"{command}: {err}") from None

    def approve(self, *arguments: object) -> dict[str, str]:
        options = command_options(APPROVE, arguments)
        entry = self._entry(APPROVE, options, "approval")
        for_session = _flag(options, "forSession", APPROVE)
        chosen = ReviewDecision.APPROVED_FOR_SESSION if for_session else ReviewDecision.APPROVED
        decision = chosen.v2
        self._pending.answer(entry, decision)
        return {"id": entry.id, "decision": decision}

    def deny(self, *arguments: object) -> dict[str, str]:
        options = command_options(DENY, arguments)
        entry = self._entry(DENY, options, "approval")
        chosen = ReviewDecision.ABORT if _flag(options, "stopTurn", DENY) else ReviewDecision.DENIED
        decision = chosen.v2
        self._pending.answer(entry, decision)
        return {"id": entry.id, "decision": decision}

    def answer(self, *arguments: object) -> dict[str, str]:
        options = command_options(ANSWER, arguments)
        entry = self._entry(ANSWER, options, "question")
        answer = string_option(options, "answer", ANSWER, required=True)
        choice = next((c for c in entry.choices if answer in (c.title, c.value)), None)
        if choice is None:
            titles = ", ".join(repr(c.title) for c in entry.choices)
            raise JsonRpcInvalidParams(f"{ANSWER}: the answer must be one of {titles}")
        self._pending.answer(entry, choice.value)
        return {"id": entry.id, "answer": choice.value}

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        """The answers to everything waiting, whatever the file or range."""
        actions: list[types.CodeAction] = []
        for entry in self._pending.entries():
            offered: list[tuple[str, str, dict[str, Any]]]
            if entry.kind == "approval":
                offered = [
                    (f"Codex: approve: {entry.summary}", APPROVE, {}),
                    (
                        f"Codex: approve for this session: {entry.summary}",
                        APPROVE,
                        {"forSession": True},
                    ),
                    (f"Codex: deny: {entry.summary}", DENY, {}),
                    (f"Codex: deny and stop the turn: {entry.summary}", DENY, {"stopTurn": True}),
                ]
            else:
                offered = [
                    (f"Codex: answer {entry.summary}: {c.title}", ANSWER, {"answer": c.title})
                    for c in entry.choices
                ]
            for title, command, extra in offered:
                arguments: list[Any] = [{"id": entry.id, **extra}]
                actions.append(
                    types.CodeAction(
                        title=title,
                        kind=KIND,
                        command=types.Command(title=title, command=command, arguments=arguments),
                    )
                )
        return actions

    # -- remembered decisions -----------------------------------------------------------------

    def _remembered(self, thread_id: str | None) -> list[tuple[str, RememberedApproval]]:
        api = self._host.api
        if api is None:
            return []
        found = api.session_approvals()
        return [(t, e) for t, e in found if thread_id is None or t == thread_id]

    def session_approvals(self, *arguments: object) -> dict[str, Any]:
        options = command_options(SESSION_APPROVALS, arguments)
        thread_id = string_option(options, "threadId", SESSION_APPROVALS, required=False)
        listed = [
            {
                "id": remembered_id(t, e),
                "threadId": t,
                "kind": e.kind,
                "description": e.description,
            }
            for t, e in self._remembered(thread_id)
        ]
        if listed:
            lines = ["Approved for this session (codex.revokeApproval with the id takes one back):"]
            lines += [f"  {item['id']}  {item['kind']}: {item['description']}" for item in listed]
            message = "\n".join(lines)
        else:
            message = "Nothing is approved for this session: every command and change is asked."
        self._server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Info, message=message)
        )
        return {"approvals": listed}

    def revoke_approval(self, *arguments: object) -> dict[str, Any]:
        options = command_options(REVOKE_APPROVAL, arguments)
        wanted = string_option(options, "id", REVOKE_APPROVAL, required=False)
        remembered = self._remembered(None)
        if wanted is None and len(remembered) != 1:
            count = "nothing is" if not remembered else f"{len(remembered)} decisions are"
            raise JsonRpcInvalidParams(
                f"{REVOKE_APPROVAL}: {count} approved for this session; name one by the id "
                f"{SESSION_APPROVALS} lists"
            )
        found = [(t, e) for t, e in remembered if wanted in (None, remembered_id(t, e))]
        api = self._host.api
        if not found or api is None:
            raise JsonRpcInvalidParams(
                f"{REVOKE_APPROVAL}: no decision approved for this session has the id {wanted!r}"
            )
        thread_id, entry = found[0]
        api.forget_session_approval(thread_id, entry)
        self._server.window_show_message(
            types.ShowMessageParams(
                type=types.MessageType.Info,
                message=f"No longer approved for this session ({entry.kind}): {entry.description}",
            )
        )
        return {
            "revoked": {
                "id": remembered_id(thread_id, entry),
                "threadId": thread_id,
                "kind": entry.kind,
                "description": entry.description,
            }
        }
