"""Approvals and questions: engine requests out to the client, its answers back as ops.

Each request waits in its own task, so a client that never answers holds up only the turn that
asked; other threads, and other requests, go on. When the turn ends first (interrupted, replaced)
its waiting requests are cancelled: the door then tells the client the request was resolved.

The door reads the client's answer into the request's result model; a client error, an
answer that does not fit that model or a closed connection counts as `decline`: the turn goes on
without the command or patch, which is the safe reading of "no answer", and it is logged.

An MCP tool call's approval is asked as `item/tool/requestUserInput` on its `mcpToolCall` item,
the way the reference server asks it: one question whose choices are `MCP_APPROVAL_OPTIONS`.

A command approval lists the answers it takes, in the reference server's order: `accept`, then
"accept commands starting like this one" when the command is one simple command (its words are
the proposed execpolicy amendment), then `cancel`. Where the reference offers only those, this
server also offers `acceptForSession` and `decline`, which it honours. The "starting like this
one" answer runs the command and saves its words as an allow prefix rule (`engine.exec_rules`).

A file-change approval carries only the protocol's fields; the patch is in the pending
`fileChange` item, and also under our own `codexLsp.changes`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

import anyio

from codex_lsp.api.convert import command_actions, command_string, now_ms
from codex_lsp.api.port import Answer, ClientPort
from codex_lsp.engine.exec_rules import simple_command
from codex_lsp.protocol.approvals.models import (
    AcceptWithExecpolicyAmendmentDecision,
    ApplyNetworkPolicyAmendmentDecision,
    CodexLspApprovalExtras,
    CommandExecutionApprovalDecision,
    CommandExecutionRequestApprovalParams,
    CommandExecutionRequestApprovalResponse,
    ExecpolicyAmendment,
    FileChangeApprovalDecision,
    FileChangeRequestApprovalParams,
    ServerRequestParams,
    ToolRequestUserInputOption,
    ToolRequestUserInputParams,
    ToolRequestUserInputQuestion,
    ToolRequestUserInputResponse,
)
from codex_lsp.protocol.core import events as ev
from codex_lsp.protocol.core.decisions import ReviewDecision
from codex_lsp.protocol.core.ops import (
    ExecApproval,
    HunkRef,
    Op,
    PatchApproval,
    UserInputAnswer,
    UserInputAnswerEntry,
)
from codex_lsp.protocol.editor import FileChangeApprovalAnswer
from codex_lsp.protocol.threads.models import ThreadActiveFlag
from codex_lsp.protocol.turns.items import FileUpdateChange

log = logging.getLogger(__name__)

# Starts a job in the thread's task group.
Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], object]

APPROVAL_FLAG: ThreadActiveFlag = "waitingOnApproval"
INPUT_FLAG: ThreadActiveFlag = "waitingOnUserInput"

MCP_APPROVAL_QUESTION_PREFIX = "mcp_tool_call_approval_"
MCP_APPROVAL_OPTIONS: dict[str, tuple[ReviewDecision, str]] = {
    "Approve Once": (ReviewDecision.APPROVED, "Run the tool this time."),
    "Approve this Session": (
        ReviewDecision.APPROVED_FOR_SESSION,
        "Run it, and do not ask again for this tool in this thread.",
    ),
    "Deny": (ReviewDecision.DENIED, "Do not run it; the model is told and goes on."),
    "Cancel": (ReviewDecision.ABORT, "Do not run it, and stop the turn."),
}
"""Choice label -> (core decision, description), in the order they are offered."""


def core_decision(
    decision: CommandExecutionApprovalDecision | FileChangeApprovalDecision,
) -> ReviewDecision:
    """A v2 answer as the engine takes it. `cancel` aborts the turn; `decline` lets it go on."""
    if isinstance(decision, AcceptWithExecpolicyAmendmentDecision):
        # This run; the prefix rule goes with the answer (`ExecApproval.execpolicy_amendment`).
        return ReviewDecision.APPROVED
    if isinstance(decision, ApplyNetworkPolicyAmendmentDecision):
        action = decision.apply_network_policy_amendment.network_policy_amendment.action
        return ReviewDecision.APPROVED if action == "allow" else ReviewDecision.DENIED
    return ReviewDecision.from_v2(decision)


def proposed_execpolicy_amendment(argv: Sequence[str]) -> list[str] | None:
    """The words of `argv` as a rule to allow from now on, when it is one simple command.

    A `bash -lc SCRIPT` wrapper is looked through. A script with more than one command or any
    shell syntax (pipes, redirections, substitutions, globs) gets no proposal: a prefix rule
    would allow more than the user saw. A saved rule is matched against each command of a
    plain script in the same way (`engine.exec_rules`).
    """
    return simple_command(argv)


def available_decisions(amendment: list[str] | None) -> list[CommandExecutionApprovalDecision]:
    """What the client may answer to a command approval, in the order to offer it."""
    decisions: list[CommandExecutionApprovalDecision] = [
        ReviewDecision.APPROVED.v2,
        ReviewDecision.APPROVED_FOR_SESSION.v2,
    ]
    if amendment is not None:
        decisions.append(
            AcceptWithExecpolicyAmendmentDecision(
                accept_with_execpolicy_amendment=ExecpolicyAmendment(execpolicy_amendment=amendment)
            )
        )
    decisions += [ReviewDecision.DENIED.v2, ReviewDecision.ABORT.v2]
    return decisions


class ApprovalRouter:
    """The `ApprovalHooks` of one thread."""

    def __init__(
        self,
        thread_id: str,
        client: ClientPort,
        submit: Callable[[Op], Awaitable[Any]],
        spawn: Spawn,
        waiting: Callable[[ThreadActiveFlag, int], None],
    ) -> None:
        self._thread_id = thread_id
        self._client = client
        self._submit = submit
        self._spawn = spawn
        self._waiting = waiting
        self._scopes: dict[str, set[anyio.CancelScope]] = {}

    # -- ApprovalHooks ----------------------------------------------------------------------

    def ask_exec(
        self, turn_id: str, event: ev.ExecApprovalRequestEvent, *, scope: str | None = None
    ) -> None:
        amendment = proposed_execpolicy_amendment(event.command)
        params = CommandExecutionRequestApprovalParams(
            thread_id=self._thread_id,
            turn_id=turn_id,
            item_id=event.call_id,
            started_at_ms=now_ms(),
            approval_id=event.approval_id,
            reason=event.reason,
            command=command_string(event.command),
            cwd=event.cwd,
            command_actions=command_actions(event.parsed_cmd),
            proposed_execpolicy_amendment=amendment,
            available_decisions=available_decisions(amendment),
            codex_lsp=(
                CodexLspApprovalExtras(run_unsandboxed=True) if event.run_unsandboxed else None
            ),
        )

        def answer(result: CommandExecutionRequestApprovalResponse | None) -> Op:
            decision = ReviewDecision.DENIED if result is None else core_decision(result.decision)
            chosen = result.decision if result is not None else None
            rule = (
                chosen.accept_with_execpolicy_amendment.execpolicy_amendment
                if isinstance(chosen, AcceptWithExecpolicyAmendmentDecision)
                else None
            )
            return ExecApproval(
                id=event.call_id,
                turn_id=turn_id,
                decision=decision,
                execpolicy_amendment=list(rule) if rule is not None else None,
            )

        self._ask(
            scope or turn_id,
            APPROVAL_FLAG,
            "item/commandExecution/requestApproval",
            params,
            CommandExecutionRequestApprovalResponse,
            answer,
        )

    def ask_patch(
        self,
        turn_id: str,
        event: ev.ApplyPatchApprovalRequestEvent,
        diffs: list[FileUpdateChange],
        *,
        scope: str | None = None,
    ) -> None:
        params = FileChangeRequestApprovalParams(
            thread_id=self._thread_id,
            turn_id=turn_id,
            item_id=event.call_id,
            started_at_ms=now_ms(),
            reason=event.reason,
            grant_root=event.grant_root,
            codex_lsp=CodexLspApprovalExtras(changes=diffs),
        )

        def answer(result: FileChangeApprovalAnswer | None) -> Op:
            if result is None:
                return PatchApproval(id=event.call_id, decision=ReviewDecision.DENIED)
            refs = [HunkRef(path=hunk.path, index=hunk.index) for hunk in result.declined_hunks]
            decision = core_decision(result.decision)
            return PatchApproval(id=event.call_id, decision=decision, declined_hunks=refs)

        self._ask(
            scope or turn_id,
            APPROVAL_FLAG,
            "item/fileChange/requestApproval",
            params,
            FileChangeApprovalAnswer,
            answer,
        )

    def ask_user_input(self, turn_id: str, event: ev.RequestUserInputEvent) -> None:
        params = ToolRequestUserInputParams(
            thread_id=self._thread_id,
            turn_id=turn_id,
            item_id=event.call_id,
            questions=[_question(raw) for raw in event.questions],
        )

        def answer(result: ToolRequestUserInputResponse | None) -> Op:
            # No answer (an error, a malformed one) answers no question.
            answers = {
                question_id: UserInputAnswerEntry(selected=list(entry.answers))
                for question_id, entry in (result.answers.items() if result is not None else ())
            }
            # The engine waits for the answers of a turn under the turn's id.
            return UserInputAnswer(id=turn_id, answers=answers)

        self._ask(
            turn_id,
            INPUT_FLAG,
            "item/tool/requestUserInput",
            params,
            ToolRequestUserInputResponse,
            answer,
        )

    def ask_mcp_tool(
        self,
        turn_id: str,
        event: ev.ExecApprovalRequestEvent,
        server: str,
        tool: str,
        *,
        scope: str | None = None,
    ) -> None:
        question_id = f"{MCP_APPROVAL_QUESTION_PREFIX}{event.call_id}"
        question = ToolRequestUserInputQuestion(
            id=question_id,
            header="Approve tool",
            question=event.reason or f"Allow the MCP server `{server}` to run its tool `{tool}`?",
            options=[
                ToolRequestUserInputOption(label=label, description=description)
                for label, (_, description) in MCP_APPROVAL_OPTIONS.items()
            ],
        )
        params = ToolRequestUserInputParams(
            thread_id=self._thread_id,
            turn_id=turn_id,
            item_id=event.call_id,
            questions=[question],
        )

        def answer(result: ToolRequestUserInputResponse | None) -> Op:
            entry = result.answers.get(question_id) if result is not None else None
            chosen = list(entry.answers) if entry is not None else []
            # Anything but a known choice (no answer, free text) is the safe reading: decline.
            decision = next(
                (MCP_APPROVAL_OPTIONS[c][0] for c in chosen if c in MCP_APPROVAL_OPTIONS),
                ReviewDecision.DENIED,
            )
            return ExecApproval(id=event.call_id, turn_id=turn_id, decision=decision)

        self._ask(
            scope or turn_id,
            APPROVAL_FLAG,
            "item/tool/requestUserInput",
            params,
            ToolRequestUserInputResponse,
            answer,
        )

    def turn_ended(self, turn_id: str) -> None:
        for scope in self._scopes.pop(turn_id, set()):
            scope.cancel()

    def cancel_all(self) -> None:
        for turn_id in list(self._scopes):
            self.turn_ended(turn_id)

    # -- one request ------------------------------------------------------------------------

    def _ask(
        self,
        scope_key: str,
        flag: ThreadActiveFlag,
        method: str,
        params: ServerRequestParams,
        result: type[Answer],
        answer: Callable[[Answer | None], Op],
    ) -> None:
        """Ask the client `method`; its result, read as `result` (None when it failed or did
        not fit), becomes the op `answer` makes of it."""
        scope = anyio.CancelScope()
        self._scopes.setdefault(scope_key, set()).add(scope)
        # The thread shows it waits on the client now, before the caller announces the item
        # the request is about; the request itself goes out from the task, after that.
        self._waiting(flag, +1)

        async def run() -> None:
            with scope:
                answered: Answer | None
                try:
                    answered = await self._client.request(method, params, result)
                except Exception as err:  # an error or malformed answer, a dead connection
                    log.warning("%s for %s failed (%s); declining", method, params.item_id, err)
                    answered = None
                finally:
                    self._waiting(flag, -1)
                    scopes = self._scopes.get(scope_key)
                    if scopes is not None:
                        scopes.discard(scope)
                await self._submit(answer(answered))

        self._spawn(run)


def _question(raw: dict[str, Any]) -> ToolRequestUserInputQuestion:
    options = raw.get("options")
    return ToolRequestUserInputQuestion(
        id=str(raw.get("id") or ""),
        header=str(raw.get("header") or ""),
        question=str(raw.get("question") or ""),
        is_other=bool(raw.get("is_other", raw.get("isOther", False))),
        is_secret=bool(raw.get("is_secret", raw.get("isSecret", False))),
        options=[
            ToolRequestUserInputOption(
                label=str(o.get("label") or ""), description=str(o.get("description") or "")
            )
            for o in options
            if isinstance(o, dict)
        ]
        if isinstance(options, list)
        else None,
    )
