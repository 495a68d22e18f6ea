"""Editor commands for code review (`workspace/executeCommand`).

* `codex.review` `[{target, threadId?, cwd?}]`: review `target` (`{type: "uncommittedChanges"}`,
  `{type: "baseBranch", branch}`, `{type: "commit", sha, title?}` or
  `{type: "custom", instructions}`) with `review/start`, on `threadId` or on a new thread rooted
  at `cwd` (default: the workspace root). Returns the `review/start` result plus `threadId`.
  The findings arrive later as diagnostics.
* `codex.fixFinding` `[{findingId, threadId?}]`: a turn on the review's thread (or on `threadId`,
  e.g. one whose policy asks before every patch, so the editor can preview the fix) that fixes
  that finding; the fix comes back like any patch (approval, then one `workspace/applyEdit`),
  and once it is applied the finding leaves the editor. Returns `{threadId, turn}`.
* `codex.explainFinding` `[{findingId}]`: a turn on the review's thread that explains the finding
  without changing files. Returns `{threadId, turn}`.

Fix and Explain run through the v2 `turn/startTask` with the finding where it is now and its
lines as the editor holds them: the thread shows "Fix: <title> (<file>:<line>)" as the user's
message, and the engine words the request to the model. Both take the turn overrides `model`,
`effort`, `approvalPolicy` and `sandboxPolicy`.
* `codex.dismissFinding` `[{findingId}]`: take the finding's diagnostic away. Returns
  `{dismissed: bool}`.

A finding id is the `data.findingId` of its diagnostic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from codex_lsp.lsp.commands import (
    command_options,
    string_option,
    task_params,
    turn_overrides,
    workspace_cwd,
)
from codex_lsp.lsp.line_tracking import split_lines
from codex_lsp.lsp.protocol import plain_handler
from codex_lsp.protocol.common import dump
from codex_lsp.protocol.jsonrpc import INVALID_PARAMS

if TYPE_CHECKING:
    from codex_lsp.lsp.diagnostics import ReviewDiagnostics
    from codex_lsp.lsp.engine_host import EngineHost
    from codex_lsp.lsp.findings import Finding
    from codex_lsp.lsp.server import CodexLanguageServer

REVIEW = "codex.review"
FIX_FINDING = "codex.fixFinding"
EXPLAIN_FINDING = "codex.explainFinding"
DISMISS_FINDING = "codex.dismissFinding"

TARGET_TYPES = ("uncommittedChanges", "baseBranch", "commit", "custom")


def finding_task(kind: str, finding: Finding, text: str | None) -> dict[str, Any]:
    """The `turn/startTask` task for a finding, at its lines as they are now (the user may have
    edited since the review), with those lines' text from the editor when it has the file."""
    task: dict[str, Any] = {
        "type": kind,
        "finding": {
            "title": finding.title,
            "body": finding.body,
            "priority": finding.priority,
            "path": finding.path,
            "lineRange": {"start": finding.start + 1, "end": finding.end + 1},
        },
    }
    if text is not None:
        task["text"] = "\n".join(split_lines(text)[finding.start : finding.end + 1]) + "\n"
    return task


class ReviewCommands:
    def __init__(
        self, server: CodexLanguageServer, host: EngineHost, diagnostics: ReviewDiagnostics
    ) -> None:
        self._server = server
        self._host = host
        self._diagnostics = diagnostics

    def register(self, server: CodexLanguageServer) -> None:
        server.command(REVIEW)(plain_handler(self.review))
        server.command(FIX_FINDING)(plain_handler(self.fix_finding))
        server.command(EXPLAIN_FINDING)(plain_handler(self.explain_finding))
        server.command(DISMISS_FINDING)(plain_handler(self.dismiss_finding))

    async def review(self, *arguments: object) -> Any:
        from pydantic import ValidationError

        from codex_lsp.api.validation import validation_message
        from codex_lsp.protocol.turns.models import ReviewStartParams

        options = command_options(REVIEW, arguments)
        target = options.get("target")
        if not isinstance(target, dict) or target.get("type") not in TARGET_TYPES:
            kinds = ", ".join(TARGET_TYPES)
            raise JsonRpcInvalidParams(f"{REVIEW}: 'target' must be an object of type {kinds}")
        thread_id = string_option(options, "threadId", REVIEW, required=False)
        if thread_id is None:
            cwd = string_option(options, "cwd", REVIEW, required=False)
            thread_id = await self._host.start_thread(cwd or workspace_cwd(self._server))
        # The target's fields are checked as `review/start` checks them; the API checks
        # whether there is anything to review.
        try:
            params = ReviewStartParams.model_validate({"threadId": thread_id, "target": target})
        except ValidationError as err:
            raise JsonRpcException(code=INVALID_PARAMS, message=validation_message(err)) from None
        started = await self._host.start_review(params)
        return {"threadId": thread_id, **dump(started)}

    async def fix_finding(self, *arguments: object) -> Any:
        return await self._finding_turn(FIX_FINDING, "fixFinding", arguments)

    async def explain_finding(self, *arguments: object) -> Any:
        return await self._finding_turn(EXPLAIN_FINDING, "explainFinding", arguments)

    async def dismiss_finding(self, *arguments: object) -> Any:
        finding_id = self._finding_id(DISMISS_FINDING, arguments)
        return {"dismissed": self._diagnostics.dismiss(finding_id) is not None}

    async def _finding_turn(self, command: str, kind: str, arguments: tuple[object, ...]) -> Any:
        finding = self._finding(command, arguments)
        options = command_options(command, arguments)
        chosen = string_option(options, "threadId", command, required=False)
        thread_id = chosen or finding.thread_id
        text = self._diagnostics.current_text(finding.uri)
        params = {"threadId": thread_id, "task": finding_task(kind, finding, text)}
        params.update(turn_overrides(options))
        started = await self._host.start_task(task_params(params))
        if kind == "fixFinding":
            self._diagnostics.fixing(thread_id, started.turn.id, finding.id)
        return {"threadId": thread_id, "turn": dump(started.turn)}

    def _finding_id(self, command: str, arguments: tuple[object, ...]) -> str:
        options = command_options(command, arguments)
        finding_id = string_option(options, "findingId", command, required=True)
        assert finding_id is not None
        return finding_id

    def _finding(self, command: str, arguments: tuple[object, ...]) -> Finding:
        finding_id = self._finding_id(command, arguments)
        finding = self._diagnostics.find(finding_id)
        if finding is None:
            raise JsonRpcInvalidParams(
                f"{command}: finding {finding_id} is no longer shown (dismissed, edited away, "
                "or replaced by a newer review); run the review again"
            )
        return finding
